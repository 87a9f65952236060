package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.GetRequest;
import com.github.gnmi.proto.GetResponse;
import com.github.gnmi.proto.SubscribeResponse;
import com.github.gnmi.proto.Subscription;
import com.github.gnmi.proto.SubscriptionList;
import com.github.gnmi.proto.SubscriptionMode;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.ChangeSet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tenants over gNMI: every call reads through the core's view of the user it logged in as, so Get and
 * Subscribe (both origins, ON_CHANGE and its deletes included) show a tenant's user its tenant's VRs
 * alone, another tenant's VR is NOT_FOUND exactly as one that does not exist, and the provider sees all.
 */
class GnmiTenantsTest {
    private static final Caller ACME = new Caller("alice", "acme", Role.OPERATOR, "test", null);
    private static final Caller BRAVO = new Caller("bob", "bravo", Role.OPERATOR, "test", null);

    @TempDir
    Path dir;
    Target target;
    ManagedChannel channel;

    @BeforeEach
    void setUp() throws Exception {
        target = Target.start(dir, Map.of("tenant.acme", "vrs=2", "tenant.bravo", "", "user.inp", "operator:inp",
                "user.ann", "viewer@acme:ann", "user.bob", "operator@bravo:bob"));
        channel = target.channel();
        create(ACME, 1, "acme-1");
        create(BRAVO, 2, "bravo-2");
        create(Caller.SYSTEM, 3, "inp-3");
    }

    @AfterEach
    void tearDown() throws Exception {
        target.close();
    }

    private void create(Caller caller, int vmIndex, String name) throws Exception {
        VmConfigEntry vr = new VmConfigEntry();
        vr.vmIndex = vmIndex;
        vr.vmName = name;
        VmNetworkConfigEntry i = new VmNetworkConfigEntry();
        i.vmNetworkConfigIndex = 1;
        i.vmNetworkConfigParent = "br1";
        vr.vmNetworkConfigTable = new ArrayList<>(List.of(i));
        assertThat(target.service.as(caller).apply(ChangeSet.builder().create(vr).build()).only()
                .await(Duration.ofSeconds(30))).as("created in time").isPresent();
    }

    private GetResponse get(String user, String origin, String path) {
        return Target.blocking(channel, user, user).get(GetRequest.newBuilder().addPath(Target.path(origin, path))
                .setEncoding(Encoding.JSON_IETF).build());
    }

    @Test
    void getShowsATenantsUserItsVrsAloneInBothOriginsAndTheProviderAll() {
        String ann = get("ann", "", "/").toString();
        assertThat(ann).contains("acme-1").doesNotContain("bravo-2").doesNotContain("inp-3");
        assertThat(get("ann", "openconfig", "/interfaces").toString()).contains("vr1-1").doesNotContain("vr2-1")
                .doesNotContain("vr3-1");
        assertThat(get("bob", "openconfig", "/interfaces").toString()).contains("vr2-1").doesNotContain("vr1-1");
        assertThat(get("inp", "", "/").toString()).contains("acme-1", "bravo-2", "inp-3");
        assertThat(get("ann", "", "/NEW-VMM-MIB/vmObjects/vmConfiguredVMs").toString()).contains("json_ietf_val: \"1\"");
        assertThat(get("inp", "", "/NEW-VMM-MIB/vmObjects/vmConfiguredVMs").toString()).contains("json_ietf_val: \"3\"");
    }

    @Test
    void anotherTenantsVrIsNotFoundAsOneThatDoesNotExist() {
        String entry = "/NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex=%d]/vmName";
        StatusRuntimeException hidden = refused(() -> get("ann", "", entry.formatted(2)));
        StatusRuntimeException absent = refused(() -> get("ann", "", entry.formatted(9)));
        assertThat(hidden.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(hidden.getStatus().getDescription())
                .isEqualTo(absent.getStatus().getDescription().replace("vmIndex=9", "vmIndex=2"));
        assertThat(refused(() -> get("ann", "openconfig", "/interfaces/interface[name=vr2-1]")).getStatus().getCode())
                .isEqualTo(Status.Code.NOT_FOUND);
    }

    private static StatusRuntimeException refused(Runnable call) {
        return (StatusRuntimeException) org.assertj.core.api.Assertions.catchThrowable(call::run);
    }

    @Test
    void onChangeSendsATenantsUserItsVrsChangesAndDeletesAlone() throws Exception {
        BlockingQueue<Object> stream = Target.subscribe(channel, SubscriptionList.newBuilder()
                .setMode(SubscriptionList.Mode.STREAM).setEncoding(Encoding.PROTO)
                .addSubscription(Subscription.newBuilder().setMode(SubscriptionMode.ON_CHANGE)
                        .setPath(Target.path("", "/NEW-VMM-MIB/vmTable/vmEntry/vmOperState")))
                .addSubscription(Subscription.newBuilder().setMode(SubscriptionMode.ON_CHANGE)
                        .setPath(Target.path("openconfig", "/interfaces/interface[name=*]/state/oper-status"))).build(),
                "ann", "ann");
        List<String> first = paths(Target.until(stream, "sync_response", SubscribeResponse::getSyncResponse));
        assertThat(first).containsExactlyInAnyOrder("/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=1]/vmOperState",
                "/interfaces/interface[name=vr1-1]/state/oper-status");
        // bravo's VR goes, then acme's: ann hears of acme's alone
        target.service.as(BRAVO).apply(ChangeSet.builder().remove(2).build()).only().await(Duration.ofSeconds(30));
        target.service.as(ACME).apply(ChangeSet.builder().remove(1).build()).only().await(Duration.ofSeconds(30));
        List<SubscribeResponse> seen = new ArrayList<>();
        do {
            seen.addAll(Target.until(stream, "a delete", r -> r.hasUpdate() && r.getUpdate().getDeleteCount() > 0));
        } while (seen.stream().filter(r -> r.getUpdate().getDeleteCount() > 0).count() < 2);
        // bravo's events came first, so any word of VR 2 would be among these
        assertThat(paths(seen)).allMatch(p -> p.contains("vmIndex=1]") || p.contains("vr1-1"))
                .contains("delete /NEW-VMM-MIB/vmTable/vmEntry[vmIndex=1]", "delete /interfaces/interface[name=vr1-1]");
    }

    /** The paths of the updates ("/a/b") and deletes ("delete /a/b") of the responses, each with its prefix. */
    private static List<String> paths(List<SubscribeResponse> responses) {
        List<String> out = new ArrayList<>();
        for (SubscribeResponse r : responses) {
            if (!r.hasUpdate()) continue;
            String prefix = GnmiPaths.text(r.getUpdate().getPrefix().getElemList());
            r.getUpdate().getUpdateList().forEach(u -> out.add(prefix + GnmiPaths.text(u.getPath().getElemList())));
            r.getUpdate().getDeleteList().forEach(d -> out.add("delete " + prefix + GnmiPaths.text(d.getElemList())));
        }
        return out;
    }
}
