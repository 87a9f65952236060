package io.vrouter.snmp;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.snmp4j.CommunityTarget;
import org.snmp4j.PDU;
import org.snmp4j.ScopedPDU;
import org.snmp4j.Session;
import org.snmp4j.Snmp;
import org.snmp4j.Target;
import org.snmp4j.UserTarget;
import org.snmp4j.agent.NotificationOriginator;
import org.snmp4j.agent.mo.snmp.SysUpTime;
import org.snmp4j.event.ResponseEvent;
import org.snmp4j.event.ResponseListener;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.security.SecurityLevel;
import org.snmp4j.smi.Address;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.TimeTicks;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.smi.VariableBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's notification originator: every notification (coldStart, authenticationFailure and
 * NEW-VMM-MIB's) is put in a bounded queue per target and returns at once; each target has a thread of
 * its own that sends from its queue. snmp4j-agent's originator sent to the targets one after another on
 * the caller's thread and waited for each inform's answer: an inform target that never answered held
 * the agent's start-up (coldStart), the answer to the request whose failed login raised
 * authenticationFailure, and every later notification to every target for 45 s each (issue 23).
 *
 * <p>An inform is sent with a {@link ResponseListener}, so up to {@value #INFORMS_IN_FLIGHT} per
 * target await their acknowledgement at once ({@value #TIMEOUT_MILLIS} ms, {@value #RETRIES} retries,
 * as before); the sender takes the next one from the queue when one is answered or given up. A
 * notification that finds its target's queue full is dropped, counted in
 * {@code vrouter_snmp_notifications_dropped_total{target}} and logged (once a minute per target at
 * most, with the number dropped since); informs never acknowledged are counted in
 * {@code vrouter_snmp_notifications_unacknowledged_total{target}}.
 */
final class NotificationQueues implements NotificationOriginator, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NotificationQueues.class);
    static final int INFORMS_IN_FLIGHT = 8;
    static final long TIMEOUT_MILLIS = 15_000;
    static final int RETRIES = 2;
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Session session;
    private final SysUpTime sysUpTime;
    private final OctetString localEngineId;
    private final MeterRegistry registry;
    /** Replaced whole by a reload; a notification goes to one version of it. */
    private volatile List<TargetQueue> targets = List.of();

    /**
     * @param localEngineId the agent's snmpEngineID: the contextEngineID of v3 notifications, and the
     *                      authoritative engine of v3 traps (an inform's receiver is discovered)
     */
    NotificationQueues(Session session, SnmpConfig config, OctetString localEngineId, SysUpTime sysUpTime,
                       MeterRegistry registry) {
        this.session = session;
        this.sysUpTime = sysUpTime;
        this.localEngineId = localEngineId;
        this.registry = registry;
        reload(config).run();
    }

    /**
     * Resolves the targets of new settings (a reload) and returns the change: a target whose address,
     * version, type, community or user and queue size are as before keeps its queue and sender; a new
     * one gets them; one removed or changed is stopped and what its queue still holds is dropped (a
     * reload does not wait for a slow target). Throws, changing nothing, for a host that does not resolve.
     */
    synchronized Runnable reload(SnmpConfig config) {
        boolean inform = config.trapType().equals("inform");
        // Every target resolved before any sender starts: a bad one leaves no thread behind.
        Map<String, Target<UdpAddress>> resolved = new LinkedHashMap<>();
        for (String t : config.trapTargets()) {
            String[] hp = SnmpConfig.parseTarget(t);
            UdpAddress address;
            try {
                address = new UdpAddress(InetAddress.getByName(hp[0]), Integer.parseInt(hp[1]));
            } catch (IOException e) {
                throw new IllegalArgumentException("snmp-trap-target '" + t + "': unknown host", e);
            }
            Target<UdpAddress> target;
            if (config.trapVersion().equals("v3")) {
                target = new UserTarget<>(address, new OctetString(config.trapUser()),
                        inform ? new byte[0] : localEngineId.getValue(), SecurityLevel.AUTH_PRIV);
                target.setVersion(SnmpConstants.version3);
            } else {
                target = new CommunityTarget<>(address, new OctetString(config.trapCommunity()));
                target.setVersion(SnmpConstants.version2c);
            }
            target.setTimeout(TIMEOUT_MILLIS);
            target.setRetries(RETRIES);
            resolved.put(t, target);
        }
        return () -> {
            synchronized (this) {
                List<TargetQueue> next = new ArrayList<>();
                List<TargetQueue> old = new ArrayList<>(targets);
                resolved.forEach((name, target) -> {
                    TargetQueue same = old.stream().filter(q -> q.sameAs(name, target, inform, config.trapQueue()))
                            .findFirst().orElse(null);
                    if (same != null) old.remove(same);
                    next.add(same != null ? same
                            : new TargetQueue(name, target, inform, localEngineId, config.trapQueue(), registry));
                });
                targets = List.copyOf(next);
                for (TargetQueue gone : old) gone.stop();
            }
        };
    }

    @Override
    public Object notify(OctetString context, OID notificationId, VariableBinding[] vbs) {
        return notify(context, notificationId, sysUpTime.get(), vbs);
    }

    /** Queues the notification for every target; never waits. Returns no responses: they come later. */
    @Override
    public Object notify(OctetString context, OID notificationId, TimeTicks uptime, VariableBinding[] vbs) {
        for (TargetQueue t : targets) t.offer(notificationId, uptime, vbs);
        return null;
    }

    @Override
    public synchronized void close() {
        for (TargetQueue t : targets) t.stop();
        targets = List.of();
    }

    /** One target: its queue, its sender thread, its informs awaiting acknowledgement, its counts. */
    private final class TargetQueue {
        private final String name;
        private final Target<UdpAddress> target;
        private final boolean inform;
        private final OctetString localEngineId;
        private final int capacity;
        private final BlockingQueue<PDU> queue;
        /** Places for informs awaiting their answer; a trap holds one only while it is sent. */
        private final Semaphore inFlight = new Semaphore(INFORMS_IN_FLIGHT);
        private final Thread sender;
        private final Counter dropped;
        private final Counter unacknowledged;
        private final AtomicLong droppedSinceLog = new AtomicLong();
        private final AtomicLong lastLog = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);

        TargetQueue(String name, Target<UdpAddress> target, boolean inform, OctetString localEngineId, int capacity,
                    MeterRegistry registry) {
            this.name = name;
            this.target = target;
            this.inform = inform;
            this.localEngineId = localEngineId;
            this.capacity = capacity;
            this.queue = new ArrayBlockingQueue<>(capacity);
            this.dropped = Counter.builder("vrouter.snmp.notifications.dropped")
                    .description("SNMP notifications dropped: the target's queue was full").tag("target", name)
                    .register(registry);
            this.unacknowledged = Counter.builder("vrouter.snmp.notifications.unacknowledged")
                    .description("SNMP informs the target never acknowledged").tag("target", name).register(registry);
            this.sender = new Thread(this::sendAll, "snmp-notify " + name);
            sender.setDaemon(true);
            sender.start();
        }

        /** Whether a reload's target is this one as it is: then it keeps its queue. */
        boolean sameAs(String otherName, Target<UdpAddress> other, boolean otherInform, int otherCapacity) {
            return name.equals(otherName) && inform == otherInform && capacity == otherCapacity
                    && target.getAddress().equals(other.getAddress()) && target.getVersion() == other.getVersion()
                    && target.getSecurityName().equals(other.getSecurityName())
                    && (!(target instanceof CommunityTarget<UdpAddress> c)
                        || other instanceof CommunityTarget<UdpAddress> o && c.getCommunity().equals(o.getCommunity()));
        }

        /** Stops the sender; what the queue still holds is dropped. */
        void stop() {
            sender.interrupt();
            queue.clear();
        }

        void offer(OID notificationId, TimeTicks uptime, VariableBinding[] vbs) {
            if (!queue.offer(pdu(notificationId, uptime, vbs))) drop();
        }

        private void drop() {
            dropped.increment();
            long n = droppedSinceLog.incrementAndGet();
            long now = System.nanoTime();
            long last = lastLog.get();
            if (now - last >= LOG_INTERVAL_NANOS && lastLog.compareAndSet(last, now)) {
                droppedSinceLog.addAndGet(-n);
                log.warn("SNMP: dropped {} notification(s) for {}: its queue of {} is full (snmp.trap.queue){}", n, name,
                        capacity, inform ? "; is it acknowledging informs?" : "");
            }
        }

        /**
         * The sender: takes a place, then the next notification, and sends it. A place is taken first so
         * that nothing is out of the queue but what is on the wire: the queue alone holds what waits.
         */
        private void sendAll() {
            try {
                while (true) {
                    inFlight.acquire();
                    send(queue.take());
                }
            } catch (InterruptedException e) {
                // closed
            }
        }

        /** RFC 3416 §4.2.6/4.2.7: sysUpTime.0, snmpTrapOID.0, then the notification's objects. */
        private PDU pdu(OID notificationId, TimeTicks uptime, VariableBinding[] vbs) {
            PDU pdu;
            if (target.getVersion() == SnmpConstants.version3) {
                ScopedPDU scoped = new ScopedPDU();
                scoped.setContextEngineID(localEngineId);
                pdu = scoped;
            } else {
                pdu = new PDU();
            }
            pdu.setType(inform ? PDU.INFORM : PDU.TRAP);
            pdu.add(new VariableBinding(SnmpConstants.sysUpTime, uptime));
            pdu.add(new VariableBinding(SnmpConstants.snmpTrapOID, notificationId));
            pdu.addAll(vbs);
            return pdu;
        }

        /** A trap goes and frees its place; an inform keeps it until answered or given up. */
        private void send(PDU pdu) {
            boolean awaited = false;
            try {
                if (inform) {
                    session.send(pdu, target, null, new Acknowledgement());
                    awaited = true;
                } else {
                    session.send(pdu, target);
                }
            } catch (IOException | RuntimeException e) {
                log.warn("SNMP: could not send a notification to {}: {}", name, e.toString());
            } finally {
                if (!awaited) inFlight.release();
            }
        }

        /** The answer to one inform, or its time-out after the retries: frees its place. */
        private final class Acknowledgement implements ResponseListener {
            private final AtomicBoolean done = new AtomicBoolean();

            @Override
            public <A extends Address> void onResponse(ResponseEvent<A> event) {
                // snmp4j keeps an asynchronous request until it is cancelled.
                if (event.getSource() instanceof Snmp snmp) snmp.cancel(event.getRequest(), this);
                if (!done.compareAndSet(false, true)) return;
                inFlight.release();
                if (event.getResponse() == null) {
                    unacknowledged.increment();
                    log.debug("SNMP: {} did not acknowledge an inform", name);
                }
            }
        }
    }
}
