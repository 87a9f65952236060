package io.vrouter.snmp;

import io.vrouter.core.config.Build;
import io.vrouter.core.config.AuthThrottle;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.migration.Drain;
import io.vrouter.core.migration.PeerClient;
import io.vrouter.core.persistence.DamagedConfigurationException;
import io.vrouter.core.persistence.FileFormat;
import io.vrouter.core.spi.VirtualRouters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.snmp4j.CommandResponderEvent;
import org.snmp4j.MessageDispatcherImpl;
import org.snmp4j.PDU;
import org.snmp4j.SNMP4JSettings;
import org.snmp4j.Session;
import org.snmp4j.TransportStateReference;
import org.snmp4j.asn1.BEROutputStream;
import org.snmp4j.agent.AgentConfigManager;
import org.snmp4j.agent.CommandProcessor;
import org.snmp4j.agent.DefaultMOServer;
import org.snmp4j.agent.DuplicateRegistrationException;
import org.snmp4j.agent.MOServer;
import org.snmp4j.agent.NotificationOriginator;
import org.snmp4j.agent.mo.snmp.SnmpCommunityMIB;
import org.snmp4j.agent.mo.snmp.StorageType;
import org.snmp4j.agent.mo.snmp.SysUpTime;
import org.snmp4j.agent.mo.snmp.VacmMIB;
import org.snmp4j.agent.security.MutableVACM;
import org.snmp4j.cfg.EngineBootsProvider;
import org.snmp4j.mp.CounterSupport;
import org.snmp4j.mp.MPv3;
import org.snmp4j.mp.MessageProcessingModel;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.security.AuthSHA;
import org.snmp4j.security.PrivAES128;
import org.snmp4j.security.PrivAES192;
import org.snmp4j.security.PrivAES256;
import org.snmp4j.security.PrivacyProtocol;
import org.snmp4j.security.SecurityLevel;
import org.snmp4j.security.SecurityModel;
import org.snmp4j.security.SecurityModels;
import org.snmp4j.security.SecurityProtocols;
import org.snmp4j.security.USM;
import org.snmp4j.security.UsmUser;
import org.snmp4j.smi.Address;
import org.snmp4j.smi.IpAddress;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.SMIConstants;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.smi.VariableBinding;
import org.snmp4j.transport.DefaultUdpTransportMapping;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snmp4j-agent agent, assembled with {@link AgentConfigManager}: a UDP transport, SNMPv2c
 * communities and SNMPv3 USM users mapped by VACM to a read view and a write view, notification
 * targets (each with a queue and a sender of its own: {@link NotificationQueues}), and NEW-VMM-MIB
 * registered beside the standard SNMPv2-MIB and SNMP-FRAMEWORK-MIB. Its configuration comes from the
 * server's settings only (no snmp4j configuration file is read or written); snmpEngineID and
 * snmpEngineBoots live in {@code DATA_DIR/snmp/engine.properties}, so that receivers accept our
 * notifications after a restart.
 */
final class VrSnmpAgent {
    private static final Logger log = LoggerFactory.getLogger(VrSnmpAgent.class);
    static final OctetString READ_VIEW = new OctetString("vrRead");
    static final OctetString WRITE_VIEW = new OctetString("vrWrite");
    /** A tenant's writers: NEW-VMM-MIB but the notification switches, which are the router's. */
    static final OctetString TENANT_WRITE_VIEW = new OctetString("vrTenantWrite");
    static final OctetString READ_GROUP = new OctetString("vrReaders");
    static final OctetString WRITE_GROUP = new OctetString("vrWriters");
    static final OctetString TENANT_WRITE_GROUP = new OctetString("vrTenantWriters");

    private final SnmpConfig config;
    private final SystemGroup system;
    private final EngineState engine;
    private final VmmInstrumentation instrumentation;
    /** RFC 7666's VM-MIB, read through NEW-VMM-MIB's instrumentation. */
    private final Rfc7666Instrumentation rfc7666;
    private final MigrationTable migrations;
    private final DrainScalars drain;
    private final VrMetrics metrics;
    private final DefaultMOServer server = new DefaultMOServer();
    private final AuthThrottle throttle;
    /** SNMPv3 SETs seen within the time window, when replays are refused. */
    private final ReplayWindow replays;
    private final MessageDispatcherImpl dispatcher = new ThrottledDispatcher();
    private final UdpAddress address;
    private final Manager manager;
    private final ThreadLocal<Long> started = new ThreadLocal<>();
    private boolean initialized;
    private final ThreadLocal<Boolean> answered = new ThreadLocal<>();
    /** Where notifications wait for their targets; made when the manager is initialised. */
    private NotificationQueues notifications;
    /** Answers the large GETBULKs (see {@link #PASS_BINDINGS}), while the listener thread answers the rest. */
    private ThreadPoolExecutor bulkThread;

    /** snmpEngineID and snmpEngineBoots, persisted; loading them counts a boot. */
    record EngineState(OctetString engineId, int boots) implements EngineBootsProvider {
        static final String FILE = "engine.properties";
        /** The format the file states as {@code format=2} (format 1 stated none). */
        static final int FORMAT = 2;

        /**
         * The state as stored, read without writing anything; empty when there is no file yet (a new
         * engine). An empty or damaged file is not absence: a new engineID and boots back at 1 would
         * make receivers reject our notifications, so it stops the start-up.
         *
         * @throws DamagedConfigurationException naming the file, what is wrong and what to do
         */
        static Optional<EngineState> read(Path dir) throws IOException {
            Path file = dir.resolve(FILE);
            Optional<Properties> read = PropertiesFile.read(file, what -> damaged(file, what));
            if (read.isEmpty()) return Optional.empty();
            Properties p = read.get();
            String stated = p.getProperty(FileFormat.FIELD);
            if (stated != null) {
                int version;
                try {
                    version = Integer.parseInt(stated.trim());
                } catch (NumberFormatException e) {
                    throw damaged(file, "its format is not a number");
                }
                FileFormat.readable(file, "", version, FORMAT);
            }
            String hex = p.getProperty("engineID", "").trim();
            if (hex.isEmpty()) throw damaged(file, "it has no engineID");
            byte[] id;
            try {
                id = HexFormat.of().parseHex(hex);
            } catch (IllegalArgumentException e) {
                throw damaged(file, "engineID is not an even number of hexadecimal digits");
            }
            // RFC 3411: SnmpEngineID is 5 to 32 octets.
            if (id.length < 5 || id.length > 32) throw damaged(file, "engineID has " + id.length + " octets, not 5 to 32");
            String bootsText = p.getProperty("engineBoots", "").trim();
            if (bootsText.isEmpty()) throw damaged(file, "it has no engineBoots");
            long boots;
            try {
                boots = Long.parseLong(bootsText);
            } catch (NumberFormatException e) {
                boots = -1;
            }
            if (boots < 0 || boots > Integer.MAX_VALUE) {
                throw damaged(file, "engineBoots is not a whole number from 0 to 2147483647");
            }
            return Optional.of(new EngineState(new OctetString(id), (int) boots));
        }

        private static DamagedConfigurationException damaged(Path file, String what) {
            return new DamagedConfigurationException(file, file + " is damaged: " + what + ". It holds the SNMP "
                    + "engine's snmpEngineID and snmpEngineBoots, by which SNMPv3 notification receivers know this "
                    + "agent. Nothing has been changed. Restore it from a backup of the data directory; or delete it "
                    + "to start as a new SNMP engine (a new engineID, boots 1), whose engineID the receivers must "
                    + "then be given.");
        }

        /** Reads the stored state (or makes a new engine's) and stores it with this boot counted. */
        static EngineState loadAndBoot(Path dir) throws IOException {
            Optional<EngineState> stored = read(dir);
            OctetString id;
            if (stored.isPresent()) {
                id = stored.get().engineId();
            } else {
                byte[] node = new byte[8];
                new SecureRandom().nextBytes(node);
                id = new OctetString(MPv3.createLocalEngineID(new OctetString(node)));
            }
            // RFC 3414: snmpEngineBoots stops at 2147483647, where the engine needs a new engineID.
            int boots = (int) Math.min(Integer.MAX_VALUE, stored.map(EngineState::boots).orElse(0) + 1L);
            Properties p = new Properties();
            p.setProperty(FileFormat.FIELD, Integer.toString(FORMAT));
            p.setProperty("engineID", HexFormat.of().formatHex(id.getValue()));
            p.setProperty("engineBoots", Integer.toString(boots));
            PropertiesFile.write(dir.resolve(FILE), p, "snmpEngineID and snmpEngineBoots of the vrouter SNMP agent; do not edit");
            return new EngineState(id, boots);
        }

        /** The boot was counted when the state was loaded; snmp4j asks again at start-up. */
        @Override
        public int updateEngineBoots() {
            return boots;
        }

        @Override
        public int getEngineBoots() {
            return boots;
        }
    }

    /**
     * Drops, unread, what comes from a source whose logins are throttled: a community or USM
     * credential guessed wrong too often (see {@link AuthThrottle}).
     */
    private final class ThrottledDispatcher extends MessageDispatcherImpl {
        ThrottledDispatcher() {
            addAuthenticationFailureListener(new org.snmp4j.event.AuthenticationFailureListener() {
                @Override
                public <A extends Address> void authenticationFailure(org.snmp4j.event.AuthenticationFailureEvent<A> e) {
                    if (GUESSES.contains(e.getError()) && e.getAddress() instanceof IpAddress ip) {
                        throttle.failed("snmp", ip.getInetAddress(), null);
                    }
                }
            });
        }

        @Override
        public <A extends Address> void processMessage(org.snmp4j.TransportMapping<? super A> transport, A from,
                                                       java.nio.ByteBuffer message, TransportStateReference state) {
            if (from instanceof IpAddress ip && !throttle.allow("snmp", ip.getInetAddress())) return;
            super.processMessage(transport, from, message, state);
        }
    }

    /** USM's refusals that mean a wrong guess (not engine discovery or time synchronisation). */
    private static final java.util.Set<Integer> GUESSES = java.util.Set.of(SnmpConstants.SNMPv3_USM_UNKNOWN_SECURITY_NAME,
            SnmpConstants.SNMPv3_USM_AUTHENTICATION_FAILURE, SnmpConstants.SNMPv3_USM_AUTHENTICATION_ERROR,
            SnmpConstants.SNMP_MP_WRONG_USER_NAME);

    /**
     * The most variable bindings one GETBULK may ask for, in all: more than a message can carry (a
     * binding takes 11 bytes at the least), so capping at this costs no answer anything, and the
     * work of one request stays bounded whatever its max-repetitions (100,000 times 8 OIDs, say).
     */
    static final int MAX_BULK_BINDINGS = 65_507 / 11;
    /** The largest UDP payload over IPv4, and what a response's message headers may need of it. */
    static final int MAX_UDP_PAYLOAD = 65_507;
    private static final int MESSAGE_OVERHEAD = 400;

    private static void capBulk(PDU pdu) {
        if (pdu == null || pdu.getType() != PDU.GETBULK) return;
        int repeaters = Math.max(1, pdu.size() - Math.max(0, pdu.getNonRepeaters()));
        int most = Math.max(1, (MAX_BULK_BINDINGS - Math.max(0, pdu.getNonRepeaters())) / repeaters);
        if (pdu.getMaxRepetitions() > most) pdu.setMaxRepetitions(most);
    }

    /**
     * RFC 3416 §4.2.3: a GETBULK answer that would not fit in one message carries fewer variable
     * bindings (whole repetitions, dropped from the end), not an error and not silence; and it stops
     * at the first repetition that is all endOfMibView.
     */
    private static void fitBulk(CommandResponderEvent<?> request, PDU response) {
        PDU asked = request.getPDU();
        if (asked.getType() != PDU.GETBULK) return;
        int limit = responseLimit(request);
        int nonRepeaters = Math.min(response.size(), Math.max(0, asked.getNonRepeaters()));
        int repeaters = Math.max(1, asked.size() - nonRepeaters);
        // Past the end of the view every repetition says endOfMibView again: one says it.
        for (int i = nonRepeaters; i + repeaters <= response.size(); i += repeaters) {
            boolean allEnd = true;
            for (int k = i; k < i + repeaters; k++) {
                allEnd &= response.get(k).getVariable().getSyntax() == SMIConstants.EXCEPTION_END_OF_MIB_VIEW;
            }
            if (allEnd) {
                response.setVariableBindings(new ArrayList<>(response.getVariableBindings().subList(0, i + repeaters)));
                break;
            }
        }
        int length = response.getBERLength();
        while (length > limit && response.size() > nonRepeaters + repeaters) {
            // Drop about as many bindings as the excess takes, in whole repetitions, then measure again.
            int average = Math.max(1, length / Math.max(1, response.size()));
            int drop = Math.max(1, (length - limit) / average / repeaters + 1) * repeaters;
            int keep = Math.max(nonRepeaters + repeaters, nonRepeaters
                    + (response.size() - drop - nonRepeaters) / repeaters * repeaters);
            List<VariableBinding> kept = new ArrayList<>(response.getVariableBindings().subList(0, keep));
            response.setVariableBindings(kept);
            length = response.getBERLength();
        }
        if (response.getErrorStatus() == PDU.tooBig && length <= limit) {
            response.setErrorStatus(PDU.noError);
            response.setErrorIndex(0);
        }
    }

    /** The most a response may carry: what the manager accepts, and what fits in a UDP datagram. */
    private static int responseLimit(CommandResponderEvent<?> request) {
        return Math.min(request.getMaxSizeResponsePDU(), MAX_UDP_PAYLOAD - MESSAGE_OVERHEAD);
    }

    /**
     * A GETBULK that asks for more bindings than this is answered in passes of at most this many, on
     * a thread of its own. snmp4j-agent measures the whole response once for every binding it adds,
     * and once more for every binding when it lets the request go, so one pass of n bindings costs n²:
     * the 5,955 bindings of one pass held its one listener thread for seconds, and every other
     * request waited (issue 12). Passes of 100 cost little, and their number grows with the answer.
     */
    static final int PASS_BINDINGS = 100;
    /** Large GETBULKs waiting for the bulk thread; one more is dropped (as a busy agent drops a datagram). */
    private static final int BULK_QUEUE = 16;

    /** A CommandProcessor that times every request for the metrics and answers large GETBULKs in passes. */
    private final class TimedCommandProcessor extends CommandProcessor {
        /** Where a pass's response goes, instead of to the manager, on the thread answering in passes. */
        private final ThreadLocal<PDU[]> passResponse = new ThreadLocal<>();

        TimedCommandProcessor(OctetString engineId) {
            super(engineId);
        }

        @Override
        public <A extends Address> void processPdu(CommandResponderEvent<A> event) {
            capBulk(event.getPDU());
            if (!inPasses(event)) {
                timed(event, () -> super.processPdu(event));
                return;
            }
            event.setProcessed(true);
            try {
                bulkThread.execute(() -> timed(event, () -> instrumentation.inOneView(event, () -> answerInPasses(event))));
            } catch (RejectedExecutionException e) {
                log.debug("SNMP: dropped a GETBULK from {}: {} others wait", event.getPeerAddress(), BULK_QUEUE);
                metrics.recordRequest("snmp", "getbulk", "busy", 0);
            }
        }

        /** A GETBULK of more than {@link #PASS_BINDINGS} bindings, from a user or community we know. */
        private boolean inPasses(CommandResponderEvent<?> event) {
            PDU pdu = event.getPDU();
            if (pdu == null || pdu.getType() != PDU.GETBULK || pdu.getMaxRepetitions() <= 0) return false;
            int nonRepeaters = Math.min(pdu.size(), Math.max(0, pdu.getNonRepeaters()));
            int repeaters = pdu.size() - nonRepeaters;
            return repeaters > 0 && nonRepeaters + (long) pdu.getMaxRepetitions() * repeaters > PASS_BINDINGS
                    && (event.getSecurityModel() == SecurityModel.SECURITY_MODEL_USM || knownCommunity(event));
        }

        private void timed(CommandResponderEvent<?> event, Runnable process) {
            started.set(System.nanoTime());
            answered.set(false);
            if (replayed(event)) {
                metrics.recordRequest("snmp", "set", "replayed", System.nanoTime() - started.get());
                started.remove();
                answered.remove();
                return;
            }
            if (event.getSecurityModel() == SecurityModel.SECURITY_MODEL_SNMPv2c && !knownCommunity(event)
                    && event.getPeerAddress() instanceof IpAddress ip) {
                throttle.failed("snmp", ip.getInetAddress(), null);
            }
            try {
                process.run();
            } finally {
                if (!answered.get() && event.getPDU() != null && event.getPDU().getType() != PDU.REPORT) {
                    // Dropped: an unknown community, or a request the security layer refused.
                    metrics.recordRequest("snmp", operation(event.getPDU()), "refused",
                            System.nanoTime() - started.get());
                }
                started.remove();
                answered.remove();
            }
        }

        /**
         * Answers a GETBULK in passes: the first with the non-repeaters and the repetitions that make
         * up {@link #PASS_BINDINGS}, each next one a GETBULK of the last repetition's OIDs (each
         * repetition is the GETNEXT of the one before: RFC 3416 §4.2.3), until the repetitions asked
         * for are there, the answer is as large as a message may be, or every repeater is past the
         * end of the view. One response goes out, as the request would have had it in one pass.
         */
        private <A extends Address> void answerInPasses(CommandResponderEvent<A> event) {
            PDU asked = event.getPDU();
            int nonRepeaters = Math.min(asked.size(), Math.max(0, asked.getNonRepeaters()));
            int repeaters = asked.size() - nonRepeaters;
            int left = asked.getMaxRepetitions();
            List<VariableBinding> answer = new ArrayList<>();
            int length = 0;
            PDU pass = (PDU) asked.clone();
            PDU response;
            try {
                while (true) {
                    int passNonRepeaters = pass.getNonRepeaters();
                    int repetitions = Math.min(left, Math.max(1, (PASS_BINDINGS - passNonRepeaters) / repeaters));
                    pass.setMaxRepetitions(repetitions);
                    event.setPDU(pass);
                    response = onePass(event);
                    if (response == null) return;   // refused, and said so (or not) by snmp4j
                    if (response.getType() != PDU.RESPONSE) break;   // a report: goes out as it is
                    if (response.getErrorStatus() != PDU.noError) {
                        // RFC 3416 §4.2.3: the request's bindings, and the index of the failed one in the request.
                        int failed = response.getErrorIndex();
                        if (failed > passNonRepeaters) {
                            response.setErrorIndex(nonRepeaters + (failed - 1 - passNonRepeaters) % repeaters + 1);
                        }
                        response.setVariableBindings(asked.getVariableBindings());
                        break;
                    }
                    List<? extends VariableBinding> got = response.getVariableBindings();
                    for (VariableBinding vb : got.subList(0, Math.min(got.size(), passNonRepeaters))) {
                        answer.add(vb);
                        length += vb.getBERLength();
                    }
                    int rows = Math.max(0, got.size() - passNonRepeaters) / repeaters;
                    boolean done = false;
                    for (int row = 0; row < rows && !done; row++) {
                        boolean allEnd = true;
                        for (VariableBinding vb : got.subList(passNonRepeaters + row * repeaters,
                                passNonRepeaters + (row + 1) * repeaters)) {
                            answer.add(vb);
                            length += vb.getBERLength();
                            allEnd &= vb.getVariable().getSyntax() == SMIConstants.EXCEPTION_END_OF_MIB_VIEW;
                        }
                        left--;
                        // Past the size of a message: fitBulk drops the excess.
                        done = allEnd || length > responseLimit(event);
                    }
                    if (done || left <= 0 || rows < repetitions) {
                        response.setVariableBindings(answer);
                        break;
                    }
                    pass = (PDU) asked.clone();
                    pass.setNonRepeaters(0);
                    List<VariableBinding> next = new ArrayList<>(repeaters);
                    for (VariableBinding vb : answer.subList(answer.size() - repeaters, answer.size())) {
                        next.add(new VariableBinding(vb.getOid()));
                    }
                    pass.setVariableBindings(next);
                }
            } finally {
                event.setPDU(asked);
            }
            sendResponse(event, response);
        }

        /** Processes the event's PDU as snmp4j-agent does, and returns its response instead of sending it. */
        private PDU onePass(CommandResponderEvent<?> event) {
            PDU[] response = new PDU[1];
            passResponse.set(response);
            try {
                super.processPdu(event);
            } finally {
                passResponse.remove();
            }
            return response[0];
        }

        @Override
        protected <A extends Address> void sendResponse(CommandResponderEvent<A> requestEvent, PDU response) {
            PDU[] pass = passResponse.get();
            if (pass != null) {
                pass[0] = response;
                return;
            }
            fitBulk(requestEvent, response);
            super.sendResponse(requestEvent, response);
            Long t0 = started.get();
            if (t0 != null) {
                answered.set(true);
                String outcome = response.getErrorStatus() == PDU.noError ? "success"
                        : PDU.toErrorStatusText(response.getErrorStatus());
                metrics.recordRequest("snmp", operation(requestEvent.getPDU()), outcome, System.nanoTime() - t0);
            }
        }

        /** An SNMPv3 SET this agent carried out within the last 150 s, sent again (snmp.v3.replay-protection). */
        private boolean replayed(CommandResponderEvent<?> event) {
            if (replays == null || event.getPDU() == null || event.getPDU().getType() != PDU.SET
                    || event.getSecurityModel() != SecurityModel.SECURITY_MODEL_USM || event.getStateReference() == null) {
                return false;
            }
            String user = new String(event.getSecurityName(), StandardCharsets.UTF_8);
            if (replays.firstTime(user, event.getStateReference().getMsgID().getID(), ber(event.getPDU()))) return false;
            log.warn("SNMP: dropped a SET from {} that repeats one of user '{}' (msgID {}) seen within 150 s: a replay "
                    + "(snmp.v3.replay-protection)", event.getPeerAddress(), user, event.getStateReference().getMsgID().getID());
            return true;
        }

        private static byte[] ber(PDU pdu) {
            BEROutputStream out = new BEROutputStream(ByteBuffer.allocate(pdu.getBERLength()));
            try {
                pdu.encodeBER(out);
            } catch (IOException e) {
                throw new UncheckedIOException("a decoded PDU encodes again", e);
            }
            return out.getBuffer().array();
        }

        private boolean knownCommunity(CommandResponderEvent<?> event) {
            String community = new String(event.getSecurityName(), StandardCharsets.ISO_8859_1);
            return config.readCommunities().contains(community) || config.writeCommunities().contains(community);
        }

        private String operation(PDU pdu) {
            return PDU.getTypeString(pdu.getType()).toLowerCase(Locale.ROOT);
        }
    }

    /** The snmp4j-agent configuration manager, with our command processor and notification queues. */
    private static final class Manager extends AgentConfigManager {
        private final java.util.function.Function<OctetString, CommandProcessor> processors;
        private final BiFunction<Session, SysUpTime, NotificationOriginator> notifications;
        private final boolean v2c;

        /**
         * vrouter and its version; not snmp4j-agent's default, which named the library and told
         * anyone with a community the host's kernel release.
         */
        @Override
        public OctetString getSysDescr() {
            String version = Build.version();
            return new OctetString("vrouter " + (version == null ? "development build" : version)
                    + ", virtual router manager");
        }

        @Override
        public OID getSysOID() {
            return VmmMib.VROUTER_AGENT;
        }

        Manager(EngineState engine, org.snmp4j.MessageDispatcher messages, MOServer mibs, boolean v2c,
                java.util.function.Function<OctetString, CommandProcessor> processors,
                BiFunction<Session, SysUpTime, NotificationOriginator> notifications) {
            super(engine.engineId(), messages, null, new MOServer[]{mibs}, null, null, null, engine);
            this.processors = processors;
            this.notifications = notifications;
            this.v2c = v2c;
        }

        /** Ours, not snmp4j-agent's, which waited for every inform on the caller's thread: {@link NotificationQueues}. */
        @Override
        protected NotificationOriginator createNotificationOriginator() {
            return notifications.apply(session, snmpv2MIB.getSysUpTime());
        }

        /** SNMPv3 always, SNMPv2c unless turned off, SNMPv1 never. */
        @Override
        protected void initMessageDispatcherWithMPs(org.snmp4j.MessageDispatcher mp) {
            super.initMessageDispatcherWithMPs(mp);
            mp.removeMessageProcessingModel(mp.getMessageProcessingModel(MessageProcessingModel.MPv1));
            if (!v2c) mp.removeMessageProcessingModel(mp.getMessageProcessingModel(MessageProcessingModel.MPv2c));
        }

        /**
         * None of snmp4j-agent's optional MIBs (its log and configuration MIBs, the proxy MIB, the
         * Diffie-Hellman key objects, the notification log): no view lets a client read them, and the
         * notification log copied every notification sent into a table of the last thousand, about a
         * tenth of the server's CPU while VRs are created and removed.
         */
        @Override
        protected void initOptionalMIBs() {
        }

        @Override
        protected CommandProcessor createCommandProcessor(OctetString engineID) {
            return processors.apply(engineID);
        }

        @Override
        protected USM createUSM() {
            return new ReportingUsm(securityProtocols, engineID, engineBootsProvider.updateEngineBoots(), counterSupport);
        }
    }

    VrSnmpAgent(SnmpConfig config, SystemGroup system, Path stateDir, VirtualRouters service, VrMetrics metrics,
                AuthThrottle throttle, Map<String, PeerClient> peers, Drain drain) throws IOException {
        this.config = config;
        this.system = system;
        this.throttle = throttle;
        this.replays = config.replayProtection() ? new ReplayWindow() : null;
        this.metrics = metrics;
        this.engine = EngineState.loadAndBoot(stateDir);
        Principals principals = new Principals(config);
        this.instrumentation = new VmmInstrumentation(service, principals);
        this.migrations = new MigrationTable(service, principals, peers);
        this.drain = new DrainScalars(service, principals, drain);
        this.rfc7666 = new Rfc7666Instrumentation(instrumentation);
        this.address = new UdpAddress(InetAddress.getByName(config.bind()), config.port());
        this.manager = new Manager(engine, dispatcher, server, config.v2c(), TimedCommandProcessor::new,
                (session, upTime) -> notifications = new NotificationQueues(session, config, engine.engineId(), upTime,
                        metrics.registry()));
        SecurityProtocols protocols = new SecurityProtocols(SecurityProtocols.SecurityProtocolSet.defaultSecurity);
        protocols.addAuthenticationProtocol(new AuthSHA());   // HMAC-SHA-96, what net-snmp's "-a SHA" means
        // A wrong privacy key (or another protocol) decrypts to noise: say so with a report.
        for (PrivacyProtocol aes : List.of(new PrivAES128(), new PrivAES192(), new PrivAES256())) {
            protocols.removePrivacyProtocol(aes.getID());
            protocols.addPrivacyProtocol(new CheckedPrivacy(aes));
        }
        // RFC 3412 §7.1.3: a report the request's security level cannot carry (an unknown user, a
        // key that does not decrypt) goes out at noAuthNoPriv, rather than not at all.
        SNMP4JSettings.setReportSecurityLevelStrategy(SNMP4JSettings.ReportSecurityLevelStrategy.noAuthNoPrivIfNeeded);
        manager.setContext(new SecurityModels(), protocols, new CounterSupport());
    }

    OctetString engineId() {
        return engine.engineId();
    }

    int engineBoots() {
        return engine.boots();
    }

    /** The change of notification targets a reload brings ({@link NotificationQueues#reload}); checked now. */
    Runnable reloadNotifications(SnmpConfig next) {
        NotificationQueues queues = notifications;
        return queues == null ? () -> { } : queues.reload(next);
    }

    NotificationOriginator notificationOriginator() {
        return manager.getNotificationOriginator();
    }

    SysUpTime sysUpTime() {
        return manager.getSysUpTime();
    }

    /** Configures, binds and starts answering. */
    void start() throws IOException {
        bulkThread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(BULK_QUEUE),
                r -> {
                    Thread t = new Thread(r, "snmp-bulk");
                    t.setDaemon(true);
                    return t;
                });
        DefaultUdpTransportMapping listener = new DefaultUdpTransportMapping(address);
        // Every request is decoded and answered on the listener's thread (no worker pool; a GETBULK
        // handed to the bulk thread takes its decoded PDU, not the datagram), so one receive buffer
        // serves them all: otherwise snmp4j allocates a new one of 64 KB per datagram, 85% of the
        // SNMP path's allocation and of the young collections it causes.
        listener.setAsyncMsgProcessingSupported(false);
        dispatcher.addTransportMapping(listener);
        initialized = true;
        manager.initialize();
        try {
            server.register(instrumentation, null);
            server.register(rfc7666, null);
            server.register(migrations, null);
            server.register(drain, null);
        } catch (DuplicateRegistrationException e) {
            throw new IllegalStateException(e);
        }
        system.attach(manager.getSNMPv2MIB(), server);
        addUsers();
        addCommunities(manager.getSnmpCommunityMIB());
        addViews(manager.getVacmMIB());
        manager.run();
        if (manager.getState() != org.snmp4j.agent.AgentState.STATE_RUNNING) {
            throw new IOException("SNMP agent could not listen on udp:" + address);
        }
    }

    /** Stops answering and releases the port; does nothing when the agent never got its port. */
    void stop() {
        if (!initialized) return;
        initialized = false;
        bulkThread.shutdownNow();
        if (notifications != null) notifications.close();
        try {
            manager.shutdown();
        } catch (RuntimeException e) {
            // A start that failed half-way: release the port at least.
            log.warn("SNMP agent shutdown: {}", e.toString());
            for (var transport : dispatcher.getTransportMappings()) {
                try {
                    transport.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
        server.unregister(instrumentation, null);
        server.unregister(rfc7666, null);
        server.unregister(migrations, null);
        server.unregister(drain, null);
        migrations.close();
    }

    private void addUsers() {
        for (SnmpConfig.User u : config.users()) {
            manager.getUsm().addUser(new UsmUser(new OctetString(u.name()), u.authProtocol(),
                    new OctetString(u.authPassphrase()), u.privProtocol(), new OctetString(u.privPassphrase())));
        }
    }

    private void addCommunities(SnmpCommunityMIB communityMIB) {
        if (!config.v2c()) return;
        int n = 0;
        for (String c : config.readCommunities()) {
            communityMIB.addSnmpCommunityEntry(new OctetString(Principals.communityIndex(false, n++)), new OctetString(c),
                    new OctetString(c), engine.engineId(), new OctetString(), new OctetString(), StorageType.volatile_);
        }
        for (String c : config.writeCommunities()) {
            communityMIB.addSnmpCommunityEntry(new OctetString(Principals.communityIndex(true, n++)), new OctetString(c),
                    new OctetString(c), engine.engineId(), new OctetString(), new OctetString(), StorageType.volatile_);
        }
    }

    private void addViews(VacmMIB vacm) {
        if (config.v2c()) {
            for (String c : config.readCommunities()) {
                vacm.addGroup(SecurityModel.SECURITY_MODEL_SNMPv2c, new OctetString(c), READ_GROUP, StorageType.volatile_);
            }
            for (String c : config.writeCommunities()) {
                vacm.addGroup(SecurityModel.SECURITY_MODEL_SNMPv2c, new OctetString(c), WRITE_GROUP, StorageType.volatile_);
            }
        }
        for (SnmpConfig.User u : config.users()) {
            vacm.addGroup(SecurityModel.SECURITY_MODEL_USM, new OctetString(u.name()),
                    !u.write() ? READ_GROUP : u.tenant() == null ? WRITE_GROUP : TENANT_WRITE_GROUP, StorageType.volatile_);
        }
        // Readers: the VR MIBs (NEW-VMM-MIB, RFC 7666's VM-MIB), the system and snmp groups, the engine
        // (snmpEngineID, snmpEngineBoots); never the security configuration (USM, VACM, community, target tables).
        for (OID subtree : new OID[]{VmmMib.ROOT, Rfc7666Instrumentation.ROOT, new OID("1.3.6.1.2.1.1"),
                new OID("1.3.6.1.2.1.11"), new OID("1.3.6.1.6.3.10.2.1")}) {
            vacm.addViewTreeFamily(READ_VIEW, subtree, new OctetString(), VacmMIB.vacmViewIncluded, StorageType.volatile_);
        }
        // Writers: the VR MIBs (RFC 7666's is read-only: in the view so that a SET there is notWritable,
        // as its objects are, not noAccess), and sysContact, sysName and sysLocation (SystemGroup says
        // which of them are writable).
        for (OID subtree : new OID[]{VmmMib.ROOT, Rfc7666Instrumentation.ROOT}) {
            vacm.addViewTreeFamily(WRITE_VIEW, subtree, new OctetString(), VacmMIB.vacmViewIncluded, StorageType.volatile_);
            vacm.addViewTreeFamily(TENANT_WRITE_VIEW, subtree, new OctetString(), VacmMIB.vacmViewIncluded,
                    StorageType.volatile_);
        }
        for (SystemGroup.Field f : SystemGroup.Field.values()) {
            vacm.addViewTreeFamily(WRITE_VIEW, f.instance, new OctetString(), VacmMIB.vacmViewIncluded, StorageType.volatile_);
        }
        // A tenant's writers: the same, but the notification switches, the moves to peer routers and the
        // drain, which are the router's (noAccess). Which rows a tenant's user may read and change is not VACM's: the
        // core's view of the user decides.
        for (OID routers : new OID[]{VmmMib.scalar(VmmMib.VM_PER_VM_NOTIFICATIONS_ENABLED),
                VmmMib.scalar(VmmMib.VM_BULK_NOTIFICATIONS_ENABLED), MigrationTable.TABLE, DrainScalars.DRAIN}) {
            vacm.addViewTreeFamily(TENANT_WRITE_VIEW, routers, new OctetString(), VacmMIB.vacmViewExcluded,
                    StorageType.volatile_);
        }
        // No notify view: notifications go to the configured targets, whom VACM is not asked about (NotificationQueues).
        for (int model : new int[]{SecurityModel.SECURITY_MODEL_SNMPv2c, SecurityModel.SECURITY_MODEL_USM}) {
            int level = model == SecurityModel.SECURITY_MODEL_USM ? SecurityLevel.AUTH_PRIV : SecurityLevel.NOAUTH_NOPRIV;
            vacm.addAccess(READ_GROUP, new OctetString(), model, level, MutableVACM.VACM_MATCH_EXACT, READ_VIEW,
                    new OctetString(), new OctetString(), StorageType.volatile_);
            vacm.addAccess(WRITE_GROUP, new OctetString(), model, level, MutableVACM.VACM_MATCH_EXACT, READ_VIEW,
                    WRITE_VIEW, new OctetString(), StorageType.volatile_);
        }
        vacm.addAccess(TENANT_WRITE_GROUP, new OctetString(), SecurityModel.SECURITY_MODEL_USM, SecurityLevel.AUTH_PRIV,
                MutableVACM.VACM_MATCH_EXACT, READ_VIEW, TENANT_WRITE_VIEW, new OctetString(), StorageType.volatile_);
    }
}
