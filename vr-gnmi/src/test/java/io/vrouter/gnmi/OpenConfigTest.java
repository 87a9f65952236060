package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.gnmi.proto.CapabilityRequest;
import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.GetRequest;
import com.github.gnmi.proto.GetResponse;
import com.github.gnmi.proto.ModelData;
import com.github.gnmi.proto.Notification;
import com.github.gnmi.proto.SubscribeResponse;
import com.github.gnmi.proto.Subscription;
import com.github.gnmi.proto.SubscriptionList;
import com.github.gnmi.proto.SubscriptionMode;
import com.github.gnmi.proto.TypedValue;
import com.github.gnmi.proto.Update;
import io.grpc.ManagedChannel;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.service.SingleVr;
import io.vrouter.yang.DataNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Origin openconfig: the VRs' interfaces as openconfig-interfaces, over a real gRPC client. */
class OpenConfigTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path dir;
    Target target;
    ManagedChannel channel;

    @BeforeEach
    void setUp() throws Exception {
        target = Target.start(dir, Map.of());
        channel = target.channel();
    }

    @AfterEach
    void tearDown() throws Exception {
        target.close();
    }

    private void create(int vmIndex, int interfaces) throws Exception {
        target.create(vmIndex, interfaces);
    }

    private GetResponse get(String path, Encoding encoding) {
        return Target.blocking(channel).get(GetRequest.newBuilder().addPath(Target.path("openconfig", path))
                .setEncoding(encoding).build());
    }

    /** Every update of a response: its path's text to its value. */
    private static Map<String, TypedValue> updates(List<Notification> notifications) {
        Map<String, TypedValue> out = new LinkedHashMap<>();
        for (Notification n : notifications) {
            for (Update u : n.getUpdateList()) {
                List<com.github.gnmi.proto.PathElem> full = new ArrayList<>(n.getPrefix().getElemList());
                full.addAll(u.getPath().getElemList());
                out.put(GnmiPaths.text(full), u.getVal());
            }
        }
        return out;
    }

    @Test
    void capabilitiesListOpenconfigInterfacesWithItsVersion() {
        List<ModelData> models = Target.blocking(channel).capabilities(CapabilityRequest.getDefaultInstance())
                .getSupportedModelsList();
        assertThat(models).contains(ModelData.newBuilder().setName("openconfig-interfaces")
                .setOrganization("OpenConfig working group").setVersion("3.5.0").build());
    }

    @Test
    void getReadsTheStatusOfEveryInterfaceOfEveryVrByAWildcardName() throws Exception {
        create(1, 2);
        create(2, 1);
        Map<String, TypedValue> got = updates(get("/interfaces/interface[name=*]/state/oper-status", Encoding.PROTO)
                .getNotificationList());
        TypedValue up = TypedValue.newBuilder().setStringVal("UP").build();
        assertThat(got).containsExactly(
                Map.entry("/interfaces/interface[name=vr1-1]/state/oper-status", up),
                Map.entry("/interfaces/interface[name=vr1-2]/state/oper-status", up),
                Map.entry("/interfaces/interface[name=vr2-1]/state/oper-status", up));
        // the VR in the description; admin-status and enabled from its admin state
        assertThat(updates(get("/interfaces/interface[name=vr2-1]/config", Encoding.PROTO).getNotificationList()))
                .containsEntry("/interfaces/interface[name=vr2-1]/config/description",
                        TypedValue.newBuilder().setStringVal("VR oc2 (vmIndex 2) interface 1").build())
                .containsEntry("/interfaces/interface[name=vr2-1]/config/enabled", TypedValue.newBuilder().setBoolVal(true).build());
    }

    @Test
    void jsonIetfNamesTheTopMembersByModuleAndAListAsAnArray() throws Exception {
        create(1, 1);
        JsonNode state = JSON.readTree(get("/interfaces/interface[name=vr1-1]/state", Encoding.JSON_IETF)
                .getNotification(0).getUpdate(0).getVal().getJsonIetfVal().toByteArray());
        assertThat(state.path("openconfig-interfaces:admin-status").asText()).isEqualTo("UP");
        assertThat(state.path("openconfig-interfaces:enabled").isBoolean()).isTrue();
        assertThat(state.path("openconfig-interfaces:counters").isObject()).isTrue();
        JsonNode all = JSON.readTree(get("/interfaces", Encoding.JSON).getNotification(0).getUpdate(0).getVal()
                .getJsonVal().toByteArray());
        assertThat(all.path("interface").get(0).path("state").path("oper-status").asText()).isEqualTo("UP");
        assertThat(all.path("interface").get(0).path("name").asText()).isEqualTo("vr1-1");
    }

    @Test
    void onChangeSendsTheOperStatusOfTheVrThatChangedAndDeletesItsInterfacesWhenItGoes() throws Exception {
        create(1, 1);
        create(2, 1);
        BlockingQueue<Object> stream = Target.subscribe(channel, SubscriptionList.newBuilder()
                .setMode(SubscriptionList.Mode.STREAM).setEncoding(Encoding.PROTO)
                .addSubscription(Subscription.newBuilder().setMode(SubscriptionMode.ON_CHANGE)
                        .setPath(Target.path("openconfig", "/interfaces/interface[name=*]/state/oper-status"))).build());
        Target.await(stream, "sync_response", SubscribeResponse::getSyncResponse);
        SingleVr.setAdminState(target.service, 1, AdminState.SHUTDOWN).await(Duration.ofSeconds(30));
        List<SubscribeResponse> untilDown = Target.until(stream, "VR 1's interface DOWN", r -> r.hasUpdate()
                && r.getUpdate().getUpdateCount() > 0 && r.getUpdate().getUpdate(0).getVal().getStringVal().equals("DOWN"));
        assertThat(untilDown).as("VR 1's change deletes nothing (VR 2's interface is not VR 1's to delete)")
                .allMatch(r -> r.getUpdate().getDeleteCount() == 0);
        SubscribeResponse down = untilDown.get(untilDown.size() - 1);
        assertThat(GnmiPaths.text(down.getUpdate().getPrefix().getElemList())).isEqualTo("/interfaces/interface[name=vr1-1]/state");
        assertThat(down.getUpdate().getPrefix().getOrigin()).isEqualTo("");
        SingleVr.remove(target.service, 1).await(Duration.ofSeconds(30));
        SubscribeResponse deleted = Target.await(stream, "the delete of VR 1's interface",
                r -> r.hasUpdate() && r.getUpdate().getDeleteCount() > 0);
        assertThat(GnmiPaths.text(deleted.getUpdate().getPrefix().getElemList())).isEqualTo("/interfaces");
        assertThat(deleted.getUpdate().getDeleteList()).singleElement().satisfies(d ->
                assertThat(GnmiPaths.text(d.getElemList())).isEqualTo("/interface[name=vr1-1]"));
        // VR 2's interface was neither deleted nor sent again while VR 1 changed: the next word of it is its own change
        SingleVr.setAdminState(target.service, 2, AdminState.SHUTDOWN).await(Duration.ofSeconds(30));
        List<SubscribeResponse> rest = Target.until(stream, "VR 2's interface DOWN", r -> r.hasUpdate()
                && r.getUpdate().getUpdateCount() > 0 && r.getUpdate().getPrefix().toString().contains("vr2-1"));
        assertThat(rest).singleElement().satisfies(r -> assertThat(r.getUpdate().getUpdate(0).getVal().getStringVal())
                .isEqualTo("DOWN"));
    }

    @Test
    void theLeavesOfOneContainerComeInOneNotification() throws Exception {
        create(1, 1);
        BlockingQueue<Object> stream = Target.subscribe(channel, SubscriptionList.newBuilder()
                .setMode(SubscriptionList.Mode.ONCE).setEncoding(Encoding.PROTO)
                .addSubscription(Subscription.newBuilder().setPath(Target.path("openconfig", "/interfaces/interface/state"))).build());
        SubscribeResponse first = Target.await(stream, "the first values", SubscribeResponse::hasUpdate);
        assertThat(GnmiPaths.text(first.getUpdate().getPrefix().getElemList())).isEqualTo("/interfaces/interface[name=vr1-1]/state");
        assertThat(first.getUpdate().getUpdateList()).extracting(u -> GnmiPaths.text(u.getPath().getElemList()))
                .containsExactly("/name", "/type", "/description", "/enabled", "/admin-status", "/oper-status");
    }

    @Test
    void anInterfaceIsNamedAsTheHostNamesItsIfindexElseByItsVrAndIndex() throws Exception {
        Path sys = dir.resolve("sys-class-net");
        Files.createDirectories(sys.resolve("vnet7"));
        Files.writeString(sys.resolve("vnet7/ifindex"), "42\n");
        OpenConfigInterfaces.HostNames names = new OpenConfigInterfaces.HostNames(sys);
        VmNetworkEntry tap = network(2, 42);
        VmNetworkEntry none = network(3, 0);
        assertThat(OpenConfigInterfaces.name(5, tap, names)).isEqualTo("vnet7");
        assertThat(OpenConfigInterfaces.name(5, none, names)).isEqualTo("vr5-3");
        assertThat(OpenConfigInterfaces.name(5, network(4, 43), names)).as("an ifindex the host no longer has").isEqualTo("vr5-4");
    }

    @Test
    void countersAreUint64InProtoAndSampledByTargetDefined() {
        VirtualRouter vr = new VirtualRouter();
        vr.vmIndex = 3;
        vr.vmName = "c";
        vr.vmAdminState = AdminState.RUNNING;
        vr.vmEntry = new VmEntry();
        vr.vmEntry.vmOperState = OperState.RUNNING;
        VmNetworkEntry n = network(1, 0);
        n.vmNetworkInOctets = -1L; // 2^64 - 1: a counter64 at its top
        n.vmNetworkInPkts = 2L;
        n.vmNetworkOutOctets = 3L;
        n.vmNetworkOutPkts = 4L;
        n.vmNetworkInErrors = 5L;
        n.vmNetworkOutErrors = 6L;
        n.vmNetworkInDiscards = 7L;
        n.vmNetworkOutDiscards = 8L;
        vr.vmNetworkTable = List.of(n);
        DataNode entry = OpenConfigInterfaces.interfacesOf(vr, OpenConfigInterfaces.Part.STATE,
                new OpenConfigInterfaces.HostNames(dir)).get(0);
        Map<String, DataNode> counters = new LinkedHashMap<>();
        TreeMatch.find(entry, GnmiPathsTest.parse("/interface/state/counters/*"), m -> counters.put(m.node().name(), m.node()));
        assertThat(counters).containsOnlyKeys("in-octets", "in-pkts", "out-octets", "out-pkts",
                "in-errors", "out-errors", "in-discards", "out-discards");
        assertThat(Values.scalar(counters.get("in-octets")).getUintVal()).isEqualTo(-1L);
        assertThat(Values.scalar(counters.get("out-discards")).getUintVal()).isEqualTo(8L);
        assertThat(Values.of(counters.get("in-octets"), Encoding.JSON_IETF).getJsonIetfVal().toStringUtf8())
                .isEqualTo("\"18446744073709551615\"");
        assertThat(counters.values()).allMatch(Values::isCounter);
        List<DataNode> oper = new ArrayList<>();
        TreeMatch.find(entry, GnmiPathsTest.parse("/interface/state/oper-status"), m -> oper.add(m.node()));
        assertThat(oper).singleElement().satisfies(o -> {
            assertThat(Values.isCounter(o)).as("oper-status goes ON_CHANGE under TARGET_DEFINED").isFalse();
            assertThat(Values.scalar(o).getStringVal()).isEqualTo("UP");
        });
    }

    private static VmNetworkEntry network(int index, int ifIndex) {
        VmNetworkEntry n = new VmNetworkEntry();
        n.vmNetworkIndex = index;
        n.vmNetworkIfIndex = ifIndex;
        return n;
    }
}
