// One VR: its configuration and state tables, the actions the driver offers, its interfaces, and
// live charts sampled from GET routers/{vmIndex} every few seconds. State changes come from the
// event stream at once.
import { api } from './api.js';
import { LiveChart } from './chart.js';
import { attachment, formatDelay, linkType, rateLimits } from './links.js';
import { reload, store, subscribe } from './store.js';
import {
  announce, clearProblems, confirmDialog, field, formatBytes, formatMiB, formatNumber, formatUptime, h, scrollBox,
  showProblem, statePill, toast,
} from './ui.js';

const SAMPLE_MS = 3000;
/** The actions, the admin state each asks for, and when it would change anything. */
const ACTIONS = [
  ['start', 'Start', 'running', (oper, admin) => oper !== 'running' || admin !== 'running'],
  ['stop', 'Stop', 'shutdown', (oper, admin) => oper !== 'shutdown' || admin !== 'shutdown'],
  ['pause', 'Pause', 'paused', (oper) => oper === 'running'],
  ['suspend', 'Suspend', 'suspended', (oper) => oper === 'running' || oper === 'paused'],
];

export function renderRouter(view, [indexText]) {
  const vmIndex = Number(indexText);
  const canWrite = store.canWrite();
  let vr = store.vrs.get(vmIndex) || null;
  let previous = null;
  let timer = null;
  let gone = false;

  const title = h('h1');
  const pills = h('div.head-state');
  const description = h('div.description');
  let editingDescription = false;
  const actionError = h('p.alert', { role: 'alert', hidden: true });
  const actions = h('div.actions', { role: 'toolbar', 'aria-label': 'Actions' });
  const buttons = {};
  if (canWrite) {
    for (const [name, label, target] of ACTIONS) {
      if (!store.session.adminStates.includes(target)) continue;
      buttons[name] = h('button.btn', { type: 'button', 'data-action': name, onclick: () => act(name, label) }, label);
      actions.append(buttons[name]);
    }
    actions.append(h('button.btn.btn-danger', { type: 'button', 'data-action': 'delete', onclick: remove }, 'Delete'));
  }
  const config = h('dl.facts');
  const state = h('dl.facts');
  const routing = h('dl.facts');
  const interfaces = h('tbody');
  const cpus = h('tbody');
  const storage = h('tbody');
  const charts = h('div.charts');
  const linkForm = canWrite ? addInterfaceForm() : null;
  const cpuChart = new LiveChart(charts, { title: 'CPU use', format: (v) => v.toFixed(1) + ' %' });
  const trafficChart = new LiveChart(charts, { title: 'Interface traffic', format: bitsPerSecond });
  const diskChart = new LiveChart(charts, { title: 'Disk I/O', format: (v) => formatBytes(v) + '/s' });

  view.append(
    crumbs(vr ? vr.vmName : '#' + vmIndex),
    h('div.page-head', {}, h('div', {}, title, pills, description), actions),
    actionError,
    h('div.cards', {},
      h('section.card', { 'aria-labelledby': 'h-config' }, h('h2', { id: 'h-config' }, 'Configuration'), config),
      h('section.card', { 'aria-labelledby': 'h-state' }, h('h2', { id: 'h-state' }, 'State'), state),
      h('section.card', { 'aria-labelledby': 'h-routing' }, h('h2', { id: 'h-routing' }, 'Routing'), routing)),
    h('section.card', { 'aria-labelledby': 'h-charts' }, h('h2', { id: 'h-charts' }, 'Activity'), charts),
    h('section.card', { 'aria-labelledby': 'h-if' }, h('h2', { id: 'h-if' }, 'Interfaces'),
      scrollBox('Interfaces', h('table.grid', {}, h('caption.visually-hidden', {}, 'Interfaces: vmNetworkConfigTable with vmNetworkTable'),
        h('thead', {}, h('tr', {}, ['Index', 'Attached to', 'Link', 'MAC', 'Address', 'Model', 'Host ifIndex', canWrite ? 'Actions' : null]
          .filter(Boolean).map((c) => h('th', { scope: 'col' }, c)))), interfaces)),
      linkForm),
    h('div.cards.cards-2', {},
      h('section.card', { 'aria-labelledby': 'h-cpu' }, h('h2', { id: 'h-cpu' }, 'CPUs'),
        scrollBox('CPUs', h('table.grid', {}, h('caption.visually-hidden', {}, 'vmCpuTable'),
          h('thead', {}, h('tr', {}, ['vCPU', 'CPU time', 'Physical CPU', 'Affinity'].map((c) => h('th', { scope: 'col' }, c)))), cpus))),
      h('section.card', { 'aria-labelledby': 'h-storage' }, h('h2', { id: 'h-storage' }, 'Storage'),
        scrollBox('Storage', h('table.grid', {}, h('caption.visually-hidden', {}, 'vmStorageTable'),
          h('thead', {}, h('tr', {}, ['Disk', 'Resource', 'Type', 'Size', 'Read', 'Written'].map((c) => h('th', { scope: 'col' }, c)))), storage)))));

  function facts(dl, pairs) {
    dl.replaceChildren(...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '—')]));
  }

  function draw() {
    if (!vr) return;
    const e = vr.vmEntry || {};
    document.title = vr.vmName + ' · vrouter';
    title.textContent = vr.vmName;
    view.querySelector('.crumbs [aria-current]').textContent = vr.vmName;
    pills.replaceChildren(statePill(e.vmOperState), h('span.admin', {}, 'admin ' + (vr.vmAdminState || '—')),
      h('span.admin', {}, 'vmIndex ' + vr.vmIndex));
    if (e.vmOperState === 'crashed' && e.vmOperStateReason) pills.append(h('p.reason', {}, 'Crashed: ' + e.vmOperStateReason));
    if (!editingDescription) showDescription();
    for (const [name, , , useful] of ACTIONS) {
      if (buttons[name]) buttons[name].disabled = gone || !useful(e.vmOperState, vr.vmAdminState);
    }
    facts(config, [
      ['Template', vr.vmConfigTemplate], ['CPUs', vr.vmConfigCpuNumber], ['Memory', formatMiB(vr.vmConfigMemory)],
      ['Auto-start', vr.vmConfigAutoStart === undefined ? null : vr.vmConfigAutoStart ? 'yes' : 'no'],
      ['Admin state', vr.vmAdminState], ['UUID', e.vmUUID]]);
    const unit = e.vmMemUnit || 1;
    facts(state, [
      ['Oper state', e.vmOperState], ['Uptime', formatUptime(e.vmOperState === 'running' || e.vmOperState === 'paused' ? (e.vmUpTime || 0) / 100 : null)],
      ['CPU time', e.vmCpuTime == null ? null : (e.vmCpuTime / 1e6).toFixed(2) + ' s'],
      ['CPUs now', e.vmCurCpuNumber], ['Memory now', e.vmCurMem == null ? null : formatBytes(e.vmCurMem * unit)],
      ['OS type', e.vmOSType]]);
    facts(routing, [
      ['Router address', e.vmRouterAddr], ['Route entries', formatNumber(e.vmRouteEntries)],
      ['FIB entries', formatNumber(e.vmFibEntries)], ['Protocols', e.vmRoutingProtocols || 'none']]);
    const live = new Map((vr.vmNetworkTable || []).map((n) => [n.vmNetworkIndex, n]));
    interfaces.replaceChildren(...(vr.vmNetworkConfigTable || []).map((n) => {
      const s = live.get(n.vmNetworkConfigIndex) || {};
      return h('tr', { 'data-interface': n.vmNetworkConfigIndex },
        h('td.num', {}, n.vmNetworkConfigIndex), h('td', {}, attachment(n)), h('td', {}, linkHealth(n, s)),
        h('td.mono', {}, s.vmNetworkPhysAddress || n.vmNetworkConfigPhysAddress || '—'),
        h('td.mono', {}, n.vmNetworkConfigAddress ? n.vmNetworkConfigAddress + '/' + n.vmNetworkConfigPrefixLength : '—'),
        h('td', {}, s.vmNetworkModel || '—'), h('td.num', {}, s.vmNetworkIfIndex ?? '—'),
        canWrite ? h('td', {}, h('button.btn.btn-small', { type: 'button', onclick: () => removeInterface(n),
          'aria-label': `Remove interface ${n.vmNetworkConfigIndex} (${attachment(n)})` }, 'Remove')) : null);
    }));
    if (!interfaces.children.length) interfaces.append(h('tr', {}, h('td.muted', { colspan: canWrite ? 8 : 7 }, 'No interfaces.')));
    if (linkForm) linkForm.update();
    cpus.replaceChildren(...(vr.vmCpuTable || []).map((c) => h('tr', {}, h('td.num', {}, c.vmCpuIndex),
      h('td.num', {}, c.vmCpuCoreTime == null ? '—' : (c.vmCpuCoreTime / 1e6).toFixed(2) + ' s'),
      h('td.num', {}, c.vmCpuPhysIndex || 'any'), h('td', {}, c.vmCpuAffinity || '—'))));
    if (!cpus.children.length) cpus.append(h('tr', {}, h('td.muted', { colspan: 4 }, 'No virtual CPU is running.')));
    storage.replaceChildren(...(vr.vmStorageTable || []).map((d) => h('tr', {}, h('td.num', {}, d.vmStorageIndex),
      h('td.mono', {}, d.vmStorageResourceID || '—'), h('td', {}, d.vmStorageMediaTypeString || d.vmStorageSourceTypeString || '—'),
      h('td.num', {}, d.vmStorageDefinedSize == null ? '—' : formatBytes(d.vmStorageDefinedSize * (d.vmStorageSizeUnit || 1))),
      h('td.num', {}, formatBytes(d.vmStorageReadOctets)), h('td.num', {}, formatBytes(d.vmStorageWriteOctets)))));
    if (!storage.children.length) storage.append(h('tr', {}, h('td.muted', { colspan: 6 }, 'No storage.')));
  }

  /** One sample for the charts: rates from the difference with the previous reading. */
  function sample(now) {
    const t = Date.now() / 1000;
    if (previous) {
      const dt = t - previous.t;
      const e = now.vmEntry || {};
      const cpusNow = e.vmCurCpuNumber || now.vmConfigCpuNumber || 1;
      const cpu = e.vmCpuTime == null || previous.vr.vmEntry?.vmCpuTime == null ? 0
        : Math.max(0, (e.vmCpuTime - previous.vr.vmEntry.vmCpuTime) / 1e6 / dt / cpusNow * 100);
      cpuChart.push(t, { CPU: cpu });
      const traffic = rates(counters(now), counters(previous.vr), dt, 8);
      if (Object.keys(traffic).length) trafficChart.push(t, traffic);
      else trafficChart.note(`The '${store.session.driver}' driver reports no traffic counters for this VR's interfaces.`);
      diskChart.push(t, rates(disk(now), disk(previous.vr), dt, 1));
    }
    previous = { t, vr: now };
  }

  async function poll() {
    timer = null;
    try {
      const seenBefore = store.vrs.get(vmIndex)?._seq;
      const fresh = await api('GET', 'routers/' + vmIndex);
      if (gone) return;
      // An event that came while the answer was on its way is newer than the answer's state.
      const known = store.vrs.get(vmIndex);
      if (known && known._seq !== seenBefore && fresh.vmEntry) {
        fresh.vmAdminState = known.vmAdminState;
        fresh.vmEntry.vmOperState = known.vmEntry.vmOperState;
        fresh.vmEntry.vmOperStateReason = known.vmEntry.vmOperStateReason;
      }
      vr = fresh;
      draw();
      sample(fresh);
    } catch (problem) {
      if (problem.status === 404) return vanished();
    }
    if (!gone) timer = setTimeout(poll, SAMPLE_MS);
  }

  /**
   * The VR is gone, or was never one this user may see (another tenant's is a 404 too): its page is
   * the message and the way back alone, none of the actions, cards, charts or forms of a VR to act on.
   */
  function vanished() {
    gone = true;
    if (timer) clearTimeout(timer);
    const name = vr ? vr.vmName : 'VR #' + vmIndex;
    document.title = name + ' · vrouter';
    view.replaceChildren(
      crumbs(name),
      h('div.page-head', {}, h('h1', {}, name)),
      h('p.alert.vr-gone', { role: 'alert' }, vr ? 'This VR no longer exists. ' : `There is no VR #${vmIndex}, or it is not yours to see. `,
        h('a', { href: '#/' }, 'Back to the list.')));
  }

  async function act(name, label) {
    actionError.hidden = true;
    try {
      // The answer is the VR as accepted; the events that follow may already be here and newer,
      // so the state shown comes from them and from a fresh read, not from the answer.
      const answer = await api('POST', `routers/${vmIndex}/${name}`);
      announce(`${label}: accepted for ${answer.vmName}`);
      refreshNow();
    } catch (problem) {
      actionError.hidden = false;
      actionError.textContent = `${label} refused: ${problem.message}`;
    }
  }

  async function remove() {
    const ok = await confirmDialog({ title: `Delete ${vr.vmName}?`, confirm: 'Delete',
      text: 'The VR is shut down and removed from the host, with its interfaces. This cannot be undone.' });
    if (!ok) return;
    try {
      await api('DELETE', 'routers/' + vmIndex);
      toast(`${vr.vmName} is being deleted.`);
      location.hash = '#/';
    } catch (problem) {
      actionError.hidden = false;
      actionError.textContent = 'Delete refused: ' + problem.message;
    }
  }

  async function removeInterface(n) {
    const ok = await confirmDialog({ title: `Remove interface ${n.vmNetworkConfigIndex}?`, confirm: 'Remove',
      text: `The interface (${attachment(n)}) is unplugged from ${vr.vmName}.` });
    if (!ok) return;
    try {
      await api('DELETE', `routers/${vmIndex}/interfaces/${n.vmNetworkConfigIndex}`);
      toast(`Interface ${n.vmNetworkConfigIndex} removed.`);
      refreshNow();
    } catch (problem) {
      actionError.hidden = false;
      actionError.textContent = 'Remove refused: ' + problem.message;
    }
  }

  /**
   * Adds an interface: on a host network (bridge), a peer link to another VR's interface on this
   * router, or a VXLAN link to another router; with optional rate limits. The fields of the other
   * link types are hidden and not sent; the server's refusal is shown beside the field it names.
   */
  function addInterfaceForm() {
    const typeField = field({ label: 'Link', name: 'vmNetworkConfigLinkType', value: 'bridge',
      hint: 'bridge: a host network; peer: a VR on this router; vxlan: another router.', options: ['bridge', 'peer', 'vxlan'] });
    const parentField = field({ label: 'Network', name: 'vmNetworkConfigParent', attrs: { placeholder: 'xenbr0', required: true } });
    const peerRouterField = field({ label: 'Far VR', name: 'vmNetworkConfigPeerRouter', options: [] });
    const fields = [
      [typeField, null],
      [parentField, ['bridge', 'vxlan']],
      [peerRouterField, ['peer']],
      [field({ label: 'Far interface', name: 'vmNetworkConfigPeerInterface', type: 'number', attrs: { min: 1, max: 65535 } }), ['peer']],
      [field({ label: 'VNI', name: 'vmNetworkConfigVni', type: 'number', attrs: { min: 1, max: 16777215 } }), ['vxlan']],
      [field({ label: 'Remote router', name: 'vmNetworkConfigRemote', attrs: { placeholder: '203.0.113.2' } }), ['vxlan']],
      [field({ label: 'Address', name: 'vmNetworkConfigAddress', attrs: { placeholder: '192.0.2.1' } }), null],
      [field({ label: 'Prefix', name: 'vmNetworkConfigPrefixLength', type: 'number', attrs: { min: 0, max: 128 } }), null],
      [field({ label: 'MAC', name: 'vmNetworkConfigPhysAddress', attrs: { placeholder: 'generated' } }), null],
      [field({ label: 'Rate in (kbit/s)', name: 'vmNetworkConfigRateIn', type: 'number', attrs: { min: 64, placeholder: 'no limit' } }), null],
      [field({ label: 'Rate out (kbit/s)', name: 'vmNetworkConfigRateOut', type: 'number', attrs: { min: 64, placeholder: 'no limit' } }), null],
    ];
    const typeInput = typeField.querySelector('select');
    const farInput = peerRouterField.querySelector('select');
    const peerHint = h('p.hint', {}, 'A peer link is declared at both ends: here the far VR and the index its interface has'
      + ' (or will have), there this VR and this interface\'s index. It is up once both ends are declared and both VRs run.');
    const form = h('form.inline-form', { novalidate: true, 'aria-labelledby': 'h-add-if' },
      h('h3', { id: 'h-add-if' }, 'Add an interface or a link'),
      h('div.form-row.link-row', {}, fields.map(([f]) => f),
        h('div.field.field-submit', {}, h('button.btn', { type: 'submit' }, 'Add interface'))),
      peerHint,
      h('p.form-summary', { role: 'alert', tabindex: '-1' }));
    function showType() {
      const type = typeInput.value;
      for (const [f, types] of fields) f.hidden = types !== null && !types.includes(type);
      peerHint.hidden = type !== 'peer';
      // On a VXLAN link the parent is the underlay device the tunnel leaves by.
      parentField.querySelector('label').textContent = type === 'vxlan' ? 'Underlay device' : 'Network';
      parentField.querySelector('input').placeholder = type === 'vxlan' ? 'eth0' : 'xenbr0';
    }
    typeInput.addEventListener('change', () => {
      clearProblems(form);
      showType();
    });
    form.update = () => {
      // Every VR the caller sees, this one too: which may be linked is the server's to say.
      const chosen = farInput.value;
      const vrs = [...store.vrs.values()].sort((a, b) => a.vmName.localeCompare(b.vmName));
      const options = vrs.map((v) => [String(v.vmIndex), `${v.vmName} (${v.vmIndex})`]);
      if (options.map(String).join() === farInput.dataset.options) return;
      farInput.dataset.options = options.map(String).join();
      farInput.replaceChildren(...options.map(([value, text]) => h('option', { value, selected: value === chosen }, text)));
    };
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearProblems(form);
      const body = {};
      for (const [f] of fields.filter(([f]) => !f.hidden)) {
        const input = f.querySelector('[data-field]');
        if (input.value.trim() === '' || (input === typeInput && input.value === 'bridge')) continue;
        body[input.name] = input.type === 'number' || input === farInput ? Number(input.value) : input.value.trim();
      }
      try {
        const added = await api('POST', `routers/${vmIndex}/interfaces`, body);
        form.reset();
        showType();
        toast(`Interface ${added.vmNetworkConfigIndex} added: ${attachment(added)}.`);
        refreshNow();
      } catch (problem) {
        showProblem(form, problem);
      }
    });
    showType();
    form.update();
    return form;
  }

  /**
   * vmConfigDescription: its text, and for an operator a button that turns it into a form. Both are
   * kept and changed in place, so that a redraw does not take the keyboard's focus from the button.
   */
  const descriptionText = h('p.description-text');
  const describeButton = canWrite
    ? h('button.btn.btn-small', { type: 'button', 'data-action': 'describe', onclick: editDescription }, 'Edit description') : null;
  function showDescription() {
    const text = vr.vmConfigDescription;
    descriptionText.textContent = text || 'No description.';
    descriptionText.classList.toggle('muted', !text);
    if (describeButton) describeButton.hidden = gone;
    if (!description.contains(descriptionText)) description.replaceChildren(...[descriptionText, describeButton].filter(Boolean));
  }

  function editDescription() {
    editingDescription = true;
    const form = h('form.description-form', { novalidate: true },
      field({ label: 'Description', name: 'vmConfigDescription', value: vr.vmConfigDescription || '',
        hint: 'Free text for operators, up to 255 octets of UTF-8; empty removes it.', attrs: { autocomplete: 'off' } }),
      h('p.form-summary', { role: 'alert', tabindex: '-1' }),
      h('div.actions', {}, h('button.btn.btn-primary.btn-small', { type: 'submit' }, 'Save'),
        h('button.btn.btn-small', { type: 'button', onclick: close }, 'Cancel')));
    const input = form.querySelector('input');
    function close() {
      editingDescription = false;
      showDescription();
      describeButton.focus();
    }
    form.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') close();
    });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      clearProblems(form);
      try {
        const saved = await api('PATCH', 'routers/' + vmIndex, { vmConfigDescription: input.value.trim() });
        vr.vmConfigDescription = saved.vmConfigDescription;
        toast('Description saved.');
        close();
        refreshNow();
      } catch (problem) {
        showProblem(form, problem);
      }
    });
    description.replaceChildren(form);
    input.focus();
  }

  function refreshNow() {
    if (timer) clearTimeout(timer);
    if (!gone) poll();
  }

  // An event for this VR: draw what it says now, then read the rest.
  let soon = null;
  const unsubscribe = subscribe((change) => {
    if (change.kind !== 'vr' || change.vmIndex !== vmIndex || gone) return;
    const known = store.vrs.get(vmIndex);
    if (!known) return vanished();
    if (vr && known.vmEntry.vmOperState !== vr.vmEntry?.vmOperState) announce(`${known.vmName} is ${known.vmEntry.vmOperState}`);
    if (vr) {
      vr.vmAdminState = known.vmAdminState;
      vr.vmName = known.vmName;
      vr.vmEntry = Object.assign(vr.vmEntry || {}, {
        vmOperState: known.vmEntry.vmOperState, vmOperStateReason: known.vmEntry.vmOperStateReason });
      draw();
    }
    if (!soon) soon = setTimeout(() => { soon = null; refreshNow(); }, 200);
  });

  draw();
  poll();
  return () => {
    gone = true;
    if (timer) clearTimeout(timer);
    if (soon) clearTimeout(soon);
    unsubscribe();
    for (const c of [cpuChart, trafficChart, diskChart]) c.destroy();
  };
}

/** The way back to the list, and where this page is. */
function crumbs(name) {
  return h('nav.crumbs', { 'aria-label': 'Breadcrumb' }, h('a', { href: '#/' }, 'Virtual routers'),
    h('span', { 'aria-hidden': 'true' }, ' / '), h('span', { 'aria-current': 'page' }, name));
}

/** The interfaces' byte counters (vmNetworkInOctets, vmNetworkOutOctets), where the driver counts. */
function counters(vr) {
  const out = {};
  for (const n of vr.vmNetworkTable || []) {
    if (typeof n.vmNetworkInOctets === 'number') out[`if${n.vmNetworkIndex} in`] = n.vmNetworkInOctets;
    if (typeof n.vmNetworkOutOctets === 'number') out[`if${n.vmNetworkIndex} out`] = n.vmNetworkOutOctets;
  }
  return out;
}

function disk(vr) {
  let read = 0;
  let written = 0;
  for (const d of vr.vmStorageTable || []) {
    read += d.vmStorageReadOctets || 0;
    written += d.vmStorageWriteOctets || 0;
  }
  return { read, written };
}

function rates(now, before, dt, scale) {
  const out = {};
  for (const [k, v] of Object.entries(now)) {
    out[k] = k in before && dt > 0 ? Math.max(0, (v - before[k]) / dt) * scale : 0;
  }
  return out;
}

/** A link's health as measured (peer and VXLAN ends) and the interface's rate limits: "up · 0.04 ms · 0 % lost". */
function linkHealth(n, state) {
  const measured = linkType(n) === 'peer' || linkType(n) === 'vxlan';
  const status = state.vmNetworkLinkStatus || 'unknown';
  const words = [measured ? status : null, formatDelay(state.vmNetworkLinkDelay),
    state.vmNetworkLinkLoss != null ? state.vmNetworkLinkLoss + ' % lost' : null, rateLimits(n)].filter(Boolean);
  return words.length ? h('span', { 'data-link-status': measured ? status : null }, words.join(' · ')) : '—';
}

function bitsPerSecond(v) {
  const units = ['bit/s', 'kbit/s', 'Mbit/s', 'Gbit/s'];
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return (i ? v.toFixed(1) : Math.round(v)) + ' ' + units[i];
}
