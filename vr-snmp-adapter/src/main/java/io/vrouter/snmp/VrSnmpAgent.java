package io.vrouter.snmp;

import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.service.VirtualRouterService;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Properties;
import org.snmp4j.CommandResponderEvent;
import org.snmp4j.MessageDispatcherImpl;
import org.snmp4j.PDU;
import org.snmp4j.TransportMapping;
import org.snmp4j.agent.BaseAgent;
import org.snmp4j.agent.CommandProcessor;
import org.snmp4j.agent.DuplicateRegistrationException;
import org.snmp4j.agent.mo.snmp.SnmpCommunityMIB;
import org.snmp4j.agent.mo.snmp.SnmpNotificationMIB;
import org.snmp4j.agent.mo.snmp.SnmpTargetMIB;
import org.snmp4j.agent.mo.snmp.StorageType;
import org.snmp4j.agent.mo.snmp.TransportDomains;
import org.snmp4j.agent.mo.snmp.VacmMIB;
import org.snmp4j.agent.security.MutableVACM;
import org.snmp4j.mp.MPv1;
import org.snmp4j.mp.MPv2c;
import org.snmp4j.mp.MPv3;
import org.snmp4j.security.AuthSHA;
import org.snmp4j.security.SecurityLevel;
import org.snmp4j.security.SecurityModel;
import org.snmp4j.security.SecurityProtocols;
import org.snmp4j.security.USM;
import org.snmp4j.security.UsmUser;
import org.snmp4j.smi.Address;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.transport.DefaultUdpTransportMapping;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snmp4j-agent agent: UDP transport, SNMPv2c communities and SNMPv3 USM users mapped by VACM to a
 * read view and a write view, notification targets, and NEW-VMM-MIB registered beside the standard
 * SNMPv2-MIB and SNMP-FRAMEWORK-MIB. snmpEngineID and snmpEngineBoots live in
 * {@code DATA_DIR/snmp/engine.properties}, so that receivers accept our notifications after a restart.
 */
final class VrSnmpAgent extends BaseAgent {
    private static final Logger log = LoggerFactory.getLogger(VrSnmpAgent.class);
    static final OctetString READ_VIEW = new OctetString("vrRead");
    static final OctetString WRITE_VIEW = new OctetString("vrWrite");
    static final OctetString NOTIFY_VIEW = new OctetString("vrNotify");
    static final OctetString READ_GROUP = new OctetString("vrReaders");
    static final OctetString WRITE_GROUP = new OctetString("vrWriters");
    private static final OctetString NOTIFY_TAG = new OctetString("vrNotify");

    private final SnmpConfig config;
    private final EngineState engine;
    private final VmmInstrumentation instrumentation;
    private final VrMetrics metrics;
    private final ThreadLocal<Long> started = new ThreadLocal<>();
    private final ThreadLocal<Boolean> answered = new ThreadLocal<>();

    /** snmpEngineID and snmpEngineBoots, persisted. */
    record EngineState(OctetString engineId, int boots) {
        static EngineState loadAndBoot(Path dir) throws IOException {
            Files.createDirectories(dir);
            Path file = dir.resolve("engine.properties");
            Properties p = new Properties();
            if (Files.exists(file)) {
                try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    p.load(in);
                }
            }
            OctetString id;
            String hex = p.getProperty("engineID");
            if (hex == null || hex.isBlank()) {
                byte[] node = new byte[8];
                new SecureRandom().nextBytes(node);
                id = new OctetString(MPv3.createLocalEngineID(new OctetString(node)));
            } else {
                id = new OctetString(HexFormat.of().parseHex(hex.trim()));
            }
            int boots = Integer.parseInt(p.getProperty("engineBoots", "0").trim()) + 1;
            if (boots <= 0 || boots == Integer.MAX_VALUE) boots = Integer.MAX_VALUE;
            p.setProperty("engineID", HexFormat.of().formatHex(id.getValue()));
            p.setProperty("engineBoots", Integer.toString(boots));
            Path tmp = dir.resolve("engine.properties.tmp");
            try (var out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                p.store(out, "snmpEngineID and snmpEngineBoots of the vrouter SNMP agent; do not edit");
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return new EngineState(id, boots);
        }
    }

    /** A CommandProcessor that times every request for the metrics. */
    private final class TimedCommandProcessor extends CommandProcessor {
        TimedCommandProcessor(OctetString engineId) {
            super(engineId);
        }

        @Override
        public <A extends Address> void processPdu(CommandResponderEvent<A> event) {
            started.set(System.nanoTime());
            answered.set(false);
            try {
                super.processPdu(event);
            } finally {
                if (!answered.get() && event.getPDU() != null && event.getPDU().getType() != PDU.REPORT) {
                    // Dropped (unknown community) or handed to a report by the security layer.
                    metrics.recordRequest("snmp", PDU.getTypeString(event.getPDU().getType()).toLowerCase(), "refused",
                            System.nanoTime() - started.get());
                }
                started.remove();
                answered.remove();
            }
        }

        @Override
        protected <A extends Address> void sendResponse(CommandResponderEvent<A> requestEvent, PDU response) {
            super.sendResponse(requestEvent, response);
            Long t0 = started.get();
            if (t0 != null) {
                answered.set(true);
                String op = PDU.getTypeString(requestEvent.getPDU().getType()).toLowerCase();
                String outcome = response.getErrorStatus() == PDU.noError ? "success"
                        : PDU.toErrorStatusText(response.getErrorStatus());
                metrics.recordRequest("snmp", op, outcome, System.nanoTime() - t0);
            }
        }
    }

    VrSnmpAgent(SnmpConfig config, Path stateDir, VirtualRouterService service, PendingRows pending, VrMetrics metrics)
            throws IOException {
        super(stateDir.resolve("unused-boot-counter").toFile(), null, null);
        this.config = config;
        this.metrics = metrics;
        this.engine = EngineState.loadAndBoot(stateDir);
        this.instrumentation = new VmmInstrumentation(service, pending);
        setAgent(new TimedCommandProcessor(engine.engineId()));
        setSysDescr(new OctetString("vrouter SNMP agent (NEW-VMM-MIB) on " + service.driverName()));
        setSysOID(VmmMib.ROOT);
    }

    OctetString engineId() {
        return engine.engineId();
    }

    int engineBoots() {
        return engine.boots();
    }

    /** The address the agent listens on (with the real port when 0 was asked for). */
    UdpAddress listenAddress() {
        return (UdpAddress) transportMappings[0].getListenAddress();
    }

    @Override
    protected int updateEngineBoots() {
        return engine.boots();
    }

    @Override
    protected int getEngineBoots() {
        return engine.boots();
    }

    @Override
    protected void initTransportMappings() throws IOException {
        InetAddress bind = InetAddress.getByName(config.bind());
        @SuppressWarnings("unchecked")
        TransportMapping<? extends Address>[] mappings = new TransportMapping[]{
                new DefaultUdpTransportMapping(new UdpAddress(bind, config.port()))};
        transportMappings = mappings;
    }

    @Override
    protected void initMessageDispatcher() {
        dispatcher = new MessageDispatcherImpl();
        SecurityProtocols protocols = SecurityProtocols.getInstance();
        protocols.addDefaultProtocols();
        protocols.addAuthenticationProtocol(new AuthSHA());
        usm = new USM(protocols, agent.getContextEngineID(), updateEngineBoots());
        mpv3 = new MPv3(usm);
        if (config.v2c()) {
            dispatcher.addMessageProcessingModel(new MPv1());
            dispatcher.addMessageProcessingModel(new MPv2c());
        }
        dispatcher.addMessageProcessingModel(mpv3);
        initSnmpSession();
    }

    @Override
    protected void registerManagedObjects() {
        try {
            server.register(instrumentation, null);
        } catch (DuplicateRegistrationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected void unregisterManagedObjects() {
        server.unregister(instrumentation, null);
    }

    @Override
    protected void addUsmUser(USM usm) {
        for (SnmpConfig.User u : config.users()) {
            usm.addUser(new UsmUser(new OctetString(u.name()), u.authProtocol(), new OctetString(u.authPassphrase()),
                    u.privProtocol(), new OctetString(u.privPassphrase())));
        }
    }

    @Override
    protected void addCommunities(SnmpCommunityMIB communityMIB) {
        if (!config.v2c()) return;
        int n = 0;
        for (String c : config.readCommunities()) {
            communityMIB.addSnmpCommunityEntry(new OctetString("r" + n++), new OctetString(c), new OctetString(c),
                    agent.getContextEngineID(), new OctetString(), new OctetString(), StorageType.volatile_);
        }
        for (String c : config.writeCommunities()) {
            communityMIB.addSnmpCommunityEntry(new OctetString("w" + n++), new OctetString(c), new OctetString(c),
                    agent.getContextEngineID(), new OctetString(), new OctetString(), StorageType.volatile_);
        }
    }

    @Override
    protected void addViews(VacmMIB vacm) {
        for (String c : config.readCommunities()) {
            vacm.addGroup(SecurityModel.SECURITY_MODEL_SNMPv2c, new OctetString(c), READ_GROUP, StorageType.volatile_);
        }
        for (String c : config.writeCommunities()) {
            vacm.addGroup(SecurityModel.SECURITY_MODEL_SNMPv2c, new OctetString(c), WRITE_GROUP, StorageType.volatile_);
        }
        for (SnmpConfig.User u : config.users()) {
            vacm.addGroup(SecurityModel.SECURITY_MODEL_USM, new OctetString(u.name()),
                    u.write() ? WRITE_GROUP : READ_GROUP, StorageType.volatile_);
        }
        // Readers: the VR MIB, system and snmp groups, the engine (snmpEngineID, snmpEngineBoots);
        // never the security configuration (USM, VACM, community, target tables).
        vacm.addViewTreeFamily(READ_VIEW, VmmMib.ROOT, new OctetString(), VacmMIB.vacmViewIncluded, StorageType.volatile_);
        vacm.addViewTreeFamily(READ_VIEW, new OID("1.3.6.1.2.1.1"), new OctetString(), VacmMIB.vacmViewIncluded,
                StorageType.volatile_);
        vacm.addViewTreeFamily(READ_VIEW, new OID("1.3.6.1.2.1.11"), new OctetString(), VacmMIB.vacmViewIncluded,
                StorageType.volatile_);
        vacm.addViewTreeFamily(READ_VIEW, new OID("1.3.6.1.6.3.10.2.1"), new OctetString(), VacmMIB.vacmViewIncluded,
                StorageType.volatile_);
        // Writers: the VR MIB only.
        vacm.addViewTreeFamily(WRITE_VIEW, VmmMib.ROOT, new OctetString(), VacmMIB.vacmViewIncluded, StorageType.volatile_);
        vacm.addViewTreeFamily(NOTIFY_VIEW, new OID("1.3"), new OctetString(), VacmMIB.vacmViewIncluded, StorageType.volatile_);

        vacm.addAccess(READ_GROUP, new OctetString(), SecurityModel.SECURITY_MODEL_SNMPv2c, SecurityLevel.NOAUTH_NOPRIV,
                MutableVACM.VACM_MATCH_EXACT, READ_VIEW, new OctetString(), NOTIFY_VIEW, StorageType.volatile_);
        vacm.addAccess(WRITE_GROUP, new OctetString(), SecurityModel.SECURITY_MODEL_SNMPv2c, SecurityLevel.NOAUTH_NOPRIV,
                MutableVACM.VACM_MATCH_EXACT, READ_VIEW, WRITE_VIEW, NOTIFY_VIEW, StorageType.volatile_);
        vacm.addAccess(READ_GROUP, new OctetString(), SecurityModel.SECURITY_MODEL_USM, SecurityLevel.AUTH_PRIV,
                MutableVACM.VACM_MATCH_EXACT, READ_VIEW, new OctetString(), NOTIFY_VIEW, StorageType.volatile_);
        vacm.addAccess(WRITE_GROUP, new OctetString(), SecurityModel.SECURITY_MODEL_USM, SecurityLevel.AUTH_PRIV,
                MutableVACM.VACM_MATCH_EXACT, READ_VIEW, WRITE_VIEW, NOTIFY_VIEW, StorageType.volatile_);
    }

    @Override
    protected void addNotificationTargets(SnmpTargetMIB targetMIB, SnmpNotificationMIB notificationMIB) {
        targetMIB.addDefaultTDomains();
        boolean v3 = config.trapVersion().equals("v3");
        OctetString params = new OctetString("vrParams");
        if (v3) {
            targetMIB.addTargetParams(params, MessageProcessingModel_V3, SecurityModel.SECURITY_MODEL_USM,
                    new OctetString(config.trapUser()), SecurityLevel.AUTH_PRIV, StorageType.volatile_);
        } else {
            targetMIB.addTargetParams(params, MessageProcessingModel_V2C, SecurityModel.SECURITY_MODEL_SNMPv2c,
                    new OctetString(config.trapCommunity()), SecurityLevel.NOAUTH_NOPRIV, StorageType.volatile_);
            if (!config.readCommunities().contains(config.trapCommunity())
                    && !config.writeCommunities().contains(config.trapCommunity())) {
                // The notification originator finds the community of a v2c target through the community MIB.
                snmpCommunityMIB.addSnmpCommunityEntry(new OctetString("trap"), new OctetString(config.trapCommunity()),
                        new OctetString(config.trapCommunity()), agent.getContextEngineID(), new OctetString(),
                        new OctetString(), StorageType.volatile_);
                vacmMIB.addGroup(SecurityModel.SECURITY_MODEL_SNMPv2c, new OctetString(config.trapCommunity()),
                        READ_GROUP, StorageType.volatile_);
            }
        }
        int n = 0;
        for (String t : config.trapTargets()) {
            String[] hp = SnmpConfig.parseTarget(t);
            UdpAddress address;
            try {
                address = new UdpAddress(InetAddress.getByName(hp[0]), Integer.parseInt(hp[1]));
            } catch (IOException e) {
                throw new IllegalArgumentException("snmp-trap-target '" + t + "': unknown host", e);
            }
            OID domain = address.getInetAddress().getAddress().length == 4
                    ? TransportDomains.transportDomainUdpIpv4 : TransportDomains.transportDomainUdpIpv6;
            targetMIB.addTargetAddress(new OctetString("target" + n++), domain, new OctetString(address.getValue()),
                    1500, 2, NOTIFY_TAG, params, StorageType.volatile_);
        }
        notificationMIB.addNotifyEntry(new OctetString("vrNotify"), NOTIFY_TAG,
                config.trapType().equals("inform") ? SnmpNotificationMIB.SnmpNotifyTypeEnum.inform
                        : SnmpNotificationMIB.SnmpNotifyTypeEnum.trap, StorageType.volatile_);
    }

    private static final int MessageProcessingModel_V2C = org.snmp4j.mp.MessageProcessingModel.MPv2c;
    private static final int MessageProcessingModel_V3 = org.snmp4j.mp.MessageProcessingModel.MPv3;

    /** Initialises and starts listening. */
    void start() throws IOException {
        init();
        finishInit();
        run();
        log.info("SNMP agent on udp:{} engineID {} boots {}", listenAddress(), engine.engineId().toHexString(),
                engine.boots());
    }

    @Override
    protected void addShutdownHook() {
        // Nothing to save: the configuration comes from the server's settings.
    }

}
