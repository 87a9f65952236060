package io.vrouter.snmp;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.snmp4j.CommandResponderEvent;
import org.snmp4j.agent.request.Request;
import org.snmp4j.smi.Address;
import org.snmp4j.smi.IpAddress;
import org.snmp4j.security.SecurityModel;

/**
 * Who a request comes from, as the core knows callers: an SNMPv3 user is its {@code snmp.user.NAME}
 * (with the tenant of its binding, {@code write@TENANT}); a v2c community is the infrastructure
 * provider's, named in the audit by its place in the settings ({@code v2c:r0}, {@code v2c:w1}), never
 * by the community itself (a password). Write access is the operator role, read access the viewer's.
 */
final class Principals {
    static final String IFACE = "snmp";

    private final Map<String, Caller> users = new HashMap<>();
    private final Map<String, Caller> communities = new HashMap<>();

    Principals(SnmpConfig config) {
        for (SnmpConfig.User u : config.users()) {
            users.put(u.name(), new Caller(u.name(), u.tenant(), u.write() ? Role.OPERATOR : Role.VIEWER, IFACE, null));
        }
        int n = 0;
        for (String c : config.readCommunities()) {
            communities.putIfAbsent(c, new Caller("v2c:" + communityIndex(false, n++), null, Role.VIEWER, IFACE, null));
        }
        for (String c : config.writeCommunities()) {
            // A community listed as both read and write has the write view (VACM's last group wins).
            communities.put(c, new Caller("v2c:" + communityIndex(true, n++), null, Role.OPERATOR, IFACE, null));
        }
    }

    /** snmpCommunityIndex of the n-th community of the settings (reads first, then writes). */
    static String communityIndex(boolean write, int n) {
        return (write ? "w" : "r") + n;
    }

    /**
     * The caller of a request that VACM let through, from its source address; the security layer
     * refuses unknown users and communities before, so none is unknown here.
     */
    Caller of(int securityModel, byte[] securityName, Address peer) {
        Caller c = securityModel == SecurityModel.SECURITY_MODEL_USM
                ? users.get(new String(securityName, StandardCharsets.UTF_8))
                : communities.get(new String(securityName, StandardCharsets.ISO_8859_1));
        if (c == null) throw new IllegalStateException("a request of a principal the agent was not configured with");
        return c.via(IFACE, peer instanceof IpAddress ip ? ip.getInetAddress().getHostAddress() : null);
    }

    /** The caller of an agent's request, from its source address. */
    Caller of(Request<?, ?, ?> request) {
        Address peer = request.getSource() instanceof CommandResponderEvent<?> e ? e.getPeerAddress() : null;
        return of(request.getSecurityModel(), request.getSecurityName().getValue(), peer);
    }
}
