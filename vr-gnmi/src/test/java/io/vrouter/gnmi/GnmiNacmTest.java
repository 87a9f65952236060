package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.GetRequest;
import com.github.gnmi.proto.SetRequest;
import com.github.gnmi.proto.TypedValue;
import com.github.gnmi.proto.Update;
import com.github.gnmi.proto.SubscribeResponse;
import com.github.gnmi.proto.Subscription;
import com.github.gnmi.proto.SubscriptionList;
import com.github.gnmi.proto.gNMIGrpc;
import io.grpc.ManagedChannel;
import io.grpc.stub.MetadataUtils;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.yang.nacm.NacmConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gNMI under the application's access control (NACM, shared with NETCONF and RESTCONF): a rule
 * denying the read of a leaf leaves it out of Get and of Subscribe, as NETCONF's get leaves it out.
 */
class GnmiNacmTest {
    private static final String DESCRIPTION = "/NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex=1]/vmConfigDescription";

    @TempDir
    Path dir;
    Target target;
    ManagedChannel channel;

    @BeforeEach
    void setUp() throws Exception {
        target = Target.start(dir, Map.of("user.ops", "operator:ops"));
        channel = target.channel();
        target.create(1, 1);
        VmConfigEntry vr = target.service.getConfig(1).orElseThrow().copy();
        vr.vmConfigDescription = "not-for-readers";
        assertThat(target.service.apply(ChangeSet.builder().replace(vr).build()).only().await(Duration.ofSeconds(30)))
                .as("changed in time").isPresent();
    }

    @AfterEach
    void tearDown() throws Exception {
        target.close();
    }

    private gNMIGrpc.gNMIBlockingStub asOperator() {
        return gNMIGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(Target.login("ops", "ops")));
    }

    private String get(String path) {
        return Target.blocking(channel).get(GetRequest.newBuilder().addPath(Target.path("", path))
                .setEncoding(Encoding.JSON_IETF).build()).toString();
    }

    /** Every user (group "*") denied the read of vmConfigDescription. */
    private void denyReadingDescriptions() throws Exception {
        deny("read");
    }

    private void deny(String operations) throws Exception {
        NacmConfig c = target.nacm.config().copy();
        NacmConfig.RuleList list = new NacmConfig.RuleList();
        list.name = "no-descriptions";
        list.groups = List.of("*");
        NacmConfig.Rule rule = new NacmConfig.Rule();
        rule.name = "description";
        rule.moduleName = "NEW-VMM-MIB";
        rule.path = "/new-vmm-mib:NEW-VMM-MIB/new-vmm-mib:vmConfigTable/new-vmm-mib:vmConfigEntry/new-vmm-mib:vmConfigDescription";
        rule.accessOperations = operations;
        rule.action = "deny";
        list.rules.add(rule);
        c.ruleLists.add(list);
        target.nacm.replace(c);
    }

    @Test
    void getLeavesOutWhatTheRulesDenyReading() throws Exception {
        assertThat(get("/")).contains("not-for-readers");
        denyReadingDescriptions();
        assertThat(get("/")).contains("vmName").doesNotContain("not-for-readers").doesNotContain("vmConfigDescription");
        assertThat(get("/NEW-VMM-MIB/vmConfigTable")).contains("oc1").doesNotContain("not-for-readers");
        StatusRuntimeException leaf = (StatusRuntimeException) org.assertj.core.api.Assertions.catchThrowable(() -> get(DESCRIPTION));
        assertThat(leaf.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
    }

    @Test
    void subscribeLeavesOutWhatTheRulesDenyReading() throws Exception {
        denyReadingDescriptions();
        BlockingQueue<Object> stream = Target.subscribe(channel, SubscriptionList.newBuilder()
                .setMode(SubscriptionList.Mode.ONCE).setEncoding(Encoding.JSON_IETF)
                .addSubscription(Subscription.newBuilder().setPath(Target.path("", "/NEW-VMM-MIB/vmConfigTable"))).build());
        List<SubscribeResponse> sent = Target.until(stream, "sync_response", SubscribeResponse::getSyncResponse);
        assertThat(sent.toString()).contains("oc1").doesNotContain("not-for-readers").doesNotContain("vmConfigDescription");
    }

    @Test
    void aSetTouchingALeafTheRulesDenyWritingIsRefusedWhole() throws Exception {
        deny("update");
        SetRequest both = SetRequest.newBuilder()
                .addUpdate(Update.newBuilder().setPath(Target.path("", "/NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex=1]/vmName"))
                        .setVal(TypedValue.newBuilder().setStringVal("renamed")))
                .addUpdate(Update.newBuilder().setPath(Target.path("", DESCRIPTION))
                        .setVal(TypedValue.newBuilder().setStringVal("overwritten"))).build();
        StatusRuntimeException refused = (StatusRuntimeException) org.assertj.core.api.Assertions.catchThrowable(
                () -> asOperator().set(both));
        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(refused.getStatus().getDescription()).contains("vmConfigDescription");
        VmConfigEntry after = target.service.getConfig(1).orElseThrow();
        assertThat(after.vmConfigDescription).isEqualTo("not-for-readers");
        assertThat(after.vmName).isNotEqualTo("renamed");
        // What the rules permit is still written.
        asOperator().set(SetRequest.newBuilder().addUpdate(Update.newBuilder()
                .setPath(Target.path("", "/NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex=1]/vmName"))
                .setVal(TypedValue.newBuilder().setStringVal("renamed"))).build());
        assertThat(target.service.getConfig(1).orElseThrow().vmName).isEqualTo("renamed");
    }
}
