// The links between VRs as the console draws and lists them, from the VRs' rows alone: each
// interface's vmNetworkConfigLinkType and far end (vmNetworkConfigTable), its measured health
// (vmNetworkLinkStatus, Delay, Loss in vmNetworkTable).
import { vrName } from './store.js';

/** An interface's link type: bridge when the row names none (the server's default). */
export function linkType(n) {
  return n.vmNetworkConfigLinkType || 'bridge';
}

/** The interface's measured state (its vmNetworkTable row), or an empty one. */
export function linkState(vr, n) {
  return (vr.vmNetworkTable || []).find((s) => s.vmNetworkIndex === n.vmNetworkConfigIndex) || {};
}

/**
 * The peer links among the VRs: one per pair of ends, however many of its ends are declared (a link
 * is declared at both ends; until the far one is, it is waiting). Each: key, ends ([vmIndex,
 * interface] twice, the lower first), declared ({vr, n, state} per declared end), status (up, down,
 * unknown or waiting), delay (µs) and loss (%) as an end measured them.
 */
export function peerLinks(vrs) {
  const links = new Map();
  for (const vr of vrs) {
    for (const n of vr.vmNetworkConfigTable || []) {
      if (linkType(n) !== 'peer') continue;
      const here = [vr.vmIndex, n.vmNetworkConfigIndex];
      const far = [n.vmNetworkConfigPeerRouter, n.vmNetworkConfigPeerInterface];
      const ends = here[0] < far[0] || (here[0] === far[0] && here[1] <= far[1]) ? [here, far] : [far, here];
      const key = ends.map((e) => e.join('.')).join('-');
      if (!links.has(key)) links.set(key, { key, ends, declared: [] });
      links.get(key).declared.push({ vr, n, state: linkState(vr, n) });
    }
  }
  for (const link of links.values()) {
    const statuses = link.declared.map((d) => d.state.vmNetworkLinkStatus);
    link.status = link.declared.length < 2 ? 'waiting'
      : statuses.includes('down') ? 'down' : statuses.includes('up') ? 'up' : 'unknown';
    const measured = link.declared.find((d) => d.state.vmNetworkLinkDelay != null)?.state;
    link.delay = measured?.vmNetworkLinkDelay ?? null;
    link.loss = measured?.vmNetworkLinkLoss ?? null;
  }
  return [...links.values()];
}

/**
 * The rate limit from one end to the other (kbit/s): the lower of what the sender may send and the
 * receiver may receive, or null when neither is limited.
 */
export function rateBetween(from, to) {
  const limits = [from?.vmNetworkConfigRateOut, to?.vmNetworkConfigRateIn].filter((r) => r != null);
  return limits.length ? Math.min(...limits) : null;
}

/** kbit/s for people: 2000 is "2 Mbit/s". */
export function formatRate(kbit) {
  if (kbit == null) return null;
  const [value, unit] = kbit >= 1e6 ? [kbit / 1e6, 'Gbit/s'] : kbit >= 1000 ? [kbit / 1000, 'Mbit/s'] : [kbit, 'kbit/s'];
  return `${Number(value.toFixed(1))} ${unit}`;
}

/** A measured delay (µs) in milliseconds: 40 is "0.04 ms". */
export function formatDelay(micros) {
  if (micros == null) return null;
  const ms = micros / 1000;
  return `${ms < 10 ? Number(ms.toFixed(2)) : Math.round(ms)} ms`;
}

/** How an interface is attached, in words: "xenbr0", "peer link to VR 2 if1", "VXLAN 100 to 203.0.113.2 over eth0". */
export function attachment(n) {
  switch (linkType(n)) {
    case 'peer':
      return `peer link to ${vrName(n.vmNetworkConfigPeerRouter)} if${n.vmNetworkConfigPeerInterface}`;
    case 'vxlan':
      return `VXLAN ${n.vmNetworkConfigVni} to ${n.vmNetworkConfigRemote} over ${n.vmNetworkConfigParent}`;
    case 'macvlan':
      return `macvlan on ${n.vmNetworkConfigParent}`;
    default:
      return n.vmNetworkConfigParent;
  }
}

/** An interface's own rate limits in words, or null: "in ≤ 1 Mbit/s, out ≤ 2 Mbit/s". */
export function rateLimits(n) {
  const parts = [['in', n.vmNetworkConfigRateIn], ['out', n.vmNetworkConfigRateOut]]
    .filter(([, r]) => r != null).map(([way, r]) => `${way} ≤ ${formatRate(r)}`);
  return parts.length ? parts.join(', ') : null;
}
