package io.vrouter.snmp;

import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.snmp4j.security.AuthHMAC128SHA224;
import org.snmp4j.security.AuthHMAC192SHA256;
import org.snmp4j.security.AuthHMAC256SHA384;
import org.snmp4j.security.AuthHMAC384SHA512;
import org.snmp4j.security.AuthSHA;
import org.snmp4j.security.PrivAES128;
import org.snmp4j.security.PrivAES192;
import org.snmp4j.security.PrivAES256;
import org.snmp4j.smi.OID;

/**
 * The SNMP settings, read from the server's {@link Settings} (keys in vr-snmp-adapter/README.md).
 * With no community and no user configured, the development defaults apply: communities
 * {@code public}/{@code private} and user {@code admin} (SHA/{@code adminauthpass},
 * AES/{@code adminprivpass}), and the agent listens on loopback only.
 */
record SnmpConfig(String bind, int port, boolean v2c, List<String> readCommunities, List<String> writeCommunities,
                  List<User> users, List<String> trapTargets, String trapVersion, String trapType, String trapUser,
                  String trapCommunity, int trapQueue, boolean developmentDefaults, boolean replayProtection) {
    /** The most notifications one target's queue holds (snmp.trap.queue); its array is allocated whole. */
    static final int MAX_TRAP_QUEUE = 100_000;

    /**
     * One USM user; {@code write} gives it the write view as well as the read view; {@code tenant} (null:
     * the infrastructure provider's) is the tenant whose VRs alone it sees and changes.
     */
    record User(String name, OID authProtocol, String authPassphrase, OID privProtocol, String privPassphrase,
                boolean write, String tenant) {
    }

    static SnmpConfig from(Settings s) {
        List<String> read = s.getList("snmp.community.read");
        List<String> write = s.getList("snmp.community.write");
        List<User> users = new ArrayList<>();
        for (Map.Entry<String, String> e : s.withPrefix("snmp.user.").entrySet()) {
            users.add(parseUser(e.getKey(), e.getValue()));
        }
        Tenants tenants = Tenants.from(s);
        for (User u : users) {
            if (u.tenant() != null && tenants.get(u.tenant()).isEmpty()) {
                throw new IllegalArgumentException("setting 'snmp.user." + u.name() + "': tenant '" + u.tenant()
                        + "' is not declared (declare it with tenant." + u.tenant() + " = vrs=N, vcpus=N, memory=MiB)");
            }
        }
        for (String key : List.of("snmp.community.read", "snmp.community.write")) {
            for (String c : s.getList(key)) {
                // Not a tenant binding: communities are the provider's (README, Tenants), and one that
                // looks like a binding must not quietly give a tenant's manager every VR.
                if (c.contains("@")) {
                    throw new IllegalArgumentException("setting '" + key + "': a community cannot be bound to a tenant "
                            + "(and may not contain '@'); bind a tenant to an SNMPv3 user: snmp.user.NAME = "
                            + "AUTH:AUTHPASS:PRIV:PRIVPASS:write@TENANT");
                }
            }
        }
        boolean defaults = read.isEmpty() && write.isEmpty() && users.isEmpty();
        if (defaults) {
            read = List.of("public");
            write = List.of("private");
            users.add(new User("admin", AuthSHA.ID, "adminauthpass", PrivAES128.ID, "adminprivpass", true, null));
        }
        String trapVersion = s.get("snmp.trap.version", "v2c").toLowerCase(Locale.ROOT);
        if (!trapVersion.equals("v2c") && !trapVersion.equals("v3")) {
            throw new IllegalArgumentException("setting 'snmp.trap.version' must be v2c or v3");
        }
        String trapType = s.get("snmp.trap.type", "trap").toLowerCase(Locale.ROOT);
        if (!trapType.equals("trap") && !trapType.equals("inform")) {
            throw new IllegalArgumentException("setting 'snmp.trap.type' must be trap or inform");
        }
        // Notifications tell of every tenant's VRs: keys a tenant's user knows must not protect them.
        List<User> providers = users.stream().filter(u -> u.tenant() == null).toList();
        String trapUser = s.get("snmp.trap.user", providers.isEmpty() ? "" : providers.get(0).name());
        if (trapVersion.equals("v3") && providers.stream().noneMatch(u -> u.name().equals(trapUser))) {
            throw new IllegalArgumentException("setting 'snmp.trap.user' must name a configured snmp.user of the "
                    + "provider (without @TENANT): notifications tell of every tenant's VRs");
        }
        String trapCommunity = s.get("snmp.trap.community", read.isEmpty() ? "public" : read.get(0));
        int trapQueue = s.getInt("snmp.trap.queue", 1000);
        if (trapQueue < 1 || trapQueue > MAX_TRAP_QUEUE) {
            throw new IllegalArgumentException("setting 'snmp.trap.queue' must be between 1 and " + MAX_TRAP_QUEUE);
        }
        List<String> targets = s.getList("snmp-trap-target");
        for (String t : targets) parseTarget(t);
        return new SnmpConfig(s.get("bind", "127.0.0.1"), s.getInt("snmp-port", 1161), s.getBoolean("snmp.v2c", true),
                read, write, users, targets, trapVersion, trapType, trapUser, trapCommunity, trapQueue, defaults,
                s.getBoolean("snmp.v3.replay-protection", true));
    }

    /** {@code udp:HOST:PORT} (or {@code HOST:PORT}, or {@code udp:[V6]:PORT}) as host and port. */
    static String[] parseTarget(String target) {
        String t = target.startsWith("udp:") ? target.substring(4) : target;
        int colon = t.lastIndexOf(':');
        if (colon <= 0) throw new IllegalArgumentException("snmp-trap-target '" + target + "' must be udp:HOST:PORT");
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        String port = t.substring(colon + 1);
        try {
            int p = Integer.parseInt(port);
            if (p < 1 || p > 65535) throw new NumberFormatException();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("snmp-trap-target '" + target + "': bad port");
        }
        return new String[]{host, port};
    }

    /** {@code AUTH:authpass:PRIV:privpass:read|write[@TENANT]}. */
    static User parseUser(String name, String spec) {
        String[] p = spec.split(":", -1);
        if (p.length != 5) {
            throw new IllegalArgumentException("setting 'snmp.user." + name
                    + "' must be AUTH:AUTHPASS:PRIV:PRIVPASS:read|write[@TENANT], e.g. SHA:secret1:AES:secret2:write");
        }
        OID auth = switch (p[0].toUpperCase(Locale.ROOT)) {
            case "SHA", "SHA1", "SHA-1" -> AuthSHA.ID;
            case "SHA224", "SHA-224" -> AuthHMAC128SHA224.ID;
            case "SHA256", "SHA-256" -> AuthHMAC192SHA256.ID;
            case "SHA384", "SHA-384" -> AuthHMAC256SHA384.ID;
            case "SHA512", "SHA-512" -> AuthHMAC384SHA512.ID;
            default -> throw new IllegalArgumentException("setting 'snmp.user." + name
                    + "': authentication protocol must be SHA, SHA224, SHA256, SHA384 or SHA512");
        };
        OID priv = switch (p[2].toUpperCase(Locale.ROOT)) {
            case "AES", "AES128", "AES-128" -> PrivAES128.ID;
            case "AES192", "AES-192" -> PrivAES192.ID;
            case "AES256", "AES-256" -> PrivAES256.ID;
            default -> throw new IllegalArgumentException("setting 'snmp.user." + name
                    + "': privacy protocol must be AES, AES192 or AES256");
        };
        if (p[1].length() < 8 || p[3].length() < 8) {
            throw new IllegalArgumentException("setting 'snmp.user." + name + "': passphrases need 8 characters or more");
        }
        int at = p[4].indexOf('@');
        String access = (at < 0 ? p[4] : p[4].substring(0, at)).toLowerCase(Locale.ROOT);
        String tenant = at < 0 ? null : p[4].substring(at + 1);
        if (!access.equals("read") && !access.equals("write")) {
            throw new IllegalArgumentException("setting 'snmp.user." + name + "': access must be read or write"
                    + " (read@TENANT or write@TENANT for a tenant's user)");
        }
        if (tenant != null && !Tenants.NAME.matcher(tenant).matches()) {
            throw new IllegalArgumentException("setting 'snmp.user." + name + "': '" + tenant
                    + "' after '@' is not a tenant name");
        }
        return new User(name, auth, p[1], priv, p[3], access.equals("write"), tenant);
    }
}
