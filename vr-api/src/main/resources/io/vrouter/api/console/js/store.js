// What the console knows of the server: the session, every VR (one list call, then the event
// stream), and the events seen since login. Views subscribe to changes.
import { api, followEvents } from './api.js';

export const OPER_STATES = ['unknown', 'other', 'preparing', 'running', 'suspending', 'suspended', 'resuming',
  'paused', 'migrating', 'shuttingdown', 'shutdown', 'crashed'];
const PAGE = 1000;
const EVENT_LOG = 500;
/** More changed VRs than this in one flush are re-read with one list call, not one call each. */
const RELIST_ABOVE = 20;

export const store = {
  session: null,
  /** vmIndex -> VR as the API represents it, plus _at: when its vmUpTime was read (performance.now()). */
  vrs: new Map(),
  loaded: false,
  /** The newest events first. */
  events: [],
  live: 'down',
  canWrite() {
    return this.session && this.session.role === 'operator';
  },
};

/** A VR's name as known here, or "VR n" for one the caller does not see (or that is gone). */
export function vrName(vmIndex) {
  return store.vrs.get(vmIndex)?.vmName || 'VR ' + vmIndex;
}

const listeners = new Set();
/** Calls fn(change) on every change: {kind: 'vr', vmIndex} | {kind: 'all'} | {kind: 'event', event} | {kind: 'live'}. */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
function notify(change) {
  for (const fn of listeners) fn(change);
}

let stopEvents = null;
let lastSequence = 0;
/** vmIndex -> sequence of its deleted event, so that a list read before the removal does not bring it back. */
const deletedAt = new Map();

/**
 * After login: the event stream, then the whole list. Subscribed first, so that no change falls
 * between the list and the stream (what happens during the list call is merged by sequence).
 */
export async function start(session) {
  store.session = session;
  let opened;
  const open = new Promise((resolve) => (opened = resolve));
  stopEvents = followEvents(onEvent, (status, why) => {
    const reconnected = status === 'live' && store.live === 'down' && store.loaded;
    store.live = status;
    store.liveProblem = why || null;
    notify({ kind: 'live' });
    if (status === 'live') performance.mark('vr:stream-open');
    // Open, or refused for now (the server's stream limits): either way the list need not wait.
    opened();
    // Events may have been missed while the stream was down: read the list again.
    if (reconnected) loadAll();
  });
  // Should the stream's answer be slow to come, the list comes anyway, a little later.
  await Promise.race([open, new Promise((resolve) => setTimeout(resolve, 2000))]);
  await loadAll();
}

export function stop() {
  if (stopEvents) stopEvents();
  stopEvents = null;
  store.session = null;
  store.vrs.clear();
  store.events = [];
  store.loaded = false;
  store.live = 'down';
  lastSequence = 0;
  deletedAt.clear();
}

/** Reads every VR, a page of a thousand at a time. */
export async function loadAll() {
  const sequenceAtStart = lastSequence;
  const fresh = new Map();
  for (let offset = 0; ; offset += PAGE) {
    const page = await api('GET', `routers?offset=${offset}&limit=${PAGE}`);
    const at = performance.now();
    for (const vr of page.virtualRouter || []) {
      vr._at = at;
      fresh.set(vr.vmIndex, vr);
    }
    if (!page.virtualRouter || offset + PAGE >= page.total) break;
  }
  // Events that arrived while the list was read are newer than it: keep what they said, the VRs
  // they created and the removals they announced.
  for (const [index, old] of store.vrs) {
    if (!(old._seq > sequenceAtStart)) continue;
    const vr = fresh.get(index);
    if (vr) keepState(vr, old);
    else fresh.set(index, old);
  }
  for (const [index, sequence] of deletedAt) {
    if (sequence > sequenceAtStart) fresh.delete(index);
    else deletedAt.delete(index);
  }
  store.vrs = fresh;
  store.loaded = true;
  performance.mark('vr:list-loaded');
  notify({ kind: 'all' });
}

/** Reads one VR again (its interfaces, CPUs, memory or links changed); gone VRs are dropped. */
export async function reload(vmIndex) {
  const sequenceAtStart = lastSequence;
  let vr;
  try {
    vr = await api('GET', 'routers/' + vmIndex);
  } catch (e) {
    if (e.status === 404) {
      store.vrs.delete(vmIndex);
      notify({ kind: 'vr', vmIndex });
    }
    return null;
  }
  vr._at = performance.now();
  const old = store.vrs.get(vmIndex);
  if (old && old._seq > sequenceAtStart) keepState(vr, old);
  store.vrs.set(vmIndex, vr);
  notify({ kind: 'vr', vmIndex });
  return vr;
}

function keepState(vr, newer) {
  vr.vmAdminState = newer.vmAdminState;
  vr.vmEntry = Object.assign(vr.vmEntry || {}, {
    vmOperState: newer.vmEntry.vmOperState,
    vmOperStateReason: newer.vmEntry.vmOperStateReason,
  });
  vr._seq = newer._seq;
}

// VRs whose configuration changed, read again together a moment later.
const stale = new Set();
let flushTimer = null;
function markStale(vmIndex) {
  stale.add(vmIndex);
  if (!flushTimer) flushTimer = setTimeout(flush, 150);
}
async function flush() {
  flushTimer = null;
  const indices = [...stale];
  stale.clear();
  if (indices.length > RELIST_ABOVE) {
    await loadAll();
    return;
  }
  // A peer link's far end is measured by its own VR, which no event may mention (the simulated
  // driver announces no link changes): the VRs linked to these, before and after, are read again too.
  const partners = linkedTo(indices);
  await Promise.all(indices.map(reload));
  for (const p of linkedTo(indices)) partners.add(p);
  for (const i of indices) partners.delete(i);
  await Promise.all([...partners].map(reload));
}

/** The VRs at the far end of a peer link of one of these VRs, or whose peer link names one of them. */
function linkedTo(indices) {
  const these = new Set(indices);
  const out = new Set();
  for (const vr of store.vrs.values()) {
    for (const n of vr.vmNetworkConfigTable || []) {
      if (n.vmNetworkConfigLinkType !== 'peer') continue;
      if (these.has(vr.vmIndex)) out.add(n.vmNetworkConfigPeerRouter);
      else if (these.has(n.vmNetworkConfigPeerRouter)) out.add(vr.vmIndex);
    }
  }
  return out;
}

/** Whether a VR has an interface whose link is measured (a peer or VXLAN far end). */
function hasLinks(vr) {
  return (vr.vmNetworkConfigTable || []).some((n) => n.vmNetworkConfigLinkType === 'peer' || n.vmNetworkConfigLinkType === 'vxlan');
}

function onEvent(type, e) {
  lastSequence = Math.max(lastSequence, e.sequence);
  store.events.unshift(e);
  if (store.events.length > EVENT_LOG) store.events.length = EVENT_LOG;
  if (type === 'deleted') {
    // Its links' far ends are waiting now.
    for (const far of linkedTo([e.vmIndex])) if (far !== e.vmIndex) markStale(far);
    store.vrs.delete(e.vmIndex);
    deletedAt.set(e.vmIndex, e.sequence);
  } else {
    let vr = store.vrs.get(e.vmIndex);
    if (!vr) {
      // Shown at once with what the event says; the rest (CPUs, memory, interfaces) follows.
      vr = { vmIndex: e.vmIndex, vmName: e.vmName, vmNetworkConfigTable: [], vmEntry: {}, _at: performance.now() };
      store.vrs.set(e.vmIndex, vr);
    }
    const before = vr.vmEntry.vmOperState;
    vr.vmName = e.vmName;
    vr.vmAdminState = e.vmAdminState;
    vr.vmEntry.vmOperState = e.vmOperState;
    vr.vmEntry.vmOperStateReason = e.reason || null;
    vr._seq = e.sequence;
    if (e.vmOperState !== before) restartUptime(vr, before, e.vmOperState);
    // A link's health is in the VR's state rows, which events do not carry; a VR that starts or stops
    // changes its links' health at both ends.
    if (type === 'created' || type === 'configChanged' || type === 'linkChanged' || hasLinks(vr)) markStale(e.vmIndex);
  }
  notify({ kind: 'vr', vmIndex: e.vmIndex });
  notify({ kind: 'event', event: e });
}

/** The uptime counts from a start; it stops when the VR goes down. */
function restartUptime(vr, before, after) {
  const up = (s) => s === 'running' || s === 'paused';
  if (up(after) && !up(before)) {
    vr.vmEntry.vmUpTime = 0;
    vr._at = performance.now();
  } else if (!up(after)) {
    vr.vmEntry.vmUpTime = 0;
  }
}

/** The VR's uptime now, in seconds: what the server said plus the time since, while it runs. */
export function uptimeSeconds(vr) {
  const e = vr.vmEntry || {};
  if (e.vmOperState !== 'running' && e.vmOperState !== 'paused') return null;
  return (e.vmUpTime || 0) / 100 + (performance.now() - (vr._at || performance.now())) / 1000;
}
