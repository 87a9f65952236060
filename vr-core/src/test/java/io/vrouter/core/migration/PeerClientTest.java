package io.vrouter.core.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.vrouter.core.config.Settings;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer over https is trusted by its pinned certificate alone: the certificate the peer presents must
 * be the one in {@code peer.NAME.certificate} (a self-signed one, no host name in it, is enough), and a
 * server with another certificate at the peer's address is refused; an https peer without a certificate
 * is a settings error.
 */
class PeerClientTest {
    @TempDir
    Path dir;
    private HttpsServer server;

    /** A self-signed certificate made by the JDK's keytool in a PKCS12 store, and its PEM export. */
    private Path keyPair(String name) throws Exception {
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Path store = dir.resolve(name + ".p12");
        run(keytool, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
                "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit");
        run(keytool, "-exportcert", "-rfc", "-alias", name, "-keystore", store.toString(), "-storepass", "changeit",
                "-file", dir.resolve(name + ".pem").toString());
        return store;
    }

    private static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();
    }

    @BeforeEach
    void peerServer() throws Exception {
        Path store = keyPair("peer");
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, "changeit".toCharArray());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.createContext("/", exchange -> {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            byte[] body = ("{\"status\":\"UP\",\"auth\":\"" + (auth == null ? "" : auth) + "\"}").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private PeerClient client(String certificate) {
        return new PeerClient(Peers.from(Settings.of(Map.of("peer.b", "https://127.0.0.1:" + server.getAddress().getPort(),
                "peer.b.user", "migrator", "peer.b.password", "s3cret", "peer.b.certificate", dir.resolve(certificate + ".pem").toString())))
                .get("b").orElseThrow());
    }

    @Test
    void thePinnedCertificateIsTrustedAndItsUserLogsIn() throws Exception {
        PeerClient b = client("peer");
        assertThat(b.health().status()).isEqualTo(200);
        PeerClient.Answer posted = b.post("/api/v1/migrations", "{}".getBytes(StandardCharsets.UTF_8), java.time.Duration.ofSeconds(5));
        assertThat(posted.body()).contains("Basic " + Base64.getEncoder().encodeToString("migrator:s3cret".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void anotherCertificateAtThePeersAddressIsRefused() throws Exception {
        keyPair("stranger");
        PeerClient b = client("stranger");
        assertThatThrownBy(b::health).isInstanceOf(PeerClient.Unreachable.class)
                .hasMessageContaining("is not the router whose certificate is pinned for it");
    }

    @Test
    void anHttpsPeerNeedsItsCertificateAndEveryPeerItsLogin() {
        assertThatThrownBy(() -> Peers.from(Settings.of(Map.of("peer.b", "https://192.0.2.1:8443", "peer.b.user", "m",
                "peer.b.password", "p")))).hasMessageContaining("peer.b.certificate");
        assertThatThrownBy(() -> Peers.from(Settings.of(Map.of("peer.b", "http://192.0.2.1:8080", "peer.b.password", "p"))))
                .hasMessageContaining("peer.b.user");
        assertThatThrownBy(() -> Peers.from(Settings.of(Map.of("peer.b", "ftp://192.0.2.1", "peer.b.user", "m", "peer.b.password", "p"))))
                .hasMessageContaining("https://ADDRESS:PORT");
        assertThat(Peers.from(Settings.of(Map.of("peer.b", "http://192.0.2.1:8080/", "peer.b.user", "m", "peer.b.password", "p")))
                .get("b").orElseThrow().toString()).isEqualTo("b (http://192.0.2.1:8080)");
    }
}
