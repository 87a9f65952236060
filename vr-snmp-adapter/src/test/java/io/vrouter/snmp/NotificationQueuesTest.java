package io.vrouter.snmp;

import io.micrometer.core.instrument.Counter;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vrouter.core.config.Settings;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.snmp4j.CommandResponder;
import org.snmp4j.CommandResponderEvent;
import org.snmp4j.MessageException;
import org.snmp4j.PDU;
import org.snmp4j.Snmp;
import org.snmp4j.mp.MPv3;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.mp.StatusInformation;
import org.snmp4j.smi.Address;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.TimeTicks;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.smi.VariableBinding;
import org.snmp4j.transport.DefaultUdpTransportMapping;
import org.slf4j.LoggerFactory;

/**
 * Each notification target has a bounded queue of its own (issue 23): an inform target that never
 * answers holds {@link NotificationQueues#INFORMS_IN_FLIGHT} informs on the wire and
 * {@code snmp.trap.queue} in its queue, drops and counts the rest, and holds back neither the caller
 * nor the other targets.
 */
class NotificationQueuesTest {
    private static final OID NOTIFICATION = new OID("1.3.6.1.3.7666.0.1");

    /** A receiver of informs that records each one's request-id (its first sending) and may answer. */
    private static final class Receiver implements AutoCloseable {
        final Snmp snmp;
        final Set<Integer> seen = ConcurrentHashMap.newKeySet();

        Receiver(boolean answers) throws Exception {
            snmp = new Snmp(new DefaultUdpTransportMapping(new UdpAddress("127.0.0.1/0")));
            snmp.addCommandResponder(new CommandResponder() {
                @Override
                public <A extends Address> void processPdu(CommandResponderEvent<A> e) {
                    seen.add(e.getPDU().getRequestID().getValue());
                    e.setProcessed(true);
                    if (!answers) return;
                    PDU response = (PDU) e.getPDU().clone();
                    response.setType(PDU.RESPONSE);
                    try {
                        e.getMessageDispatcher().returnResponsePdu(e.getMessageProcessingModel(), e.getSecurityModel(),
                                e.getSecurityName(), e.getSecurityLevel(), response, e.getMaxSizeResponsePDU(),
                                e.getStateReference(), new StatusInformation());
                    } catch (MessageException ex) {
                        throw new IllegalStateException(ex);
                    }
                }
            });
            snmp.listen();
        }

        String target() {
            return "udp:127.0.0.1:" + ((UdpAddress) snmp.getMessageDispatcher().getTransportMappings().iterator().next()
                    .getListenAddress()).getPort();
        }

        void awaitSeen(int n) throws InterruptedException {
            long end = System.nanoTime() + 10_000_000_000L;
            while (seen.size() < n && System.nanoTime() < end) Thread.sleep(10);
            assertThat(seen).as("informs received").hasSize(n);
        }

        @Override
        public void close() throws Exception {
            snmp.close();
        }
    }

    @Test
    void aTargetThatNeverAnswersFillsItsOwnQueueAndDropsAreCounted() throws Exception {
        int queue = 3;
        int dropped = 5;
        var registry = new SimpleMeterRegistry();
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        ((Logger) LoggerFactory.getLogger(NotificationQueues.class)).addAppender(logged);
        try (Receiver dead = new Receiver(false); Receiver alive = new Receiver(true);
             Snmp session = new Snmp(new DefaultUdpTransportMapping())) {
            session.listen();
            SnmpConfig config = SnmpConfig.from(Settings.of(Map.of("snmp.trap.type", "inform",
                    "snmp-trap-target", dead.target() + "," + alive.target(), "snmp.trap.queue", Integer.toString(queue))));
            try (NotificationQueues queues = new NotificationQueues(session, config,
                    new OctetString(MPv3.createLocalEngineID()), () -> new TimeTicks(0), registry)) {
                // One by one (the queue holds fewer), until all are on the wire to the dead target, none
                // answered: its sender waits for a place.
                // The answering target is waited for too: its queue is as small, and a sender slowed by a
                // loaded machine must not have it overflow (that dropped 3 of its 9 once).
                for (int k = 0; k < NotificationQueues.INFORMS_IN_FLIGHT; k++) {
                    notify(queues, k);
                    dead.awaitSeen(k + 1);
                    alive.awaitSeen(k + 1);
                }
                int more = queue + dropped;
                // Each returns at once, though the dead target takes nothing more, and reaches the other
                // target (one at a time, as the queue is small), while the dead one's queue is full too.
                for (int k = 0; k < more; k++) {
                    notify(queues, NotificationQueues.INFORMS_IN_FLIGHT + k);
                    alive.awaitSeen(NotificationQueues.INFORMS_IN_FLIGHT + k + 1);
                }

                assertThat(registry.get("vrouter.snmp.notifications.dropped").tag("target", dead.target()).counter()
                        .count()).isEqualTo(dropped);
                assertThat(registry.get("vrouter.snmp.notifications.dropped").tag("target", alive.target()).counter()
                        .count()).isZero();
                assertThat(dead.seen).hasSize(NotificationQueues.INFORMS_IN_FLIGHT);
                // Told once, at the first drop, not once per drop: the next warning waits a minute.
                assertThat(logged.list).filteredOn(e -> e.getLevel() == Level.WARN)
                        .extracting(ILoggingEvent::getFormattedMessage)
                        .containsExactly("SNMP: dropped 1 notification(s) for " + dead.target()
                                + ": its queue of 3 is full (snmp.trap.queue); is it acknowledging informs?");
            } finally {
                ((Logger) LoggerFactory.getLogger(NotificationQueues.class)).detachAppender(logged);
            }
        }
    }

    @Test
    void aReloadKeepsTheQueueOfATargetAsItWasAddsANewOneAndStopsARemovedOne() throws Exception {
        var registry = new SimpleMeterRegistry();
        try (Receiver dead = new Receiver(false); Receiver added = new Receiver(true);
             Snmp session = new Snmp(new DefaultUdpTransportMapping())) {
            session.listen();
            Map<String, String> settings = Map.of("snmp.trap.type", "inform", "snmp.trap.queue", "1");
            try (NotificationQueues queues = new NotificationQueues(session, config(settings, dead.target()),
                    new OctetString(MPv3.createLocalEngineID()), () -> new TimeTicks(0), registry)) {
                // The dead target's informs all on the wire, unanswered, and one more waiting in its queue of one.
                for (int k = 0; k < NotificationQueues.INFORMS_IN_FLIGHT; k++) {
                    notify(queues, k);
                    dead.awaitSeen(k + 1);
                }
                notify(queues, NotificationQueues.INFORMS_IN_FLIGHT);
                Counter deadDropped = registry.get("vrouter.snmp.notifications.dropped").tag("target", dead.target()).counter();

                queues.reload(config(settings, dead.target() + "," + added.target())).run();
                notify(queues, NotificationQueues.INFORMS_IN_FLIGHT + 1);
                added.awaitSeen(1);
                // The dead target kept its queue, still full: a queue made anew would have taken it.
                assertThat(deadDropped.count()).isEqualTo(1);

                queues.reload(config(settings, added.target())).run();
                notify(queues, NotificationQueues.INFORMS_IN_FLIGHT + 2);
                added.awaitSeen(2);
                assertThat(deadDropped.count()).as("the removed target takes nothing").isEqualTo(1);
                assertThat(dead.seen).hasSize(NotificationQueues.INFORMS_IN_FLIGHT);
            }
        }
    }

    private static SnmpConfig config(Map<String, String> settings, String targets) {
        Map<String, String> all = new java.util.HashMap<>(settings);
        all.put("snmp-trap-target", targets);
        return SnmpConfig.from(Settings.of(all));
    }

    private static void notify(NotificationQueues queues, int k) {
        queues.notify(new OctetString(), NOTIFICATION,
                new VariableBinding[]{new VariableBinding(SnmpConstants.sysDescr, new OctetString("n" + k))});
    }
}
