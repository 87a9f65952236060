package io.vrouter.netconf.protocol;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials;
import io.vrouter.yang.edit.EditError;
import io.vrouter.yang.Ns;
import io.vrouter.yang.DataNode;
import io.vrouter.netconf.data.SubtreeFilter;
import io.vrouter.yang.nacm.Nacm;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.transport.FrameDecoder;
import io.vrouter.netconf.transport.FramingException;
import io.vrouter.netconf.transport.Message;
import io.vrouter.netconf.transport.MessageWriter;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.Schemas;
import io.vrouter.yang.XmlOut;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import javax.xml.transform.dom.DOMResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Attr;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.xml.sax.SAXException;

/**
 * One NETCONF session (RFC 6241) over any byte stream pair: the hello exchange, framing, the
 * dispatch of each rpc and its reply, the session's notifications and its own operations
 * (close-session, kill-session, create-subscription). What an rpc reads is {@link Retrieval}'s, what
 * it changes {@link ConfigRpcs}'; both take the session's {@link Requester}, not the session.
 * Requests are read and answered one after the other on the session's thread, so pipelined
 * requests are answered in the order they came. Notifications are written between
 * replies, never inside one: by the subscription's own thread, or by the session's when its own rpc
 * caused them.
 */
public final class NetconfSession {
    private static final Logger log = LoggerFactory.getLogger(NetconfSession.class);
    /** How long a session waits for its subscription's replay to be written before it reads its next rpc. */
    private static final java.time.Duration REPLAY_WRITE_LIMIT = java.time.Duration.ofSeconds(30);

    public static final String BASE_10 = "urn:ietf:params:netconf:base:1.0";
    public static final String BASE_11 = "urn:ietf:params:netconf:base:1.1";
    public static final List<String> CAPABILITIES = capabilities();

    private final NetconfServerContext ctx;
    /**
     * Who the session authenticated as, and what it reaches: the service as the caller may see and
     * change it, its tenant's datastores, NACM's decisions. The operations take it too.
     */
    private final Requester who;
    /** The operations that change or check configuration. */
    private final ConfigRpcs configRpcs;
    private final Instant loginTime = Instant.now();
    private final FrameDecoder in;
    private final MessageWriter out;
    /**
     * The session's one XML writer, used again by every message (guarded by {@link #out}, as the
     * messages are): the JDK's writer costs more to make than a reply of a few hundred bytes or a
     * notification costs to write. It writes into the message being sent ({@link #current}); null
     * until the first message, and again after a message that failed half-way.
     */
    private XmlOut xml;
    private final Current current = new Current();
    private final Runnable closeTransport;
    private final AtomicLong inRpcs = new AtomicLong();
    private final AtomicLong inBadRpcs = new AtomicLong();
    private final AtomicLong outRpcErrors = new AtomicLong();
    private final AtomicLong outNotifications = new AtomicLong();
    private volatile boolean closing;
    private volatile Subscription subscription;
    private volatile Runnable keepAlive = () -> { };
    /** Why the session ended, first cause wins; and who killed it. */
    private final java.util.concurrent.atomic.AtomicReference<ServerNotifications.Termination> termination =
            new java.util.concurrent.atomic.AtomicReference<>();
    private volatile int killedBy;
    private volatile boolean started;

    /**
     * @param closeTransport ends the transport (the SSH channel); called once the session is over or
     *                       killed
     */
    public NetconfSession(NetconfServerContext ctx, String user, boolean readOnly, String sourceHost,
                          InputStream in, OutputStream out, Runnable closeTransport) {
        this(ctx, new Caller(user, null, readOnly ? Credentials.Role.VIEWER : Credentials.Role.OPERATOR, "netconf",
                sourceHost), in, out, closeTransport);
    }

    /**
     * A session of the caller (as {@code Credentials.caller} made it at authentication; its source
     * is the client's address).
     */
    public NetconfSession(NetconfServerContext ctx, Caller caller, InputStream in, OutputStream out, Runnable closeTransport) {
        this.ctx = ctx;
        int id = ctx.nextSessionId();
        // The session's changes carry its id, by which the core tells the holder of running's lock from the others.
        Caller inSession = caller.inSession(id);
        this.who = new Requester(id, inSession, ctx.service().as(inSession), ctx.scope(caller.tenant()),
                ctx.nacm().access(caller));
        this.configRpcs = new ConfigRpcs(ctx, who, () -> {
            Subscription own = subscription;
            if (own != null) own.writeHere();
        });
        this.in = new FrameDecoder(new BufferedInputStream(in, 65536), ctx.maxMessageBytes(), ctx.messageMemory());
        this.out = new MessageWriter(out, 16384);
        this.closeTransport = closeTransport;
    }

    private static List<String> capabilities() {
        List<String> caps = new ArrayList<>(List.of(BASE_10, BASE_11,
                "urn:ietf:params:netconf:capability:writable-running:1.0",
                "urn:ietf:params:netconf:capability:candidate:1.0",
                // 1.1 (RFC 6241) adds persist and cancel-commit to 1.0 (RFC 4741); clients of 1.0 (yangcli) look for it.
                "urn:ietf:params:netconf:capability:confirmed-commit:1.0",
                "urn:ietf:params:netconf:capability:confirmed-commit:1.1",
                "urn:ietf:params:netconf:capability:rollback-on-error:1.0",
                "urn:ietf:params:netconf:capability:validate:1.0",
                "urn:ietf:params:netconf:capability:validate:1.1",
                "urn:ietf:params:netconf:capability:xpath:1.0",
                "urn:ietf:params:netconf:capability:notification:1.0",
                "urn:ietf:params:netconf:capability:interleave:1.0",
                Retrieval.WITH_DEFAULTS_CAPABILITY, Schemas.YANG_LIBRARY_CAPABILITY));
        // The module capabilities stay beside the YANG library for clients that read only the hello.
        for (Schemas.Module m : Schemas.MODULES) {
            if (m.implemented()) caps.add(m.capability());
        }
        return List.copyOf(caps);
    }

    public int id() {
        return who.sessionId();
    }

    public String user() {
        return who.user();
    }

    public String sourceHost() {
        return who.sourceHost();
    }

    public Caller caller() {
        return who.caller();
    }

    /** The datastores, locks and confirmed commit the session shares with its tenant's sessions. */
    NetconfServerContext.Scope scope() {
        return who.scope();
    }

    public Instant loginTime() {
        return loginTime;
    }

    /** What tells the transport that the session is in use (resets the SSH idle timer). */
    public void setKeepAlive(Runnable keepAlive) {
        this.keepAlive = keepAlive;
    }

    /**
     * A session that waits for notifications is not idle, however long none comes: called
     * periodically, this keeps subscribed sessions from the idle timeout.
     */
    public void keepAliveIfSubscribed() {
        if (subscription != null && !closing) keepAlive.run();
    }

    /** Ends the session from elsewhere: its transport went away, or the server stops. */
    public void kill() {
        kill(ServerNotifications.Termination.DROPPED, 0);
    }

    /** Ends the session for a reason ({@code killedBy}: the session that asked, for kill-session). */
    void kill(ServerNotifications.Termination reason, int killedBy) {
        if (termination.compareAndSet(null, reason)) this.killedBy = killedBy;
        closing = true;
        who.scope().datastore().release(who.sessionId());
        closeTransport.run();
    }

    // ------------------------------------------------------------------ the session loop

    /** Runs the session until the peer leaves, closes it, or breaks framing. */
    public void run() {
        ctx.register(this);
        try {
            sendHello();
            if (!receiveHello()) {
                termination.compareAndSet(null, ServerNotifications.Termination.BAD_HELLO);
                ctx.statistics().inBadHellos.incrementAndGet();
                return;
            }
            started = true;
            ctx.statistics().inSessions.incrementAndGet();
            ctx.publish(ServerNotifications.sessionStart(who), who.caller().tenant());
            while (!closing) {
                try (Message msg = in.read()) {
                    if (msg == null) break;
                    handleMessage(msg);
                }
            }
        } catch (FramingException e) {
            termination.compareAndSet(null, ServerNotifications.Termination.OTHER);
            log.info("NETCONF session {} ({}): framing error, closing: {}", who.sessionId(), who.user(), e.getMessage());
        } catch (IOException | XmlOut.XmlWriteException e) {
            if (!closing) log.debug("NETCONF session {} ended: {}", who.sessionId(), e.toString());
        } catch (RuntimeException e) {
            termination.compareAndSet(null, ServerNotifications.Termination.OTHER);
            log.error("NETCONF session {}: unexpected failure, closing", who.sessionId(), e);
        } finally {
            end();
        }
    }

    private void end() {
        closing = true;
        // Neither close-session nor kill-session nor a bad hello: the peer went away.
        termination.compareAndSet(null, ServerNotifications.Termination.DROPPED);
        Subscription s = subscription;
        if (s != null) s.close();
        who.scope().confirmedCommit().sessionEnded(who.caller());
        ctx.unregister(this);
        closeTransport.run();
        ServerNotifications.Termination why = termination.get();
        if (started && why != ServerNotifications.Termination.CLOSED && why != ServerNotifications.Termination.KILLED) {
            ctx.statistics().droppedSessions.incrementAndGet();
        }
        ctx.publish(ServerNotifications.sessionEnd(who, why, killedBy), who.caller().tenant());
    }

    private void sendHello() throws IOException {
        synchronized (out) {
            message(x -> {
                x.start(Ns.BASE, "hello");
                x.start(Ns.BASE, "capabilities");
                for (String c : CAPABILITIES) x.leaf(Ns.BASE, "capability", c);
                x.end();
                x.leaf(Ns.BASE, "session-id", String.valueOf(who.sessionId()));
                x.end();
            });
        }
    }

    /** Writes one message through the session's XML writer; the caller holds {@link #out}. */
    private void message(java.util.function.Consumer<XmlOut> content) throws IOException {
        try (OutputStream os = out.begin()) {
            current.to = os;
            XmlOut x = xml != null ? xml : new XmlOut(current);
            xml = null;
            x.declaration();
            content.accept(x);
            x.endDocument();
            // kept only when the message was written whole: one cut short leaves it inside a document
            xml = x;
        } finally {
            current.to = null;
        }
    }

    /** The stream of the message being written, under the session's one XML writer. */
    private static final class Current extends OutputStream {
        OutputStream to;

        @Override
        public void write(int b) throws IOException {
            to.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            to.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            to.flush();
        }
    }

    /** Reads the client's hello; switches both directions to chunked framing when both speak base:1.1. */
    private boolean receiveHello() throws IOException {
        Document doc;
        try (Message msg = in.read()) {
            if (msg == null) return false;
            doc = parse(msg);
        } catch (Refused e) {
            log.info("NETCONF session {}: the client's hello was refused ({}), closing", who.sessionId(), e.getMessage());
            return false;
        } catch (SAXException e) {
            log.info("NETCONF session {}: the client's hello is not well-formed XML, closing", who.sessionId());
            return false;
        }
        Element hello = doc.getDocumentElement();
        if (!"hello".equals(hello.getLocalName()) || !Ns.BASE.equals(hello.getNamespaceURI())) {
            log.info("NETCONF session {}: expected hello, got {}, closing", who.sessionId(), hello.getLocalName());
            return false;
        }
        if (SecureXml.child(hello, Ns.BASE, "session-id") != null) {
            log.info("NETCONF session {}: the client's hello carries a session-id, closing", who.sessionId());
            return false;
        }
        boolean base10 = false;
        boolean base11 = false;
        Element caps = SecureXml.child(hello, Ns.BASE, "capabilities");
        if (caps != null) {
            for (Element c : SecureXml.children(caps)) {
                String cap = SecureXml.text(c).trim();
                base10 |= cap.equals(BASE_10);
                base11 |= cap.equals(BASE_11);
            }
        }
        if (!base10 && !base11) {
            log.info("NETCONF session {}: the client speaks no base capability we know, closing", who.sessionId());
            return false;
        }
        if (base11) {
            in.useChunkedFraming();
            out.useChunkedFraming();
        }
        log.info("NETCONF session {} for {} from {}: {} framing", who.sessionId(), who.user(), who.sourceHost(),
                base11 ? "chunked" : "end-of-message");
        return true;
    }

    // ------------------------------------------------------------------ requests

    /**
     * Parses a message within the memory for requests in progress ({@code ctx.messageMemory()}),
     * which the message then holds until it is closed; refuses one over the size limit and one that
     * memory cannot take, naming the rpc's message-id where it is known.
     */
    private Document parse(Message msg) throws Refused, SAXException {
        if (msg.refused() != null) {
            throw refusal(msg.refused() == Message.Refusal.TOO_BIG ? "too-big" : "resource-denied", msg,
                    msg.refused() == Message.Refusal.TOO_BIG
                            ? "the message has " + msg.length() + " bytes, more than this server takes ("
                                    + ctx.maxMessageBytes() + ", netconf.max-message-bytes)"
                            : BUSY);
        }
        // A small message (nearly every rpc) is reserved at what any message of its length could take,
        // without a second pass over it; only a large one is measured before the parse.
        long parsed = msg.length() <= SecureXml.UNMEASURED_BYTES ? SecureXml.mostParsedBytes(msg.length())
                : SecureXml.measure(msg.stream());
        if (!msg.reserve(parsed)) {
            boolean never = msg.length() + parsed > ctx.messageMemory().capacity();
            throw new Refused(new RpcError(Type.RPC, never ? "too-big" : "resource-denied", never
                    ? "the message would take about " + mib(msg.length() + parsed) + " once parsed, more than"
                            + " the " + mib(ctx.messageMemory().capacity()) + " this server keeps for requests in progress"
                    : BUSY), SecureXml.messageId(msg.stream()));
        }
        return SecureXml.parse(msg.stream());
    }

    private static final String BUSY = "the memory this server keeps for requests in progress is taken by other"
            + " sessions' requests: send it again later";

    private static Refused refusal(String tag, Message msg, String why) {
        return new Refused(new RpcError(Type.RPC, tag, why), SecureXml.messageId(msg.stream()));
    }

    /** A message refused before it was parsed, with its rpc's message-id where that could be read. */
    private static final class Refused extends Exception {
        final RpcError error;
        final String messageId;

        Refused(RpcError error, String messageId) {
            super(error.getMessage(), null, false, false);
            this.error = error;
            this.messageId = messageId;
        }
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    private void handleMessage(Message msg) throws IOException {
        long t0 = System.nanoTime();
        inRpcs.incrementAndGet();
        ctx.statistics().inRpcs.incrementAndGet();
        Document doc;
        try {
            doc = parse(msg);
        } catch (Refused e) {
            badRpc();
            reply(e.messageId == null ? null : rpcWithMessageId(e.messageId), null, List.of(e.error));
            record("refused", e.error.tag(), t0);
            return;
        } catch (SAXException e) {
            badRpc();
            String why = e.getMessage() == null ? "not well-formed" : e.getMessage();
            reply(null, null, List.of(new RpcError(Type.RPC, "malformed-message", "the message is not well-formed XML: " + why)));
            record("malformed", "malformed-message", t0);
            return;
        }
        Element rpc = doc.getDocumentElement();
        if (!"rpc".equals(rpc.getLocalName()) || !Ns.BASE.equals(rpc.getNamespaceURI())) {
            badRpc();
            reply(null, null, List.of(new RpcError(Type.RPC, "malformed-message",
                    "expected an rpc element in namespace " + Ns.BASE + ", got '" + rpc.getLocalName() + "'")));
            record("malformed", "malformed-message", t0);
            return;
        }
        if (!rpc.hasAttribute("message-id")) {
            badRpc();
            reply(rpc, null, List.of(new RpcError(Type.RPC, "missing-attribute", "the rpc has no message-id")
                    .info("bad-attribute", "message-id").info("bad-element", "rpc")));
            record("rpc", "missing-attribute", t0);
            return;
        }
        List<Element> ops = SecureXml.children(rpc);
        String opName = ops.isEmpty() ? "none" : ops.get(0).getLocalName();
        Outcome o;
        try {
            if (ops.size() != 1) {
                throw new RpcError(Type.RPC, ops.isEmpty() ? "missing-element" : "unknown-element",
                        "an rpc holds exactly one operation").info("bad-element", ops.isEmpty() ? "rpc" : ops.get(1).getLocalName());
            }
            // What the rpc tells this session's own subscription (its netconf-config-change) the session
            // writes itself, once the rpc holds no lock (ownNotifications), instead of waking the writer.
            Subscription own = subscription;
            if (own != null) own.handling(Thread.currentThread());
            try {
                o = dispatch(ops.get(0));
            } catch (EditError e) {
                // the shared datastores' refusals (locks)
                throw EditConfig.error(e);
            } catch (RuntimeException e) {
                // A bug or an unexpected failure below: this request fails, the session goes on.
                log.error("NETCONF session {}: {} failed unexpectedly", who.sessionId(), opName, e);
                throw new RpcError(Type.APPLICATION, "operation-failed", "internal error (the server's log says what)");
            } finally {
                if (own != null) {
                    own.handling(null);
                    own.writeHere();
                }
            }
            reply(rpc, o.body(), o.errors());
            record(opName, o.errors().isEmpty() ? "ok" : o.errors().get(0).tag(), t0);
            if (o.then() != null) o.then().run();
        } catch (RpcError e) {
            badRpc();
            reply(rpc, null, List.of(e));
            record(opName, e.tag(), t0);
        }
    }

    private void badRpc() {
        inBadRpcs.incrementAndGet();
        ctx.statistics().inBadRpcs.incrementAndGet();
    }

    private void record(String op, String outcome, long t0) {
        ctx.metrics().recordRequest("netconf", op, outcome, System.nanoTime() - t0);
    }

    private Outcome dispatch(Element op) throws RpcError {
        String ns = op.getNamespaceURI();
        String name = op.getLocalName();
        if (!who.access().mayExec(Nacm.module(ns), name)) {
            throw new RpcError(Type.APPLICATION, "access-denied", null, null, "access control (NACM) denies " + name
                    + " to user '" + who.user() + "'");
        }
        if (Ns.BASE.equals(ns)) {
            switch (name) {
                case "get": return Outcome.of(Retrieval.get(ctx, who, op));
                case "get-config": return Outcome.of(Retrieval.getConfig(ctx, who, op, ConfigRpcs.datastore(op, "source")));
                case "edit-config": writer(name); return configRpcs.editConfig(op);
                case "copy-config": writer(name); return configRpcs.copyConfig(op);
                case "delete-config":
                    writer(name);
                    throw new RpcError(Type.PROTOCOL, "operation-not-supported",
                            "delete-config applies to startup, which this server does not have; running and candidate cannot be deleted");
                case "lock": writer(name); return configRpcs.lock(op, true);
                case "unlock": writer(name); return configRpcs.lock(op, false);
                case "commit": writer(name); return configRpcs.commit(op);
                case "discard-changes": writer(name); return configRpcs.discard();
                case "cancel-commit": writer(name); return configRpcs.cancelCommit(op);
                case "validate": return configRpcs.validate(op);
                case "close-session":
                    return new Outcome(Outcome.OK, List.of(), () -> {
                        termination.compareAndSet(null, ServerNotifications.Termination.CLOSED);
                        closing = true;
                    });
                case "kill-session": writer(name); return killSession(op);
                default: break;
            }
        } else if (Ns.NOTIFICATION.equals(ns) && "create-subscription".equals(name)) {
            return createSubscription(op);
        } else if (Ns.MONITORING.equals(ns) && "get-schema".equals(name)) {
            return Outcome.of(Retrieval.getSchema(op));
        } else if (Ns.NMDA.equals(ns) && "get-data".equals(name)) {
            return Outcome.of(Retrieval.getData(ctx, who, op));
        } else if (Ns.NMDA.equals(ns) && "edit-data".equals(name)) {
            writer(name);
            return configRpcs.editData(op);
        } else if (Ns.HISTORY.equals(ns) && "get-commits".equals(name)) {
            return HistoryOps.getCommits(who, op);
        } else if (Ns.HISTORY.equals(ns) && "rollback".equals(name)) {
            writer(name);
            return HistoryOps.rollback(who, op);
        } else if (Ns.MIGRATION.equals(ns) && "migrate".equals(name)) {
            writer(name);
            return MigrationOps.migrate(who, op, ctx.peers());
        } else if (Ns.MIGRATION.equals(ns) && "backup".equals(name)) {
            return BackupOps.backup(who);
        } else if (Ns.MIGRATION.equals(ns) && "restore".equals(name)) {
            writer(name);
            return BackupOps.restore(who, op);
        } else if (Ns.MIGRATION.equals(ns) && ("drain".equals(name) || "open".equals(name))) {
            writer(name);
            return name.equals("drain") ? MigrationOps.drain(who, op, ctx.drain()) : MigrationOps.open(who, ctx.drain());
        }
        throw new RpcError(Type.PROTOCOL, "operation-not-supported", null, null,
                "unknown operation '" + name + "' in namespace '" + ns + "'").info("bad-element", name);
    }

    /** Refuses operations that change something to read-only users. */
    private void writer(String op) throws RpcError {
        if (!who.caller().mayChange()) {
            throw new RpcError(Type.APPLICATION, "access-denied", null, null,
                    "user '" + who.user() + "' has read-only access: " + op + " is not allowed");
        }
    }

    private Outcome killSession(Element op) throws RpcError {
        Element sid = SecureXml.child(op, Ns.BASE, "session-id");
        if (sid == null) throw RpcError.missingElement(Type.PROTOCOL, null, "session-id", "kill-session needs <session-id>");
        int other;
        try {
            other = Integer.parseInt(SecureXml.text(sid).trim());
        } catch (NumberFormatException e) {
            throw RpcError.invalidValue(null, "session-id must be a number").info("bad-element", "session-id");
        }
        if (other == who.sessionId()) {
            throw RpcError.invalidValue(null, "a session cannot kill itself: use close-session").info("bad-element", "session-id");
        }
        NetconfSession s = ctx.sessions().get(other);
        // A tenant's sessions see (and kill) only the sessions of their tenant: another's is "no session".
        if (s != null && !who.caller().sees(s.caller().tenant())) s = null;
        if (s == null) throw RpcError.invalidValue(null, "no session " + other).info("bad-element", "session-id");
        log.info("NETCONF session {} ({}) kills session {}", who.sessionId(), who.user(), other);
        s.kill(ServerNotifications.Termination.KILLED, who.sessionId());
        return Outcome.of(Outcome.OK);
    }

    // ------------------------------------------------------------------ notifications

    /**
     * {@code <create-subscription>} (RFC 5277) on the one stream, NETCONF: a subtree filter, and
     * replay from startTime (until stopTime) out of the service's replay log.
     */
    private Outcome createSubscription(Element op) throws RpcError {
        if (subscription != null) {
            throw new RpcError(Type.PROTOCOL, "in-use", "this session has a subscription already");
        }
        Element stream = SecureXml.child(op, Ns.NOTIFICATION, "stream");
        if (stream != null && !SecureXml.text(stream).trim().equals("NETCONF")) {
            throw RpcError.invalidValue(null, "the only stream is NETCONF").info("bad-element", "stream");
        }
        Instant start = time(op, "startTime");
        Instant stop = time(op, "stopTime");
        if (stop != null && start == null) {
            throw RpcError.missingElement(Type.PROTOCOL, null, "stopTime", "stopTime needs a startTime (RFC 5277)");
        }
        if (start != null) {
            if (who.service().events().replayLog().isEmpty()) {
                throw new RpcError(Type.PROTOCOL, "operation-failed", "the NETCONF stream keeps no replay log here")
                        .info("bad-element", "startTime");
            }
            if (start.isAfter(Instant.now())) {
                throw new RpcError(Type.PROTOCOL, "bad-element", "startTime " + start + " is in the future")
                        .info("bad-element", "startTime");
            }
            if (stop != null && stop.isBefore(start)) {
                throw new RpcError(Type.PROTOCOL, "bad-element", "stopTime " + stop + " is before startTime " + start)
                        .info("bad-element", "stopTime");
            }
        }
        // RFC 5277 puts the filter in its own namespace; ncclient sends NETCONF's <filter>: both are one.
        Element filter = SecureXml.child(op, Ns.NOTIFICATION, "filter");
        if (filter == null) filter = SecureXml.child(op, Ns.BASE, "filter");
        if (filter != null) {
            String type = filter.getAttribute("type");
            if (!type.isEmpty() && !type.equals("subtree")) {
                throw new RpcError(Type.PROTOCOL, "bad-attribute", "notification filters are subtree filters")
                        .info("bad-attribute", "type").info("bad-element", "filter");
            }
        }
        Subscription s = new Subscription(ctx, who, filter, start, stop, this::deliver, () -> subscription = null);
        subscription = s;
        // Notifications (replayed ones first) follow the reply; the replay is written before the
        // session reads its next rpc.
        return new Outcome(Outcome.OK, List.of(), () -> {
            if (closing) return;
            s.start();
            s.awaitCaughtUp(REPLAY_WRITE_LIMIT);
        });
    }

    /** A date-and-time parameter of create-subscription, or null when absent. */
    private static Instant time(Element op, String name) throws RpcError {
        Element e = SecureXml.child(op, Ns.NOTIFICATION, name);
        if (e == null) return null;
        String v = SecureXml.text(e).trim();
        try {
            return java.time.OffsetDateTime.parse(v).toInstant();
        } catch (java.time.format.DateTimeParseException bad) {
            throw RpcError.invalidValue(null, name + " '" + v + "' is not a date-and-time such as 2026-11-22T10:00:00Z")
                    .info("bad-element", name);
        }
    }

    /** Writes one notification, unless the subscription's filter leaves nothing of it. */
    private void deliver(String eventTime, DataNode content, Element filter) {
        if (closing) return;
        // RFC 8341 3.4.6: replayComplete and notificationComplete are always sent.
        boolean always = Ns.STREAMS.equals(content.ns());
        if (!always && !who.access().mayNotify(Nacm.module(content.ns()), content.name())) return;
        Element selected = null;
        if (filter != null) {
            Document doc = SecureXml.newDocument();
            Element holder = doc.createElementNS(Ns.NOTIFICATION, "holder");
            doc.appendChild(holder);
            XmlOut dom = new XmlOut(new DOMResult(holder));
            DataNode root = DataNode.lazy(Ns.NOTIFICATION, "notification", () -> List.of(content).iterator());
            SubtreeFilter.apply(root, filter, dom);
            dom.flush();
            if (SecureXml.children(holder).isEmpty()) return;
            selected = SecureXml.children(holder).get(0);
        }
        try {
            Element chosen = selected;
            synchronized (out) {
                message(x -> {
                    x.start(Ns.NOTIFICATION, "notification");
                    x.leaf(Ns.NOTIFICATION, "eventTime", eventTime);
                    if (chosen == null) {
                        content.write(x);
                    } else {
                        writeDom(chosen, x);
                    }
                    x.end();
                });
            }
            outNotifications.incrementAndGet();
            ctx.statistics().outNotifications.incrementAndGet();
        } catch (IOException | XmlOut.XmlWriteException ex) {
            log.debug("NETCONF session {}: notification not delivered: {}", who.sessionId(), ex.toString());
        }
    }

    private static void writeDom(Element e, XmlOut x) {
        List<Element> kids = SecureXml.children(e);
        if (kids.isEmpty()) {
            x.leaf(e, e.getNamespaceURI());
            return;
        }
        x.start(e.getNamespaceURI(), e.getLocalName());
        for (Element k : kids) writeDom(k, x);
        x.end();
    }

    // ------------------------------------------------------------------ replies

    private void reply(Element rpc, Outcome.Body body, List<RpcError> errors) throws IOException {
        synchronized (out) {
            message(x -> {
                x.start(Ns.BASE, "rpc-reply");
                if (rpc != null) copyAttributes(rpc, x);
                for (RpcError e : errors) {
                    e.write(x);
                    rpcError();
                }
                if (errors.isEmpty() && body != null) {
                    try {
                        body.write(x);
                    } catch (RpcError e) {
                        // Raised before the body wrote anything (filter checks): report it instead.
                        e.write(x);
                        rpcError();
                    }
                }
                x.end();
            });
        }
    }

    private void rpcError() {
        outRpcErrors.incrementAndGet();
        ctx.statistics().outRpcErrors.incrementAndGet();
    }

    /** An rpc element carrying only the message-id, for replying to a message that was not parsed. */
    private static Element rpcWithMessageId(String messageId) {
        Element rpc = SecureXml.newDocument().createElementNS(Ns.BASE, "rpc");
        rpc.setAttribute("message-id", messageId);
        return rpc;
    }

    /** The rpc's attributes go back on the rpc-reply (RFC 6241 section 4.2). */
    private static void copyAttributes(Element rpc, XmlOut x) {
        NamedNodeMap attrs = rpc.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            String ns = a.getNamespaceURI();
            if ("http://www.w3.org/2000/xmlns/".equals(ns)) continue;
            if (ns == null || ns.isEmpty()) {
                x.attribute(a.getLocalName() == null ? a.getName() : a.getLocalName(), a.getValue());
            } else {
                String prefix = a.getPrefix() == null ? "a" + i : a.getPrefix();
                x.attribute(prefix, ns, a.getLocalName(), a.getValue());
            }
        }
    }

    // ------------------------------------------------------------------ monitoring counters

    long inRpcs() {
        return inRpcs.get();
    }

    long inBadRpcs() {
        return inBadRpcs.get();
    }

    long outRpcErrors() {
        return outRpcErrors.get();
    }

    long outNotifications() {
        return outNotifications.get();
    }

    static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
