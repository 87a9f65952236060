package io.vrouter.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CredentialsTest {
    private static final InetAddress GUESSER = address("192.0.2.7");
    private static final InetAddress OPERATOR = address("192.0.2.8");

    private static InetAddress address(String a) {
        try {
            return InetAddress.getByName(a);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aSlowSaltedHashIsAcceptedAndTwoHashesOfOnePasswordDiffer() {
        String stored = Credentials.hash("s3cret");
        assertThat(stored).startsWith("{pbkdf2-sha256}600000$");
        assertThat(Credentials.hash("s3cret")).isNotEqualTo(stored);
        Credentials c = Credentials.from(Settings.of(Map.of("user.ops", "operator:" + stored)));
        assertThat(c.authenticate("ops", "s3cret")).hasValue(Credentials.Role.OPERATOR);
        assertThat(c.authenticate("ops", "s3cret")).as("remembered once verified").hasValue(Credentials.Role.OPERATOR);
        assertThat(c.authenticate("ops", "S3cret")).isEmpty();
    }

    @Test
    void theOlderFormsAreStillAccepted() {
        String sha = "{sha256}" + HexFormat.of().formatHex(Credentials.sha256("old"));
        Credentials c = Credentials.from(Settings.of(Map.of("user.a", "viewer:plain", "user.b", "operator:" + sha)));
        assertThat(c.authenticate("a", "plain")).hasValue(Credentials.Role.VIEWER);
        assertThat(c.authenticate("b", "old")).hasValue(Credentials.Role.OPERATOR);
        assertThat(c.authenticate("b", sha)).isEmpty();
    }

    @Test
    void aMalformedHashIsRefusedAtStartUp() {
        assertThatThrownBy(() -> Credentials.from(Settings.of(Map.of("user.a", "viewer:{pbkdf2-sha256}12$$"))))
                .hasMessageContaining("user.a").hasMessageContaining("ITERATIONS$SALT$HASH");
    }

    @Test
    void aGuessingSourceIsThrottledWhileTheOperatorElsewhereLogsIn() throws Exception {
        String stored = Credentials.hash("right", "salt".getBytes(StandardCharsets.UTF_8), 1000);
        // The throttle's clock is the test's: no pause of a loaded machine can refill an allowance between two tries.
        AtomicLong now = new AtomicLong();
        Credentials c = Credentials.from(Settings.of(Map.of("user.ops", "operator:" + stored,
                "auth.max-failures", "5", "auth.failure-interval", "200ms")), now::get);
        for (int k = 0; k < 5; k++) {
            Credentials.Login l = c.login("rest", GUESSER, "ops", "wrong" + k);
            assertThat(l.accepted()).isFalse();
            assertThat(l.throttled()).isFalse();
        }
        // Spent: even the right password is not checked from there for now.
        assertThat(c.login("rest", GUESSER, "ops", "right").throttled()).isTrue();
        assertThat(c.login("netconf", GUESSER, "ops", "right").throttled()).isTrue();
        // Not a lock-out of the user: from elsewhere at once, and from there again an interval later.
        assertThat(c.login("rest", OPERATOR, "ops", "right").role()).hasValue(Credentials.Role.OPERATOR);
        now.addAndGet(150_000_000L);
        assertThat(c.login("rest", GUESSER, "ops", "right").throttled()).as("within the interval").isTrue();
        now.addAndGet(50_000_000L);
        assertThat(c.login("rest", GUESSER, "ops", "right").accepted()).isTrue();
        // One try per interval after that: a wrong one spends it.
        assertThat(c.login("rest", GUESSER, "ops", "wrong").accepted()).isFalse();
        assertThat(c.login("rest", GUESSER, "ops", "right").throttled()).isTrue();
    }

    @Test
    void failuresAndThrottledTriesAreCounted() {
        var registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        Credentials c = Credentials.from(Settings.of(Map.of("auth.max-failures", "2")));
        c.throttle().bindTo(registry);
        for (int k = 0; k < 4; k++) c.login("snmp", GUESSER, null, "guess");
        assertThat(registry.get("vrouter.auth.failures").tag("interface", "snmp").counter().count()).isEqualTo(2);
        assertThat(registry.get("vrouter.auth.throttled").tag("interface", "snmp").counter().count()).isEqualTo(2);
        assertThat(registry.get("vrouter.auth.throttled.sources").tag("brake", "tcp").gauge().value()).isEqualTo(1);
    }

    @Test
    void snmpFailuresNeverHoldBackTheTcpLoginsOfTheirSourceAddress() {
        Credentials c = Credentials.from(Settings.of(Map.of("auth.max-failures", "2", "auth.failure-interval", "1h")));
        var registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        c.throttle().bindTo(registry);
        c.snmpThrottle().bindTo(registry);
        // UDP: anyone can send these in the operator's name.
        for (int k = 0; k < 5; k++) c.snmpThrottle().failed("snmp", OPERATOR, null);
        assertThat(c.snmpThrottle().allow("snmp", OPERATOR)).isFalse();
        assertThat(c.login("rest", OPERATOR, "admin", "admin").role()).hasValue(Credentials.Role.OPERATOR);
        assertThat(c.login("netconf", OPERATOR, "admin", "admin").role()).hasValue(Credentials.Role.OPERATOR);
        assertThat(registry.get("vrouter.auth.throttled.sources").tag("brake", "snmp").gauge().value()).isEqualTo(1);
        assertThat(registry.get("vrouter.auth.throttled.sources").tag("brake", "tcp").gauge().value()).isZero();
    }

    @Test
    void aReloadTakesTheNewUsersAndAChangedPasswordIsNotAnsweredFromMemory() {
        Credentials c = Credentials.from(Settings.of(Map.of("user.ops", "operator:" + Credentials.hash("old"))));
        assertThat(c.authenticate("ops", "old")).hasValue(Credentials.Role.OPERATOR); // now remembered
        assertThat(c.reload(Settings.of(Map.of("user.ops", "viewer:" + Credentials.hash("new"),
                "user.bob", "operator:" + Credentials.hash("bob"))))).isEqualTo(2);
        assertThat(c.authenticate("ops", "old")).isEmpty();
        assertThat(c.authenticate("ops", "new")).hasValue(Credentials.Role.VIEWER);
        assertThat(c.authenticate("bob", "bob")).hasValue(Credentials.Role.OPERATOR);
    }

    @Test
    void aReloadWithAWrongUserOrNoUsersChangesNothing() {
        Credentials c = Credentials.from(Settings.of(Map.of("user.ops", "operator:" + Credentials.hash("pw"))));
        assertThatThrownBy(() -> c.reload(Settings.of(Map.of("user.ops", "root:pw")))).hasMessageContaining("role");
        assertThatThrownBy(() -> c.reload(Settings.of(Map.of()))).hasMessageContaining("development credentials");
        assertThat(c.authenticate("ops", "pw")).hasValue(Credentials.Role.OPERATOR);
        assertThat(c.developmentDefaults()).isFalse();

        Credentials dev = Credentials.from(Settings.of(Map.of()));
        assertThat(dev.reload(Settings.of(Map.of("user.ops", "operator:" + Credentials.hash("pw"))))).isEqualTo(1);
        assertThat(dev.developmentDefaults()).isFalse();
        assertThat(dev.authenticate("admin", "admin")).isEmpty();
    }

    @Test
    void aReloadTakesTheLoginBrakeOfBothKindsForSourcesAlreadySeen() {
        Credentials c = Credentials.from(Settings.of(Map.of("auth.max-failures", "100")));
        c.login("rest", GUESSER, "admin", "guess");
        assertThat(c.reload(Settings.of(Map.of("auth.max-failures", "2", "auth.failure-interval", "1h")))).isZero();
        // The 99 tries the guesser had left are capped at the new 2: two more failures, and the right
        // password is refused unchecked.
        c.login("rest", GUESSER, "admin", "guess");
        c.login("rest", GUESSER, "admin", "guess");
        assertThat(c.login("rest", GUESSER, "admin", "admin").throttled()).isTrue();
        assertThat(c.login("rest", OPERATOR, "admin", "admin").role()).hasValue(Credentials.Role.OPERATOR);
        for (int k = 0; k < 2; k++) c.snmpThrottle().failed("snmp", GUESSER, null);
        assertThat(c.snmpThrottle().allow("snmp", GUESSER)).isFalse();
    }

    @Test
    void aReloadWithAWrongBrakeSettingTakesNeitherItNorTheUsers() {
        Credentials c = Credentials.from(Settings.of(Map.of("user.ops", "operator:" + Credentials.hash("pw"),
                "auth.max-failures", "2", "auth.failure-interval", "1h")));
        assertThatThrownBy(() -> c.reload(Settings.of(Map.of("user.bob", "operator:" + Credentials.hash("bob"),
                "auth.max-failures", "0")))).hasMessage("setting 'auth.max-failures' must be at least 1");
        assertThatThrownBy(() -> c.reload(Settings.of(Map.of("user.bob", "operator:" + Credentials.hash("bob"),
                "auth.max-failures", "5", "auth.failure-interval", "0s")))).hasMessageContaining("'auth.failure-interval'");
        assertThat(c.authenticate("bob", "bob")).isEmpty();
        assertThat(c.authenticate("ops", "pw")).hasValue(Credentials.Role.OPERATOR);
        // Still a capacity of 2, not the refused 5.
        c.login("rest", GUESSER, "ops", "guess");
        c.login("rest", GUESSER, "ops", "guess");
        assertThat(c.login("rest", GUESSER, "ops", "pw").throttled()).isTrue();
    }
}
