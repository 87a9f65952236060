// Topology: each host network (vmNetworkConfigParent) a vertical bar, each VR a box with a line to
// every network it is plugged into, as OpenStack Horizon draws routers and networks. Drawn from the
// store (the list call and events): no request of its own.
import { store, subscribe } from './store.js';
import { h, nameMatcher, stateTone, svg } from './ui.js';

const BOX_W = 190;
const ROW = 44;
const GAP = 150;
const TOP = 64;
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
    const networks = [...new Set(vrs.flatMap((vr) => (vr.vmNetworkConfigTable || []).map((n) => n.vmNetworkConfigParent)))].sort();
    const x = (j) => 20 + BOX_W + 90 + j * GAP;
    const width = x(Math.max(networks.length - 1, 0)) + GAP + 20;
    const height = TOP + Math.max(vrs.length, 1) * ROW + 16;
    summary.textContent = `${vrs.length} VR${vrs.length === 1 ? '' : 's'} on ${networks.length} network${networks.length === 1 ? '' : 's'}`;
    const colour = new Map(networks.map((n, j) => [n, PALETTE[j % PALETTE.length]]));
    const parts = [];
    networks.forEach((n, j) => {
      parts.push(svg('g', { class: 'net' },
        svg('title', {}, 'Network ' + n),
        svg('text', { x: x(j), y: 22, 'text-anchor': 'middle', class: 'net-label' }, n),
        svg('rect', { x: x(j) - 4, y: 34, width: 8, height: height - 44, rx: 4, fill: colour.get(n) })));
    });
    vrs.forEach((vr, i) => {
      const y = TOP + i * ROW;
      const ifaces = vr.vmNetworkConfigTable || [];
      // One wire from the VR to its farthest network; a port on every network it is plugged into.
      const far = Math.max(-1, ...ifaces.map((n) => networks.indexOf(n.vmNetworkConfigParent)));
      if (far >= 0) parts.push(svg('line', { x1: 20 + BOX_W, y1: y + 15, x2: x(far), y2: y + 15, class: 'wire' }));
      for (const n of ifaces) {
        const j = networks.indexOf(n.vmNetworkConfigParent);
        const label = `if${n.vmNetworkConfigIndex}${n.vmNetworkConfigAddress ? ' ' + n.vmNetworkConfigAddress : ''}`;
        parts.push(svg('g', { class: 'link' },
          svg('title', {}, `${vr.vmName} ${label} on ${n.vmNetworkConfigParent}`),
          svg('circle', { cx: x(j), cy: y + 15, r: 6, fill: colour.get(n.vmNetworkConfigParent), stroke: '#fff', 'stroke-width': 2 }),
          svg('text', { x: x(j) + 10, y: y + 11, class: 'link-label' }, label)));
      }
      const state = vr.vmEntry?.vmOperState || 'unknown';
      const stateLabel = ifaces.length ? state : 'no interfaces';
      // Named by its title, which holds the words shown (WCAG 2.5.3) and the whole name, which the box may cut.
      parts.push(svg('a', { href: '#/vr/' + vr.vmIndex, class: 'vr-node tone-' + stateTone(state) },
        svg('title', {}, `${vr.vmName}, ${stateLabel}` + (ifaces.length ? '' : ` (${state})`)),
        svg('rect', { x: 20, y, width: BOX_W, height: 30, rx: 6, class: 'vr-box' }),
        svg('rect', { x: 20, y, width: 6, height: 30, rx: 3, class: 'vr-state' }),
        svg('text', { x: 34, y: y + 19, class: 'vr-label' }, vr.vmName.length > 18 ? vr.vmName.slice(0, 17) + '…' : vr.vmName),
        svg('text', { x: 20 + BOX_W - 8, y: y + 19, 'text-anchor': 'end', class: 'vr-state-label' }, stateLabel)));
    });
    if (!vrs.length) parts.push(svg('text', { x: 20, y: TOP + 20, class: 'vr-state-label' }, 'No VR to draw.'));
    picture.replaceChildren(svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'topology',
      role: 'group', 'aria-label': 'VRs and the host networks they are plugged into' }, ...parts));
    text.replaceChildren(...vrs.map((vr) => h('li', {}, `${vr.vmName}: ` + ((vr.vmNetworkConfigTable || [])
      .map((n) => n.vmNetworkConfigParent + (n.vmNetworkConfigAddress ? ' (' + n.vmNetworkConfigAddress + ')' : '')).join(', ') || 'no interfaces'))));
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
