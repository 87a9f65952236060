import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.snmp4j.MessageDispatcherImpl;
import org.snmp4j.agent.AgentConfigManager;
import org.snmp4j.agent.DefaultMOServer;
import org.snmp4j.agent.MOServer;
import org.snmp4j.agent.mo.DefaultMOMutableRow2PC;
import org.snmp4j.agent.mo.DefaultMOMutableRow2PCFactory;
import org.snmp4j.agent.mo.DefaultMOMutableTableModel;
import org.snmp4j.agent.mo.DefaultMOTable;
import org.snmp4j.agent.mo.DefaultMOTableRow;
import org.snmp4j.agent.mo.MOAccessImpl;
import org.snmp4j.agent.mo.MOColumn;
import org.snmp4j.agent.mo.MOMutableColumn;
import org.snmp4j.agent.mo.MOTableIndex;
import org.snmp4j.agent.mo.MOTableRowEvent;
import org.snmp4j.agent.mo.MOTableSubIndex;
import org.snmp4j.agent.mo.snmp.RowStatus;
import org.snmp4j.agent.mo.snmp.SnmpNotificationMIB;
import org.snmp4j.agent.mo.snmp.StorageType;
import org.snmp4j.agent.mo.snmp.TransportDomains;
import org.snmp4j.agent.mo.snmp.VacmMIB;
import org.snmp4j.agent.security.MutableVACM;
import org.snmp4j.cfg.EngineBootsProvider;
import org.snmp4j.mp.CounterSupport;
import org.snmp4j.mp.MPv3;
import org.snmp4j.mp.MessageProcessingModel;
import org.snmp4j.security.AuthSHA;
import org.snmp4j.security.PrivAES128;
import org.snmp4j.security.SecurityLevel;
import org.snmp4j.security.SecurityModel;
import org.snmp4j.security.SecurityModels;
import org.snmp4j.security.SecurityProtocols;
import org.snmp4j.security.UsmUser;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.SMIConstants;
import org.snmp4j.smi.TimeTicks;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.smi.Variable;
import org.snmp4j.smi.VariableBinding;
import org.snmp4j.transport.DefaultUdpTransportMapping;

/**
 * The floor of vrouter's SNMP cost (issue 16): snmp4j-agent, assembled as vrouter's agent is
 * (AgentConfigManager, SNMPv2c communities and an SNMPv3 authPriv user behind VACM, a v2c
 * notification target, none of snmp4j-agent's optional MIBs), answering the requests vrouter's
 * bench sends from a fixed in-memory MIB of the same shape: vmConfigTable (columns 1-7, created
 * and destroyed by RowStatus column 7) and a read-only vmTable (columns 3-23), and sending the
 * same notification for a row created (vmShutdown), started (vmRunning) and destroyed (vmDeleted)
 * on a thread of its own. No service, journal, driver or events behind it: what is left is what
 * the library itself costs. Not part of the product: bench.sh runs it from source with the
 * server's jar on the class path and the launcher's JVM settings.
 *
 * <pre>java -cp vrouter.jar SnmpFloorAgent.java PORT TRAP_PORT ROWS</pre>
 */
public final class SnmpFloorAgent {
    static final OID CFG = new OID("1.3.6.1.3.7666.1.12.1");
    static final OID VM = new OID("1.3.6.1.3.7666.1.4.1");
    static final OID ROOT = new OID("1.3.6.1.3.7666");
    static final OctetString VIEW = new OctetString("all");
    static final OctetString GROUP = new OctetString("managers");

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int trapPort = Integer.parseInt(args[1]);
        int rows = Integer.parseInt(args[2]);
        OctetString engineId = new OctetString(MPv3.createLocalEngineID(new OctetString("floor")));
        EngineBootsProvider boots = new EngineBootsProvider() {
            public int updateEngineBoots() { return 1; }
            public int getEngineBoots() { return 1; }
        };
        MessageDispatcherImpl dispatcher = new MessageDispatcherImpl();
        dispatcher.addTransportMapping(new DefaultUdpTransportMapping(new UdpAddress(InetAddress.getLoopbackAddress(), port)));
        DefaultMOServer server = new DefaultMOServer();
        AgentConfigManager agent = new AgentConfigManager(engineId, dispatcher, null, new MOServer[]{server},
                null, null, null, boots) {
            @Override
            protected void initOptionalMIBs() {
            }
        };
        SecurityProtocols protocols = new SecurityProtocols(SecurityProtocols.SecurityProtocolSet.defaultSecurity);
        protocols.addAuthenticationProtocol(new AuthSHA());
        protocols.addPrivacyProtocol(new PrivAES128());
        agent.setContext(new SecurityModels(), protocols, new CounterSupport());
        agent.initialize();

        DefaultMOTable<DefaultMOTableRow, MOColumn, DefaultMOMutableTableModel<DefaultMOTableRow>> vmTable = readOnlyVmTable();
        DefaultMOTable<DefaultMOMutableRow2PC, MOColumn, DefaultMOMutableTableModel<DefaultMOMutableRow2PC>> config = configTable();
        server.register(vmTable, null);
        server.register(config, null);
        for (int i = 100_001; i <= 100_000 + rows; i++) {
            config.getModel().addRow(new DefaultMOMutableRow2PC(new OID(new int[]{i}), configRow(i)));
            vmTable.getModel().addRow(vmRow(i));
        }
        ExecutorService notifier = Executors.newSingleThreadExecutor();
        config.addMOTableRowListener(e -> {
            int i = e.getRow().getIndex().get(0);
            OID trap = switch (e.getType()) {
                case MOTableRowEvent.ADD -> new OID("1.3.6.1.3.7666.0.3");
                case MOTableRowEvent.DELETE -> new OID("1.3.6.1.3.7666.0.10");
                case MOTableRowEvent.UPDATED -> ((Integer32) e.getRow().getValue(1)).getValue() == 1
                        ? new OID("1.3.6.1.3.7666.0.1") : null;
                default -> null;
            };
            if (e.getType() == MOTableRowEvent.ADD) vmTable.getModel().addRow(vmRow(i));
            if (e.getType() == MOTableRowEvent.DELETE) vmTable.getModel().removeRow(new OID(new int[]{i}));
            if (trap == null) return;
            VariableBinding[] vbs = {
                    new VariableBinding(cell(CFG, 1, i), new OctetString("vr-" + i)),
                    new VariableBinding(cell(VM, 3, i), new OctetString(new byte[16])),
                    new VariableBinding(cell(VM, 5, i), new Integer32(e.getType() == MOTableRowEvent.ADD ? 3 : 1))};
            notifier.execute(() -> agent.getNotificationOriginator().notify(new OctetString(), trap,
                    new Uptime(agent.getSysUpTime().get().getValue()), vbs));
        });

        agent.getUsm().addUser(new UsmUser(new OctetString("admin"), AuthSHA.ID, new OctetString("adminauthpass"),
                PrivAES128.ID, new OctetString("adminprivpass")));
        for (String c : List.of("public", "private")) {
            agent.getSnmpCommunityMIB().addSnmpCommunityEntry(new OctetString(c), new OctetString(c), new OctetString(c),
                    engineId, new OctetString(), new OctetString(), StorageType.volatile_);
        }
        VacmMIB vacm = agent.getVacmMIB();
        for (String c : List.of("public", "private")) {
            vacm.addGroup(SecurityModel.SECURITY_MODEL_SNMPv2c, new OctetString(c), GROUP, StorageType.volatile_);
        }
        vacm.addGroup(SecurityModel.SECURITY_MODEL_USM, new OctetString("admin"), GROUP, StorageType.volatile_);
        for (OID subtree : new OID[]{ROOT, new OID("1.3.6.1.6.3.10.2.1")}) {
            vacm.addViewTreeFamily(VIEW, subtree, new OctetString(), VacmMIB.vacmViewIncluded, StorageType.volatile_);
        }
        vacm.addViewTreeFamily(new OctetString("notify"), new OID("1.3"), new OctetString(), VacmMIB.vacmViewIncluded,
                StorageType.volatile_);
        for (int model : new int[]{SecurityModel.SECURITY_MODEL_SNMPv2c, SecurityModel.SECURITY_MODEL_USM}) {
            vacm.addAccess(GROUP, new OctetString(), model,
                    model == SecurityModel.SECURITY_MODEL_USM ? SecurityLevel.AUTH_PRIV : SecurityLevel.NOAUTH_NOPRIV,
                    MutableVACM.VACM_MATCH_EXACT, VIEW, VIEW, new OctetString("notify"), StorageType.volatile_);
        }
        OctetString params = new OctetString("params");
        agent.getSnmpTargetMIB().addTargetParams(params, MessageProcessingModel.MPv2c, SecurityModel.SECURITY_MODEL_SNMPv2c,
                new OctetString("public"), SecurityLevel.NOAUTH_NOPRIV, StorageType.volatile_);
        UdpAddress target = new UdpAddress(InetAddress.getLoopbackAddress(), trapPort);
        agent.getSnmpTargetMIB().addTargetAddress(new OctetString("target"), TransportDomains.transportDomainUdpIpv4,
                new OctetString(target.getValue()), 1500, 2, new OctetString("notify"), params, StorageType.volatile_);
        agent.getSnmpNotificationMIB().addNotifyEntry(new OctetString("notify"), new OctetString("notify"),
                SnmpNotificationMIB.SnmpNotifyTypeEnum.trap, StorageType.volatile_);
        agent.run();
        System.out.println("snmp4j-agent floor on udp:127.0.0.1/" + port + ", " + rows + " rows");
        Thread.currentThread().join();
    }

    /**
     * sysUpTime.0 that is cheap to write into snmp4j-agent's log message of every notification sent
     * (TimeTicks formats itself with a new MessageFormat), as vrouter's Notifier.Uptime is.
     */
    static final class Uptime extends TimeTicks {
        Uptime(long ticks) {
            super(ticks);
        }

        @Override
        public Object clone() {
            return new Uptime(getValue());
        }

        @Override
        public String toString() {
            return Long.toString(getValue());
        }
    }

    static OID cell(OID entry, int column, int index) {
        OID o = new OID(entry);
        o.append(column);
        o.append(index);
        return o;
    }

    private static DefaultMOTable<DefaultMOMutableRow2PC, MOColumn, DefaultMOMutableTableModel<DefaultMOMutableRow2PC>> configTable() {
        MOColumn[] cols = {
                new MOMutableColumn<>(1, SMIConstants.SYNTAX_OCTET_STRING, MOAccessImpl.ACCESS_READ_CREATE, new OctetString()),
                new MOMutableColumn<>(2, SMIConstants.SYNTAX_INTEGER, MOAccessImpl.ACCESS_READ_CREATE, new Integer32(4)),
                new MOMutableColumn<>(3, SMIConstants.SYNTAX_INTEGER, MOAccessImpl.ACCESS_READ_CREATE, new Integer32(2)),
                new MOMutableColumn<>(4, SMIConstants.SYNTAX_INTEGER, MOAccessImpl.ACCESS_READ_CREATE, new Integer32(512)),
                new MOMutableColumn<>(5, SMIConstants.SYNTAX_OCTET_STRING, MOAccessImpl.ACCESS_READ_CREATE, new OctetString("vyos")),
                new MOMutableColumn<>(6, SMIConstants.SYNTAX_INTEGER, MOAccessImpl.ACCESS_READ_CREATE, new Integer32(1)),
                new RowStatus(7)};
        DefaultMOTable<DefaultMOMutableRow2PC, MOColumn, DefaultMOMutableTableModel<DefaultMOMutableRow2PC>> t =
                new DefaultMOTable<>(CFG, index(), cols);
        DefaultMOMutableTableModel<DefaultMOMutableRow2PC> model = new DefaultMOMutableTableModel<>();
        model.setRowFactory(new DefaultMOMutableRow2PCFactory());
        t.setModel(model);
        ((RowStatus<?>) cols[6]).addRowStatusListener(e -> { });
        return t;
    }

    private static Variable[] configRow(int i) {
        return new Variable[]{new OctetString("pre-" + i), new Integer32(1), new Integer32(2), new Integer32(512),
                new OctetString("vyos"), new Integer32(1), new Integer32(RowStatus.active)};
    }

    private static DefaultMOTable<DefaultMOTableRow, MOColumn, DefaultMOMutableTableModel<DefaultMOTableRow>> readOnlyVmTable() {
        MOColumn[] cols = new MOColumn[21];
        for (int c = 3; c <= 23; c++) {
            cols[c - 3] = new MOColumn<>(c, c <= 4 ? SMIConstants.SYNTAX_OCTET_STRING : SMIConstants.SYNTAX_INTEGER,
                    MOAccessImpl.ACCESS_READ_ONLY);
        }
        DefaultMOTable<DefaultMOTableRow, MOColumn, DefaultMOMutableTableModel<DefaultMOTableRow>> t =
                new DefaultMOTable<>(VM, index(), cols);
        t.setModel(new DefaultMOMutableTableModel<>());
        return t;
    }

    private static DefaultMOTableRow vmRow(int i) {
        Variable[] v = new Variable[21];
        v[0] = new OctetString(new byte[16]);
        v[1] = new OctetString("vyos");
        for (int k = 2; k < 21; k++) v[k] = new Integer32(i % 1000 + k);
        return new DefaultMOTableRow(new OID(new int[]{i}), v);
    }

    private static MOTableIndex index() {
        return new MOTableIndex(new MOTableSubIndex[]{new MOTableSubIndex(SMIConstants.SYNTAX_INTEGER)}, false);
    }
}
