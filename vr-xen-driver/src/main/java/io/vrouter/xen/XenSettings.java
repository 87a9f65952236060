package io.vrouter.xen;

import io.vrouter.core.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The driver's settings, keys {@code xen.*} of the server's config file (see the module README).
 *
 * @param networks vmNetworkConfigParent to XenServer network name-label; a parent not listed is
 *                 looked up as a name-label itself
 * @param host     name-label of the pool member where VMs arriving by live migration land (default the pool master)
 * @param migrationNetwork name-label of the network their memory crosses ({@code host.migrate_receive}'s;
 *                 default the first network with a physical interface)
 */
public record XenSettings(URI url, String username, String password, String template, Optional<String> sr,
                          Map<String, String> networks, Duration callTimeout, Duration shutdownTimeout,
                          Duration taskTimeout, Duration eventTimeout, int retries, Duration retryBackoff,
                          Optional<Path> truststore, String truststorePassword, Optional<String> host,
                          Optional<String> migrationNetwork) {

    public static XenSettings from(Settings s) {
        String url = s.get("xen.url").orElseThrow(() ->
                new IllegalArgumentException("--driver xen needs xen.url (for example https://xenserver.example:443)"));
        return new XenSettings(URI.create(url), s.get("xen.username", "root"), s.get("xen.password", ""),
                s.get("xen.template", "vyos"), s.get("xen.sr"), s.withPrefix("xen.network."),
                s.getDuration("xen.call-timeout", "30s"), s.getDuration("xen.shutdown-timeout", "60s"),
                s.getDuration("xen.task-timeout", "10m"), s.getDuration("xen.event-timeout", "30s"),
                s.getInt("xen.retries", 3), s.getDuration("xen.retry-backoff", "200ms"),
                s.get("xen.tls.truststore").map(Path::of), s.get("xen.tls.truststore-password", ""),
                s.get("xen.host"), s.get("xen.migration-network"));
    }

    /**
     * The TLS context that trusts {@code xen.tls.truststore} (PKCS12 or JKS: the host's certificate,
     * or the CA that signed it), or null to use the JDK's default trust store. XenServer's own
     * certificate is self-signed, so an {@code https} URL usually needs one.
     */
    public SSLContext tls() {
        if (truststore.isEmpty()) return null;
        try (InputStream in = Files.newInputStream(truststore.get())) {
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(in, truststorePassword.toCharArray());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot read xen.tls.truststore " + truststore.get() + ": " + e.getMessage(), e);
        }
    }

    /** The XenServer network name-label for a vmNetworkConfigParent. */
    public String networkFor(String parent) {
        return networks.getOrDefault(parent, parent);
    }

    /** The vmNetworkConfigParent for a XenServer network name-label (the inverse of {@link #networkFor}). */
    public String parentFor(String networkName) {
        for (Map.Entry<String, String> e : networks.entrySet()) {
            if (e.getValue().equals(networkName)) return e.getKey();
        }
        return networkName;
    }
}
