package io.vrouter.yang;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class XmlOutTest {
    private static final Consumer<XmlOut> REPLY = x -> {
        x.start(Ns.BASE, "rpc-reply");
        x.attribute("message-id", "7");
        x.start(Ns.VMM, "NEW-VMM-MIB");
        x.namespace("a", "urn:example:a");
        x.leaf(Ns.VMM, "vmName", "vr-<1>");
        x.end();
        x.empty(Ns.BASE, "ok");
        x.end();
    };
    private static final Consumer<XmlOut> NOTIFICATION = x -> {
        x.start(Ns.NOTIFICATION, "notification");
        x.leaf(Ns.NOTIFICATION, "eventTime", "2026-11-26T05:00:00Z");
        x.pending(Ns.VMM, "vmShutdown", null);
        x.leaf(Ns.VMM, "vmIndex", "1");
        x.end();
        x.end();
    };

    private static String alone(Consumer<XmlOut> doc) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (XmlOut x = new XmlOut(b)) {
            x.declaration();
            doc.accept(x);
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    @Test
    void documentsWrittenOneAfterTheOtherByOneWriterAreTheBytesOfWritersOfTheirOwn() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        XmlOut x = new XmlOut(b);
        StringBuilder expected = new StringBuilder();
        for (Consumer<XmlOut> doc : java.util.List.of(REPLY, NOTIFICATION, REPLY, NOTIFICATION)) {
            x.declaration();
            doc.accept(x);
            x.endDocument();
            expected.append(alone(doc));
            // each document is out whole when it ends (it goes out as a message of its own)
            assertThat(b.toString(StandardCharsets.UTF_8)).isEqualTo(expected.toString());
        }
    }

    @Test
    void aDocumentEndsOnlyWithItsElementsClosed() {
        XmlOut x = new XmlOut(new ByteArrayOutputStream());
        x.declaration();
        x.start(Ns.BASE, "rpc-reply");
        assertThatThrownBy(x::endDocument).isInstanceOf(IllegalStateException.class);
    }
}
