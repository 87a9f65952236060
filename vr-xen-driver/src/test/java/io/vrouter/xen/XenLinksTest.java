package io.vrouter.xen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.Links;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.LinkStatus;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.xen.fake.FakeXenServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Links, rates and CPU weights on Xen (docs/adr/0018-links.md), against the XenAPI fake over HTTP,
 * which enforces a VIF's rate only from when it is plugged and a weight from when the domain starts
 * or {@code VM.add_to_VCPUs_params_live} sets it, as xapi does.
 */
class XenLinksTest {
    private FakeXenServer xen;
    private XenDriver driver;

    @BeforeEach
    void setUp() throws Exception {
        xen = new FakeXenServer();
        driver = (XenDriver) new XenDriverProvider().create(Settings.of(Map.of("xen.url", xen.url().toString(),
                "xen.username", FakeXenServer.USER, "xen.password", FakeXenServer.PASSWORD,
                "xen.network.xenbr0", FakeXenServer.NETWORKS.get(0),
                "xen.call-timeout", "5s", "xen.event-timeout", "1s", "xen.retry-backoff", "20ms")));
    }

    @AfterEach
    void tearDown() {
        driver.close();
        xen.close();
    }

    private static VmConfigEntry vr(int vmIndex, VmNetworkConfigEntry... nics) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmIndex = vmIndex;
        c.vmName = "link" + vmIndex;
        c.vmAdminState = AdminState.RUNNING;
        c.vmConfigTemplate = "vyos";
        c.vmConfigCpuNumber = 1;
        c.vmConfigMemory = 256;
        c.vmConfigAutoStart = false;
        c.vmNetworkConfigTable = new ArrayList<>(List.of(nics));
        return c;
    }

    private static VmNetworkConfigEntry bridged(int n) {
        VmNetworkConfigEntry e = new VmNetworkConfigEntry();
        e.vmNetworkConfigIndex = n;
        e.vmNetworkConfigParent = "xenbr0";
        return e;
    }

    private static VmNetworkConfigEntry peer(int n, int farVm, int farIf) {
        VmNetworkConfigEntry e = new VmNetworkConfigEntry();
        e.vmNetworkConfigIndex = n;
        e.vmNetworkConfigLinkType = LinkType.PEER;
        e.vmNetworkConfigPeerRouter = farVm;
        e.vmNetworkConfigPeerInterface = farIf;
        return e;
    }

    private LinkStatus status(int vmIndex, int n) {
        return driver.inspect(vmIndex).orElseThrow().networks().stream().filter(i -> i.vmNetworkIndex == n)
                .findFirst().orElseThrow().vmNetworkLinkStatus;
    }

    private List<ObjectNode> peerNetworks() {
        return xen.where("network", "name_label", XenLinks.peerNetworkName(1, 2, 2, 1));
    }

    @Test
    void aPeerLinkIsAPrivateNetworkOfItsTwoVifsMadeByTheFirstEndAndDestroyedWithTheLast() throws Exception {
        driver.provision(vr(1, bridged(1), peer(2, 2, 1)));
        driver.start(1);
        assertThat(peerNetworks()).hasSize(1);
        ObjectNode network = peerNetworks().get(0);
        assertThat(network.path("PIFs").size()).as("private: no NIC of the host on it").isZero();
        assertThat(network.path("VIFs").size()).isEqualTo(1);
        assertThat(status(1, 2)).as("an end alone").isEqualTo(LinkStatus.DOWN);
        assertThat(status(1, 1)).as("a bridged interface has no link status").isNull();

        driver.provision(vr(2, peer(1, 1, 2)));
        assertThat(peerNetworks()).as("the second end joins the first's network").hasSize(1);
        assertThat(peerNetworks().get(0).path("VIFs").size()).isEqualTo(2);
        driver.start(2);
        assertThat(status(1, 2)).isEqualTo(LinkStatus.UP);
        assertThat(status(2, 1)).isEqualTo(LinkStatus.UP);

        driver.destroy(2);
        assertThat(peerNetworks()).as("kept while an end is on it").hasSize(1);
        assertThat(status(1, 2)).isEqualTo(LinkStatus.DOWN);
        driver.removeInterface(1, 2);
        assertThat(peerNetworks()).as("gone with its last end").isEmpty();
        driver.destroy(1);
        assertThat(xen.leaks()).isEmpty();
    }

    @Test
    void aPeerNetworkGoesWithTheVmOfItsLastEnd() throws Exception {
        driver.provision(vr(1, peer(2, 2, 1)));
        driver.provision(vr(2, peer(1, 1, 2)));
        driver.removeInterface(1, 2);
        assertThat(peerNetworks()).hasSize(1);
        driver.destroy(2);
        assertThat(peerNetworks()).isEmpty();
        driver.destroy(1);
        assertThat(xen.leaks()).isEmpty();
    }

    @Test
    void vxlanIsRefusedAndNotOffered() throws Exception {
        assertThat(driver.behaviour(Links.class).orElseThrow().linkTypes()).containsExactly(LinkType.PEER);
        driver.provision(vr(1, bridged(1)));
        VmNetworkConfigEntry vxlan = bridged(2);
        vxlan.vmNetworkConfigLinkType = LinkType.VXLAN;
        vxlan.vmNetworkConfigVni = 5001;
        vxlan.vmNetworkConfigRemote = "203.0.113.2";
        assertThatThrownBy(() -> driver.addInterface(1, vxlan)).isInstanceOf(DriverException.class)
                .hasMessageContaining("tunnel").hasMessageContaining("SDN controller");
        assertThat(xen.where("VIF", "VM", xen.vms().get("link1"))).hasSize(1);
    }

    @Test
    void aRateIsTheVifsRatelimitInKilobytesAndTakesOnARunningVrByReplugging() throws Exception {
        VmNetworkConfigEntry limited = bridged(1);
        limited.vmNetworkConfigRateOut = 20_000;
        driver.provision(vr(1, limited, bridged(2)));
        ObjectNode vif = xen.where("VIF", "VM", xen.vms().get("link1")).stream()
                .filter(v -> v.path("device").asText().equals("0")).findFirst().orElseThrow();
        assertThat(vif.path("qos_algorithm_type").asText()).isEqualTo("ratelimit");
        assertThat(vif.path("qos_algorithm_params").path("kbps").asText()).as("20 Mbit/s is 2500 kB/s").isEqualTo("2500");
        driver.start(1);
        assertThat(xen.appliedRate("link1", 1)).isEqualTo(2500L);
        assertThat(xen.appliedRate("link1", 2)).isNull();

        limited.vmNetworkConfigRateOut = 50_000;
        driver.setRates(1, limited);
        assertThat(xen.appliedRate("link1", 1)).as("the new rate enforced on the running VR").isEqualTo(6250L);
        assertThat(driver.inspect(1).orElseThrow().power()).isEqualTo(PowerState.RUNNING);
        limited.vmNetworkConfigRateOut = null;
        driver.setRates(1, limited);
        assertThat(xen.appliedRate("link1", 1)).isNull();

        VmNetworkConfigEntry in = bridged(2);
        in.vmNetworkConfigRateIn = 10_000;
        assertThat(driver.limitsIngress(LinkType.BRIDGE)).isFalse();
        assertThatThrownBy(() -> driver.setRates(1, in)).isInstanceOf(DriverException.class)
                .hasMessageContaining("vmNetworkConfigRateIn");
        assertThat(xen.appliedRate("link1", 2)).isNull();
    }

    @Test
    void aCpuWeightIsTheCreditSchedulersWeightSetLiveOnARunningVr() throws Exception {
        VmConfigEntry c = vr(1, bridged(1));
        c.vmConfigCpuWeight = 400;
        driver.provision(c);
        assertThat(xen.record("VM", xen.vms().get("link1")).path("VCPUs_params").path("weight").asText()).isEqualTo("1024");
        driver.start(1);
        assertThat(xen.schedulerWeight("link1")).isEqualTo(1024);

        c.vmConfigCpuWeight = 50;
        driver.reconfigure(c);
        assertThat(xen.schedulerWeight("link1")).as("applied to the running domain").isEqualTo(128);
        assertThat(xen.record("VM", xen.vms().get("link1")).path("VCPUs_params").path("weight").asText()).isEqualTo("128");
        assertThat(driver.inspect(1).orElseThrow().power()).isEqualTo(PowerState.RUNNING);

        c.vmConfigCpuWeight = null;
        driver.reconfigure(c);
        assertThat(xen.schedulerWeight("link1")).as("the default weight, 100, is Xen's 256").isEqualTo(256);
    }
}
