package io.vrouter.snmp;

import static io.vrouter.snmp.SnmpTestAgent.vb;
import static io.vrouter.snmp.VmmMib.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.service.SingleVr;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.PDU;
import org.snmp4j.smi.Gauge32;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.Null;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.UnsignedInteger32;
import org.snmp4j.smi.VariableBinding;

/** NEW-VMM-MIB instrumentation driven by a real snmp4j manager over UDP loopback. */
class VmmInstrumentationTest {
    @TempDir
    Path dir;
    SnmpTestAgent a;

    @BeforeEach
    void start() throws Exception {
        a = new SnmpTestAgent(dir);
    }

    @AfterEach
    void stop() throws Exception {
        a.close();
    }

    private static OID cfg(int column, int vmIndex) {
        return cell(VM_CONFIG_ENTRY, column, vmIndex);
    }

    private static OID net(int column, int vmIndex, int netIndex) {
        return cell(VM_NETWORK_CONFIG_ENTRY, column, vmIndex, netIndex);
    }

    private PDU createAndGo(int vmIndex, String name) throws Exception {
        return a.set(vb(cfg(VM_CONFIG_ROW_STATUS, vmIndex), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, vmIndex), new OctetString(name)));
    }

    private VirtualRouter awaitState(int vmIndex, OperState state) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < end) {
            var vr = a.service.get(vmIndex);
            if (vr.isPresent() && vr.get().operState() == state) return vr.get();
            Thread.sleep(20);
        }
        throw new AssertionError("VR " + vmIndex + " did not reach " + state + ": " + a.service.get(vmIndex));
    }

    @Test
    void createAndGoWithColumnsCreatesTheVrWithThoseValues() throws Exception {
        PDU r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 7), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 7), new OctetString("edge-7")),
                vb(cfg(VM_ADMIN_STATE, 7), new Integer32(AdminState.SHUTDOWN.code())),
                vb(cfg(VM_CONFIG_TEMPLATE, 7), new OctetString("openwrt")),
                vb(cfg(VM_CONFIG_CPU_NUMBER, 7), new Integer32(2)),
                vb(cfg(VM_CONFIG_MEMORY, 7), new Integer32(1024)),
                vb(cfg(VM_CONFIG_AUTO_START, 7), new Integer32(1)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        VmConfigEntry c = a.service.getConfig(7).orElseThrow();
        assertThat(c.vmName).isEqualTo("edge-7");
        assertThat(c.vmAdminState).isEqualTo(AdminState.SHUTDOWN);
        assertThat(c.vmConfigTemplate).isEqualTo("openwrt");
        assertThat(c.vmConfigCpuNumber).isEqualTo(2);
        assertThat(c.vmConfigMemory).isEqualTo(1024);
        assertThat(c.vmConfigAutoStart).isTrue();
        awaitState(7, OperState.SHUTDOWN);
        assertThat(a.get(cell(VM_ENTRY, VM_OPER_STATE, 7))).isEqualTo(new Integer32(OperState.SHUTDOWN.code()));
        assertThat(a.get(cfg(VM_CONFIG_ROW_STATUS, 7))).isEqualTo(new Integer32(ACTIVE));
        assertThat(a.get(cfg(VM_NAME, 7))).isEqualTo(new OctetString("edge-7"));
    }

    @Test
    void setIsAnsweredBeforeTheHypervisorFinishes() throws Exception {
        a.close();
        // The host's provision does not return until the test lets it: an answer that waited for it never comes.
        HoldingDriver host = new HoldingDriver();
        CountDownLatch release = new CountDownLatch(1);
        host.holdProvision(release);
        a = new SnmpTestAgent(dir.resolve("held"), host, Map.of());
        try {
            PDU r = createAndGo(1, "slow-1");
            assertThat(r).as("the SET answered while the host was still making the VR").isNotNull();
            assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
            assertThat(a.get(cell(VM_ENTRY, VM_OPER_STATE, 1))).isEqualTo(new Integer32(OperState.PREPARING.code()));
        } finally {
            release.countDown();
        }
        awaitState(1, OperState.RUNNING);
    }

    @Test
    void createAndWaitThenColumnsThenActive() throws Exception {
        PDU r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 3), new Integer32(CREATE_AND_WAIT)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        assertThat(a.get(cfg(VM_CONFIG_ROW_STATUS, 3))).isEqualTo(new Integer32(NOT_READY));
        assertThat(a.service.getConfig(3)).isEmpty();
        // active without a name is refused: the row is not ready
        r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 3), new Integer32(ACTIVE)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.inconsistentValue);
        r = a.set(vb(cfg(VM_NAME, 3), new OctetString("waited")), vb(cfg(VM_CONFIG_MEMORY, 3), new Integer32(256)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        assertThat(a.get(cfg(VM_CONFIG_ROW_STATUS, 3))).isEqualTo(new Integer32(NOT_IN_SERVICE));
        r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 3), new Integer32(ACTIVE)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        assertThat(a.service.getConfig(3).orElseThrow().vmConfigMemory).isEqualTo(256);
        awaitState(3, OperState.RUNNING);
        assertThat(a.get(cfg(VM_CONFIG_ROW_STATUS, 3))).isEqualTo(new Integer32(ACTIVE));
    }

    @Test
    void destroyRemovesTheVr() throws Exception {
        createAndGo(4, "doomed");
        awaitState(4, OperState.RUNNING);
        PDU r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 4), new Integer32(DESTROY)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (a.service.get(4).isPresent() && System.nanoTime() < end) Thread.sleep(20);
        assertThat(a.service.get(4)).isEmpty();
        assertThat(a.get(cfg(VM_NAME, 4))).isEqualTo(Null.noSuchInstance);
    }

    @Test
    void adminStateSetStopsAndStarts() throws Exception {
        createAndGo(5, "flip");
        awaitState(5, OperState.RUNNING);
        PDU r = a.set(vb(cfg(VM_ADMIN_STATE, 5), new Integer32(AdminState.SHUTDOWN.code())));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        awaitState(5, OperState.SHUTDOWN);
        r = a.set(vb(cfg(VM_ADMIN_STATE, 5), new Integer32(AdminState.RUNNING.code())));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        awaitState(5, OperState.RUNNING);
        assertThat(a.service.getConfig(5).orElseThrow().vmAdminState).isEqualTo(AdminState.RUNNING);
    }

    @Test
    void severalRowsInOnePduCreateSeveralVrs() throws Exception {
        PDU r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 10), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 10), new OctetString("multi-a")),
                vb(cfg(VM_CONFIG_ROW_STATUS, 11), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 11), new OctetString("multi-b")),
                vb(net(NET_ROW_STATUS, 11, 1), new Integer32(CREATE_AND_GO)),
                vb(net(NET_PARENT, 11, 1), new OctetString("xenbr0")),
                vb(net(NET_ADDRESS, 11, 1), new OctetString(new byte[]{10, 0, 0, 1})));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(a.service.getConfig(10).orElseThrow().vmName).isEqualTo("multi-a");
        VmConfigEntry b = a.service.getConfig(11).orElseThrow();
        assertThat(b.interfaces()).hasSize(1);
        assertThat(b.interfaces().get(0).vmNetworkConfigAddress).isEqualTo("10.0.0.1");
        assertThat(b.interfaces().get(0).vmNetworkConfigPrefixLength).isEqualTo(24);
        assertThat(a.get(net(NET_PREFIX_LENGTH, 11, 1))).isEqualTo(new UnsignedInteger32(24));
    }

    @Test
    void aFailedMultiRowSetLeavesNothingBehind() throws Exception {
        createAndGo(1, "taken");
        PDU r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 20), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 20), new OctetString("fresh")),
                vb(cfg(VM_CONFIG_ROW_STATUS, 21), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 21), new OctetString("taken")),
                vb(cfg(VM_ADMIN_STATE, 1), new Integer32(AdminState.SHUTDOWN.code())));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.inconsistentValue);
        assertThat(r.getErrorIndex()).isEqualTo(4);
        assertThat(a.service.getConfig(20)).isEmpty();
        assertThat(a.service.getConfig(21)).isEmpty();
        assertThat(a.service.findByName("fresh")).isEmpty();
        assertThat(a.service.getConfig(1).orElseThrow().vmAdminState).isEqualTo(AdminState.RUNNING);
    }

    @Test
    void interfaceRowsAreCreatedAndDestroyed() throws Exception {
        createAndGo(6, "ifaces");
        awaitState(6, OperState.RUNNING);
        PDU r = a.set(vb(net(NET_ROW_STATUS, 6, 2), new Integer32(CREATE_AND_GO)),
                vb(net(NET_PARENT, 6, 2), new OctetString("xenbr1")),
                vb(net(NET_PHYS_ADDRESS, 6, 2), new OctetString(new byte[]{2, 0, 0, 0, 0, 9})));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        VmNetworkConfigEntry n = a.service.getConfig(6).orElseThrow().interfaces().get(0);
        assertThat(n.vmNetworkConfigIndex).isEqualTo(2);
        assertThat(n.vmNetworkConfigParent).isEqualTo("xenbr1");
        assertThat(n.vmNetworkConfigPhysAddress).isEqualTo("02:00:00:00:00:09");
        assertThat(a.get(net(NET_ROW_STATUS, 6, 2))).isEqualTo(new Integer32(ACTIVE));
        r = a.set(vb(net(NET_ROW_STATUS, 6, 2), new Integer32(DESTROY)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        assertThat(a.service.getConfig(6).orElseThrow().interfaces()).isEmpty();
    }

    @Test
    void interfaceRowsCanBeCreatedAndWaitedAndWaitingRowsDestroyed() throws Exception {
        createAndGo(6, "waiting-ifaces");
        PDU r = a.set(vb(net(NET_ROW_STATUS, 6, 3), new Integer32(CREATE_AND_WAIT)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        assertThat(a.get(net(NET_ROW_STATUS, 6, 3))).isEqualTo(new Integer32(NOT_READY));
        r = a.set(vb(net(NET_PARENT, 6, 3), new OctetString("xenbr3")),
                vb(net(NET_ADDRESS_TYPE, 6, 3), new Integer32(1)),
                vb(net(NET_ADDRESS, 6, 3), new OctetString(new byte[]{(byte) 192, (byte) 168, 3, 1})),
                vb(net(NET_PREFIX_LENGTH, 6, 3), new UnsignedInteger32(28)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(a.get(net(NET_ROW_STATUS, 6, 3))).isEqualTo(new Integer32(NOT_IN_SERVICE));
        assertThat(a.service.getConfig(6).orElseThrow().interfaces()).isEmpty();
        r = a.set(vb(net(NET_ROW_STATUS, 6, 3), new Integer32(ACTIVE)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        VmNetworkConfigEntry n = a.service.getConfig(6).orElseThrow().interfaces().get(0);
        assertThat(n.vmNetworkConfigAddress).isEqualTo("192.168.3.1");
        assertThat(n.vmNetworkConfigPrefixLength).isEqualTo(28);
        // a prefix too long for IPv4 is refused as inconsistent with the address type
        r = a.set(vb(net(NET_ROW_STATUS, 6, 4), new Integer32(CREATE_AND_GO)),
                vb(net(NET_PARENT, 6, 4), new OctetString("xenbr4")),
                vb(net(NET_ADDRESS, 6, 4), new OctetString(new byte[]{10, 0, 0, 4})),
                vb(net(NET_PREFIX_LENGTH, 6, 4), new UnsignedInteger32(64)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.inconsistentValue);
        assertThat(r.getErrorIndex()).isEqualTo(4);
        // a VR row waiting for activation is dropped by destroy
        a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 9), new Integer32(CREATE_AND_WAIT)), vb(cfg(VM_NAME, 9), new OctetString("w")));
        assertThat(a.get(cfg(VM_CONFIG_ROW_STATUS, 9))).isEqualTo(new Integer32(NOT_IN_SERVICE));
        assertThat(a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 9), new Integer32(DESTROY))).getErrorStatus()).isEqualTo(PDU.noError);
        assertThat(a.get(cfg(VM_CONFIG_ROW_STATUS, 9))).isEqualTo(Null.noSuchInstance);
        assertThat(a.service.getConfig(9)).isEmpty();
    }

    @Test
    void interfacesOfAVrWaitingAfterCreateAndWaitWaitWithItAndAreCreatedWithIt() throws Exception {
        // In the PDU that creates the VR with createAndWait (was inconsistentName): the interface waits.
        PDU r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 12), new Integer32(CREATE_AND_WAIT)),
                vb(cfg(VM_NAME, 12), new OctetString("w12")),
                vb(net(NET_ROW_STATUS, 12, 1), new Integer32(CREATE_AND_GO)),
                vb(net(NET_PARENT, 12, 1), new OctetString("br0")),
                vb(net(NET_ADDRESS, 12, 1), new OctetString(new byte[]{(byte) 192, 0, 2, 1})));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(a.get(net(NET_ROW_STATUS, 12, 1))).isEqualTo(new Integer32(NOT_IN_SERVICE));
        assertThat(a.get(net(NET_PREFIX_LENGTH, 12, 1))).as("the prefix it will get").isEqualTo(new UnsignedInteger32(24));
        assertThat(a.service.getConfig(12)).isEmpty();
        // Later, another interface without its parent: notReady, and the VR cannot be made active then.
        r = a.set(vb(net(NET_ROW_STATUS, 12, 2), new Integer32(CREATE_AND_WAIT)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(a.get(net(NET_ROW_STATUS, 12, 2))).isEqualTo(new Integer32(NOT_READY));
        r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 12), new Integer32(ACTIVE)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.inconsistentValue);
        assertThat(a.service.getConfig(12)).isEmpty();
        r = a.set(vb(net(NET_PARENT, 12, 2), new OctetString("br1")));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        // An interface becomes active with its VR, not before.
        r = a.set(vb(net(NET_ROW_STATUS, 12, 2), new Integer32(ACTIVE)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.inconsistentValue);
        r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 12), new Integer32(ACTIVE)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(a.service.getConfig(12).orElseThrow().interfaces())
                .extracting(n -> n.vmNetworkConfigIndex + " " + n.vmNetworkConfigParent + " " + n.vmNetworkConfigAddress)
                .containsExactly("1 br0 192.0.2.1", "2 br1 null");
        assertThat(a.get(net(NET_ROW_STATUS, 12, 1))).isEqualTo(new Integer32(ACTIVE));
        assertThat(a.get(net(NET_ROW_STATUS, 12, 2))).isEqualTo(new Integer32(ACTIVE));
        // A waiting VR destroyed takes its waiting interfaces with it.
        a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 13), new Integer32(CREATE_AND_WAIT)),
                vb(net(NET_ROW_STATUS, 13, 1), new Integer32(CREATE_AND_WAIT)));
        assertThat(a.get(net(NET_ROW_STATUS, 13, 1))).isEqualTo(new Integer32(NOT_READY));
        assertThat(a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 13), new Integer32(DESTROY))).getErrorStatus()).isEqualTo(PDU.noError);
        assertThat(a.get(net(NET_ROW_STATUS, 13, 1))).isEqualTo(Null.noSuchInstance);
    }

    @Test
    void theColumnsOfAnExistingInterfaceChange() throws Exception {
        PDU r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 14), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 14), new OctetString("if-change")),
                vb(cfg(VM_ADMIN_STATE, 14), new Integer32(AdminState.SHUTDOWN.code())),
                vb(net(NET_ROW_STATUS, 14, 1), new Integer32(CREATE_AND_GO)),
                vb(net(NET_PARENT, 14, 1), new OctetString("br0")));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        awaitState(14, OperState.SHUTDOWN);
        r = a.set(vb(net(NET_ADDRESS_TYPE, 14, 1), new Integer32(2)),
                vb(net(NET_ADDRESS, 14, 1), new OctetString(java.net.InetAddress.getByName("2001:db8::1").getAddress())),
                vb(net(NET_PHYS_ADDRESS, 14, 1), new OctetString(new byte[]{2, 0, 0, 0, 0, 0x14})));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        VmNetworkConfigEntry n = a.service.getConfig(14).orElseThrow().interfaces().get(0);
        assertThat(n.vmNetworkConfigParent).isEqualTo("br0");
        assertThat(n.vmNetworkConfigAddress).isEqualTo("2001:db8::1");
        assertThat(n.vmNetworkConfigPrefixLength).isEqualTo(64);
        assertThat(n.vmNetworkConfigPhysAddress).isEqualTo("02:00:00:00:00:14");
        r = a.set(vb(net(NET_PREFIX_LENGTH, 14, 1), new UnsignedInteger32(48)), vb(net(NET_PARENT, 14, 1), new OctetString("br9")));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        n = a.service.getConfig(14).orElseThrow().interfaces().get(0);
        assertThat(n.vmNetworkConfigPrefixLength + " " + n.vmNetworkConfigParent + " " + n.vmNetworkConfigAddress)
                .isEqualTo("48 br9 2001:db8::1");
    }

    @Test
    void ipv6AddressesReadFromSnmpAreInRfc5952Form() throws Exception {
        for (String a : List.of("2001:db8::1", "2001:db8::1:0:0:1", "2001:0:0:1::1", "::", "::1", "2001:db8:1:2:3:4:5:6",
                "2001:db8:0:1:1:1:1:1", "fe80::")) {
            assertThat(Codec.inet(new OctetString(java.net.InetAddress.getByName(a).getAddress()))).isEqualTo(a);
        }
        assertThat(Codec.inet(new OctetString(new byte[]{(byte) 198, 51, 100, 7}))).isEqualTo("198.51.100.7");
    }

    @Test
    void anInterfaceShowsItsGeneratedMacAndPrefixAndAWaitingRowItsDefaults() throws Exception {
        PDU r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 15), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 15), new OctetString("effective")),
                vb(net(NET_ROW_STATUS, 15, 1), new Integer32(CREATE_AND_GO)),
                vb(net(NET_PARENT, 15, 1), new OctetString("br0")),
                vb(net(NET_ROW_STATUS, 15, 2), new Integer32(CREATE_AND_GO)),
                vb(net(NET_PARENT, 15, 2), new OctetString("br1")),
                vb(net(NET_ADDRESS, 15, 2), new OctetString(new byte[]{(byte) 198, 51, 100, 1})));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        VirtualRouter vr = awaitState(15, OperState.RUNNING);
        String generated = vr.vmNetworkTable.stream().filter(h -> h.vmNetworkIndex == 1).findFirst().orElseThrow().vmNetworkPhysAddress;
        // The service recorded it in the row: the agent reads the row, as every interface does.
        assertThat(a.service.getConfig(15).orElseThrow().interfaces().get(0).vmNetworkConfigPhysAddress).isEqualTo(generated);
        assertThat(a.get(net(NET_PHYS_ADDRESS, 15, 1))).isEqualTo(new OctetString(
                java.util.HexFormat.ofDelimiter(":").parseHex(generated)));
        // No address: unknown, empty, prefix 0; an address without a prefix: its default.
        assertThat(a.get(net(NET_ADDRESS_TYPE, 15, 1))).isEqualTo(new Integer32(0));
        assertThat(a.get(net(NET_ADDRESS, 15, 1))).isEqualTo(new OctetString());
        assertThat(a.get(net(NET_PREFIX_LENGTH, 15, 1))).isEqualTo(new UnsignedInteger32(0));
        assertThat(a.get(net(NET_PREFIX_LENGTH, 15, 2))).isEqualTo(new UnsignedInteger32(24));
        // What a read shows can be written back: prefix 0 without an address is no prefix.
        r = a.set(vb(net(NET_PREFIX_LENGTH, 15, 1), new UnsignedInteger32(0)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(a.service.getConfig(15).orElseThrow().interfaces().get(0).vmNetworkConfigPrefixLength).isNull();

        // A row waiting after createAndWait shows the defaults its columns will take; vmName has none.
        r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 16), new Integer32(CREATE_AND_WAIT)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(a.get(cfg(VM_CONFIG_ROW_STATUS, 16))).isEqualTo(new Integer32(NOT_READY));
        assertThat(a.get(cfg(VM_ADMIN_STATE, 16))).isEqualTo(new Integer32(AdminState.RUNNING.code()));
        assertThat(a.get(cfg(VM_CONFIG_TEMPLATE, 16))).isEqualTo(new OctetString(a.service.templates().get(0)));
        assertThat(a.get(cfg(VM_CONFIG_CPU_NUMBER, 16))).isEqualTo(new Integer32(1));
        assertThat(a.get(cfg(VM_CONFIG_MEMORY, 16))).isEqualTo(new Integer32(512));
        assertThat(a.get(cfg(VM_CONFIG_AUTO_START, 16))).isEqualTo(new Integer32(2));
        assertThat(a.get(cfg(ConfigColumn.VM_CONFIG_DESCRIPTION.snmpColumn(), 16))).isEqualTo(new OctetString());
        assertThat(a.get(cfg(VM_NAME, 16))).isEqualTo(Null.noSuchInstance);
    }

    @Test
    void scalarsAreLive() throws Exception {
        assertThat(a.get(scalar(VM_CONFIGURED_VMS))).isEqualTo(new Gauge32(0));
        assertThat(a.get(scalar(VM_CONFIG_NEXT_AVAILABLE_VM_INDEX))).isEqualTo(new Integer32(1));
        createAndGo(1, "one");
        awaitState(1, OperState.RUNNING);
        assertThat(a.get(scalar(VM_CONFIGURED_VMS))).isEqualTo(new Gauge32(1));
        assertThat(a.get(scalar(VM_ACTIVE_VMS))).isEqualTo(new Gauge32(1));
        assertThat(a.get(scalar(VM_NUMBER))).isEqualTo(new Integer32(1));
        assertThat(a.get(scalar(VM_CONFIG_NEXT_AVAILABLE_VM_INDEX))).isEqualTo(new Integer32(2));
        assertThat(a.get(scalar(VM_HV_SOFTWARE)).toString()).contains("simulated");
        assertThat(a.get(scalar(VM_PER_VM_NOTIFICATIONS_ENABLED))).isEqualTo(new Integer32(1));
        PDU r = a.set(vb(scalar(VM_PER_VM_NOTIFICATIONS_ENABLED), new Integer32(2)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        assertThat(a.service.perVmNotificationsEnabled()).isFalse();
    }

    @Test
    void getNextAndGetBulkWalkInLexicographicOrder() throws Exception {
        createAndGo(2, "b");
        createAndGo(1, "a");
        awaitState(1, OperState.RUNNING);
        awaitState(2, OperState.RUNNING);
        List<OID> walked = new ArrayList<>();
        OID next = OBJECTS;
        while (true) {
            PDU r = a.send(a.v2c("public"), PDU.GETNEXT, new VariableBinding(next));
            VariableBinding v = r.get(0);
            if (v.getVariable().isException() || !v.getOid().startsWith(OBJECTS)) break;
            walked.add(v.getOid());
            next = v.getOid();
        }
        assertThat(walked).isSorted();
        assertThat(walked).contains(cell(VM_ENTRY, VM_OPER_STATE, 1), cell(VM_ENTRY, VM_OPER_STATE, 2),
                cfg(VM_NAME, 1), cfg(VM_NAME, 2), scalar(VM_ACTIVE_VMS), cell(VM_CPU_ENTRY, CPU_CORE_TIME, 1, 1));
        assertThat(walked.indexOf(cell(VM_ENTRY, VM_OPER_STATE, 1)))
                .isEqualTo(walked.indexOf(cell(VM_ENTRY, VM_OPER_STATE, 2)) - 1);

        PDU bulk = a.send(a.v2c("public"), PDU.GETBULK, new VariableBinding(cell(VM_CONFIG_ENTRY, VM_NAME)));
        assertThat(bulk.get(0).getOid()).isEqualTo(cfg(VM_NAME, 1));
        assertThat(bulk.get(0).getVariable()).isEqualTo(new OctetString("a"));
        assertThat(bulk.get(1).getOid()).isEqualTo(cfg(VM_NAME, 2));
        List<OID> bulkOids = new ArrayList<>();
        for (VariableBinding v : bulk.getVariableBindings()) bulkOids.add(v.getOid());
        assertThat(bulkOids).isSorted();
        assertThat(bulkOids.subList(0, Math.min(bulkOids.size(), walked.size() - walked.indexOf(cfg(VM_NAME, 1)))))
                .isEqualTo(walked.subList(walked.indexOf(cfg(VM_NAME, 1)),
                        walked.indexOf(cfg(VM_NAME, 1)) + Math.min(bulkOids.size(),
                                walked.size() - walked.indexOf(cfg(VM_NAME, 1)))));
    }

    /**
     * A GETBULK answers from the requested row on and reads only the VRs it returns: with 300 VRs, 50
     * repetitions of vmOperState after VR 200 ask the hypervisor about VRs 201 to 250 and no other (the
     * whole table was read for every request before, which made a walk cost rows squared), and a GETBULK
     * of vmConfigTable asks it about none.
     */
    @Test
    void getBulkReadsOnlyTheVrsItReturns() throws Exception {
        a.close();
        HypervisorDriver sim = new SimulatedDriver(LatencyProfile.NONE);
        Set<Integer> inspected = ConcurrentHashMap.newKeySet();
        HypervisorDriver watched = (HypervisorDriver) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{HypervisorDriver.class}, (proxy, method, args) -> {
                    // what the agent's request thread asks (notifications are sent from a thread of their own)
                    if (method.getName().equals("inspect") && Thread.currentThread().getName().startsWith(
                            "DefaultUDPTransportMapping")) {
                        inspected.add((Integer) args[0]);
                    }
                    try {
                        return method.invoke(sim, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        a = new SnmpTestAgent(dir.resolve("watched"), watched, Map.of());
        List<VmConfigEntry> vrs = new ArrayList<>();
        for (int i = 1; i <= 300; i++) {
            VmConfigEntry c = new VmConfigEntry();
            c.vmIndex = i;
            c.vmName = "vr-" + i;
            vrs.add(c);
        }
        for (var accepted : SingleVr.createAll(a.service, vrs)) {
            assertThat(accepted.await(Duration.ofSeconds(20)).flatMap(vr -> vr).orElseThrow().operState())
                    .isEqualTo(OperState.RUNNING);
        }
        inspected.clear();

        PDU bulk = a.send(a.v2c("public"), PDU.GETBULK, new VariableBinding(cell(VM_ENTRY, VM_OPER_STATE, 200)));
        assertThat(bulk.size()).isEqualTo(50);
        for (int k = 0; k < 50; k++) {
            assertThat(bulk.get(k).getOid()).isEqualTo(cell(VM_ENTRY, VM_OPER_STATE, 201 + k));
            assertThat(bulk.get(k).getVariable()).isEqualTo(new Integer32(OperState.RUNNING.code()));
        }
        assertThat(inspected).containsExactlyInAnyOrderElementsOf(
                java.util.stream.IntStream.rangeClosed(201, 250).boxed().toList());

        inspected.clear();
        PDU names = a.send(a.v2c("public"), PDU.GETBULK, new VariableBinding(cell(VM_CONFIG_ENTRY, VM_NAME)));
        assertThat(names.get(49).getOid()).isEqualTo(cfg(VM_NAME, 50));
        assertThat(names.get(49).getVariable()).isEqualTo(new OctetString("vr-50"));
        assertThat(inspected).isEmpty();
    }

    @Test
    void getAnswersEachVarbindFromItsOwnRowAndTellsMissingInstancesFromMissingObjects() throws Exception {
        createAndGo(1, "first");
        PDU r0 = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 2), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 2), new OctetString("second")),
                vb(net(NET_ROW_STATUS, 2, 1), new Integer32(CREATE_AND_GO)),
                vb(net(NET_PARENT, 2, 1), new OctetString("xenbr0")));
        assertThat(r0.getErrorStatus()).isEqualTo(PDU.noError);
        awaitState(2, OperState.RUNNING);
        PDU r = a.send(a.v2c("public"), PDU.GET, new VariableBinding(cfg(VM_NAME, 2)),
                new VariableBinding(cfg(VM_NAME, 1)), new VariableBinding(cfg(VM_NAME, 3)),
                new VariableBinding(sub(OBJECTS, 99, 0)), new VariableBinding(scalar(VM_CONFIGURED_VMS)),
                new VariableBinding(cell(VM_STORAGE_ENTRY, STORAGE_RESOURCE_ID, 2, 1)),
                new VariableBinding(cell(VM_NETWORK_ENTRY, NETWORK_PARENT, 2, 1)));
        assertThat(r.get(0).getVariable()).isEqualTo(new OctetString("second"));
        assertThat(r.get(1).getVariable()).isEqualTo(new OctetString("first"));
        assertThat(r.get(2).getVariable()).isEqualTo(Null.noSuchInstance);
        assertThat(r.get(3).getVariable()).isEqualTo(Null.noSuchObject);
        assertThat(r.get(4).getVariable()).isEqualTo(new Gauge32(2));
        assertThat(r.get(5).getVariable().toString()).contains("second");
        assertThat(r.get(6).getVariable()).isEqualTo(new OctetString("xenbr0"));
    }

    @Test
    void storageAndCpuAffinityRowsAreWhereRfc7666PutsThem() throws Exception {
        createAndGo(6, "disks");
        awaitState(6, OperState.RUNNING);
        // vmStorageEntry: vmStorageVmIndex (the VR) and vmStorageIndex index it, vmStorageParent is column 3.
        PDU first = a.send(a.v2c("public"), PDU.GETNEXT, new VariableBinding(VM_STORAGE_ENTRY));
        assertThat(first.get(0).getOid()).isEqualTo(cell(VM_STORAGE_ENTRY, STORAGE_PARENT, 6, 1));
        PDU r = a.send(a.v2c("public"), PDU.GET, new VariableBinding(cell(VM_STORAGE_ENTRY, STORAGE_ACCESS, 6, 1)),
                new VariableBinding(cell(VM_STORAGE_ENTRY, STORAGE_MEDIA_TYPE, 6, 1)),
                new VariableBinding(cell(VM_STORAGE_ENTRY, STORAGE_WRITE_LATENCY, 6, 1)));
        assertThat(r.get(0).getVariable()).as("readwrite(2)").isEqualTo(new Integer32(2));
        assertThat(r.get(1).getVariable()).as("hardDisk(3)").isEqualTo(new Integer32(3));
        assertThat(r.get(2).getVariable().getSyntax()).as("a Counter64").isEqualTo(new org.snmp4j.smi.Counter64().getSyntax());
        // vmCpuAffinityEntry: vmCpuPhysIndex (1 and up) is column 2 and an index, vmCpuAffinity column 3.
        PDU affinity = a.send(a.v2c("public"), PDU.GETNEXT, new VariableBinding(VM_CPU_AFFINITY_ENTRY));
        assertThat(affinity.get(0).getOid()).isEqualTo(cell(VM_CPU_AFFINITY_ENTRY, CPU_AFFINITY, 6, 1, 1));
        assertThat(affinity.get(0).getVariable()).as("unknown(0)").isEqualTo(new Integer32(0));
    }

    @Test
    void getNextCrossesFromTableToTableAndEndsAtTheEndOfTheMib() throws Exception {
        createAndGo(3, "only");
        awaitState(3, OperState.RUNNING);
        PDU r = a.send(a.v2c("public"), PDU.GETNEXT, new VariableBinding(cell(VM_ENTRY, VM_OPER_STATE_REASON, 3)),
                new VariableBinding(cfg(ConfigColumn.VM_CONFIG_TENANT.snmpColumn(), 3)), new VariableBinding(VmmMib.ROOT),
                new VariableBinding(sub(OBJECTS, 20, 0)));
        assertThat(r.get(0).getOid()).isEqualTo(cell(VM_CPU_ENTRY, CPU_CORE_TIME, 3, 1));
        assertThat(r.get(1).getOid()).as("no interfaces: vmNetworkConfigTable is empty").isEqualTo(
                scalar(VM_CONFIG_NEXT_AVAILABLE_VM_INDEX));
        assertThat(r.get(2).getOid()).isEqualTo(scalar(VM_HV_SOFTWARE));
        assertThat(r.get(3).getOid()).as("vmObjects 21, vmMigrationTable, a row per VR").isEqualTo(
                cell(MigrationTable.ENTRY, MigrationTable.PEER, 3));
        PDU end = a.send(a.v2c("public"), PDU.GETNEXT, new VariableBinding(cell(MigrationTable.ENTRY, MigrationTable.RESULT, 3)));
        assertThat(end.get(0).getOid()).as("vmObjects 22, vmDrain").isEqualTo(DrainScalars.instance(DrainScalars.STATE));
    }

    // ------------------------------------------------------------------ error statuses

    @Test
    void wrongType() throws Exception {
        createAndGo(1, "t");
        PDU r = a.set(vb(cfg(VM_ADMIN_STATE, 1), new OctetString("running")));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.wrongType);
        assertThat(r.getErrorIndex()).isEqualTo(1);
    }

    @Test
    void wrongValue() throws Exception {
        createAndGo(1, "t");
        assertThat(a.set(vb(cfg(VM_ADMIN_STATE, 1), new Integer32(9))).getErrorStatus()).isEqualTo(PDU.wrongValue);
        assertThat(a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 2), new Integer32(NOT_READY))).getErrorStatus())
                .isEqualTo(PDU.wrongValue);
        PDU r = createAndGo(3, "bad name!");
        assertThat(r.getErrorStatus()).isEqualTo(PDU.wrongValue);
        assertThat(r.getErrorIndex()).isEqualTo(2);
        assertThat(a.service.getConfig(3)).isEmpty();
    }

    @Test
    void wrongLength() throws Exception {
        PDU r = createAndGo(1, "x".repeat(65));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.wrongLength);
        assertThat(r.getErrorIndex()).isEqualTo(2);
        assertThat(a.service.getConfig(1)).isEmpty();
    }

    @Test
    void inconsistentValue() throws Exception {
        createAndGo(1, "dup");
        assertThat(createAndGo(1, "other").getErrorStatus()).as("row exists").isEqualTo(PDU.inconsistentValue);
        assertThat(createAndGo(2, "dup").getErrorStatus()).as("name taken").isEqualTo(PDU.inconsistentValue);
        assertThat(a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 3), new Integer32(CREATE_AND_GO))).getErrorStatus())
                .as("no vmName").isEqualTo(PDU.inconsistentValue);
        assertThat(a.set(vb(cfg(VM_CONFIG_MEMORY, 1), new Integer32(2048))).getErrorStatus())
                .as("memory of a running VR").isEqualTo(PDU.inconsistentValue);
        assertThat(a.service.getConfig(2)).isEmpty();
        assertThat(a.service.getConfig(3)).isEmpty();
    }

    @Test
    void notWritable() throws Exception {
        createAndGo(1, "ro");
        PDU r = a.set(vb(cell(VM_ENTRY, VM_OPER_STATE, 1), new Integer32(4)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.notWritable);
        r = a.set(vb(scalar(VM_CONFIGURED_VMS), new Gauge32(5)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.notWritable);
    }

    @Test
    void noCreation() throws Exception {
        PDU r = a.set(vb(cell(VM_ENTRY, VM_OPER_STATE, 42), new Integer32(4)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noCreation);
        r = a.set(vb(cell(VM_CONFIG_ENTRY, 99, 1), new Integer32(1)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noCreation);
        r = a.set(vb(scalar(VM_AFFECTED_VMS), new OctetString(new byte[]{1})));
        assertThat(r.getErrorStatus()).as("accessible-for-notify").isEqualTo(PDU.noAccess);
        assertThat(a.get(scalar(VM_AFFECTED_VMS))).isEqualTo(Null.noSuchObject);
    }

    @Test
    void inconsistentName() throws Exception {
        PDU r = a.set(vb(cfg(VM_NAME, 8), new OctetString("no-row")));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.inconsistentName);
        r = a.set(vb(net(NET_ROW_STATUS, 8, 1), new Integer32(CREATE_AND_GO)),
                vb(net(NET_PARENT, 8, 1), new OctetString("xenbr0")));
        assertThat(r.getErrorStatus()).as("interface of a VR that does not exist").isEqualTo(PDU.inconsistentName);
        assertThat(a.service.getConfig(8)).isEmpty();
    }

    @Test
    void readCommunityCannotWriteAndUnknownCommunityGetsNoAnswer() throws Exception {
        PDU r = a.send(a.v2c("public"), PDU.SET, vb(cfg(VM_CONFIG_ROW_STATUS, 1), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 1), new OctetString("nope")));
        assertThat(r.getErrorStatus()).isIn(PDU.noAccess, PDU.authorizationError, PDU.notWritable);
        assertThat(a.service.getConfig(1)).isEmpty();
        assertThat(a.send(a.v2c("wrong"), PDU.GET, new VariableBinding(scalar(VM_NUMBER)))).isNull();
    }

    @Test
    void v3AuthPrivReadsAndWrites() throws Exception {
        PDU r = a.send(a.v3("admin"), PDU.SET, vb(cfg(VM_CONFIG_ROW_STATUS, 1), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 1), new OctetString("secure")));
        assertThat(r).isNotNull();
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        r = a.send(a.v3("admin"), PDU.GET, new VariableBinding(cfg(VM_NAME, 1)));
        assertThat(r.get(0).getVariable()).isEqualTo(new OctetString("secure"));
        assertThat(a.metrics.registry().find("vrouter.requests").tag("interface", "snmp").timers()).isNotEmpty();
    }
}
