package io.vrouter.core.config;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The users of the HTTP and SSH interfaces and their roles, from the settings
 * ({@code user.NAME = ROLE:PASSWORD}), and the brakes on password guessing ({@link AuthThrottle}): one
 * for the TCP interfaces, one for SNMP.
 *
 * <p>A password is best stored as a slow salted hash, {@code {pbkdf2-sha256}ITERATIONS$SALT$HASH}
 * (PBKDF2 with HMAC-SHA-256, base64; {@code java -jar vrouter.jar --hash-password} makes one). The
 * older forms, the password in clear or as {@code {sha256}HEX}, are still accepted, with a warning at
 * start-up. Since every REST request carries its password, a password once verified against its
 * slow hash is remembered (as an HMAC under a key made for this process) so that the next request
 * costs microseconds, not the hash's hundreds of milliseconds.
 *
 * <p>With no user configured, the development users {@code admin}/{@code admin} (operator) and
 * {@code viewer}/{@code viewer} (read-only) apply, and the server refuses to listen anywhere but on
 * the loopback interface.
 */
public final class Credentials {
    private static final Logger log = LoggerFactory.getLogger(Credentials.class);
    public enum Role { VIEWER, OPERATOR }

    static final String PBKDF2 = "{pbkdf2-sha256}";
    static final String SHA256 = "{sha256}";
    /** OWASP's figure for PBKDF2-HMAC-SHA256 (2023). */
    static final int ITERATIONS = 600_000;
    private static final int VERIFIED_MAX = 1024;

    /** A user: its role, its tenant (null: the infrastructure provider's) and its stored password. */
    private record User(Role role, String tenant, String password) {
    }

    /**
     * The outcome of a login: the role when the password is right, none when it is not, and
     * {@code throttled} when the source has failed too often to be checked now.
     */
    public record Login(Optional<Role> role, boolean throttled) {
        public boolean accepted() {
            return role.isPresent();
        }
    }

    /** Replaced whole by {@link #reload}; a login reads one version of it. */
    private volatile Map<String, User> users;
    private volatile boolean developmentDefaults;
    private final AuthThrottle throttle;
    private final AuthThrottle snmpThrottle;
    private final Map<String, Role> verified = new ConcurrentHashMap<>();
    private final SecretKeySpec verifiedKey;

    private Credentials(Map<String, User> users, boolean developmentDefaults, Settings settings, LongSupplier nanoTime) {
        this.users = users;
        this.developmentDefaults = developmentDefaults;
        this.throttle = AuthThrottle.from("tcp", settings, nanoTime);
        this.snmpThrottle = AuthThrottle.from("snmp", settings, nanoTime);
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        this.verifiedKey = new SecretKeySpec(key, "HmacSHA256");
    }

    public static Credentials from(Settings settings) {
        return from(settings, System::nanoTime);
    }

    /** As {@link #from(Settings)}, with the throttle on the given clock (a test's). */
    static Credentials from(Settings settings, LongSupplier nanoTime) {
        Map<String, User> users = users(settings);
        if (!users.isEmpty()) return new Credentials(users, false, settings, nanoTime);
        return new Credentials(DEVELOPMENT_USERS, true, settings, nanoTime);
    }

    /** A map that answers a lookup of null (a login without a user name) with null, as the configured users' does. */
    private static final Map<String, User> DEVELOPMENT_USERS = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(
            Map.of("admin", new User(Role.OPERATOR, null, "admin"), "viewer", new User(Role.VIEWER, null, "viewer"))));

    /**
     * Takes the users and the login brake ({@code auth.*}) of new settings (a reload, SIGHUP): logins
     * from now on are checked against them; sessions already logged in go on. Both are checked before
     * either is taken: refused, keeping everything as it is, when a user or brake setting is wrong or
     * when the settings have no users while the server started with some (the development
     * credentials may only apply on the loopback interface, which a running server cannot be sure of).
     *
     * @return how many users there are now
     */
    public synchronized int reload(Settings settings) {
        Map<String, User> next = users(settings);
        AuthThrottle.Limits brake = AuthThrottle.Limits.from(settings);
        if (next.isEmpty() && !developmentDefaults) {
            throw new IllegalArgumentException("the settings have no user.* lines: a reload cannot turn to the "
                    + "development credentials; the users stay as they were");
        }
        throttle.take(brake);
        snmpThrottle.take(brake);
        if (next.isEmpty()) return 0;
        users = next;
        developmentDefaults = false;
        verified.clear();
        return next.size();
    }

    /**
     * The {@code user.NAME = ROLE[@TENANT]:PASSWORD} settings; throws on a wrong one, or one whose
     * tenant no {@code tenant.*} line declares.
     */
    private static Map<String, User> users(Settings settings) {
        Map<String, User> users = new LinkedHashMap<>();
        Tenants tenants = Tenants.from(settings);
        settings.withPrefix("user.").forEach((name, spec) -> {
            int colon = spec.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("setting 'user." + name + "' must be ROLE[@TENANT]:PASSWORD");
            }
            String roleSpec = spec.substring(0, colon).trim();
            String tenant = null;
            int at = roleSpec.indexOf('@');
            if (at >= 0) {
                tenant = roleSpec.substring(at + 1).trim();
                roleSpec = roleSpec.substring(0, at).trim();
                if (tenants.get(tenant).isEmpty()) {
                    throw new IllegalArgumentException("setting 'user." + name + "': tenant '" + tenant
                            + "' is not declared (add a tenant." + tenant + " line)");
                }
            }
            Role role;
            try {
                role = Role.valueOf(roleSpec.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("setting 'user." + name + "': role must be operator or viewer");
            }
            String password = spec.substring(colon + 1);
            if (password.startsWith(PBKDF2)) {
                parse(password).orElseThrow(() -> new IllegalArgumentException("setting 'user." + name
                        + "': a " + PBKDF2 + " password must be ITERATIONS$SALT$HASH (java -jar vrouter.jar --hash-password)"));
            } else {
                log.warn("setting 'user.{}': the password is stored {}; store a slow salted hash instead "
                        + "(java -jar vrouter.jar --hash-password)", name,
                        password.startsWith(SHA256) ? "as an unsalted SHA-256" : "in clear");
            }
            users.put(name, new User(role, tenant, password));
        });
        return users;
    }

    /** True when no user is configured and the well-known development users apply. */
    public boolean developmentDefaults() {
        return developmentDefaults;
    }

    /** The brake on password guessing over REST, RESTCONF and NETCONF (TCP: the source address is the connection's). */
    public AuthThrottle throttle() {
        return throttle;
    }

    /**
     * SNMP's own brake. A UDP source address can be forged, so wrong guesses sent in another's name
     * must hold back SNMP only, never that address's logins over the TCP interfaces.
     */
    public AuthThrottle snmpThrottle() {
        return snmpThrottle;
    }

    /** The user's role when the password is right; no brake, no count (see {@link #login}). */
    public Optional<Role> authenticate(String user, String password) {
        User u = users.get(user);
        if (u == null || password == null) return Optional.empty();
        if (!u.password.startsWith(PBKDF2)) return matches(u.password, password) ? Optional.of(u.role) : Optional.empty();
        // Remembered with the stored hash: a reload that changes the password (or a login checked
        // against the users before it) is never answered from memory.
        String key = remembered(user, u.password + '\0' + password);
        if (verified.get(key) != null) return Optional.of(u.role);
        if (!matches(u.password, password)) return Optional.empty();
        if (verified.size() >= VERIFIED_MAX) verified.clear();
        verified.put(key, u.role);
        return Optional.of(u.role);
    }

    /**
     * Who a logged-in user is, for the core's view ({@code VirtualRouters.as}): its tenant as the
     * users are now, over the interface, from the source address; empty when the user is no longer
     * configured (a reload removed it), so that no one is ever taken for the provider by mistake.
     */
    public Optional<Caller> caller(String user, Role role, String iface, InetAddress source) {
        User u = users.get(user);
        return u == null ? Optional.empty() : Optional.of(new Caller(user, u.tenant(), role, iface,
                source == null ? null : source.getHostAddress()));
    }

    /**
     * A login over an interface from a source: refused unchecked while the source is throttled,
     * otherwise checked, and a failure counted against the source.
     */
    public Login login(String iface, InetAddress source, String user, String password) {
        if (!throttle.allow(iface, source)) return new Login(Optional.empty(), true);
        Optional<Role> role = authenticate(user, password);
        if (role.isEmpty()) throttle.failed(iface, source, user);
        return new Login(role, false);
    }

    /** A stored form of the password: PBKDF2-HMAC-SHA256 with a random salt, for {@code user.NAME}. */
    public static String hash(String password) {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        return hash(password, salt, ITERATIONS);
    }

    static String hash(String password, byte[] salt, int iterations) {
        Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
        return PBKDF2 + iterations + "$" + b64.encodeToString(salt) + "$"
                + b64.encodeToString(pbkdf2(password, salt, iterations));
    }

    private record Pbkdf2(int iterations, byte[] salt, byte[] hash) {
    }

    private static Optional<Pbkdf2> parse(String stored) {
        String[] parts = stored.substring(PBKDF2.length()).split("\\$");
        try {
            Pbkdf2 p = new Pbkdf2(Integer.parseInt(parts[0]), Base64.getDecoder().decode(parts[1]),
                    Base64.getDecoder().decode(parts[2]));
            return parts.length == 3 && p.iterations() > 0 && p.salt().length > 0 && p.hash().length > 0
                    ? Optional.of(p) : Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static byte[] pbkdf2(String password, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean matches(String stored, String given) {
        byte[] expected;
        byte[] actual;
        if (stored.startsWith(PBKDF2)) {
            Pbkdf2 p = parse(stored).orElseThrow();
            expected = p.hash();
            actual = pbkdf2(given, p.salt(), p.iterations());
        } else if (stored.startsWith(SHA256)) {
            expected = HexFormat.of().parseHex(stored.substring(SHA256.length()).toLowerCase(Locale.ROOT));
            actual = sha256(given);
        } else {
            expected = stored.getBytes(StandardCharsets.UTF_8);
            actual = given.getBytes(StandardCharsets.UTF_8);
        }
        return MessageDigest.isEqual(expected, actual);
    }

    /** What a verified password is remembered by: an HMAC under this process's key, never the password. */
    private String remembered(String user, String password) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(verifiedKey);
            return Base64.getEncoder().encodeToString(mac.doFinal((user + '\0' + password).getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
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
