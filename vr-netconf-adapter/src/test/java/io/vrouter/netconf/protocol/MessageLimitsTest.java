package io.vrouter.netconf.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.netconf.transport.MessageMemory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * What a request may take (issue 23 items 7 and 8): a message over netconf.max-message-bytes, or
 * one the memory for requests in progress cannot take, is answered with an rpc-error naming its
 * message-id, and the session goes on; so does a request nested 100,000 deep.
 */
class MessageLimitsTest extends ServerFixture {
    static final String BASE = TestClient.BASE;
    static final String VMM = TestClient.VMM;
    static final int MIB = 1 << 20;

    /** The fixture's server, with these limits. */
    void startServer(int maxMessageBytes, long memoryForRequests) {
        ctx.close();
        ctx = new NetconfServerContext(service, VrMetrics.inMemory(), maxMessageBytes, new MessageMemory(memoryForRequests), dir);
    }

    /** A read-only user: any user can send a message, so the limits hold for the least of them too. */
    TestClient client(boolean base11) throws Exception {
        return client("viewer", base11);
    }

    TestClient client(String user, boolean base11) throws Exception {
        TestClient c = new TestClient(ctx, user, user.equals("viewer"), base11);
        clients.add(c);
        return c;
    }

    /** An rpc get whose filter carries {@code bytes} of comment: it costs its size while read, next to nothing parsed. */
    static String getWithComment(String messageId, int bytes) {
        return "<rpc message-id='" + messageId + "' xmlns='" + BASE + "'><get><!--" + "x".repeat(bytes) + "--></get></rpc>";
    }

    static void await(LongSupplier value, long wanted) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (value.getAsLong() != wanted && System.nanoTime() < end) Thread.sleep(10);
        assertThat(value.getAsLong()).isEqualTo(wanted);
    }

    @Test
    void aMessageOverTheSizeLimitIsTooBigAndTheSessionGoesOn() throws Exception {
        startServer(MIB, 16 * MIB);
        for (boolean base11 : new boolean[] {false, true}) {
            TestClient c = client(base11);
            c.send(getWithComment("big-1", 2 * MIB));
            assertThat(c.next()).contains("message-id=\"big-1\"", "<error-type>rpc</error-type>", "<error-tag>too-big</error-tag>",
                    "more than this server takes (1048576, netconf.max-message-bytes)");
            assertThat(c.rpc("<get-config><source><running/></source></get-config>")).contains("<data").doesNotContain("<rpc-error>");
        }
        await(ctx.messageMemory()::used, 0);
    }

    /** One that fits the size limit but whose parsed form never could fit the memory: 1 MiB of empty elements. */
    @Test
    void aMessageWhoseParsedFormCannotFitIsTooBig() throws Exception {
        startServer(2 * MIB, 4 * MIB);
        TestClient c = client(true);
        c.send("<rpc message-id='many' xmlns='" + BASE + "'><get><filter type='subtree'>" + "<a/>".repeat(MIB / 4)
                + "</filter></get></rpc>");
        assertThat(c.next()).contains("message-id=\"many\"", "<error-tag>too-big</error-tag>", "once parsed, more than the 4.0 MiB");
        assertThat(c.rpc("<get-config><source><running/></source></get-config>")).contains("<data").doesNotContain("<rpc-error>");
        await(ctx.messageMemory()::used, 0);
    }

    /**
     * Sessions share the memory: while one holds most of it with a message under way, another's
     * large message is refused with resource-denied (send it again later), and both go on.
     */
    @Test
    void whileOtherSessionsHoldTheMemoryALargeMessageIsResourceDenied() throws Exception {
        startServer(16 * MIB, 4 * MIB);
        TestClient slow = client(true);
        TestClient other = client(true);
        String held = getWithComment("held", 3 * MIB);
        int firstPart = 3 * MIB;
        slow.sendRaw("\n#" + held.length() + "\n" + held.substring(0, firstPart));
        await(() -> Math.min(ctx.messageMemory().used(), firstPart), firstPart);

        other.send(getWithComment("denied", 2 * MIB));
        assertThat(other.next()).contains("message-id=\"denied\"", "<error-tag>resource-denied</error-tag>",
                "taken by other sessions' requests");

        slow.sendRaw(held.substring(firstPart) + "\n##\n");
        assertThat(slow.next()).contains("message-id=\"held\"", "<data").doesNotContain("<rpc-error>");
        assertThat(other.rpc("<get-config><source><running/></source></get-config>")).contains("<data").doesNotContain("<rpc-error>");
        await(ctx.messageMemory()::used, 0);
    }

    /** The element {@code name} nested {@code depth} deep around {@code inner}, the outermost with {@code attributes}. */
    static String nested(String name, String attributes, int depth, String inner) {
        return "<" + name + attributes + ">" + ("<" + name + ">").repeat(depth - 1) + inner + ("</" + name + ">").repeat(depth);
    }

    /**
     * Parsing, subtree filters, XPath filters and edits walk a request along the YANG schema, not
     * along the XML's nesting, so a request nested 100,000 deep is answered like any other.
     */
    @Test
    void requestsNestedVeryDeepAreAnsweredAndTheSessionGoesOn() throws Exception {
        startServer(16 * MIB, 64 * MIB);
        TestClient c = client("admin", true);
        int deep = 100_000;
        String ns = " xmlns='" + VMM + "'";
        String empty = "<data></data>";
        List<List<String>> requestsAndReplies = List.of(
                List.of("<get><filter type='subtree'>" + nested("NEW-VMM-MIB", ns, 1, nested("vmTable", "", deep, ""))
                        + "</filter></get>", empty),
                List.of("<get-config><source><running/></source><filter type='subtree'>" + nested("a", "", deep, "")
                        + "</filter></get-config>", empty),
                List.of("<edit-config><target><candidate/></target><config><NEW-VMM-MIB" + ns + "><vmConfigTable><vmConfigEntry>"
                        + "<vmIndex>1</vmIndex>" + nested("vmName", "", deep, "x")
                        + "</vmConfigEntry></vmConfigTable></NEW-VMM-MIB></config></edit-config>", "<error-tag>invalid-value</error-tag>"),
                List.of("<edit-config><target><candidate/></target><config>" + nested("NEW-VMM-MIB", ns, deep, "")
                        + "</config></edit-config>", "<error-tag>unknown-element</error-tag>"),
                List.of("<get><filter type='xpath' select='" + "(".repeat(deep) + "/*" + ")".repeat(deep) + "'/></get>",
                        "<error-tag>invalid-value</error-tag>"),
                List.of("<get><filter type='xpath' select='/*" + "[*".repeat(deep) + "]".repeat(deep) + "'/></get>",
                        "<error-tag>invalid-value</error-tag>"));
        for (List<String> rr : requestsAndReplies) {
            assertThat(c.rpc(rr.get(0))).as(rr.get(0).substring(0, 100)).contains(rr.get(1));
        }
        assertThat(c.rpc("<get-config><source><running/></source></get-config>")).contains("<data").doesNotContain("<rpc-error>");
    }
}
