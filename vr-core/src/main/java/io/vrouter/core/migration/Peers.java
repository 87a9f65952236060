package io.vrouter.core.migration;

import io.vrouter.core.config.Settings;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The other routers this one may move VRs to, from the settings: {@code peer.NAME = https://ADDRESS:PORT}
 * (the peer's REST interface), {@code peer.NAME.user} and {@code peer.NAME.password} (or
 * {@code peer.NAME.password-file}: a user of the peer's own REST API, one of its provider's operators),
 * and {@code peer.NAME.certificate}, a PEM file with the peer's certificate, the only one this router
 * then trusts for it (pinned: no certificate authority is asked). No cluster service: each router is
 * the authority for its own VRs, and a move is a conversation between two of them.
 */
public final class Peers {
    /** One peer: how to reach it and how to log in there. */
    public record Peer(String name, URI uri, String user, String password, Path certificate) {
        @Override
        public String toString() {
            return name + " (" + uri + ")"; // never the password
        }
    }

    private final Map<String, Peer> peers;
    private Map<String, PeerClient> clients;
    /** This router's moves under way: in memory until the application gives the data directory's journal. */
    private Moves moves = new Moves(null);

    private Peers(Map<String, Peer> peers) {
        this.peers = peers;
    }

    /**
     * @throws IllegalArgumentException naming the setting that is wrong (an address that is no
     *     http(s) URI, an https peer without a certificate, a missing user or password)
     */
    public static Peers from(Settings settings) {
        Map<String, String> all = settings.withPrefix("peer.");
        Map<String, Peer> peers = new TreeMap<>();
        for (Map.Entry<String, String> e : all.entrySet()) {
            String name = e.getKey();
            if (name.contains(".")) continue; // peer.NAME.user and the like
            URI uri;
            try {
                uri = URI.create(e.getValue().trim().replaceAll("/+$", ""));
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException("setting 'peer." + name + "': '" + e.getValue() + "' is no URI");
            }
            if (!("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new IllegalArgumentException("setting 'peer." + name + "': give the peer's REST interface as"
                        + " https://ADDRESS:PORT, not '" + e.getValue() + "'");
            }
            String user = all.get(name + ".user");
            if (user == null) throw new IllegalArgumentException("setting 'peer." + name + ".user': the user this router logs"
                    + " in as on peer " + name + " (one of its provider's operators) is missing");
            String password = password(name, all);
            Path certificate = Optional.ofNullable(all.get(name + ".certificate")).map(Path::of).orElse(null);
            if ("https".equals(uri.getScheme()) && certificate == null) {
                throw new IllegalArgumentException("setting 'peer." + name + ".certificate': the PEM file of peer " + name
                        + "'s certificate, which this router pins, is missing");
            }
            peers.put(name, new Peer(name, uri, user, password, certificate));
        }
        return new Peers(peers);
    }

    private static String password(String name, Map<String, String> all) {
        String file = all.get(name + ".password-file");
        if (file != null) {
            try {
                return Files.readString(Path.of(file)).strip();
            } catch (IOException e) {
                throw new IllegalArgumentException("setting 'peer." + name + ".password-file': cannot read " + file + ": " + e);
            }
        }
        String password = all.get(name + ".password");
        if (password == null) throw new IllegalArgumentException("setting 'peer." + name + ".password' (or"
                + " .password-file): the password of the user on peer " + name + " is missing");
        return password;
    }

    public Optional<Peer> get(String name) {
        return Optional.ofNullable(peers.get(name));
    }

    public Map<String, Peer> all() {
        return new LinkedHashMap<>(peers);
    }

    /**
     * A client per peer, by name in order: what every interface moves VRs through, made once (each holds
     * an HTTP client and its pinned TLS context) and shared by the interfaces the application hands it to.
     */
    public synchronized Map<String, PeerClient> clients() {
        if (clients == null) {
            Map<String, PeerClient> made = new java.util.TreeMap<>();
            peers.forEach((name, peer) -> made.put(name, new PeerClient(peer, moves)));
            clients = java.util.Collections.unmodifiableMap(made);
        }
        return clients;
    }

    /**
     * Records this router's moves in {@code journal} (the data directory's), so that a restart finishes
     * those cut short; the application's, before it makes the clients.
     */
    public synchronized Peers recordMovesIn(io.vrouter.core.persistence.MoveJournal journal) {
        if (clients != null) throw new IllegalStateException("the peers' clients are made already");
        moves.close();
        moves = new Moves(journal);
        return this;
    }

    public synchronized Moves moves() {
        return moves;
    }
}
