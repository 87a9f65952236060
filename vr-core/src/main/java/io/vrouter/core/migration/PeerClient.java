package io.vrouter.core.migration;

import io.vrouter.core.migration.Peers.Peer;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Talks to one peer's REST interface as its configured user. Over https the peer must present exactly
 * the pinned certificate (compared byte for byte; no certificate authority and no host name are
 * trusted instead), so a router answering at the peer's address with another certificate is refused.
 */
public final class PeerClient {
    /** What a peer answered: its status and body (problem details when refused). */
    public record Answer(int status, String body) {
        public boolean ok() {
            return status / 100 == 2;
        }
    }

    /** The peer could not be asked: unreachable, timed out, or not the pinned certificate. */
    public static final class Unreachable extends Exception {
        private final boolean maybeDelivered;

        Unreachable(String message, Throwable cause, boolean maybeDelivered) {
            super(message, cause);
            this.maybeDelivered = maybeDelivered;
        }

        /**
         * Whether the request may have reached the peer (the connection broke or the answer did not come
         * in time), rather than surely not (no connection, or not the pinned certificate).
         */
        public boolean maybeDelivered() {
            return maybeDelivered;
        }
    }

    private final Peer peer;
    private final HttpClient http;
    private final Moves moves;

    /** A client whose moves are not recorded on disk (a module without a data directory). */
    public PeerClient(Peer peer) {
        this(peer, new Moves(null));
    }

    /** A client that records the moves through it in this router's {@code moves}. */
    PeerClient(Peer peer, Moves moves) {
        this.peer = peer;
        this.moves = moves;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (peer.certificate() != null) b.sslContext(pinned(peer));
        this.http = b.build();
    }

    public Peer peer() {
        return peer;
    }

    /** This router's moves under way, to this peer and the others. */
    public Moves moves() {
        return moves;
    }

    /** GET of the peer's /health (no login): whether it answers, and what. */
    public Answer health() throws Unreachable {
        return send(HttpRequest.newBuilder(peer.uri().resolve("/health")).timeout(Duration.ofSeconds(5)).GET(), false);
    }

    /** GET of a path of the peer's REST API as JSON, as the peer's user. */
    public Answer get(String path) throws Unreachable {
        return send(HttpRequest.newBuilder(peer.uri().resolve(path)).timeout(Duration.ofSeconds(10))
                .header("Accept", "application/json").GET(), true);
    }

    /** POST of a JSON body to a path of the peer's REST API, as the peer's user, waiting up to {@code timeout}. */
    public Answer post(String path, byte[] json, Duration timeout) throws Unreachable {
        return send(HttpRequest.newBuilder(peer.uri().resolve(path)).timeout(timeout)
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(json)), true);
    }

    /** DELETE of a path of the peer's REST API, as the peer's user. */
    public Answer delete(String path) throws Unreachable {
        return send(HttpRequest.newBuilder(peer.uri().resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json").DELETE(), true);
    }

    private Answer send(HttpRequest.Builder request, boolean login) throws Unreachable {
        if (login) {
            request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    (peer.user() + ":" + peer.password()).getBytes(StandardCharsets.UTF_8)));
        }
        try {
            HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        } catch (HttpConnectTimeoutException | ConnectException e) {
            throw new Unreachable("peer " + peer + " does not answer: " + e.getClass().getSimpleName(), e, false);
        } catch (HttpTimeoutException e) {
            throw new Unreachable("peer " + peer + " did not answer in time", e, true);
        } catch (javax.net.ssl.SSLException e) {
            // refused at the handshake, before any request was sent, as a rule
            throw new Unreachable("peer " + peer + " is not the router whose certificate is pinned for it ("
                    + e.getMessage() + ")", e, !(e instanceof javax.net.ssl.SSLHandshakeException));
        } catch (IOException e) {
            // the connection broke: the request may have been read, and acted on
            throw new Unreachable("peer " + peer + " cannot be asked: " + e, e, true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while asking peer " + peer, e, true);
        }
    }

    /** A TLS context that trusts the peer's one certificate, as pinned. */
    private static SSLContext pinned(Peer peer) {
        X509Certificate expected;
        try (InputStream in = Files.newInputStream(peer.certificate())) {
            expected = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (IOException | CertificateException e) {
            throw new IllegalArgumentException("setting 'peer." + peer.name() + ".certificate': cannot read a PEM"
                    + " certificate from " + peer.certificate() + ": " + e.getMessage(), e);
        }
        try {
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, new javax.net.ssl.TrustManager[] {new Pin(expected)}, null);
            return tls;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no TLS in this JVM", e);
        }
    }

    /** Trusts the one certificate, whatever name or authority it carries. */
    private static final class Pin extends X509ExtendedTrustManager {
        private final byte[] expected;

        Pin(X509Certificate expected) throws CertificateException {
            this.expected = expected.getEncoded();
        }

        private void check(X509Certificate[] chain) throws CertificateException {
            if (chain == null || chain.length == 0 || !Arrays.equals(chain[0].getEncoded(), expected)) {
                throw new CertificateException("the certificate presented is not the one pinned");
            }
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("a peer client trusts no clients");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            throw new CertificateException("a peer client trusts no clients");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            throw new CertificateException("a peer client trusts no clients");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
