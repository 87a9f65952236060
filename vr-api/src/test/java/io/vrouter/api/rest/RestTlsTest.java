package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.config.Settings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HTTPS when a keystore is configured, with a certificate made by the JDK's keytool. */
class RestTlsTest {
    @TempDir
    Path dir;

    @Test
    void servesHttpsWithTheConfiguredKeystore() throws Exception {
        Path keystore = dir.resolve("server.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "vrouter", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", "changeit").redirectErrorStream(true).start();
        assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();

        // The client trusts exactly that certificate.
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("vrouter", (X509Certificate) ks.getCertificate("vrouter"));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, tmf.getTrustManagers(), null);

        Settings s = Settings.of(Map.of("data-dir", dir.resolve("data").toString(), "rest-port", "0", "snmp-port", "0",
                "netconf-port", "0", "rest.tls.keystore", keystore.toString(), "rest.tls.keystore-password", "changeit"));
        try (RestServer server = RestServer.start(s)) {
            RestInterface rest = server.rest();
            assertThat(rest.describe()).startsWith("REST on https://");
            HttpClient client = HttpClient.newBuilder().sslContext(tls).build();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                    URI.create("https://127.0.0.1:" + rest.port() + "/api/v1/hypervisor"))
                    .header("Authorization", RestClient.basic("viewer", "viewer")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("vmHvSoftware");
        }
    }
}
