package io.vrouter.xen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.xen.fake.FakeXenServer;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** XenAPI over HTTPS with a self-signed host certificate, as XenServer ships, trusted with xen.tls.truststore. */
class XenTlsTest {
    private static final String PASS = "changeit";
    @TempDir
    static Path dir;
    private static SSLContext serverTls;
    private FakeXenServer xen;

    /** Runs the JDK's keytool. */
    private static void keytool(String... args) throws Exception {
        String home = System.getProperty("java.home");
        List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(home, "bin", "keytool").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("keytool.log").toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("keytool.log"))).isZero();
    }

    @BeforeAll
    static void makeCertificates() throws Exception {
        Path server = dir.resolve("server.p12");
        keytool("-genkeypair", "-alias", "xen", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-keystore", server.toString(), "-storetype", "PKCS12",
                "-storepass", PASS, "-keypass", PASS);
        keytool("-exportcert", "-alias", "xen", "-keystore", server.toString(), "-storepass", PASS,
                "-file", dir.resolve("xen.crt").toString());
        keytool("-importcert", "-noprompt", "-alias", "xen", "-file", dir.resolve("xen.crt").toString(),
                "-keystore", dir.resolve("trust.p12").toString(), "-storetype", "PKCS12", "-storepass", PASS);
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(server)) {
            ks.load(in, PASS.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PASS.toCharArray());
        serverTls = SSLContext.getInstance("TLS");
        serverTls.init(kmf.getKeyManagers(), null, null);
    }

    @BeforeEach
    void setUp() throws Exception {
        xen = new FakeXenServer(serverTls);
    }

    @AfterEach
    void tearDown() {
        xen.close();
    }

    private Settings settings(String... extra) {
        Map<String, String> m = new java.util.HashMap<>(Map.of("xen.url", xen.url().toString(), "xen.username", FakeXenServer.USER,
                "xen.password", FakeXenServer.PASSWORD, "xen.retries", "0"));
        for (int i = 0; i + 1 < extra.length; i += 2) m.put(extra[i], extra[i + 1]);
        return Settings.of(m);
    }

    @Test
    void connectsOverHttpsWhenTheTruststoreHoldsTheHostsCertificate() throws Exception {
        assertThat(xen.url().getScheme()).isEqualTo("https");
        try (HypervisorDriver d = new XenDriverProvider().create(settings("xen.tls.truststore", dir.resolve("trust.p12").toString(),
                "xen.tls.truststore-password", PASS))) {
            assertThat(d.hypervisor().vmHvSoftware).isEqualTo("XCP-ng");
            assertThat(d.list()).isEmpty();
        }
        assertThat(xen.logins()).isEqualTo(1);
    }

    @Test
    void refusesAHostItDoesNotTrust() {
        assertThatThrownBy(() -> new XenDriverProvider().create(settings()))
                .isInstanceOfSatisfying(DriverException.class, e -> {
                    assertThat(e.code()).isEqualTo("TRANSPORT");
                    assertThat(e.getMessage()).containsIgnoringCase("SSL");
                });
        assertThat(xen.logins()).isZero();
    }
}
