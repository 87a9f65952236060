package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.GetRequest;
import com.github.gnmi.proto.GetResponse;
import com.github.gnmi.proto.Notification;
import com.github.gnmi.proto.Path;
import com.github.gnmi.proto.TypedValue;
import com.github.gnmi.proto.Update;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Get's response groups the leaves of one list entry (or container) in one notification whose
 * prefix is the entry's path with its keys, each update's path the leaf's name, as Subscribe sends
 * them (specification 3.3.4 lets a GetResponse hold several notifications): a table's keys travel
 * once per row, not once per leaf. On 10 VRs of one interface each (vmNetworkTable of 10 rows).
 */
class GetGroupingTest {
    private static final String TABLE = "/NEW-VMM-MIB/vmNetworkTable";
    @TempDir
    java.nio.file.Path dir;
    Target target;
    ManagedChannel channel;

    @BeforeEach
    void setUp() throws Exception {
        target = Target.start(dir, Map.of());
        channel = target.channel();
        for (int vmIndex = 1; vmIndex <= 10; vmIndex++) target.create(vmIndex, 1);
    }

    @AfterEach
    void tearDown() throws Exception {
        target.close();
    }

    private GetResponse get(Path prefix, String path, Encoding encoding) {
        return Target.blocking(channel).get(GetRequest.newBuilder().setPrefix(prefix).addPath(Target.path("", path))
                .setEncoding(encoding).build());
    }

    private GetResponse get(String path, Encoding encoding) {
        return get(Path.getDefaultInstance(), path, encoding);
    }

    @Test
    void aTableInProtoIsOneNotificationPerRowUnderItsKeyedPathWithEachLeafByName() {
        GetResponse table = get(TABLE, Encoding.PROTO);
        // Each leaf with its full path and keys: 16,299 bytes (1,630 a row); under its row's prefix: 5,251.
        assertThat(table.getSerializedSize()).as("bytes of the 10 rows").isLessThan(10 * 800);
        assertThat(table.getNotificationList()).hasSize(10);
        for (int i = 0; i < 10; i++) {
            Notification row = table.getNotification(i);
            assertThat(GnmiPaths.text(row.getPrefix().getElemList()))
                    .isEqualTo(TABLE + "/vmNetworkEntry[vmIndex=" + (i + 1) + "][vmNetworkIndex=1]");
            assertThat(row.getUpdateList()).allSatisfy(u -> assertThat(u.getPath().getElemCount()).isEqualTo(1));
            Set<String> leaves = row.getUpdateList().stream().map(u -> u.getPath().getElem(0).getName()).collect(Collectors.toSet());
            assertThat(leaves).hasSize(row.getUpdateCount()).contains("vmNetworkIndex", "vmNetworkIfIndex");
            assertThat(row.getUpdateCount()).isGreaterThanOrEqualTo(12);
        }
    }

    @Test
    void aSingleLeafIsOneUpdateUnderItsEntryInEachEncoding() {
        String entry = "/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=3]";
        Map<Encoding, TypedValue> running = Map.of(
                Encoding.PROTO, TypedValue.newBuilder().setStringVal("running").build(),
                Encoding.JSON, TypedValue.newBuilder().setJsonVal(ByteString.copyFromUtf8("\"running\"")).build(),
                Encoding.JSON_IETF, TypedValue.newBuilder().setJsonIetfVal(ByteString.copyFromUtf8("\"running\"")).build());
        running.forEach((encoding, value) -> {
            GetResponse got = get(entry + "/vmOperState", encoding);
            assertThat(got.getNotificationList()).as(encoding.name()).hasSize(1);
            assertThat(GnmiPaths.text(got.getNotification(0).getPrefix().getElemList())).isEqualTo(entry);
            assertThat(got.getNotification(0).getUpdateList()).as(encoding.name()).containsExactly(Update.newBuilder()
                    .setPath(Path.newBuilder().addElem(com.github.gnmi.proto.PathElem.newBuilder().setName("vmOperState")))
                    .setVal(value).build());
        });
    }

    @Test
    void aTableInJsonIetfIsStillOneValueUnderTheRequestsPrefixWithItsOriginAndTarget() {
        Path prefix = Target.path("NEW-VMM-MIB", "/NEW-VMM-MIB").toBuilder().setTarget("vr-host").build();
        GetResponse table = get(prefix, "/vmNetworkTable", Encoding.JSON_IETF);
        assertThat(table.getNotificationList()).hasSize(1);
        Notification n = table.getNotification(0);
        assertThat(n.getPrefix()).isEqualTo(prefix);
        assertThat(n.getUpdateList()).hasSize(1);
        assertThat(GnmiPaths.text(n.getUpdate(0).getPath().getElemList())).isEqualTo("/vmNetworkTable");
        assertThat(n.getUpdate(0).getVal().getJsonIetfVal().toStringUtf8()).contains("\"NEW-VMM-MIB:vmNetworkEntry\"");

        // In PROTO the rows' prefixes keep the request's origin and target.
        GetResponse rows = get(prefix, "/vmNetworkTable", Encoding.PROTO);
        assertThat(rows.getNotificationList()).hasSize(10).allSatisfy(row -> {
            assertThat(row.getPrefix().getOrigin()).isEqualTo("NEW-VMM-MIB");
            assertThat(row.getPrefix().getTarget()).isEqualTo("vr-host");
        });
    }
}
