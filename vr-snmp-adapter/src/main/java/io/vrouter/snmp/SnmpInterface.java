package io.vrouter.snmp;

import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.migration.Drain;
import io.vrouter.core.migration.PeerClient;
import io.vrouter.core.migration.Peers;
import io.vrouter.core.spi.ManagementInterface;
import io.vrouter.core.spi.ServerContext;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SNMP management interface: NEW-VMM-MIB over SNMPv2c and SNMPv3 on UDP (127.0.0.1:1161 by
 * default, {@code --snmp-port}), created by the server through {@link SnmpInterfaceProvider}
 * unless {@code snmp-port} is {@code off}.
 */
public final class SnmpInterface implements ManagementInterface {
    private static final Logger log = LoggerFactory.getLogger(SnmpInterface.class);
    private VrSnmpAgent agent;
    /** The settings it started with: what a reload compares with. */
    private Settings started;
    private Notifier notifier;
    private SnmpConfig config;

    public SnmpInterface() {
    }

    @Override
    public String name() {
        return "snmp";
    }

    /** The SNMP engine's stored ID and boot count must be readable: receivers know the agent by them. */
    @Override
    public void check(Settings settings) throws Exception {
        VrSnmpAgent.EngineState.read(settings.dataDir().resolve("snmp"));
        SystemGroup.pinned(settings);
        SystemGroup.read(settings.dataDir().resolve("snmp"));
    }

    @Override
    public void start(ServerContext context) throws Exception {
        started = context.settings();
        config = SnmpConfig.from(started);
        Credentials.requireLoopbackForDevelopmentDefaults(config.developmentDefaults(),
                InetAddress.getByName(config.bind()), "SNMP");
        Path dir = context.settings().dataDir().resolve("snmp");
        // the application's peers, their clients shared with REST and NETCONF (alone, as in a test: its own)
        Map<String, PeerClient> peers = context.shared(Peers.class).orElseGet(() -> Peers.from(started)).clients();
        VrSnmpAgent starting = new VrSnmpAgent(config, SystemGroup.load(started, dir), dir,
                context.service(), context.metrics(), context.credentials().snmpThrottle(), peers,
                // one drain at a time, whichever interface asks: the application's (alone: its own)
                context.shared(Drain.class).orElseGet(() -> new Drain(peers)));
        try {
            starting.start();
        } catch (IOException | RuntimeException e) {
            starting.stop();
            throw e;
        }
        agent = starting;
        notifier = new Notifier(context.service(), agent.notificationOriginator(), agent.sysUpTime(),
                started.getBoolean("snmp.trap.vm-mib", false));
    }

    /**
     * The notification targets (snmp-trap-target, snmp.trap.*) change at once; the agent's address,
     * communities and users need a restart (snmp4j's USM and VACM tables are built at start).
     */
    @Override
    public Runnable reload(Settings settings) {
        SnmpConfig next = SnmpConfig.from(settings);
        if (next.trapVersion().equals("v3") && config.users().stream().noneMatch(u -> u.name().equals(next.trapUser()))) {
            throw new IllegalArgumentException("setting 'snmp.trap.user' must name a user the agent runs with"
                    + " (a new snmp.user needs a restart)");
        }
        Tenants tenants = Tenants.from(settings);
        for (SnmpConfig.User u : config.users()) {
            if (u.tenant() != null && tenants.get(u.tenant()).isEmpty()) {
                throw new IllegalArgumentException("tenant '" + u.tenant() + "' is gone from the settings, but SNMP user '"
                        + u.name() + "' is bound to it until a restart: keep tenant." + u.tenant() + " or restart");
            }
        }
        started.logNeedsRestart(settings, log, "bind", "snmp-port", "snmp.v2c", "snmp.community.read",
                "snmp.community.write", "snmp.user.", "snmp.v3.replay-protection", "snmp.sysName", "snmp.sysContact",
                "snmp.sysLocation", "snmp.trap.vm-mib");
        return agent == null ? () -> { } : agent.reloadNotifications(next);
    }

    @Override
    public String describe() {
        if (agent == null) return "SNMP (not started)";
        return "SNMP on udp:" + config.bind() + "/" + config.port() + " (" + (config.v2c() ? "v2c and " : "")
                + "v3 authPriv, engineID " + agent.engineId().toHexString() + ", boots " + agent.engineBoots()
                + (config.developmentDefaults() ? ", development credentials" : "") + ")";
    }

    /** The agent's snmpEngineID, for tests and the start-up log. */
    public String engineIdHex() {
        return agent == null ? null : agent.engineId().toHexString().replace(":", "");
    }

    @Override
    public void close() {
        if (notifier != null) notifier.close();
        if (agent != null) agent.stop();
        notifier = null;
        agent = null;
    }
}
