package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.SubscribeResponse;
import com.github.gnmi.proto.Subscription;
import com.github.gnmi.proto.SubscriptionList;
import com.github.gnmi.proto.SubscriptionMode;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.service.SingleVr;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ON_CHANGE reads again only the VR an event is about, and so deletes nothing of another VR's. */
class OnChangeScopeTest {
    @TempDir
    Path dir;
    Target target;

    @AfterEach
    void tearDown() throws Exception {
        if (target != null) target.close();
    }

    @Test
    void aVrsEventDeletesNoneOfAnotherVrsStorageEntries() throws Exception {
        target = Target.start(dir, Map.of());
        for (int i = 1; i <= 2; i++) {
            VmConfigEntry vr = new VmConfigEntry();
            vr.vmIndex = i;
            vr.vmName = "scope" + i;
            assertThat(SingleVr.create(target.service, vr).await(Duration.ofSeconds(30))).isPresent();
        }
        // vmStorageTable is keyed by vmStorageVmIndex, not vmIndex
        BlockingQueue<Object> stream = Target.subscribe(target.channel(), SubscriptionList.newBuilder()
                .setMode(SubscriptionList.Mode.STREAM).setEncoding(Encoding.PROTO)
                .addSubscription(Subscription.newBuilder().setMode(SubscriptionMode.ON_CHANGE)
                        .setPath(Target.path("", "/NEW-VMM-MIB/vmStorageTable/vmStorageEntry/vmStorageAccess")))
                .addSubscription(Subscription.newBuilder().setMode(SubscriptionMode.ON_CHANGE)
                        .setPath(Target.path("", "/NEW-VMM-MIB/vmTable/vmEntry/vmOperState"))).build());
        Target.await(stream, "sync_response", SubscribeResponse::getSyncResponse);
        SingleVr.remove(target.service, 1).await(Duration.ofSeconds(30));
        // VR 1's row and its storage entry may go in one notification or two, in either order
        List<SubscribeResponse> deletes = Target.until(stream, "the delete of VR 1's storage",
                r -> r.hasUpdate() && r.getUpdate().getDeleteList().stream()
                        .anyMatch(d -> GnmiPaths.text(d.getElemList()).startsWith("/vmStorageEntry")));
        assertThat(deletes.stream().filter(SubscribeResponse::hasUpdate)
                .flatMap(r -> r.getUpdate().getDeleteList().stream()).map(d -> GnmiPaths.text(d.getElemList())))
                .filteredOn(p -> p.startsWith("/vmStorageEntry"))
                .containsExactly("/vmStorageEntry[vmStorageIndex=1][vmStorageVmIndex=1]");
        // VR 2's storage entry was never deleted, so its event (read storage first) sends no storage entry anew
        SingleVr.setAdminState(target.service, 2, AdminState.SHUTDOWN).await(Duration.ofSeconds(30));
        List<SubscribeResponse> after = Target.until(stream, "VR 2's vmOperState shutdown", r -> r.hasUpdate()
                && r.getUpdate().getUpdateCount() > 0 && r.getUpdate().getUpdate(0).getVal().getStringVal().equals("shutdown")
                && GnmiPaths.text(r.getUpdate().getPrefix().getElemList()).equals("/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=2]"));
        assertThat(after).noneMatch(r -> r.getUpdate().getPrefix().toString().contains("vmStorage"));
    }
}
