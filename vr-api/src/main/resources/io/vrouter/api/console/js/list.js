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

const FIRST_ROWS = 50;
const CHUNK = 250;

export function renderList(view) {
  document.title = 'Virtual routers · vrouter';
  const filter = filterInAddress();
  let sort = { key: 'vmIndex', dir: 1 };
  const rows = new Map();

  // Element Timing: the browser reports when the list's first text is painted (the first-paint benchmark).
  const summary = h('p.summary', { id: 'list-summary', elementtiming: 'vr-list' });
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
      h('td', {}, h('a.vr-link', { href: '#/vr/' + vr.vmIndex }, vr.vmName),
        vr.vmConfigDescription ? h('div.vr-description', { title: vr.vmConfigDescription }, vr.vmConfigDescription) : null),
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

  // The first screenful of rows is drawn at once and painted; the rest follow in chunks, a task
  // each, so that a thousand VRs do not hold the first paint back.
  let generation = 0;
  let pending = false;
  let changedWhilePending = false;
  function renderAll() {
    const mine = ++generation;
    pending = true;
    changedWhilePending = false;
    rows.clear();
    const order = ordered();
    const fragment = document.createDocumentFragment();
    for (const vr of order.slice(0, FIRST_ROWS)) fragment.append(rowFor(vr));
    tbody.replaceChildren(fragment);
    refreshSummary();
    for (const th of headRow.children) {
      th.setAttribute('aria-sort', th.dataset.key === sort.key ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none');
    }
    let next = FIRST_ROWS;
    const more = () => {
      if (mine !== generation) return;
      const chunk = document.createDocumentFragment();
      for (const vr of order.slice(next, next + CHUNK)) if (store.vrs.has(vr.vmIndex)) chunk.append(rowFor(vr));
      tbody.append(chunk);
      next += CHUNK;
      if (next < order.length) return setTimeout(more, 0);
      pending = false;
      performance.mark('vr:list-complete');
      if (changedWhilePending) renderAll();
    };
    // The rest after the first frame: the browser paints the first screenful before building more.
    if (next < order.length) requestAnimationFrame(() => setTimeout(more, 0));
    else pending = false;
  }

  function refreshSummary() {
    const counts = {};
    let shown = 0;
    for (const vr of store.vrs.values()) {
      const s = vr.vmEntry?.vmOperState || 'unknown';
      counts[s] = (counts[s] || 0) + 1;
      if (matches(vr)) shown++;
    }
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

  function refilter() {
    for (const [index, tr] of rows) tr.hidden = !matches(store.vrs.get(index));
    refreshSummary();
  }

  /** The filter as typed: shown at once, and kept in the address (replaced, not a new history entry per key). */
  function applyFilter() {
    refilter();
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

  // A filter given in the address (typed there, from a link, or reached with Back): the list follows it.
  // The route stays the list, so main.js does not draw the page again; this listener goes with the page.
  function followAddress() {
    if (!/^#?\/?(\?|$)/.test(location.hash)) return;
    const wanted = filterInAddress();
    if (wanted.name === filter.name && wanted.state === filter.state) return;
    Object.assign(filter, wanted);
    nameInput.value = filter.name;
    stateSelect.value = filter.state;
    nameMatches = nameMatcher(filter.name);
    refilter();
  }
  window.addEventListener('hashchange', followAddress);

  // Changed rows in place; new rows go where the sort puts them; a whole relist redraws.
  const unsubscribe = subscribe((change) => {
    if (change.kind === 'all') return renderAll();
    if (change.kind !== 'vr') return;
    if (pending) {
      changedWhilePending = true;
      return refreshSummary();
    }
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
    performance.mark('vr:list-rendered');
  }
  return () => {
    generation++;
    window.removeEventListener('hashchange', followAddress);
    unsubscribe();
    clearInterval(ticker);
  };
}

/** The list's filter in the address: #/?name=edge*&state=running. */
function filterInAddress() {
  const query = new URLSearchParams(location.hash.split('?')[1] || '');
  return { name: query.get('name') || '', state: query.get('state') || '' };
}
