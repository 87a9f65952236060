package io.vrouter.snmp;

import static io.vrouter.snmp.SnmpTestAgent.vb;
import static io.vrouter.snmp.VmmMib.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.model.LinkStatus;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.Schema;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.CommandResponder;
import org.snmp4j.CommandResponderEvent;
import org.snmp4j.PDU;
import org.snmp4j.Snmp;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.smi.Gauge32;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.smi.VariableBinding;
import org.snmp4j.transport.DefaultUdpTransportMapping;

class NotificationAndEngineTest {
    @TempDir
    Path dir;

    @Test
    void v2cTrapsAnnounceEachCompletedOperation() throws Exception {
        BlockingQueue<PDU> traps = new LinkedBlockingQueue<>();
        try (Snmp receiver = receiver(traps)) {
            try (SnmpTestAgent a = agentNotifying(receiver)) {
                a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 9), new Integer32(CREATE_AND_GO)),
                        vb(cell(VM_CONFIG_ENTRY, VM_NAME, 9), new OctetString("noisy")));
                PDU running = next(traps, VM_RUNNING);
                assertThat(running.getType()).isEqualTo(PDU.TRAP);
                assertThat(running.getVariable(cell(VM_CONFIG_ENTRY, VM_NAME, 9))).isEqualTo(new OctetString("noisy"));
                assertThat(running.getVariable(cell(VM_ENTRY, VM_OPER_STATE, 9)))
                        .isEqualTo(new Integer32(OperState.RUNNING.code()));
                assertThat(running.getVariable(cell(VM_ENTRY, VM_UUID, 9)).toString()).isNotEmpty();

                a.set(vb(cell(VM_CONFIG_ENTRY, VM_ADMIN_STATE, 9), new Integer32(4)));
                next(traps, VM_SHUTDOWN);
                a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 9), new Integer32(DESTROY)));
                PDU deleted = next(traps, VM_DELETED);
                assertThat(deleted.getVariable(cell(VM_CONFIG_ENTRY, VM_NAME, 9))).isEqualTo(new OctetString("noisy"));
                // The MIB's OBJECTS, in its order; vmDeleted's vmOperState is the state the VR was in before
                // it was gone: a removal passes through shuttingdown (the service stops the VM, then destroys it).
                Rfc7666ConformanceTest.Module mib = Rfc7666ConformanceTest.newVmmMib();
                assertThat(objectsOf(running)).isEqualTo(instancesOf(mib, "vmRunning", 9));
                assertThat(objectsOf(deleted)).isEqualTo(instancesOf(mib, "vmDeleted", 9));
                assertThat(deleted.getVariable(cell(VM_ENTRY, VM_OPER_STATE, 9))).isEqualTo(new Integer32(OperState.SHUTTINGDOWN.code()));

                // vmPerVMNotificationsEnabled false(2) silences them
                a.set(vb(scalar(VM_PER_VM_NOTIFICATIONS_ENABLED), new Integer32(2)));
                traps.clear();
                a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 10), new Integer32(CREATE_AND_GO)),
                        vb(cell(VM_CONFIG_ENTRY, VM_NAME, 10), new OctetString("quiet")));
                long end = System.nanoTime() + 3_000_000_000L;
                while (a.service.get(10).map(v -> v.operState() != OperState.RUNNING).orElse(true)
                        && System.nanoTime() < end) {
                    Thread.sleep(20);
                }
                // No per-VR notification; a bulk one may still name VR 10 with VR 9, if both ran within its window.
                for (PDU t = traps.poll(500, TimeUnit.MILLISECONDS); t != null; t = traps.poll(500, TimeUnit.MILLISECONDS)) {
                    assertThat(((OID) t.getVariable(SnmpConstants.snmpTrapOID)).last()).as(t.toString()).isGreaterThan(10);
                }
            }
        }
    }

    @Test
    void aPeerLinkComingUpAndGoingDownIsAnnouncedAtEachEnd() throws Exception {
        BlockingQueue<PDU> traps = new LinkedBlockingQueue<>();
        try (Snmp receiver = receiver(traps)) {
            try (SnmpTestAgent a = agentNotifying(receiver)) {
                // VRs 21 and 22 in one SET, each with interface 1 a peer link to the other's.
                List<VariableBinding> vbs = new java.util.ArrayList<>();
                for (int vr : new int[] {21, 22}) {
                    vbs.add(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, vr), new Integer32(CREATE_AND_GO)));
                    vbs.add(vb(cell(VM_CONFIG_ENTRY, VM_NAME, vr), new OctetString("linked-" + vr)));
                    vbs.add(vb(cell(VM_NETWORK_CONFIG_ENTRY, 7, vr, 1), new Integer32(CREATE_AND_GO)));
                    vbs.add(vb(cell(VM_NETWORK_CONFIG_ENTRY, NetworkColumn.LINK_TYPE.snmpColumn(), vr, 1),
                            new Integer32(LinkType.PEER.code())));
                    vbs.add(vb(cell(VM_NETWORK_CONFIG_ENTRY, NetworkColumn.PEER_ROUTER.snmpColumn(), vr, 1), new Gauge32(43 - vr)));
                    vbs.add(vb(cell(VM_NETWORK_CONFIG_ENTRY, NetworkColumn.PEER_INTERFACE.snmpColumn(), vr, 1), new Gauge32(1)));
                }
                a.set(vbs.toArray(VariableBinding[]::new));
                OID status21 = cell(VM_NETWORK_ENTRY, Schema.Network.LINK_STATUS.snmpColumn(), 21, 1);
                OID status22 = cell(VM_NETWORK_ENTRY, Schema.Network.LINK_STATUS.snmpColumn(), 22, 1);
                java.util.Map<OID, Integer32> told = new java.util.HashMap<>();
                for (int k = 0; k < 2; k++) {
                    PDU up = next(traps, VM_LINK_STATUS_CHANGED);
                    // The MIB's OBJECTS: vmName and the end's vmNetworkLinkStatus.
                    assertThat(objectsOf(up)).hasSize(2);
                    for (OID o : List.of(status21, status22)) {
                        if (up.getVariable(o) != null) told.put(o, (Integer32) up.getVariable(o));
                    }
                }
                assertThat(told).containsEntry(status21, new Integer32(LinkStatus.UP.code()))
                        .containsEntry(status22, new Integer32(LinkStatus.UP.code()));
                // VR 22 stops: the end left at VR 21 goes down.
                a.set(vb(cell(VM_CONFIG_ENTRY, VM_ADMIN_STATE, 22), new Integer32(4)));
                PDU down = next(traps, VM_LINK_STATUS_CHANGED);
                assertThat(down.getVariable(cell(VM_CONFIG_ENTRY, VM_NAME, 21))).isEqualTo(new OctetString("linked-21"));
                assertThat(down.getVariable(status21)).isEqualTo(new Integer32(LinkStatus.DOWN.code()));
            }
        }
    }

    @Test
    void theNotificationsOfADestroyCarryTheVrsUuid() throws Exception {
        BlockingQueue<PDU> traps = new LinkedBlockingQueue<>();
        OctetString uuid;
        try (Snmp receiver = receiver(traps)) {
            try (SnmpTestAgent a = agentNotifying(receiver)) {
                a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 4), new Integer32(CREATE_AND_GO)),
                        vb(cell(VM_CONFIG_ENTRY, VM_NAME, 4), new OctetString("doomed")));
                uuid = (OctetString) next(traps, VM_RUNNING).getVariable(cell(VM_ENTRY, VM_UUID, 4));
                assertThat(uuid.length()).isEqualTo(16);
            }
            // A server started after the VR was: its notifications have not seen the VR yet.
            try (SnmpTestAgent a = agentNotifying(receiver)) {
                // Destroyed while running: it passes through shuttingdown, then it is gone.
                a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 4), new Integer32(DESTROY)));
                assertThat(next(traps, VM_SHUTTINGDOWN).getVariable(cell(VM_ENTRY, VM_UUID, 4))).isEqualTo(uuid);
                assertThat(next(traps, VM_DELETED).getVariable(cell(VM_ENTRY, VM_UUID, 4))).isEqualTo(uuid);
            }
        }
    }

    /** The OIDs a notification carries after sysUpTime.0 and snmpTrapOID.0. */
    private static List<OID> objectsOf(PDU notification) {
        return notification.getVariableBindings().stream().skip(2).map(VariableBinding::getOid).toList();
    }

    /** The instances of a notification's OBJECTS, as the MIB's text lists them, for one VR. */
    private static List<OID> instancesOf(Rfc7666ConformanceTest.Module mib, String notification, int vmIndex) {
        return mib.definitions.get(notification).objects().stream()
                .map(o -> sub(Rfc7666ConformanceTest.absolute(mib, o), vmIndex)).toList();
    }

    /** An agent whose notification target is the receiver. */
    private SnmpTestAgent agentNotifying(Snmp receiver) throws Exception {
        int port = ((UdpAddress) receiver.getMessageDispatcher().getTransportMappings().iterator().next()
                .getListenAddress()).getPort();
        return new SnmpTestAgent(dir, LatencyProfile.NONE, Map.of("snmp-trap-target", "udp:127.0.0.1:" + port));
    }

    /** A v2c notification receiver on a free loopback port, keeping what community public sends. */
    private static Snmp receiver(BlockingQueue<PDU> traps) throws java.io.IOException {
        Snmp receiver = new Snmp(new DefaultUdpTransportMapping(new UdpAddress("127.0.0.1/0")));
        receiver.addCommandResponder(new CommandResponder() {
            @Override
            public <A extends org.snmp4j.smi.Address> void processPdu(CommandResponderEvent<A> e) {
                if (new OctetString(e.getSecurityName()).toString().equals("public")) traps.add(e.getPDU());
            }
        });
        receiver.listen();
        return receiver;
    }

    @Test
    void vrsReachingOneStateTogetherAlsoGiveTheBulkNotification() throws Exception {
        assertThat(Notifier.vmList(List.of(1, 9, 16)).getValue()).isEqualTo(new byte[]{(byte) 0x80, (byte) 0x81});
        BlockingQueue<PDU> traps = new LinkedBlockingQueue<>();
        try (Snmp receiver = receiver(traps)) {
            try (SnmpTestAgent a = agentNotifying(receiver)) {
                a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 1), new Integer32(CREATE_AND_GO)),
                        vb(cell(VM_CONFIG_ENTRY, VM_NAME, 1), new OctetString("one")),
                        vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 2), new Integer32(CREATE_AND_GO)),
                        vb(cell(VM_CONFIG_ENTRY, VM_NAME, 2), new OctetString("two")));
                PDU bulk = next(traps, sub(NOTIFICATIONS, 11));
                assertThat(bulk.getVariable(scalar(VM_AFFECTED_VMS))).isEqualTo(new OctetString(new byte[]{(byte) 0xC0}));
            }
        }
    }

    private static PDU next(BlockingQueue<PDU> traps, OID trapOid) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < end) {
            PDU p = traps.poll(200, TimeUnit.MILLISECONDS);
            if (p != null && trapOid.equals(p.getVariable(SnmpConstants.snmpTrapOID))) return p;
        }
        throw new AssertionError("no notification " + trapOid);
    }

    @Test
    void engineIdPersistsAndBootsCountUp() throws Exception {
        String id;
        try (SnmpTestAgent a = new SnmpTestAgent(dir)) {
            id = a.snmp.engineIdHex();
            PDU r = a.send(a.v2c("public"), PDU.GET, new VariableBinding(new OID("1.3.6.1.6.3.10.2.1.2.0")));
            assertThat(r.get(0).getVariable()).isEqualTo(new Integer32(1));
        }
        try (SnmpTestAgent a = new SnmpTestAgent(dir)) {
            assertThat(a.snmp.engineIdHex()).isEqualTo(id);
            PDU r = a.send(a.v2c("public"), PDU.GET, new VariableBinding(new OID("1.3.6.1.6.3.10.2.1.2.0")),
                    new VariableBinding(new OID("1.3.6.1.6.3.10.2.1.1.0")));
            assertThat(r.get(0).getVariable()).isEqualTo(new Integer32(2));
            assertThat(((OctetString) r.get(1).getVariable()).toHexString().replace(":", "")).isEqualTo(id);
        }
    }

    @Test
    void v2cCanBeTurnedOffAndConfiguredCredentialsReplaceTheDefaults() throws Exception {
        try (SnmpTestAgent a = new SnmpTestAgent(dir, LatencyProfile.NONE, Map.of("snmp.v2c", "false",
                "snmp.user.ops", "SHA256:opsauthpass1:AES256:opsprivpass1:write"))) {
            assertThat(a.send(a.v2c("public"), PDU.GET, new VariableBinding(scalar(VM_NUMBER)))).isNull();
            // the development user is gone once a user is configured: the agent reports it unknown
            PDU unknown = a.send(a.v3("admin"), PDU.GET, new VariableBinding(scalar(VM_NUMBER)));
            assertThat(unknown.getType()).isEqualTo(PDU.REPORT);
            assertThat(unknown.get(0).getOid()).isEqualTo(org.snmp4j.mp.SnmpConstants.usmStatsUnknownUserNames);
            // the configured SHA-256 / AES-256 user reads
            a.client.getUSM().addUser(new org.snmp4j.security.UsmUser(new OctetString("ops"),
                    org.snmp4j.security.AuthHMAC192SHA256.ID, new OctetString("opsauthpass1"),
                    org.snmp4j.security.PrivAES256.ID, new OctetString("opsprivpass1")));
            PDU r = a.send(a.v3("ops"), PDU.GET, new VariableBinding(scalar(VM_NUMBER)));
            assertThat(r).isNotNull();
            assertThat(r.get(0).getVariable()).isEqualTo(new Integer32(0));
        }
    }

    @Test
    void aReadUserReadsButCannotWrite() throws Exception {
        try (SnmpTestAgent a = new SnmpTestAgent(dir, LatencyProfile.NONE, Map.of(
                "snmp.user.admin", "SHA:adminauthpass:AES:adminprivpass:read"))) {
            PDU r = a.send(a.v3("admin"), PDU.GET, new VariableBinding(scalar(VM_NUMBER)));
            assertThat(r.get(0).getVariable()).isEqualTo(new Integer32(0));
            PDU w = a.send(a.v3("admin"), PDU.SET, vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 1),
                    new Integer32(CREATE_AND_GO)), vb(cell(VM_CONFIG_ENTRY, VM_NAME, 1), new OctetString("ro")));
            assertThat(w.getErrorStatus()).isIn(PDU.noAccess, PDU.authorizationError);
            assertThat(a.service.getConfig(1)).isEmpty();
            // the security configuration is outside the read view
            PDU usm = a.send(a.v3("admin"), PDU.GETNEXT, new VariableBinding(new OID("1.3.6.1.6.3.15")));
            assertThat(usm.get(0).getVariable()).as(usm.toString()).isEqualTo(org.snmp4j.smi.Null.endOfMibView);
        }
    }

    @Test
    void aTakenPortFailsTheStart() throws Exception {
        try (SnmpTestAgent a = new SnmpTestAgent(dir.resolve("first"))) {
            Settings same = Settings.of(Map.of("snmp-port", Integer.toString(a.port), "data-dir",
                    dir.resolve("second").toString()));
            SnmpInterface second = new SnmpInterface();
            assertThatThrownBy(() -> second.start(new io.vrouter.core.spi.ServerContext(a.service, same,
                    io.vrouter.core.config.Credentials.from(same), a.metrics))).isInstanceOf(java.io.IOException.class);
            second.close();
            // the first agent still answers
            assertThat(a.get(scalar(VM_NUMBER))).isEqualTo(new Integer32(0));
        }
    }

    @Test
    void aNotificationOnlyCommunityTakesNoRequests() throws Exception {
        try (SnmpTestAgent a = new SnmpTestAgent(dir, LatencyProfile.NONE, Map.of("snmp.community.read", "ro1",
                "snmp.community.write", "rw1", "snmp.trap.community", "trapsonly"))) {
            assertThat(a.send(a.v2c("trapsonly"), PDU.GET, new VariableBinding(scalar(VM_NUMBER)))).isNull();
            assertThat(a.send(a.v2c("public"), PDU.GET, new VariableBinding(scalar(VM_NUMBER)))).isNull();
            PDU r = a.send(a.v2c("ro1"), PDU.GET, new VariableBinding(scalar(VM_NUMBER)));
            assertThat(r.get(0).getVariable()).isEqualTo(new Integer32(0));
            PDU w = a.send(a.v2c("rw1"), PDU.SET, vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 1),
                    new Integer32(CREATE_AND_GO)), vb(cell(VM_CONFIG_ENTRY, VM_NAME, 1), new OctetString("rw")));
            assertThat(w.getErrorStatus()).isEqualTo(PDU.noError);
            assertThat(a.service.getConfig(1)).isPresent();
        }
    }

    @Test
    void settingsAreCheckedAndDevelopmentDefaultsNeedLoopback() {
        SnmpConfig d = SnmpConfig.from(Settings.empty());
        assertThat(d.developmentDefaults()).isTrue();
        assertThat(d.readCommunities()).isEqualTo(List.of("public"));
        assertThat(d.writeCommunities()).isEqualTo(List.of("private"));
        assertThat(d.users()).extracting(SnmpConfig.User::name).containsExactly("admin");
        SnmpConfig c = SnmpConfig.from(Settings.of(Map.of("snmp.community.read", "ro1", "snmp-trap-target",
                "udp:127.0.0.1:1162,udp:[::1]:162")));
        assertThat(c.developmentDefaults()).isFalse();
        assertThat(c.users()).isEmpty();
        assertThat(c.trapTargets()).hasSize(2);
        assertThatThrownBy(() -> SnmpConfig.from(Settings.of(Map.of("snmp.user.x", "MD5:aaaaaaaa:DES:bbbbbbbb:read"))))
                .hasMessageContaining("snmp.user.x");
        assertThatThrownBy(() -> SnmpConfig.from(Settings.of(Map.of("snmp-trap-target", "udp:host"))))
                .hasMessageContaining("udp:HOST:PORT");
        assertThat(d.trapQueue()).isEqualTo(1000);
        assertThatThrownBy(() -> SnmpConfig.from(Settings.of(Map.of("snmp.trap.queue", "0"))))
                .hasMessageContaining("snmp.trap.queue");
        SnmpInterface snmp = new SnmpInterface();
        var service = new io.vrouter.core.service.VirtualRouterService(
                new io.vrouter.core.driver.sim.SimulatedDriver(LatencyProfile.NONE),
                new io.vrouter.core.persistence.ConfigStore(dir.resolve("c")), io.vrouter.core.metrics.VrMetrics.inMemory());
        Settings open = Settings.of(Map.of("bind", "0.0.0.0", "data-dir", dir.toString()));
        assertThatThrownBy(() -> snmp.start(new io.vrouter.core.spi.ServerContext(service, open,
                io.vrouter.core.config.Credentials.from(open), io.vrouter.core.metrics.VrMetrics.inMemory())))
                .hasMessageContaining("development credentials");
    }
}
