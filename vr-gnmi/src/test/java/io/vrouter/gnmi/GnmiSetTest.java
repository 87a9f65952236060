package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.gnmi.proto.Path;
import com.github.gnmi.proto.PathElem;
import com.github.gnmi.proto.SetRequest;
import com.github.gnmi.proto.SetResponse;
import com.github.gnmi.proto.TypedValue;
import com.github.gnmi.proto.Update;
import com.github.gnmi.proto.UpdateResult;
import com.github.gnmi.proto.gNMIGrpc;
import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.vrouter.core.model.VmConfigEntry;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** gNMI Set: deletes, replaces and updates of one request as one change set, refused whole with gNMI's codes. */
class GnmiSetTest {
    @TempDir
    java.nio.file.Path dir;
    Target target;

    @BeforeEach
    void start() throws Exception {
        target = Target.start(dir, Map.of("user.ops", "operator:ops"));
        target.create(1, 2);
    }

    @AfterEach
    void stop() throws Exception {
        target.close();
    }

    private SetResponse set(String user, String password, SetRequest request) {
        return gNMIGrpc.newBlockingStub(target.channel()).withDeadlineAfter(30, TimeUnit.SECONDS)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(Target.login(user, password))).set(request);
    }

    private static Path configEntry(int vmIndex, String leaf) {
        Path.Builder p = Path.newBuilder().addElem(PathElem.newBuilder().setName("NEW-VMM-MIB"))
                .addElem(PathElem.newBuilder().setName("vmConfigTable"))
                .addElem(PathElem.newBuilder().setName("vmConfigEntry").putKey("vmIndex", Integer.toString(vmIndex)));
        if (leaf != null) p.addElem(PathElem.newBuilder().setName(leaf));
        return p.build();
    }

    private static Path networkEntry(int vmIndex, int networkIndex) {
        return Path.newBuilder().addElem(PathElem.newBuilder().setName("NEW-VMM-MIB"))
                .addElem(PathElem.newBuilder().setName("vmNetworkConfigTable"))
                .addElem(PathElem.newBuilder().setName("vmNetworkConfigEntry").putKey("vmIndex", Integer.toString(vmIndex))
                        .putKey("vmNetworkConfigIndex", Integer.toString(networkIndex))).build();
    }

    private static Update update(Path path, TypedValue value) {
        return Update.newBuilder().setPath(path).setVal(value).build();
    }

    private static TypedValue json(String text) {
        return TypedValue.newBuilder().setJsonIetfVal(ByteString.copyFromUtf8(text)).build();
    }

    private VmConfigEntry row(int vmIndex) {
        return target.service.getConfig(vmIndex).orElseThrow();
    }

    @Test
    void deleteReplaceAndUpdateAreOneChange() {
        SetResponse r = set("ops", "ops", SetRequest.newBuilder()
                .addDelete(networkEntry(1, 2))
                .addReplace(update(configEntry(1, "vmConfigDescription"), TypedValue.newBuilder().setStringVal("edge").build()))
                .addUpdate(update(configEntry(1, null), json("{\"vmName\":\"renamed\",\"vmConfigAutoStart\":true}")))
                .addUpdate(update(configEntry(2, null), json("{\"NEW-VMM-MIB:vmName\":\"made\"}")))
                .build());
        assertThat(r.getResponseList()).extracting(UpdateResult::getOp).containsExactly(UpdateResult.Operation.DELETE,
                UpdateResult.Operation.REPLACE, UpdateResult.Operation.UPDATE, UpdateResult.Operation.UPDATE);
        assertThat(row(1).vmName).isEqualTo("renamed");
        assertThat(row(1).vmConfigDescription).isEqualTo("edge");
        assertThat(row(1).vmConfigAutoStart).isTrue();
        assertThat(row(1).interfaces()).hasSize(1);
        assertThat(row(2).vmName).isEqualTo("made");
        assertThat(target.service.commits().get(target.service.commits().size() - 1).changedBy.iface).isEqualTo("gnmi");
    }

    @Test
    void aSetThatFailsInItsSecondUpdateChangesNothing() {
        SetRequest twoUpdates = SetRequest.newBuilder()
                .addUpdate(update(configEntry(1, "vmName"), TypedValue.newBuilder().setStringVal("first-ok").build()))
                .addUpdate(update(configEntry(1, "vmConfigCpuNumber"), TypedValue.newBuilder().setIntVal(1000).build()))
                .build();
        assertThatThrownBy(() -> set("ops", "ops", twoUpdates)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThat(row(1).vmName).isEqualTo("oc1");

        SetRequest noSuchInterface = SetRequest.newBuilder()
                .addUpdate(update(configEntry(1, "vmName"), TypedValue.newBuilder().setStringVal("first-ok").build()))
                .addUpdate(update(Path.newBuilder(networkEntry(9, 1)).addElem(PathElem.newBuilder()
                        .setName("vmNetworkConfigAddress")).build(), TypedValue.newBuilder().setStringVal("192.0.2.1").build()))
                .build();
        assertThatThrownBy(() -> set("ops", "ops", noSuchInterface)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
        assertThat(row(1).vmName).isEqualTo("oc1");
    }

    @Test
    void gnmisCodesForWhatIsRefused() {
        SetRequest rename = SetRequest.newBuilder()
                .addUpdate(update(configEntry(1, "vmName"), TypedValue.newBuilder().setStringVal("x").build())).build();
        assertThatThrownBy(() -> set("alice", "secret", rename)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).as("a viewer").isEqualTo(Status.Code.PERMISSION_DENIED));
        SetRequest state = SetRequest.newBuilder().addUpdate(update(Path.newBuilder()
                .addElem(PathElem.newBuilder().setName("NEW-VMM-MIB")).addElem(PathElem.newBuilder().setName("vmTable")).build(),
                json("{}"))).build();
        assertThatThrownBy(() -> set("ops", "ops", state)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        SetRequest memoryWhileRunning = SetRequest.newBuilder()
                .addUpdate(update(configEntry(1, "vmConfigMemory"), TypedValue.newBuilder().setUintVal(1024).build())).build();
        assertThatThrownBy(() -> set("ops", "ops", memoryWhileRunning)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
        // A delete of what is not there is accepted, and changes nothing (specification 3.4.6).
        assertThat(set("ops", "ops", SetRequest.newBuilder().addDelete(configEntry(7, null)).build()).getResponseCount())
                .isEqualTo(1);
        assertThat(row(1).vmName).isEqualTo("oc1");
    }

    @Test
    void aValueThatIsNotJsonIsRefusedInGnmisTermsWithoutTheParsersWords() {
        SetRequest bare = SetRequest.newBuilder().addUpdate(update(configEntry(1, "vmConfigDescription"),
                TypedValue.newBuilder().setJsonIetfVal(com.google.protobuf.ByteString.copyFromUtf8("bare words")).build())).build();
        assertThatThrownBy(() -> set("ops", "ops", bare)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).contains("not JSON", "line 1, column").doesNotContain("Unrecognized",
                    "REDACTED", "jackson", "Feature");
        });
    }
}
