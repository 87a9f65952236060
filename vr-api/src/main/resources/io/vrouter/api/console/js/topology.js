// Topology: each host network (vmNetworkConfigParent) a vertical bar, each VR a box with a line to
// every network it is plugged into, as OpenStack Horizon draws routers and networks; then the links:
// a lane per peer link from VR to VR, and a line from a VR to each remote router (a VXLAN link's
// far end, by its underlay address), each labelled with its status, measured delay and rate limits.
// Drawn from the store (the list call and events): no request of its own.
import { store, subscribe, vrName } from './store.js';
import { attachment, formatDelay, formatRate, linkState, linkType, peerLinks, rateBetween, rateLimits } from './links.js';
import { h, nameMatcher, stateTone, svg } from './ui.js';

const BOX_W = 190;
const ROW = 44;
const GAP = 150;
const TOP = 64;
/** A peer link's lane: its line and, beside it, its label. */
const LANE = 230;
/** From a VR's wire to a remote router's box: the VXLAN link's line and its label. */
const REACH = 230;
const REMOTE_W = 150;
const PALETTE = ['#2563eb', '#0891b2', '#7c3aed', '#d97706', '#16a34a', '#db2777', '#4f46e5', '#65a30d'];

export function renderTopology(view) {
  document.title = 'Topology · vrouter';
  const filterInput = h('input', { id: 'topology-filter', type: 'search', placeholder: 'edge*', autocomplete: 'off', 'data-filter': true });
  const picture = h('div.topology-scroll');
  const text = h('ul.visually-hidden', { 'aria-label': 'Connections' });
  const summary = h('p.summary');
  view.append(
    h('div.page-head', {}, h('div', {}, h('h1', {}, 'Topology'), summary)),
    h('div.toolbar', { role: 'search' },
      h('div.field.field-inline', {}, h('label', { for: 'topology-filter' }, 'Filter by name'), filterInput)),
    h('div.card', {}, picture, text));

  function visible() {
    const matches = nameMatcher(filterInput.value);
    return [...store.vrs.values()]
      .filter((vr) => matches(vr.vmName))
      .sort((a, b) => a.vmName.localeCompare(b.vmName));
  }

  function draw() {
    const vrs = visible();
    const row = new Map(vrs.map((vr, i) => [vr.vmIndex, i]));
    const ifaces = (vr) => vr.vmNetworkConfigTable || [];
    const onHost = (n) => linkType(n) === 'bridge' || linkType(n) === 'macvlan';
    const networks = [...new Set(vrs.flatMap((vr) => ifaces(vr).filter(onHost).map((n) => n.vmNetworkConfigParent)))].sort();
    // Every peer link with an end on a VR shown, whichever VR declared it.
    const links = peerLinks(store.vrs.values()).filter((l) => l.ends.some(([i]) => row.has(i)));
    const lanes = packLanes(links, row);
    const vxlans = vrs.flatMap((vr) => ifaces(vr).filter((n) => linkType(n) === 'vxlan').map((n) => ({ vr, n })));
    const remotes = placeRemotes(vxlans, row);

    const x = (j) => 20 + BOX_W + 90 + j * GAP;
    // The lanes start where the last network's labels end.
    const laneX = (k) => (networks.length ? x(networks.length - 1) + GAP : 20 + BOX_W + 60) + k * LANE;
    const reachX = laneX(lanes.count);
    const remoteX = reachX + REACH;
    const width = (remotes.size ? remoteX + REMOTE_W : Math.max(reachX, x(0) + GAP)) + 20;
    const rows = Math.max(vrs.length, 1, ...[...remotes.values()].map((r) => r + 1));
    const height = TOP + rows * ROW + 16;
    const y = (i) => TOP + i * ROW + 15;
    summary.textContent = [`${vrs.length} VR${vrs.length === 1 ? '' : 's'} on ${networks.length} network${networks.length === 1 ? '' : 's'}`,
      links.length ? `${links.length} peer link${links.length === 1 ? '' : 's'}` : null,
      vxlans.length ? `${vxlans.length} VXLAN link${vxlans.length === 1 ? '' : 's'} to ${remotes.size} remote router${remotes.size === 1 ? '' : 's'}` : null]
      .filter(Boolean).join(', ');
    const colour = new Map(networks.map((n, j) => [n, PALETTE[j % PALETTE.length]]));
    const parts = [];
    networks.forEach((n, j) => {
      parts.push(svg('g', { class: 'net' },
        svg('title', {}, 'Network ' + n),
        svg('text', { x: x(j), y: 22, 'text-anchor': 'middle', class: 'net-label' }, n),
        svg('rect', { x: x(j) - 4, y: 34, width: 8, height: height - 44, rx: 4, fill: colour.get(n) })));
    });
    // Each VR's wire runs from its box to its farthest attachment: a network, a link's lane, a remote router's line.
    const reach = new Map();
    const extend = (vmIndex, to) => reach.set(vmIndex, Math.max(reach.get(vmIndex) ?? -1, to));
    vrs.forEach((vr) => ifaces(vr).filter(onHost).forEach((n) => extend(vr.vmIndex, x(networks.indexOf(n.vmNetworkConfigParent)))));
    links.forEach((l) => l.ends.forEach(([i]) => row.has(i) && extend(i, laneX(lanes.of.get(l.key)))));
    vxlans.forEach(({ vr }) => extend(vr.vmIndex, reachX));
    for (const [vmIndex, to] of reach) {
      const wy = y(row.get(vmIndex));
      parts.push(svg('line', { x1: 20 + BOX_W, y1: wy, x2: to, y2: wy, class: 'wire' }));
    }
    vrs.forEach((vr, i) => {
      for (const n of ifaces(vr).filter(onHost)) {
        const j = networks.indexOf(n.vmNetworkConfigParent);
        const label = `if${n.vmNetworkConfigIndex}${n.vmNetworkConfigAddress ? ' ' + n.vmNetworkConfigAddress : ''}`;
        parts.push(svg('g', { class: 'link' },
          svg('title', {}, `${vr.vmName} ${label} on ${n.vmNetworkConfigParent}`),
          svg('circle', { cx: x(j), cy: y(i), r: 6, fill: colour.get(n.vmNetworkConfigParent), stroke: '#fff', 'stroke-width': 2 }),
          svg('text', { x: x(j) + 10, y: y(i) - 4, class: 'link-label' }, label)));
      }
    });
    for (const l of links) parts.push(drawPeerLink(l, laneX(lanes.of.get(l.key)), row, y));
    for (const { vr, n } of vxlans) parts.push(drawVxlan(vr, n, reachX, remoteX, y(row.get(vr.vmIndex)), y(remotes.get(n.vmNetworkConfigRemote))));
    for (const [remote, r] of remotes) {
      parts.push(svg('g', { class: 'remote-node', 'data-remote': remote },
        svg('title', {}, `Remote router ${remote}`),
        svg('rect', { x: remoteX, y: y(r) - 15, width: REMOTE_W, height: 30, rx: 15, class: 'remote-box' }),
        svg('text', { x: remoteX + REMOTE_W / 2, y: y(r) + 4, 'text-anchor': 'middle', class: 'vr-label' }, remote)));
    }
    vrs.forEach((vr, i) => {
      const top = TOP + i * ROW;
      const state = vr.vmEntry?.vmOperState || 'unknown';
      const stateLabel = ifaces(vr).length ? state : 'no interfaces';
      // Named by its title, which holds the words shown (WCAG 2.5.3) and the whole name, which the box may cut.
      parts.push(svg('a', { href: '#/vr/' + vr.vmIndex, class: 'vr-node tone-' + stateTone(state) },
        svg('title', {}, `${vr.vmName}, ${stateLabel}` + (ifaces(vr).length ? '' : ` (${state})`)),
        svg('rect', { x: 20, y: top, width: BOX_W, height: 30, rx: 6, class: 'vr-box' }),
        svg('rect', { x: 20, y: top, width: 6, height: 30, rx: 3, class: 'vr-state' }),
        svg('text', { x: 34, y: top + 19, class: 'vr-label' }, vr.vmName.length > 18 ? vr.vmName.slice(0, 17) + '…' : vr.vmName),
        svg('text', { x: 20 + BOX_W - 8, y: top + 19, 'text-anchor': 'end', class: 'vr-state-label' }, stateLabel)));
    });
    if (!vrs.length) parts.push(svg('text', { x: 20, y: TOP + 20, class: 'vr-state-label' }, 'No VR to draw.'));
    picture.replaceChildren(svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'topology',
      role: 'group', 'aria-label': 'VRs, the host networks they are plugged into and the links between them' }, ...parts));
    text.replaceChildren(
      ...vrs.map((vr) => h('li', {}, `${vr.vmName}: ` + (ifaces(vr)
        .map((n) => attachment(n) + (n.vmNetworkConfigAddress ? ' (' + n.vmNetworkConfigAddress + ')' : '')).join(', ') || 'no interfaces'))),
      ...links.map((l) => h('li', {}, describePeerLink(l))),
      ...vxlans.map(({ vr, n }) => h('li', {}, describeVxlan(vr, n))));
  }

  let pending = null;
  const redraw = () => {
    if (!pending) pending = requestAnimationFrame(() => {
      pending = null;
      draw();
    });
  };
  filterInput.addEventListener('input', redraw);
  const unsubscribe = subscribe((change) => {
    if (change.kind === 'vr' || change.kind === 'all') redraw();
  });
  draw();
  return () => {
    unsubscribe();
    if (pending) cancelAnimationFrame(pending);
  };
}

/**
 * Lanes for the peer links, top to bottom: a link takes the first lane free over the rows it spans
 * (its label sits beside it), so links that do not overlap share one. Returns {of: key -> lane, count}.
 */
function packLanes(links, row) {
  const span = (l) => {
    const rows = l.ends.filter(([i]) => row.has(i)).map(([i]) => row.get(i));
    // An end off the drawing (filtered out, or not there): a short stub below the shown end.
    return rows.length === 2 ? [Math.min(...rows), Math.max(...rows)] : [rows[0], rows[0] + 0.5];
  };
  const laneEnds = [];
  const of = new Map();
  for (const l of [...links].sort((a, b) => span(a)[0] - span(b)[0])) {
    const [from, to] = span(l);
    let k = laneEnds.findIndex((end) => end < from);
    if (k < 0) k = laneEnds.push(to) - 1;
    else laneEnds[k] = to;
    of.set(l.key, k);
  }
  return { of, count: laneEnds.length };
}

/** A row for each remote router: the row of the first VR linked to it, or the next free one. */
function placeRemotes(vxlans, row) {
  const remotes = new Map();
  const taken = new Set();
  for (const { vr, n } of vxlans) {
    if (remotes.has(n.vmNetworkConfigRemote)) continue;
    let r = row.get(vr.vmIndex);
    while (taken.has(r)) r++;
    taken.add(r);
    remotes.set(n.vmNetworkConfigRemote, r);
  }
  return remotes;
}

/** A peer link's lane: a line between its ends' rows (a stub when one end is off the drawing), a port at each end. */
function drawPeerLink(link, lx, row, y) {
  const shown = link.ends.filter(([i]) => row.has(i));
  const ys = shown.map(([i]) => y(row.get(i)));
  const [top, bottom] = ys.length === 2 ? [Math.min(...ys), Math.max(...ys)] : [ys[0], ys[0] + ROW / 2];
  const [upper, lower] = ys.length === 2 && ys[0] > ys[1] ? [link.ends[1], link.ends[0]] : link.ends;
  // Rates along the lane: ↓ from the upper end to the lower, ↑ back.
  const down = formatRate(rateBetween(declaredEnd(link, upper), declaredEnd(link, lower)));
  const up = formatRate(rateBetween(declaredEnd(link, lower), declaredEnd(link, upper)));
  const label = [link.status, formatDelay(link.delay), down && '↓ ' + down, up && '↑ ' + up].filter(Boolean).join(' · ');
  const offDrawing = ys.length < 2 ? ' to ' + link.ends.filter(([i]) => !row.has(i)).map(([i, n]) => `${vrName(i)} if${n}`)[0] : '';
  return svg('g', { class: 'peer-link link-' + link.status, 'data-ends': link.key, 'data-status': link.status,
    'data-delay': link.delay ?? '' },
  svg('title', {}, describePeerLink(link)),
  svg('line', { x1: lx, y1: top, x2: lx, y2: bottom, class: 'link-line' }),
  ...shown.map(([i, n]) => {
    const py = y(row.get(i));
    return [svg('circle', { cx: lx, cy: py, r: 5, class: declaredEnd(link, [i, n]) ? 'port' : 'port port-waiting' }),
      svg('text', { x: lx + 9, y: py - 4, class: 'link-label' }, `if${n}`)];
  }).flat(),
  svg('text', { x: lx + 9, y: (top + bottom) / 2 + 4, class: 'link-status-label' }, label + offDrawing));
}

/** The interface row that declares this end of the link, or undefined while it is waiting. */
function declaredEnd(link, [vmIndex, networkIndex]) {
  return link.declared.find((d) => d.vr.vmIndex === vmIndex && d.n.vmNetworkConfigIndex === networkIndex)?.n;
}

function describePeerLink(link) {
  const [a, b] = link.ends.map(([i, n]) => `${vrName(i)} if${n}`);
  const [na, nb] = link.ends.map((end) => declaredEnd(link, end));
  const words = [link.status === 'waiting' ? `waiting for ${na ? b : a} to be declared` : link.status];
  if (link.delay != null) words.push(`delay ${formatDelay(link.delay)}`);
  if (link.loss != null) words.push(`loss ${link.loss} %`);
  const ab = rateBetween(na, nb);
  const ba = rateBetween(nb, na);
  if (ab != null) words.push(`${a} to ${b} at most ${formatRate(ab)}`);
  if (ba != null) words.push(`${b} to ${a} at most ${formatRate(ba)}`);
  return `Peer link ${a} to ${b}: ${words.join(', ')}`;
}

/** A VXLAN link: from the VR's wire to its remote router's box, labelled at its middle. */
function drawVxlan(vr, n, fromX, toX, fromY, toY) {
  const state = linkState(vr, n);
  const status = state.vmNetworkLinkStatus || 'unknown';
  const label = [`VNI ${n.vmNetworkConfigVni}`, status, formatDelay(state.vmNetworkLinkDelay),
    n.vmNetworkConfigRateOut != null && '→ ' + formatRate(n.vmNetworkConfigRateOut),
    n.vmNetworkConfigRateIn != null && '← ' + formatRate(n.vmNetworkConfigRateIn)].filter(Boolean).join(' · ');
  return svg('g', { class: 'vxlan-link link-' + status, 'data-remote': n.vmNetworkConfigRemote, 'data-status': status,
    'data-end': `${vr.vmIndex}.${n.vmNetworkConfigIndex}`, 'data-delay': state.vmNetworkLinkDelay ?? '' },
  svg('title', {}, describeVxlan(vr, n)),
  svg('line', { x1: fromX, y1: fromY, x2: toX, y2: toY, class: 'link-line' }),
  svg('circle', { cx: fromX, cy: fromY, r: 5, class: 'port' }),
  svg('text', { x: fromX + 9, y: (fromY + toY) / 2 - 5, class: 'link-status-label' }, `if${n.vmNetworkConfigIndex} ` + label));
}

function describeVxlan(vr, n) {
  const state = linkState(vr, n);
  const words = [state.vmNetworkLinkStatus || 'unknown'];
  if (state.vmNetworkLinkDelay != null) words.push(`delay ${formatDelay(state.vmNetworkLinkDelay)}`);
  if (state.vmNetworkLinkLoss != null) words.push(`loss ${state.vmNetworkLinkLoss} %`);
  const limits = rateLimits(n);
  if (limits) words.push(limits);
  return `VXLAN link ${vr.vmName} if${n.vmNetworkConfigIndex} to remote router ${n.vmNetworkConfigRemote}`
    + ` (VNI ${n.vmNetworkConfigVni}, over ${n.vmNetworkConfigParent}): ${words.join(', ')}`;
}
