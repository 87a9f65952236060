package io.vrouter.snmp;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.VirtualRouters;
import java.io.IOException;
import java.net.DatagramSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.snmp4j.CommunityTarget;
import org.snmp4j.PDU;
import org.snmp4j.ScopedPDU;
import org.snmp4j.Snmp;
import org.snmp4j.Target;
import org.snmp4j.UserTarget;
import org.snmp4j.event.ResponseEvent;
import org.snmp4j.mp.MPv3;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.security.AuthSHA;
import org.snmp4j.security.PrivAES128;
import org.snmp4j.security.SecurityLevel;
import org.snmp4j.security.SecurityModels;
import org.snmp4j.security.SecurityProtocols;
import org.snmp4j.security.USM;
import org.snmp4j.security.UsmUser;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.smi.Variable;
import org.snmp4j.smi.VariableBinding;
import org.snmp4j.transport.DefaultUdpTransportMapping;

/**
 * A real service on the simulated driver, the real SNMP interface on a free loopback port, and a
 * real snmp4j manager session to talk to it.
 */
final class SnmpTestAgent implements AutoCloseable {
    final VirtualRouterService service;
    final SnmpInterface snmp = new SnmpInterface();
    final VrMetrics metrics = VrMetrics.inMemory();
    final int port;
    final Snmp client;
    final Path dataDir;

    SnmpTestAgent(Path dataDir, LatencyProfile latency, Map<String, String> extra) throws Exception {
        this(dataDir, new SimulatedDriver(latency), extra);
    }

    SnmpTestAgent(Path dataDir, HypervisorDriver driver, Map<String, String> extra) throws Exception {
        this(dataDir, driver, extra, service -> service);
    }

    /** @param portOf what the SNMP interface is given for the service (the service itself, or a port over it) */
    SnmpTestAgent(Path dataDir, HypervisorDriver driver, Map<String, String> extra,
                  UnaryOperator<VirtualRouters> portOf) throws Exception {
        this.dataDir = dataDir;
        service = new VirtualRouterService(driver, new ConfigStore(dataDir.resolve("config")), metrics);
        service.start();
        port = freePort();
        Map<String, String> s = new HashMap<>(Map.of("data-dir", dataDir.toString(), "snmp-port",
                Integer.toString(port), "bind", "127.0.0.1"));
        s.putAll(extra);
        snmp.start(new io.vrouter.core.spi.ServerContext(portOf.apply(service), Settings.of(s),
                io.vrouter.core.config.Credentials.from(Settings.of(s)), metrics));
        SecurityProtocols.getInstance().addAuthenticationProtocol(new AuthSHA());
        USM usm = new USM(SecurityProtocols.getInstance(), new OctetString(MPv3.createLocalEngineID()), 0);
        client = new Snmp(new DefaultUdpTransportMapping());
        SecurityModels.getInstance().addSecurityModel(usm);
        client.getUSM().addUser(new UsmUser(new OctetString("admin"), AuthSHA.ID, new OctetString("adminauthpass"),
                PrivAES128.ID, new OctetString("adminprivpass")));
        client.listen();
    }

    SnmpTestAgent(Path dataDir) throws Exception {
        this(dataDir, LatencyProfile.NONE, Map.of());
    }

    static int freePort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Generous: the first SNMPv3 request discovers the engine and localizes keys, on a machine others build on too. */
    static final int TIMEOUT_MILLIS = 5000;

    Target<UdpAddress> v2c(String community) {
        CommunityTarget<UdpAddress> t = new CommunityTarget<>(new UdpAddress("127.0.0.1/" + port),
                new OctetString(community));
        t.setVersion(SnmpConstants.version2c);
        t.setTimeout(TIMEOUT_MILLIS);
        t.setRetries(0);
        return t;
    }

    Target<UdpAddress> v3(String user) {
        UserTarget<UdpAddress> t = new UserTarget<>(new UdpAddress("127.0.0.1/" + port), new OctetString(user),
                new byte[0], SecurityLevel.AUTH_PRIV);
        t.setVersion(SnmpConstants.version3);
        t.setTimeout(TIMEOUT_MILLIS);
        t.setRetries(0);
        return t;
    }

    /** Sends a PDU; returns the response, or null on a time-out. */
    PDU send(Target<UdpAddress> target, int type, VariableBinding... vbs) throws IOException {
        PDU pdu = target.getVersion() == SnmpConstants.version3 ? new ScopedPDU() : new PDU();
        pdu.setType(type);
        for (VariableBinding vb : vbs) pdu.add(vb);
        if (type == PDU.GETBULK) {
            pdu.setNonRepeaters(0);
            pdu.setMaxRepetitions(50);
        }
        ResponseEvent<UdpAddress> e = client.send(pdu, target);
        return e.getResponse();
    }

    PDU set(VariableBinding... vbs) throws IOException {
        return send(v2c("private"), PDU.SET, vbs);
    }

    Variable get(OID oid) throws IOException {
        PDU r = send(v2c("public"), PDU.GET, new VariableBinding(oid));
        return r.get(0).getVariable();
    }

    static VariableBinding vb(OID oid, Variable v) {
        return new VariableBinding(oid, v);
    }

    @Override
    public void close() throws IOException {
        client.close();
        snmp.close();
        service.close();
    }
}
