package io.vrouter.gnmi;

import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.GetRequest;
import com.github.gnmi.proto.Notification;
import com.github.gnmi.proto.Path;
import com.github.gnmi.proto.PathElem;
import com.github.gnmi.proto.SubscribeRequest;
import com.github.gnmi.proto.SubscribeResponse;
import com.github.gnmi.proto.Subscription;
import com.github.gnmi.proto.SubscriptionList;
import com.github.gnmi.proto.SubscriptionMode;
import com.github.gnmi.proto.TypedValue;
import com.github.gnmi.proto.Update;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.vrouter.core.model.LeafChanges;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.DataNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Subscribe streams (specification 3.5): ONCE, POLL and STREAM with SAMPLE, ON_CHANGE and
 * TARGET_DEFINED, every update one leaf under a keyed prefix. ON_CHANGE reads the model again only
 * when the core publishes an event, and then only the VR the event is about. Everything a stream
 * sends goes through its own queue, which keeps one update per leaf (a newer value replaces one not
 * sent yet, and is counted as coalesced), so that a collector that reads slowly holds up no one and
 * costs at most one pending update per leaf it subscribed to; past {@code gnmi.max-pending} the
 * stream ends with RESOURCE_EXHAUSTED. Streams are capped in all and per client address, so that one
 * collector cannot take every place, and so are the leaves all of them hold ({@code gnmi.max-leaves}:
 * a stream keeps each leaf it covers, with the value last sent), so that no subscription can take the
 * heap. All reading of the model happens on one thread, each stream through the view of the caller
 * that opened it (a tenant's user: its tenant's VRs and their events only).
 */
final class Subscriptions implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Subscriptions.class);
    /** The tables that hold the VRs' rows (configuration) alone, as the events' leaf changes name them. */
    private static final Set<String> CONFIG_TABLES = Set.of(LeafChanges.CONFIG_TABLE, LeafChanges.NETWORK_CONFIG_TABLE);
    /** The keys that name a VR in the tables' entries (vmIndex; vmStorageVmIndex in vmStorageTable). */
    private static final Set<String> VR_KEYS = java.util.Arrays.stream(Schema.Table.values()).map(Schema.Table::vrKey)
            .collect(java.util.stream.Collectors.toUnmodifiableSet());

    private final ScheduledExecutorService worker;
    private final Duration minInterval;
    private final int maxStreams;
    private final int maxStreamsPerClient;
    private final int maxPending;
    private final long maxLeaves;
    /** The leaves every stream's subscriptions hold (the sum of their last-sent maps). */
    private final java.util.concurrent.atomic.AtomicLong leavesHeld = new java.util.concurrent.atomic.AtomicLong();
    private final Set<Stream> open = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicInteger streams = new AtomicInteger();
    /** Streams open per client address; an address with none has no entry. */
    private final Map<String, Integer> streamsByClient = new java.util.concurrent.ConcurrentHashMap<>();
    private final Counter coalesced;

    Subscriptions(ScheduledExecutorService worker, Duration minInterval, int maxStreams, int maxStreamsPerClient,
                  int maxPending, long maxLeaves, MeterRegistry registry) {
        this.coalesced = Counter.builder("vrouter.gnmi.coalesced")
                .description("gNMI updates replaced by a newer value of their leaf before a slow collector read them")
                .register(registry);
        Gauge.builder("vrouter.gnmi.streams", streams, AtomicInteger::get).description("gNMI Subscribe streams open")
                .register(registry);
        this.worker = worker;
        this.minInterval = minInterval;
        this.maxStreams = maxStreams;
        this.maxStreamsPerClient = maxStreamsPerClient;
        this.maxPending = maxPending;
        this.maxLeaves = maxLeaves;
    }

    private StatusRuntimeException tooManyLeaves() {
        return Status.RESOURCE_EXHAUSTED.withDescription("the Subscribe streams would hold more than " + maxLeaves
                + " leaves (gnmi.max-leaves): subscribe to narrower paths").asRuntimeException();
    }

    /** A stream that reads through {@code view}, the core as its caller may see it. */
    StreamObserver<SubscribeRequest> open(ServerCallStreamObserver<SubscribeResponse> out, String client,
                                          VirtualRouters view, DataGuard.Access access) {
        return new Stream(out, client, view, access);
    }

    private void releaseClient(String client) {
        streamsByClient.computeIfPresent(client, (c, n) -> n == 1 ? null : n - 1);
    }

    @Override
    public void close() {
        for (Stream s : open) s.fail(Status.UNAVAILABLE.withDescription("the server is stopping").asRuntimeException());
    }

    /** One subscription of the list: its path, what it sends when, and the values last sent. */
    private final class Sub {
        final String origin;
        final List<PathElem> path;
        final SubscriptionMode mode;
        final long sampleNanos;
        final long heartbeatNanos;
        final boolean suppressRedundant;
        /** Which leaves this subscription sends (TARGET_DEFINED splits counters from the rest). */
        final Predicate<DataNode> leaves;
        final Map<String, Sent> last = new HashMap<>();
        long lastHeartbeat = System.nanoTime();

        Sub(String origin, List<PathElem> path, SubscriptionMode mode, long sampleNanos, long heartbeatNanos,
            boolean suppressRedundant, Predicate<DataNode> leaves) {
            this.origin = origin;
            this.path = path;
            this.mode = mode;
            this.sampleNanos = sampleNanos;
            this.heartbeatNanos = heartbeatNanos;
            this.suppressRedundant = suppressRedundant;
            this.leaves = leaves;
        }
    }

    /** A leaf's value as last sent, with the VR whose entry holds it (null: none). */
    private record Sent(List<PathElem> path, TypedValue value, Integer vmIndex) {
    }

    /** What waits in a stream's queue: an update (value set), a delete (value null), or the sync marker. */
    private record Item(List<PathElem> path, TypedValue value, boolean sync) {
        List<PathElem> prefix() {
            return GnmiPaths.parent(path);
        }
    }

    private final class Stream implements StreamObserver<SubscribeRequest> {
        private final ServerCallStreamObserver<SubscribeResponse> out;
        private final String client;
        private final VirtualRouters service;
        /** What the caller may read, decided at each read (a rule changed applies from the next sample). */
        private final DataGuard.Access access;
        private final LinkedHashMap<String, Item> pending = new LinkedHashMap<>();
        private final List<Sub> subs = new ArrayList<>();
        private final List<ScheduledFuture<?>> timers = new ArrayList<>();
        private final Set<Integer> changedVrs = new HashSet<>();
        /** The VRs whose rows changed (guarded by changedVrs). */
        private final Set<Integer> changedRows = new HashSet<>();
        private SubscriptionList list;
        private Encoding encoding;
        private AutoCloseable events;
        private boolean counted;
        /** Read by the worker without the lock: it stops reading for a stream that is gone. */
        private volatile boolean closed;
        private boolean completeAfterSync;
        private long coalescedHere;
        private int syncs;
        /** The leaves this stream's subscriptions hold, counted in {@link #leavesHeld} (guarded by this). */
        private long leavesHere;

        Stream(ServerCallStreamObserver<SubscribeResponse> out, String client, VirtualRouters view, DataGuard.Access access) {
            this.out = out;
            this.client = client;
            this.service = view;
            this.access = access;
            out.setOnReadyHandler(this::drain);
            out.setOnCancelHandler(this::release);
        }

        @Override
        public void onNext(SubscribeRequest request) {
            try {
                if (request.hasSubscribe()) {
                    if (list != null) throw GnmiPaths.invalid("a stream takes one SubscriptionList; this one has its own already");
                    start(request.getSubscribe());
                } else if (request.hasPoll()) {
                    if (list == null || list.getMode() != SubscriptionList.Mode.POLL) {
                        throw GnmiPaths.invalid("a poll on a stream that is not a POLL subscription");
                    }
                    worker.execute(guarded(this::poll));
                } else {
                    throw GnmiPaths.invalid("a SubscribeRequest must carry a SubscriptionList, then polls");
                }
            } catch (RuntimeException e) {
                fail(GnmiService.status(e));
            }
        }

        @Override
        public void onError(Throwable t) {
            release();
        }

        @Override
        public void onCompleted() {
            // A collector that closes its side of a POLL stream has no more polls to ask; STREAM goes on until cancelled.
            if (list != null && list.getMode() == SubscriptionList.Mode.POLL) end();
        }

        /** Checks the whole list before anything is sent, then sends the first values from the worker thread. */
        private void start(SubscriptionList l) {
            Encoding e = Values.served(l.getEncoding());
            if (l.getMode() == SubscriptionList.Mode.UNRECOGNIZED) throw GnmiPaths.invalid("unknown subscription list mode");
            if (l.getSubscriptionCount() == 0) throw GnmiPaths.invalid("a SubscriptionList without subscriptions");
            List<Sub> checked = new ArrayList<>();
            for (Subscription s : l.getSubscriptionList()) checked.addAll(subs(l, s));
            if (streams.incrementAndGet() > maxStreams) {
                streams.decrementAndGet();
                throw Status.RESOURCE_EXHAUSTED.withDescription(maxStreams + " Subscribe streams are open (gnmi.max-streams)")
                        .asRuntimeException();
            }
            if (streamsByClient.merge(client, 1, Integer::sum) > maxStreamsPerClient) {
                releaseClient(client);
                streams.decrementAndGet();
                throw Status.RESOURCE_EXHAUSTED.withDescription(maxStreamsPerClient + " Subscribe streams are open from "
                        + client + " (gnmi.max-streams-per-client)").asRuntimeException();
            }
            counted = true;
            open.add(this);
            list = l;
            encoding = e;
            subs.addAll(checked);
            worker.execute(guarded(this::begin));
        }

        private List<Sub> subs(SubscriptionList l, Subscription s) {
            List<PathElem> path = GnmiPaths.join(l.getPrefix(), s.getPath());
            String origin = GnmiPaths.origin(l.getPrefix(), s.getPath());
            if (l.getMode() != SubscriptionList.Mode.STREAM) {
                return List.of(new Sub(origin, path, SubscriptionMode.SAMPLE, 0, 0, false, leaf -> true));
            }
            long heartbeat = interval(s.getHeartbeatInterval(), "heartbeat_interval", 0);
            return switch (s.getMode()) {
                case SAMPLE -> List.of(new Sub(origin, path, SubscriptionMode.SAMPLE, interval(s.getSampleInterval(), "sample_interval",
                        minInterval.toNanos()), heartbeat, s.getSuppressRedundant(), leaf -> true));
                case ON_CHANGE -> List.of(new Sub(origin, path, SubscriptionMode.ON_CHANGE, 0, heartbeat, false, leaf -> true));
                // Counters change all the time and tell no event: sampled; everything else on change.
                case TARGET_DEFINED -> List.of(
                        new Sub(origin, path, SubscriptionMode.ON_CHANGE, 0, heartbeat, false, leaf -> !Values.isCounter(leaf)),
                        new Sub(origin, path, SubscriptionMode.SAMPLE, minInterval.toNanos() * 10, heartbeat, false,
                                Values::isCounter));
                default -> throw GnmiPaths.invalid("unknown subscription mode " + s.getMode());
            };
        }

        /**
         * A task of the worker that ends the stream (INTERNAL, the exception logged, not sent) when the
         * model cannot be read, rather than leaving it silent or ending a timer without a word.
         */
        private Runnable guarded(Runnable task) {
            return () -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    fail(GnmiService.status(e));
                }
            };
        }

        /** An interval in nanoseconds: 0 means {@code whenZero}; below the minimum is refused (INVALID_ARGUMENT). */
        private long interval(long nanos, String what, long whenZero) {
            if (nanos == 0) return whenZero;
            if (nanos < minInterval.toNanos()) {
                throw GnmiPaths.invalid(what + " " + nanos + " ns is below this target's minimum of " + minInterval.toNanos()
                        + " ns (gnmi.min-sample-interval)");
            }
            return nanos;
        }

        /** On the worker: the first values (unless updates_only), sync_response, then what the mode sends later. */
        private void begin() {
            if (closed) return;
            boolean stream = list.getMode() == SubscriptionList.Mode.STREAM;
            if (stream && subs.stream().anyMatch(s -> s.mode == SubscriptionMode.ON_CHANGE)) {
                // Subscribed before the first read, so that no change falls between them.
                AutoCloseable subscribed = service.events().subscribe(this::changed);
                synchronized (this) {
                    events = subscribed;
                    if (closed) release();
                }
            }
            for (Sub s : subs) refresh(s, null, !list.getUpdatesOnly(), list.getUpdatesOnly());
            completeAfterSync = list.getMode() == SubscriptionList.Mode.ONCE;
            enqueueSync();
            if (!stream) return;
            for (Sub s : subs) {
                long period = s.mode == SubscriptionMode.SAMPLE ? s.sampleNanos : s.heartbeatNanos;
                if (period > 0) timers.add(worker.scheduleAtFixedRate(guarded(() -> tick(s)), period, period, TimeUnit.NANOSECONDS));
            }
        }

        private void poll() {
            for (Sub s : subs) refresh(s, null, true, false);
            enqueueSync();
        }

        private void tick(Sub s) {
            long now = System.nanoTime();
            boolean heartbeat = s.heartbeatNanos > 0 && now - s.lastHeartbeat >= s.heartbeatNanos;
            if (heartbeat) s.lastHeartbeat = now;
            if (s.mode == SubscriptionMode.SAMPLE) refresh(s, null, !s.suppressRedundant || heartbeat, false);
            else if (heartbeat) refresh(s, null, true, false);
        }

        /**
         * From the event bus: the VR is read again on the worker (the bus's thread reads nothing). The
         * event's leaf changes say whether its row changed: only then is it read again for the
         * subscriptions of the configuration tables, which hold nothing else.
         */
        private void changed(VrEvent event) {
            boolean first;
            synchronized (changedVrs) {
                first = changedVrs.isEmpty() && changedRows.isEmpty();
                changedVrs.add(event.vmIndex);
                if (event.changes.stream().anyMatch(c -> CONFIG_TABLES.contains(c.table()))) changedRows.add(event.vmIndex);
            }
            if (first) worker.execute(guarded(this::onChange));
        }

        private void onChange() {
            Set<Integer> vrs;
            Set<Integer> rows;
            synchronized (changedVrs) {
                vrs = Set.copyOf(changedVrs);
                rows = Set.copyOf(changedRows);
                changedVrs.clear();
                changedRows.clear();
            }
            for (Sub s : subs) {
                if (s.mode != SubscriptionMode.ON_CHANGE) continue;
                Set<Integer> read = inConfigTables(s.path) ? rows : vrs;
                if (!read.isEmpty()) refresh(s, read, false, false);
            }
        }

        /**
         * Reads the subscription's leaves (of the given VRs and outside every VR's table, or all when
         * {@code vrs} is null) and queues what differs from what was sent, or everything when {@code all};
         * leaves gone are deleted, a whole list entry at once when none of its leaves is left.
         * {@code silent} only records the values (updates_only). What is queued is sent a container or
         * list entry at a time, so that its leaves go in one notification.
         */
        private void refresh(Sub s, Set<Integer> vrs, boolean all, boolean silent) {
            if (closed) return;
            Map<String, Sent> now = new LinkedHashMap<>();
            int heldBefore = s.last.size();
            // A whole read stops as soon as it would take the streams past the budget, before it has taken the heap.
            long others = leavesHeld.get() - heldBefore;
            TreeMatch.find(GnmiService.trees(service, access, s.origin, GetRequest.DataType.ALL), s.path, vrs,
                    match -> TreeMatch.leaves(match.node(), new ArrayList<>(match.path()), vrs, leaf -> {
                        if (s.leaves.test(leaf.node())) {
                            now.put(GnmiPaths.text(leaf.path()), new Sent(leaf.path(), Values.of(leaf.node(), encoding),
                                    vmIndex(leaf)));
                            if (vrs == null && others + now.size() > maxLeaves) throw tooManyLeaves();
                        }
                    }));
            Set<List<PathElem>> entriesLeft = new HashSet<>();
            for (Sent sent : now.values()) entriesLeft.add(entry(sent.path()));
            List<Sent> gone = new ArrayList<>();
            for (Iterator<Map.Entry<String, Sent>> it = s.last.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, Sent> e = it.next();
                Integer vr = e.getValue().vmIndex();
                if (now.containsKey(e.getKey()) || (vrs != null && vr != null && !vrs.contains(vr))) continue;
                gone.add(e.getValue());
                it.remove();
            }
            Set<List<PathElem>> entriesDeleted = new HashSet<>();
            for (Sent g : gone) {
                List<PathElem> entry = entry(g.path());
                if (entry.size() < g.path().size() && !entriesLeft.contains(entry)) {
                    if (entriesDeleted.add(entry) && !silent) enqueue(entry, null);
                } else if (!silent) {
                    enqueue(g.path(), null);
                }
            }
            drain();
            List<PathElem> filling = null; // the prefix whose leaves are being queued
            for (Map.Entry<String, Sent> e : now.entrySet()) {
                Sent before = s.last.put(e.getKey(), e.getValue());
                if (!silent && (all || before == null || !before.value().equals(e.getValue().value()))) {
                    List<PathElem> path = e.getValue().path();
                    List<PathElem> prefix = GnmiPaths.parent(path);
                    if (filling != null && !filling.equals(prefix)) drain();
                    filling = prefix;
                    enqueue(path, e.getValue().value());
                }
            }
            drain();
            synchronized (this) {
                if (closed) return;
                long grown = s.last.size() - heldBefore;
                leavesHere += grown;
                // A read of some VRs (ON_CHANGE) is checked once it is done: it holds a VR's leaves at most.
                if (leavesHeld.addAndGet(grown) > maxLeaves && grown > 0) throw tooManyLeaves();
            }
        }

        private void enqueueSync() {
            synchronized (this) {
                pending.put("\0sync" + (++syncs), new Item(List.of(), null, true));
            }
            drain();
        }

        /** Queues an update (a delete when {@code value} is null); {@link #drain} sends it. */
        private void enqueue(List<PathElem> path, TypedValue value) {
            boolean overflow;
            synchronized (this) {
                if (closed) return;
                Item before = pending.put(GnmiPaths.text(path), new Item(path, value, false));
                if (before != null) {
                    coalescedHere++;
                    coalesced.increment();
                }
                overflow = pending.size() > maxPending;
            }
            if (overflow) {
                fail(Status.RESOURCE_EXHAUSTED.withDescription("the collector reads too slowly: more than " + maxPending
                        + " updates wait (gnmi.max-pending)").asRuntimeException());
            }
        }

        /** Sends what waits while the transport takes it; runs again when it is ready for more. */
        private synchronized void drain() {
            if (out.isCancelled()) {
                release();
                return;
            }
            while (!closed && !pending.isEmpty() && out.isReady()) {
                Item first = take();
                if (first.sync()) {
                    out.onNext(SubscribeResponse.newBuilder().setSyncResponse(true).build());
                    if (completeAfterSync) end();
                    continue;
                }
                // Updates and deletes under one prefix (a list entry, mostly) go in one notification.
                List<PathElem> prefix = first.prefix();
                Notification.Builder n = GnmiService.notification(list.getPrefix(), prefix, System.currentTimeMillis() * 1_000_000L);
                add(n, first);
                while (!pending.isEmpty()) {
                    Item next = pending.values().iterator().next();
                    if (next.sync() || !next.prefix().equals(prefix)) break;
                    add(n, take());
                }
                out.onNext(SubscribeResponse.newBuilder().setUpdate(n).build());
            }
        }

        /** Removes and returns the oldest item waiting. */
        private Item take() {
            Iterator<Item> it = pending.values().iterator();
            Item head = it.next();
            it.remove();
            return head;
        }

        private void add(Notification.Builder n, Item item) {
            Path leaf = GnmiPaths.relative(item.path());
            if (item.value() == null) n.addDelete(leaf);
            else n.addUpdate(Update.newBuilder().setPath(leaf).setVal(item.value()));
        }

        private synchronized void end() {
            if (closed) return;
            closed = true;
            out.onCompleted();
            release();
        }

        synchronized void fail(StatusRuntimeException status) {
            if (closed) return;
            closed = true;
            if (!out.isCancelled()) out.onError(status);
            release();
        }

        /** Stops the timers and the event subscription; the stream no longer counts. */
        private synchronized void release() {
            closed = true;
            leavesHeld.addAndGet(-leavesHere);
            leavesHere = 0;
            timers.forEach(t -> t.cancel(false));
            if (events != null) {
                try {
                    events.close();
                } catch (Exception e) {
                    log.debug("unsubscribing from events", e);
                }
                events = null;
            }
            if (counted) {
                counted = false;
                streams.decrementAndGet();
                releaseClient(client);
                open.remove(this);
                if (coalescedHere > 0) {
                    log.info("gNMI stream closed; {} updates were coalesced while the collector was slow", coalescedHere);
                }
            }
            pending.clear();
        }
    }

    /** Whether a subscription's path lies in vmConfigTable or vmNetworkConfigTable, which hold the VRs' rows alone. */
    static boolean inConfigTables(List<PathElem> path) {
        return path.size() >= 2 && CONFIG_TABLES.contains(local(path.get(1).getName()));
    }

    private static String local(String name) {
        return name.substring(name.indexOf(':') + 1);
    }

    /** The path of the deepest list entry holding the leaf (the leaf itself outside every list). */
    static List<PathElem> entry(List<PathElem> leaf) {
        for (int i = leaf.size() - 1; i >= 0; i--) {
            if (leaf.get(i).getKeyCount() > 0) return leaf.subList(0, i + 1);
        }
        return leaf;
    }

    /**
     * The VR whose entry holds a leaf, or null outside every VR's entry: a read of some VRs sees again
     * the leaves of those VRs and those of no VR. An openconfig leaf knows its VR; a NEW-VMM-MIB leaf
     * has it in its path's key {@code vmIndex} ({@code vmStorageVmIndex} in vmStorageTable).
     */
    static Integer vmIndex(TreeMatch.Match leaf) {
        if (leaf.node() instanceof OpenConfigInterfaces.Leaf l) return l.vmIndex;
        for (PathElem e : leaf.path()) {
            for (String key : VR_KEYS) {
                String vr = e.getKeyMap().get(key);
                if (vr != null) return Integer.valueOf(vr);
            }
        }
        return null;
    }
}
