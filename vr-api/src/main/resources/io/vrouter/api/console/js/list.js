// The VR list: one list call (done by the store at login), then live from the event stream. Rows are
// kept per vmIndex and changed in place, so an event touches one row, not the table.
import { OPER_STATES, store, subscribe, uptimeSeconds } from './store.js';
import { formatMiB, formatUptime, h, nameMatcher, statePill } from './ui.js';

const COLUMNS = [
  ['vmName', 'Name', (vr) => (vr.vmName || '').toLowerCase()],
  ['vmIndex', 'Index', (vr) => vr.vmIndex],
  ['state', 'State', (vr) => OPER_STATES.indexOf(vr.vmEntry?.vmOperState)],
  ['cpus', 'CPUs', (vr) => vr.vmConfigCpuNumber ?? 0],
  ['memory', 'Memory', (vr) => vr.vmConfigMemory ?? 0],
  ['interfaces', 'Interfaces', (vr) => (vr.vmNetworkConfigTable || []).length],
  ['uptime', 'Uptime', (vr) => uptimeSeconds(vr) ?? -1],
];

export function renderList(view) {
  document.title = 'Virtual routers · vrouter';
  const query = new URLSearchParams(location.hash.split('?')[1] || '');
  const filter = { name: query.get('name') || '', state: query.get('state') || '' };
  let sort = { key: 'vmIndex', dir: 1 };
  const rows = new Map();

  const summary = h('p.summary', { id: 'list-summary' });
  const nameInput = h('input', { id: 'filter-name', type: 'search', value: filter.name, placeholder: 'edge*',
    autocomplete: 'off', 'data-filter': true, 'aria-describedby': 'list-summary' });
  const stateSelect = h('select', { id: 'filter-state' },
    h('option', { value: '' }, 'All states'),
    OPER_STATES.map((s) => h('option', { value: s, selected: s === filter.state }, s)));
  const headRow = h('tr', {}, COLUMNS.map(([key, label]) => h('th', { scope: 'col', 'data-key': key },
    h('button.sort', { type: 'button', onclick: () => sortBy(key) }, label, h('span.sort-mark', { 'aria-hidden': 'true' })))));
  const tbody = h('tbody');
  const empty = h('p.empty', { hidden: true });
  const table = h('table.grid.vr-table', {},
    h('caption.visually-hidden', {}, 'Virtual routers, sortable by column'), h('thead', {}, headRow), tbody);

  view.append(
    h('div.page-head', {},
      h('div', {}, h('h1', {}, 'Virtual routers'), summary),
      store.canWrite() ? h('a.btn.btn-primary', { href: '#/create' }, 'Create VR') : null),
    h('div.toolbar', { role: 'search' },
      h('div.field.field-inline', {}, h('label', { for: 'filter-name' }, 'Filter by name'), nameInput),
      h('div.field.field-inline', {}, h('label', { for: 'filter-state' }, 'State'), stateSelect)),
    h('div.card.table-card', {}, table, empty));

  function cells(vr) {
    const e = vr.vmEntry || {};
    const ifaces = vr.vmNetworkConfigTable || [];
    const parents = [...new Set(ifaces.map((n) => n.vmNetworkConfigParent))].join(', ');
    return [
      h('td', {}, h('a.vr-link', { href: '#/vr/' + vr.vmIndex }, vr.vmName)),
      h('td.num', {}, vr.vmIndex),
      h('td', {},
        h('div.state-line', {}, statePill(e.vmOperState),
          vr.vmAdminState && vr.vmAdminState !== e.vmOperState ? h('span.admin', {}, 'admin ' + vr.vmAdminState) : null),
        e.vmOperState === 'crashed' && e.vmOperStateReason ? h('div.reason', {}, e.vmOperStateReason) : null),
      h('td.num', {}, vr.vmConfigCpuNumber ?? '—'),
      h('td.num', {}, formatMiB(vr.vmConfigMemory)),
      h('td', {}, ifaces.length ? h('span', { title: parents }, ifaces.length + ' · ' + parents) : h('span.muted', {}, 'none')),
      h('td.num.uptime', {}, formatUptime(uptimeSeconds(vr))),
    ];
  }

  let nameMatches = nameMatcher(filter.name);
  function matches(vr) {
    if (filter.state && vr.vmEntry?.vmOperState !== filter.state) return false;
    return nameMatches(vr.vmName);
  }

  function rowFor(vr) {
    let tr = rows.get(vr.vmIndex);
    if (!tr) {
      tr = h('tr', { 'data-index': vr.vmIndex });
      rows.set(vr.vmIndex, tr);
    }
    tr.replaceChildren(...cells(vr));
    tr.dataset.state = vr.vmEntry?.vmOperState || 'unknown';
    tr.hidden = !matches(vr);
    return tr;
  }

  function compare(a, b) {
    const key = COLUMNS.find((c) => c[0] === sort.key)[2];
    const x = key(a);
    const y = key(b);
    return (x < y ? -1 : x > y ? 1 : a.vmIndex - b.vmIndex) * sort.dir;
  }

  function ordered() {
    return [...store.vrs.values()].sort(compare);
  }

  function renderAll() {
    rows.clear();
    const fragment = document.createDocumentFragment();
    for (const vr of ordered()) fragment.append(rowFor(vr));
    tbody.replaceChildren(fragment);
    refreshSummary();
    for (const th of headRow.children) {
      th.setAttribute('aria-sort', th.dataset.key === sort.key ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none');
    }
  }

  function refreshSummary() {
    const counts = {};
    let shown = 0;
    for (const vr of store.vrs.values()) {
      const s = vr.vmEntry?.vmOperState || 'unknown';
      counts[s] = (counts[s] || 0) + 1;
    }
    for (const tr of rows.values()) if (!tr.hidden) shown++;
    const total = store.vrs.size;
    const parts = [`${total.toLocaleString('en')} VR${total === 1 ? '' : 's'}`];
    for (const s of ['running', 'crashed', 'shutdown', 'paused', 'suspended']) {
      if (counts[s]) parts.push(`${counts[s].toLocaleString('en')} ${s}`);
    }
    if (shown !== total) parts.push(`${shown.toLocaleString('en')} shown`);
    summary.textContent = parts.join(' · ');
    empty.hidden = shown > 0;
    empty.replaceChildren(total === 0
      ? (store.canWrite() ? ['No VRs yet. ', h('a', { href: '#/create' }, 'Create the first one.')] : 'No VRs yet.')
      : 'No VR matches the filter.');
  }

  function applyFilter() {
    for (const [index, tr] of rows) tr.hidden = !matches(store.vrs.get(index));
    refreshSummary();
    const q = new URLSearchParams();
    if (filter.name) q.set('name', filter.name);
    if (filter.state) q.set('state', filter.state);
    history.replaceState(null, '', '#/' + (q.toString() ? '?' + q : ''));
  }

  function sortBy(key) {
    sort = { key, dir: sort.key === key ? -sort.dir : 1 };
    renderAll();
  }

  nameInput.addEventListener('input', () => {
    filter.name = nameInput.value.trim();
    nameMatches = nameMatcher(filter.name);
    applyFilter();
  });
  stateSelect.addEventListener('change', () => {
    filter.state = stateSelect.value;
    applyFilter();
  });

  // Changed rows in place; new rows go where the sort puts them; a whole relist redraws.
  const unsubscribe = subscribe((change) => {
    if (change.kind === 'all') return renderAll();
    if (change.kind !== 'vr') return;
    const vr = store.vrs.get(change.vmIndex);
    const tr = rows.get(change.vmIndex);
    if (!vr) {
      if (tr) tr.remove();
      rows.delete(change.vmIndex);
    } else if (tr) {
      rowFor(vr);
    } else {
      const row = rowFor(vr);
      let next = null;
      for (const other of tbody.children) {
        if (compare(store.vrs.get(Number(other.dataset.index)), vr) > 0) {
          next = other;
          break;
        }
      }
      tbody.insertBefore(row, next);
    }
    refreshSummary();
  });

  // Uptimes tick without a request.
  const ticker = setInterval(() => {
    for (const [index, tr] of rows) {
      if (tr.hidden || (tr.dataset.state !== 'running' && tr.dataset.state !== 'paused')) continue;
      const cell = tr.lastChild;
      const text = formatUptime(uptimeSeconds(store.vrs.get(index)));
      if (cell.textContent !== text) cell.textContent = text;
    }
  }, 1000);

  if (store.loaded) {
    renderAll();
    requestAnimationFrame(() => setTimeout(() => performance.mark('vr:list-painted'), 0));
  }
  return () => {
    unsubscribe();
    clearInterval(ticker);
  };
}
