package io.vrouter.core.config;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The users of the HTTP and SSH interfaces and their roles, from the settings
 * ({@code user.NAME = ROLE:PASSWORD}, the password in clear or as {@code {sha256}HEX}).
 *
 * <p>With no user configured, the development users {@code admin}/{@code admin} (operator) and
 * {@code viewer}/{@code viewer} (read-only) apply, and the server refuses to listen anywhere but on
 * the loopback interface.
 */
public final class Credentials {
    public enum Role { VIEWER, OPERATOR }

    private record User(Role role, String password) {
    }

    private final Map<String, User> users;
    private final boolean developmentDefaults;

    private Credentials(Map<String, User> users, boolean developmentDefaults) {
        this.users = users;
        this.developmentDefaults = developmentDefaults;
    }

    public static Credentials from(Settings settings) {
        Map<String, User> users = new LinkedHashMap<>();
        settings.withPrefix("user.").forEach((name, spec) -> {
            int colon = spec.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("setting 'user." + name + "' must be ROLE:PASSWORD");
            }
            Role role;
            try {
                role = Role.valueOf(spec.substring(0, colon).trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("setting 'user." + name + "': role must be operator or viewer");
            }
            users.put(name, new User(role, spec.substring(colon + 1)));
        });
        if (!users.isEmpty()) return new Credentials(users, false);
        users.put("admin", new User(Role.OPERATOR, "admin"));
        users.put("viewer", new User(Role.VIEWER, "viewer"));
        return new Credentials(users, true);
    }

    /** True when no user is configured and the well-known development users apply. */
    public boolean developmentDefaults() {
        return developmentDefaults;
    }

    /** The user's role when the password is right. */
    public Optional<Role> authenticate(String user, String password) {
        User u = users.get(user);
        if (u == null || password == null) return Optional.empty();
        return matches(u.password, password) ? Optional.of(u.role) : Optional.empty();
    }

    private static boolean matches(String stored, String given) {
        byte[] expected;
        byte[] actual;
        if (stored.startsWith("{sha256}")) {
            expected = HexFormat.of().parseHex(stored.substring("{sha256}".length()).toLowerCase(Locale.ROOT));
            actual = sha256(given);
        } else {
            expected = stored.getBytes(StandardCharsets.UTF_8);
            actual = given.getBytes(StandardCharsets.UTF_8);
        }
        return MessageDigest.isEqual(expected, actual);
    }

    static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Refuses to listen on a non-loopback address while well-known development credentials are in
     * use: anyone who read the README could otherwise manage the router.
     */
    public static void requireLoopbackForDevelopmentDefaults(boolean developmentDefaults, InetAddress bind,
                                                              String what) {
        if (developmentDefaults && !bind.isLoopbackAddress()) {
            throw new IllegalStateException("refusing to bind " + what + " to " + bind.getHostAddress()
                    + " with the development credentials: configure your own (see README, Configuration)"
                    + " or bind to 127.0.0.1");
        }
    }
}
