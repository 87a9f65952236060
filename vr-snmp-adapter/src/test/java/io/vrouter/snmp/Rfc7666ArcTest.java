package io.vrouter.snmp;

import static io.vrouter.snmp.SnmpTestAgent.vb;
import static io.vrouter.snmp.VmmMib.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.service.SingleVr;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.PDU;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.Null;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.Variable;
import org.snmp4j.smi.VariableBinding;

/**
 * RFC 7666's VM-MIB at mib-2.236: every instance is NEW-VMM-MIB's, read in the same request, with
 * RFC 7666's numbering (vmName and vmAdminState at vmTable's 2 and 5, none of NEW-VMM-MIB's added
 * columns), and every SET there is notWritable.
 */
class Rfc7666ArcTest {
    static final OID RFC = Rfc7666Instrumentation.ROOT;
    static final OID RFC_OBJECTS = Rfc7666Instrumentation.OBJECTS;

    @TempDir
    Path dir;
    SnmpTestAgent a;

    @BeforeEach
    void start() throws Exception {
        a = new SnmpTestAgent(dir);
        for (int i : new int[]{1, 2}) {
            VmConfigEntry e = new VmConfigEntry();
            e.vmIndex = i;
            e.vmName = "edge" + i;
            e.vmAdminState = i == 1 ? AdminState.RUNNING : AdminState.SHUTDOWN;
            VmNetworkConfigEntry n = new VmNetworkConfigEntry();
            n.vmNetworkConfigIndex = 1;
            n.vmNetworkConfigParent = "br0";
            e.vmNetworkConfigTable = List.of(n);
            SingleVr.create(a.service, e).await(Duration.ofSeconds(10));
        }
    }

    @AfterEach
    void stop() throws Exception {
        a.close();
    }

    /** Every instance under {@code root}, by GETNEXT, as the user of {@code v3} (null: v2c public) sees it. */
    private Map<OID, Variable> walk(OID root, String v3) throws Exception {
        Map<OID, Variable> out = new LinkedHashMap<>();
        OID at = root;
        while (true) {
            PDU r = a.send(v3 == null ? a.v2c("public") : a.v3(v3), PDU.GETNEXT, new VariableBinding(at));
            VariableBinding b = r.get(0);
            if (b.getVariable().isException() || !b.getOid().startsWith(root)) return out;
            out.put(b.getOid(), b.getVariable());
            at = b.getOid();
        }
    }

    /** The NEW-VMM-MIB instance an RFC 7666 instance is. */
    private static OID ours(OID rfc) {
        for (Rfc7666Instrumentation.Arc arc : Rfc7666Instrumentation.ARCS) {
            if (rfc.startsWith(arc.rfc())) return arc.toOurs(rfc);
        }
        throw new AssertionError("no NEW-VMM-MIB object for " + rfc);
    }

    @Test
    void theSameVrAnswersWithTheSameValuesUnderBothArcs() throws Exception {
        Map<OID, Variable> rfc = walk(RFC, null);
        assertThat(new ArrayList<>(rfc.keySet())).as("a walk in RFC 7666's order").isSorted();
        // RFC 7666's numbering: vmName vmTable.2, vmAdminState vmTable.5, vmOperState vmTable.6.
        OID vmEntry = VmmMib.sub(RFC_OBJECTS, 4, 1);
        assertThat(rfc.get(cell(vmEntry, 2, 1))).isEqualTo(new OctetString("edge1"));
        assertThat(rfc.get(cell(vmEntry, 5, 2))).isEqualTo(new Integer32(AdminState.SHUTDOWN.code()));
        assertThat(rfc.get(cell(vmEntry, 6, 1))).isEqualTo(new Integer32(OperState.RUNNING.code()));
        assertThat(rfc).containsKeys(VmmMib.scalar(VmmMib.sub(RFC_OBJECTS, 1, 1)), VmmMib.scalar(VmmMib.sub(RFC_OBJECTS, 2)),
                VmmMib.scalar(VmmMib.sub(RFC_OBJECTS, 9)), cell(VmmMib.sub(RFC_OBJECTS, 5, 1), 2, 1, 1),
                cell(VmmMib.sub(RFC_OBJECTS, 8, 1), 5, 1, 1), cell(VmmMib.sub(RFC_OBJECTS, 7, 1), 3, 1, 1));
        // Only RFC 7666's columns: vmTable 2..17, vmNetworkTable 2..5; no vmAffectedVMs (accessible-for-notify).
        Set<Integer> vmColumns = new TreeSet<>(), networkColumns = new TreeSet<>();
        for (OID o : rfc.keySet()) {
            if (o.startsWith(vmEntry)) vmColumns.add(o.get(vmEntry.size()));
            if (o.startsWith(VmmMib.sub(RFC_OBJECTS, 8, 1))) networkColumns.add(o.get(vmEntry.size()));
            assertThat(o).isNotEqualTo(VmmMib.scalar(VmmMib.sub(RFC_OBJECTS, 11)));
        }
        assertThat(vmColumns).containsExactly(2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17);
        assertThat(networkColumns).containsExactly(2, 3, 4, 5);
        // Each value is NEW-VMM-MIB's: asked in one request (one picture of each VR), the two are equal.
        List<OID> instances = new ArrayList<>(rfc.keySet());
        for (int from = 0; from < instances.size(); from += 20) {
            List<VariableBinding> pairs = new ArrayList<>();
            for (OID o : instances.subList(from, Math.min(instances.size(), from + 20))) {
                pairs.add(new VariableBinding(o));
                pairs.add(new VariableBinding(ours(o)));
            }
            PDU r = a.send(a.v2c("public"), PDU.GET, pairs.toArray(VariableBinding[]::new));
            for (int i = 0; i < r.size(); i += 2) {
                OID o = r.get(i).getOid();
                Variable there = r.get(i).getVariable(), here = r.get(i + 1).getVariable();
                assertThat(here.isException()).as(r.get(i + 1).toString()).isFalse();
                if (o.startsWith(VmmMib.sub(RFC_OBJECTS, 8, 1, 3))) {
                    // vmNetworkParent: the ifIndex of the host's interface of that name (InterfaceIndexOrZero), 0 when none.
                    java.net.NetworkInterface br0 = java.net.NetworkInterface.getByName("br0");
                    assertThat(there).isEqualTo(new Integer32(br0 == null ? 0 : br0.getIndex()));
                    assertThat(here).isEqualTo(new OctetString("br0"));
                } else {
                    assertThat(there).as(o + " and " + r.get(i + 1).getOid()).isEqualTo(here);
                }
            }
        }
    }

    @Test
    void aLargeGetBulkAnsweredInPassesIsTheWalk() throws Exception {
        Map<OID, Variable> walked = walk(RFC, null);
        PDU pdu = new PDU();
        pdu.setType(PDU.GETBULK);
        pdu.add(new VariableBinding(RFC));
        pdu.setMaxRepetitions(300);
        PDU r = a.client.send(pdu, a.v2c("public")).getResponse();
        List<OID> bulk = r.getVariableBindings().stream().map(VariableBinding::getOid).filter(o -> o.startsWith(RFC)).toList();
        assertThat(bulk).isEqualTo(new ArrayList<>(walked.keySet()));
    }

    @Test
    void aGetNamesOneVrAndAMissingInstanceIsNoSuchInstance() throws Exception {
        OID vmEntry = VmmMib.sub(RFC_OBJECTS, 4, 1);
        PDU r = a.send(a.v2c("public"), PDU.GET, new VariableBinding(cell(vmEntry, 2, 2)),
                new VariableBinding(cell(vmEntry, 2, 9)), new VariableBinding(cell(vmEntry, 18, 1)),
                new VariableBinding(VmmMib.scalar(VmmMib.sub(RFC_OBJECTS, 2))));
        assertThat(r.get(0).getVariable()).isEqualTo(new OctetString("edge2"));
        assertThat(r.get(1).getVariable()).isEqualTo(Null.noSuchInstance);
        assertThat(r.get(2).getVariable()).as("vmRouteEntries is NEW-VMM-MIB's only").isEqualTo(Null.noSuchObject);
        assertThat(r.get(3).getVariable()).isEqualTo(new Integer32(2));
    }

    @Test
    void aRowWaitingAfterCreateAndWaitIsNoVrThere() throws Exception {
        assertThat(a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 3), new Integer32(CREATE_AND_WAIT)),
                vb(cell(VM_CONFIG_ENTRY, VM_NAME, 3), new OctetString("waiting"))).getErrorStatus()).isEqualTo(PDU.noError);
        assertThat(a.get(cell(VM_CONFIG_ENTRY, VM_NAME, 3))).isEqualTo(new OctetString("waiting"));
        assertThat(a.get(cell(VmmMib.sub(RFC_OBJECTS, 4, 1), 2, 3))).isEqualTo(Null.noSuchInstance);
        assertThat(walk(RFC, null).keySet()).noneMatch(o -> o.startsWith(VmmMib.sub(RFC_OBJECTS, 4, 1)) && o.last() == 3);
    }

    @Test
    void everySetThereIsNotWritableAndChangesNothing() throws Exception {
        OID vmEntry = VmmMib.sub(RFC_OBJECTS, 4, 1);
        for (VariableBinding b : List.of(vb(cell(vmEntry, 2, 1), new OctetString("renamed")),
                vb(cell(vmEntry, 5, 1), new Integer32(AdminState.SHUTDOWN.code())),
                vb(cell(vmEntry, 2, 9), new OctetString("missing")),
                vb(VmmMib.scalar(VmmMib.sub(RFC_OBJECTS, 9)), new Integer32(2)))) {
            PDU r = a.set(b);
            assertThat(r.getErrorStatus()).as(b.toString()).isEqualTo(PDU.notWritable);
            assertThat(r.getErrorIndex()).isEqualTo(1);
        }
        // With a NEW-VMM-MIB change in the same PDU: refused whole.
        PDU r = a.set(vb(cell(VM_CONFIG_ENTRY, VM_NAME, 1), new OctetString("edge1b")),
                vb(cell(vmEntry, 2, 2), new OctetString("edge2b")));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.notWritable);
        assertThat(r.getErrorIndex()).isEqualTo(2);
        assertThat(a.service.getConfig(1).orElseThrow().vmName).isEqualTo("edge1");
        assertThat(a.service.getConfig(1).orElseThrow().vmAdminState).isEqualTo(AdminState.RUNNING);
        assertThat(a.service.perVmNotificationsEnabled()).isTrue();
    }

    @Test
    void aReaderSeesBothArcsAndMayWriteNeither() throws Exception {
        assertThat(walk(RFC, null)).isNotEmpty();
        PDU r = a.send(a.v2c("public"), PDU.SET, vb(cell(VmmMib.sub(RFC_OBJECTS, 4, 1), 2, 1), new OctetString("x")));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noAccess);
    }

    /** With snmp.trap.vm-mib, each notification RFC 7666 defines goes out in its form too, with its objects. */
    @Test
    void withTheSettingNotificationsAlsoGoOutUnderRfc7666sArc() throws Exception {
        Map<OID, VariableBinding[]> sent = new java.util.concurrent.ConcurrentHashMap<>();
        org.snmp4j.agent.NotificationOriginator capture = new org.snmp4j.agent.NotificationOriginator() {
            @Override
            public Object notify(OctetString context, OID notificationId, VariableBinding[] vbs) {
                sent.put(notificationId, vbs);
                return null;
            }

            @Override
            public Object notify(OctetString context, OID notificationId, org.snmp4j.smi.TimeTicks sysUpTime,
                                 VariableBinding[] vbs) {
                return notify(context, notificationId, vbs);
            }
        };
        OID rfcRunning = VmmMib.sub(RFC, 0, 1);
        try (Notifier notifier = new Notifier(a.service, capture, new org.snmp4j.agent.mo.snmp.SNMPv2MIB.SysUpTimeImpl(), true)) {
            SingleVr.setAdminState(a.service, 2, AdminState.RUNNING);
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!sent.containsKey(rfcRunning) && System.nanoTime() < end) Thread.sleep(10);
        }
        assertThat(sent).containsKeys(VM_RUNNING, rfcRunning);
        OID vmEntry = VmmMib.sub(RFC_OBJECTS, 4, 1);
        assertThat(java.util.Arrays.stream(sent.get(rfcRunning)).map(VariableBinding::getOid))
                .containsExactly(cell(vmEntry, 2, 2), cell(vmEntry, 3, 2), cell(vmEntry, 6, 2));
        assertThat(sent.get(rfcRunning)[0].getVariable()).isEqualTo(new OctetString("edge2"));
        assertThat(java.util.Arrays.stream(sent.get(rfcRunning)).map(VariableBinding::getVariable))
                .containsExactlyElementsOf(java.util.Arrays.stream(sent.get(VM_RUNNING)).map(VariableBinding::getVariable).toList());
    }
}
