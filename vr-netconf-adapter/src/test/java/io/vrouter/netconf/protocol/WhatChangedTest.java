package io.vrouter.netconf.protocol;

import static io.vrouter.netconf.protocol.NetconfSessionTest.configTable;
import static io.vrouter.netconf.protocol.NetconfSessionTest.edit;
import static io.vrouter.netconf.protocol.NetconfSessionTest.entry;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.model.Commit;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.LeafChanges;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.model.VrEvent.LeafChange;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.edit.ConfigEdits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * One "what changed" (issue 35): the core's leaf changes between a VR's row before and after a
 * change are what every consumer tells of it, whichever interface made it: the history's commit
 * (its diff in text form), RFC 6470's netconf-config-change (the edits NACM checks a write against
 * too), and the change set that takes the row before to the row after.
 */
class WhatChangedTest extends ServerFixture {
    private static final Pattern EDIT = Pattern.compile("<edit><target[^>]*>([^<]*)</target><operation>([a-z]+)</operation></edit>");
    private static final String NC_DELETE = " xmlns:nc='urn:ietf:params:xml:ns:netconf:base:1.0' nc:operation='delete'";

    private TestClient watcher;
    private TestClient nc;
    private VirtualRouters rest;
    private final BlockingQueue<VrEvent> events = new LinkedBlockingQueue<>();

    @Test
    void everyConsumerTellsTheLeafChangesOfTheCoreWhicheverInterfaceMadeTheChange() throws Exception {
        watcher = client();
        watcher.rpc("<create-subscription xmlns='urn:ietf:params:xml:ns:netconf:notification:1.0'><filter type='subtree'>"
                + "<netconf-config-change xmlns='urn:ietf:params:xml:ns:yang:ietf-netconf-notifications'/></filter></create-subscription>");
        nc = client();
        service.events().subscribe(events::add);
        rest = service.as(new Caller("alice", null, Credentials.Role.OPERATOR, "rest", "192.0.2.7"));

        // A VR made with an interface, over NETCONF.
        check(1, () -> netconf(configTable(entry(1, "one", "")) + iface(1, 1, "<vmNetworkConfigParent>br0</vmNetworkConfigParent><vmNetworkConfigPhysAddress>"
                + mac(1) + "</vmNetworkConfigPhysAddress>")),
                "create");
        // Renamed, described, and a second interface, over REST (the core's events).
        check(1, () -> over(ChangeSet.builder().edit(1, ChangeSet.both(r -> {
            r.vmName = "uno";
            r.vmConfigDescription = "first";
        }, ChangeSet.putInterface(network(2, "br1")))).build()), "replace", "replace", "create");
        // An interface changed and one removed, the description gone, over NETCONF.
        check(1, () -> netconf(configTable(entry(1, "uno", "<vmConfigDescription" + NC_DELETE + "/>"))
                + iface(1, 1, "<vmNetworkConfigParent>br2</vmNetworkConfigParent>")
                + "<vmNetworkConfigTable><vmNetworkConfigEntry" + NC_DELETE + "><vmIndex>1</vmIndex>"
                + "<vmNetworkConfigIndex>2</vmNetworkConfigIndex></vmNetworkConfigEntry></vmNetworkConfigTable>"),
                "delete", "replace", "delete");
        // A leaf the interface lacked given a value and a new interface, over NETCONF: the interface is
        // replaced, not created. (A VR's events carry no key leaves, so over another interface such a
        // change is told as the interface's creation, as it was before the one differ.)
        check(1, () -> netconf(iface(1, 1, "<vmNetworkConfigRateIn>1000</vmNetworkConfigRateIn>")
                + iface(1, 3, "<vmNetworkConfigParent>br3</vmNetworkConfigParent><vmNetworkConfigPhysAddress>" + mac(3)
                + "</vmNetworkConfigPhysAddress>")), "replace", "create");
        check(1, () -> over(ChangeSet.builder().edit(1, ChangeSet.both(ChangeSet.removeInterface(3),
                r -> r.vmConfigDescription = "again")).build()), "replace", "delete");
        // Made and removed over REST, removed over NETCONF.
        check(2, () -> over(ChangeSet.builder().create(row(2, "two")).build()), "create");
        check(2, () -> over(ChangeSet.builder().remove(2).build()), "delete");
        check(1, () -> netconf(configTable("<vmConfigEntry" + NC_DELETE + "><vmIndex>1</vmIndex></vmConfigEntry>")), "delete");
    }

    /**
     * Makes a change of one VR and checks what each consumer tells of it against the core's leaf
     * changes between its row before and after: the operations of the RFC 6470 edits are given, so
     * that the test says what the wire carries too.
     */
    private void check(int vmIndex, Change change, String... operations) throws Exception {
        VmConfigEntry before = service.getConfig(vmIndex).orElse(null);
        events.clear();
        change.make();
        awaitTold(vmIndex);
        String told = watcher.next();
        VmConfigEntry after = service.getConfig(vmIndex).orElse(null);
        List<LeafChange> changes = LeafChanges.withKeys(vmIndex, before, after);
        assertThat(changes).as("the change changed something").isNotEmpty();

        List<Commit> commits = service.commits();
        assertThat(commits.get(commits.size() - 1).changes).as("the history's diff").isEqualTo(inText(changes));

        List<ConfigEdits.Edit> edits = ConfigEdits.of(vmIndex, changes);
        assertThat(edits(told)).as("RFC 6470's edits, as NACM checks them").isEqualTo(edits);
        assertThat(edits).extracting(ConfigEdits.Edit::operation).containsExactly(operations);

        if (before != null && after != null) {
            VmConfigEntry row = before.copy();
            ChangeSet.Edit e = (ChangeSet.Edit) ChangeSet.between(Map.of(vmIndex, before), Map.of(vmIndex, after)).changes().get(0);
            e.edit().apply(row);
            assertThat(LeafChanges.withKeys(vmIndex, row, after)).as("the change set between the rows makes the row after").isEmpty();
        }
    }

    /**
     * Waits for the event that tells the change's leaves (a VR's changes are told with the next event
     * about it, and the host's work of one change must be done before the next, or both are told as one).
     */
    private void awaitTold(int vmIndex) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            VrEvent e = events.poll(100, TimeUnit.MILLISECONDS);
            if (e != null && e.vmIndex == vmIndex && e.changedBy != null
                    && (e.type == VrEvent.Type.DELETED || e.changes.stream().anyMatch(c -> !c.table().equals(LeafChanges.VM_TABLE)))) {
                return;
            }
        }
        throw new AssertionError("no event told the change of VR " + vmIndex + " within 10 s");
    }

    @FunctionalInterface
    private interface Change {
        void make() throws Exception;
    }

    private void netconf(String tables) throws Exception {
        assertThat(nc.rpc(edit("running", tables, ""))).contains("<ok/>");
    }

    private void over(ChangeSet set) throws Exception {
        rest.apply(set).completion().get(10, TimeUnit.SECONDS);
    }

    private static String iface(int vmIndex, int networkIndex, String leaves) {
        return "<vmNetworkConfigTable><vmNetworkConfigEntry><vmIndex>" + vmIndex + "</vmIndex><vmNetworkConfigIndex>"
                + networkIndex + "</vmNetworkConfigIndex>" + leaves + "</vmNetworkConfigEntry></vmNetworkConfigTable>";
    }

    private static VmNetworkConfigEntry network(int index, String parent) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigParent = parent;
        n.vmNetworkConfigPhysAddress = mac(index);
        return n;
    }

    /** A MAC of the interface's own, so that the host assigns none after the change (a change of its own). */
    private static String mac(int index) {
        return "52:54:00:00:00:0" + index;
    }

    private static VmConfigEntry row(int vmIndex, String name) {
        VmConfigEntry r = new VmConfigEntry();
        r.vmIndex = vmIndex;
        r.vmName = name;
        return r;
    }

    /** The changes as the history keeps them: values in text form. */
    private static List<LeafChange> inText(List<LeafChange> changes) {
        List<LeafChange> out = new ArrayList<>();
        for (LeafChange l : changes) {
            var column = Schema.column(l.leaf());
            out.add(new LeafChange(l.table(), l.vmIndex(), l.networkIndex(), l.leaf(), text(column, l.before()), text(column, l.after())));
        }
        return out;
    }

    private static String text(io.vrouter.core.model.Column<?> c, Object v) {
        return v == null ? null : c == null ? String.valueOf(v) : c.kind().format(v);
    }

    private static List<ConfigEdits.Edit> edits(String notification) {
        assertThat(notification).contains("<netconf-config-change");
        List<ConfigEdits.Edit> out = new ArrayList<>();
        Matcher m = EDIT.matcher(notification);
        while (m.find()) out.add(new ConfigEdits.Edit(m.group(1), m.group(2)));
        return out;
    }
}
