// The host: the vmHypervisor group, the VRs counted by state (live), the driver and its readiness,
// the tenants with their usage against their quotas, the peers (the routers VRs may move to) and
// whether they answer, and the events seen since login. A tenant's user sees the host through its
// tenant: its VRs' counts, its own tenant alone, the peers by name only.
import { api, health } from './api.js';
import { OPER_STATES, store, subscribe } from './store.js';
import { formatMiB, formatNumber, formatUptime, h, scrollBox, statePill } from './ui.js';

const REFRESH_MS = 5000;
const LOG_ROWS = 200;

export function renderHost(view) {
  document.title = 'Host · vrouter';
  const hypervisor = h('dl.facts');
  const driver = h('dl.facts');
  const counts = h('ul.counts');
  const log = h('tbody');
  const tenantRows = h('tbody');
  const tenants = h('section.card', { 'aria-labelledby': 'h-tenants', hidden: true }, h('h2', { id: 'h-tenants' }, 'Tenants'),
    h('p.summary', {}, store.session.tenant ? 'What your tenant\'s VRs commit, against its quotas.'
      : 'What each tenant\'s VRs commit, against its quotas (every VR counts, whatever its state).'),
    scrollBox('Tenants', h('table.grid.tenants', {}, h('caption.visually-hidden', {}, 'Tenants, their usage and quotas'),
      h('thead', {}, h('tr', {}, ['Tenant', 'VRs', 'vCPUs', 'Memory'].map((c) => h('th', { scope: 'col' }, c)))),
      tenantRows)));
  const peerRows = h('tbody');
  const peers = h('section.card', { 'aria-labelledby': 'h-peers', hidden: true }, h('h2', { id: 'h-peers' }, 'Peers'),
    h('p.summary', {}, 'The routers this one may move VRs to, and whether their /health answers.'),
    scrollBox('Peers', h('table.grid.peers', {}, h('caption.visually-hidden', {}, 'Peers and their reachability'),
      h('thead', {}, h('tr', {}, ['Peer', 'Reachable', 'Address', 'Why not'].map((c) => h('th', { scope: 'col' }, c)))),
      peerRows)));
  view.append(
    h('div.page-head', {}, h('div', {}, h('h1', {}, 'Host'),
      h('p.summary', {}, 'The hypervisor this vrouter manages, its driver, its tenants, its peers, and what happened since you signed in.'))),
    h('div.cards', {},
      h('section.card', { 'aria-labelledby': 'h-hv' }, h('h2', { id: 'h-hv' }, 'Hypervisor'), hypervisor),
      h('section.card', { 'aria-labelledby': 'h-driver' }, h('h2', { id: 'h-driver' }, 'Driver'), driver),
      h('section.card', { 'aria-labelledby': 'h-counts' }, h('h2', { id: 'h-counts' }, 'VRs by state'), counts)),
    tenants,
    peers,
    h('section.card', { 'aria-labelledby': 'h-log' }, h('h2', { id: 'h-log' }, 'Event log'),
      scrollBox('Event log', h('table.grid', {}, h('caption.visually-hidden', {}, 'Events, newest first'),
        h('thead', {}, h('tr', {}, ['Time', 'VR', 'Event', 'State', 'Reason'].map((c) => h('th', { scope: 'col' }, c)))),
        log))));

  const facts = (dl, pairs) => dl.replaceChildren(...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '—')]));

  /** One amount against its quota: "1 of 2" with a meter, or the amount alone where there is no limit. */
  function usage(tenant, what, used, quota, format) {
    if (quota === undefined || quota === null) return h('td', {}, format(used), h('span.muted', {}, ' (no limit)'));
    return h('td', {}, h('span.usage', {}, format(used) + ' of ' + format(quota)),
      h('meter', { min: 0, max: quota || 1, high: quota * 0.8 || 1, optimum: 0, value: used, 'aria-label': tenant + ' ' + what }));
  }

  function drawTenants(list) {
    tenants.hidden = !list.length;
    tenantRows.replaceChildren(...list.map((t) => h('tr', { dataset: { tenant: t.name } }, h('th', { scope: 'row' }, t.name),
      usage(t.name, 'VRs', t.usage.vrs, t.quota.vrs, formatNumber),
      usage(t.name, 'vCPUs', t.usage.vcpus, t.quota.vcpus, formatNumber),
      usage(t.name, 'memory', t.usage.memory, t.quota.memory, formatMiB))));
  }

  /**
   * /health's peers as its watch last found them (name, reachable; it never waits on a peer), with,
   * for the provider's users, each one's address and why it does not answer from GET peers (which
   * asks them now, so it is read beside the rest, not before it, and never twice at once).
   */
  let details = new Map();
  let asking = false;
  function drawPeers(list) {
    peers.hidden = !list.length;
    peerRows.replaceChildren(...list.map((p) => {
      const more = details.get(p.name) || {};
      return h('tr', { dataset: { peer: p.name, reachable: String(p.reachable) } }, h('th', { scope: 'row' }, p.name),
        h('td', {}, h('span.pill.pill-' + (p.reachable ? 'ok' : 'bad'), {}, h('span.dot', { 'aria-hidden': 'true' }),
          p.reachable ? 'reachable' : 'unreachable')),
        h('td.mono', {}, more.uri || '—'), h('td.reason', {}, p.reachable ? '' : more.problem || '—'));
    }));
  }
  async function askPeers(list) {
    if (store.session.tenant || !list.length || asking) return;
    asking = true;
    try {
      details = new Map((await api('GET', 'peers')).map((p) => [p.name, p]));
      drawPeers(list);
    } catch (problem) {
      // The address and the reason are extras: the reachability from /health stays.
    } finally {
      asking = false;
    }
  }

  async function refresh() {
    const [hv, ready, tenantList] = await Promise.all([api('GET', 'hypervisor'), health(), api('GET', 'tenants')])
      .catch(() => [null, null, null]);
    if (tenantList) drawTenants(tenantList.tenant || []);
    if (hv) {
      facts(hypervisor, [
        ['Software', hv.vmHvSoftware], ['Version', hv.vmHvVersion], ['Object ID', hv.vmHvObjectID],
        ['Uptime', formatUptime(hv.vmHvUpTime / 100)], ['VMs (vmNumber)', formatNumber(hv.vmNumber)],
        ['Configured VRs', formatNumber(hv.vmConfiguredVMs)], ['Active VRs', formatNumber(hv.vmActiveVMs)],
        ['Next free index', hv.vmConfigNextAvailableVmIndex],
        ['vCPUs committed', formatNumber(hv.vmCommittedCpus) + (hv.vmHvCpus ? ' (host: ' + formatNumber(hv.vmHvCpus) + ' CPUs)' : '')],
        ['Memory committed', formatMiB(hv.vmCommittedMemory) + (hv.vmHvMemory ? ' (host: ' + formatMiB(hv.vmHvMemory) + ')' : '')],
        ['Notifications', (hv.vmPerVMNotificationsEnabled ? 'per VR' : '') + (hv.vmBulkNotificationsEnabled ? ' bulk' : '') || 'off']]);
    }
    if (ready) {
      drawPeers(ready.peers || []);
      askPeers(ready.peers || []);
      facts(driver, [
        ['Driver', ready.driver],
        ['Readiness', h('span.pill.pill-' + (ready.status === 'UP' ? 'ok' : 'bad'), {}, h('span.dot', { 'aria-hidden': 'true' }),
          ready.status === 'UP' ? 'ready' : 'not ready')],
        ['Problem', ready.driverProblem || 'none'],
        ['Admin states', store.session.adminStates.join(', ')],
        ['Templates', store.session.templates.join(', ')],
        ['Unresolved VMs', formatNumber(ready.unresolvedVms)],
        // Drained for maintenance (POST /api/v1/drain): new VRs are refused until it is opened.
        ['New VRs', ready.drained
          ? h('span.pill.pill-bad.drained', {}, h('span.dot', { 'aria-hidden': 'true' }), 'drained since ' + ready.drainedSince + ': refused until opened')
          : 'taken'],
        ['Event stream', store.live === 'live' ? 'connected' : 'reconnecting']]);
    }
  }

  function drawCounts() {
    const by = {};
    for (const vr of store.vrs.values()) {
      const s = vr.vmEntry?.vmOperState || 'unknown';
      by[s] = (by[s] || 0) + 1;
    }
    const present = OPER_STATES.filter((s) => by[s]);
    counts.replaceChildren(...(present.length ? present.map((s) => h('li', {},
      h('a', { href: '#/?state=' + s }, statePill(s), h('span.count', {}, formatNumber(by[s])), h('span.visually-hidden', {}, ' VRs: show them'))))
      : [h('li.muted', {}, 'No VRs.')]));
  }

  function logRow(e) {
    const change = e.previousOperState && e.previousOperState !== e.vmOperState
      ? [statePill(e.previousOperState), h('span.arrow', { 'aria-label': 'to' }, '→'), statePill(e.vmOperState)]
      : [statePill(e.vmOperState)];
    return h('tr', {}, h('td.mono', {}, new Date(e.timestamp).toLocaleTimeString()),
      h('td', {}, e.type === 'deleted' ? e.vmName : h('a', { href: '#/vr/' + e.vmIndex }, e.vmName)),
      h('td', {}, e.type), h('td', {}, h('div.state-line', {}, change)), h('td.reason', {}, e.reason || ''));
  }

  function drawLog() {
    const rows = store.events.slice(0, LOG_ROWS).map(logRow);
    log.replaceChildren(...(rows.length ? rows
      : [h('tr', {}, h('td.muted', { colspan: 5 }, 'No event since you signed in. Events appear here as they happen.'))]));
  }

  let pending = null;
  const unsubscribe = subscribe((change) => {
    if (change.kind === 'live') refresh();
    if (change.kind !== 'event' && change.kind !== 'all') return;
    // A burst of events is drawn once.
    if (!pending) pending = requestAnimationFrame(() => {
      pending = null;
      drawCounts();
      drawLog();
    });
  });
  refresh();
  drawCounts();
  drawLog();
  const timer = setInterval(refresh, REFRESH_MS);
  return () => {
    clearInterval(timer);
    unsubscribe();
    if (pending) cancelAnimationFrame(pending);
  };
}
