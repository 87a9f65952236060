package io.vrouter.snmp;

import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.spi.ManagementInterface;
import io.vrouter.core.spi.ServerContext;
import java.io.IOException;
import java.net.InetAddress;

/**
 * The SNMP management interface: NEW-VMM-MIB over SNMPv2c and SNMPv3 on UDP (127.0.0.1:1161 by
 * default, {@code --snmp-port}), found by the server through {@link java.util.ServiceLoader}.
 */
public final class SnmpInterface implements ManagementInterface {
    private VrSnmpAgent agent;
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
    }

    @Override
    public void start(ServerContext context) throws Exception {
        config = SnmpConfig.from(context.settings());
        Credentials.requireLoopbackForDevelopmentDefaults(config.developmentDefaults(),
                InetAddress.getByName(config.bind()), "SNMP");
        VrSnmpAgent starting = new VrSnmpAgent(config, context.settings().dataDir().resolve("snmp"),
                context.service(), new PendingRows(), context.metrics(), context.credentials().snmpThrottle());
        try {
            starting.start();
        } catch (IOException | RuntimeException e) {
            starting.stop();
            throw e;
        }
        agent = starting;
        notifier = new Notifier(context.service(), agent.notificationOriginator(), agent.sysUpTime());
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
