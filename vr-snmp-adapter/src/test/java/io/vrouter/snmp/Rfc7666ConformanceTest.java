package io.vrouter.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.snmp4j.smi.OID;

/**
 * NEW-VMM-MIB against RFC 7666's VM-MIB, both read from their text (the RFC's module and the IANA
 * module it imports are test resources, see {@code rfc7666/README.md}).
 *
 * <p>NEW-VMM-MIB lives under its own arc, so OIDs are compared relative to each module's
 * MODULE-IDENTITY. Every RFC 7666 definition it keeps has the RFC's OID, kind, MAX-ACCESS and syntax
 * (with the textual conventions resolved to their base type, range or size, enumeration and
 * DISPLAY-HINT), and notifications and groups the RFC's OBJECTS. Everything else is one of the
 * deliberate differences listed below, each named in the MIB's module DESCRIPTION and in the module
 * README; a list entry that no longer differs fails too, so the lists stay true.
 */
class Rfc7666ConformanceTest {

    /** RFC 7666 definitions NEW-VMM-MIB leaves out, and why. */
    private static final Map<String, String> OMITTED = Map.of(
            "vmVirtualMachineGroup", "its vmName and vmAdminState moved to vmConfigTable: vmStateGroup and vmConfigGroup",
            "vmFullCompliances", "they require vmVirtualMachineGroup: vmCompliance instead",
            "vmReadOnlyCompliances", "they require vmVirtualMachineGroup: vmCompliance instead");

    /** RFC 7666 objects NEW-VMM-MIB moves: where they are (parent and number), with their new access and syntax. */
    private static final Map<String, String> MOVED = Map.of(
            "vmName", "vmConfigEntry 1",
            "vmAdminState", "vmConfigEntry 2");

    /** RFC 7666 objects NEW-VMM-MIB keeps at their OID with another syntax, and why. */
    private static final Map<String, String> CHANGED_SYNTAX = Map.of(
            "vmNetworkParent", "the host network's name (a VR host names its networks), not its ifIndex",
            "vmUUID", "a DISPLAY-HINT per octet: UUIDorZero's 4x-2x-2x-2x-6x drops a group's leading zeros");

    /**
     * NEW-VMM-MIB definitions RFC 7666 does not have, by the name under which the module DESCRIPTION
     * and the README list them.
     */
    private static final Map<String, List<String>> ADDED = Map.ofEntries(
            Map.entry("vmConfigTable", List.of("vmConfigTable", "vmConfigEntry", "vmConfigTemplate", "vmConfigCpuNumber",
                    "vmConfigMemory", "vmConfigAutoStart", "vmConfigRowStatus", "vmConfigDescription")),
            Map.entry("vmNetworkConfigTable", List.of("vmNetworkConfigTable", "vmNetworkConfigEntry", "vmNetworkConfigIndex",
                    "vmNetworkConfigParent", "vmNetworkConfigPhysAddress", "vmNetworkConfigAddressType",
                    "vmNetworkConfigAddress", "vmNetworkConfigPrefixLength", "vmNetworkConfigRowStatus")),
            Map.entry("vmConfigNextAvailableVmIndex", List.of("vmConfigNextAvailableVmIndex")),
            Map.entry("vmConfiguredVMs", List.of("vmConfiguredVMs")),
            Map.entry("vmActiveVMs", List.of("vmActiveVMs")),
            Map.entry("vmRoutingGroup", List.of("vmRouteEntries", "vmFibEntries", "vmRoutingProtocols", "vmRouterAddrType",
                    "vmRouterAddr", "vmRoutingGroup")),
            Map.entry("vmOperStateReason", List.of("vmOperStateReason")),
            Map.entry("vmNetworkCounterGroup", List.of("vmNetworkInOctets", "vmNetworkInPkts", "vmNetworkOutOctets",
                    "vmNetworkOutPkts", "vmNetworkInErrors", "vmNetworkOutErrors", "vmNetworkInDiscards",
                    "vmNetworkOutDiscards", "vmNetworkCounterGroup")),
            Map.entry("vmStateGroup", List.of("vmStateGroup", "vmConfigGroup")),
            Map.entry("vmTenancyGroup", List.of("vmConfigTenant", "vmHvCpus", "vmHvMemory", "vmCommittedCpus",
                    "vmCommittedMemory", "vmTenancyGroup")),
            Map.entry("vmLinkGroup", List.of("vmConfigCpuWeight", "vmNetworkConfigLinkType", "vmNetworkConfigPeerRouter",
                    "vmNetworkConfigPeerInterface", "vmNetworkConfigVni", "vmNetworkConfigRemote", "vmNetworkConfigRateIn",
                    "vmNetworkConfigRateOut", "vmNetworkLinkStatus", "vmNetworkLinkDelay", "vmNetworkLinkLoss",
                    "vmLinkGroup", "vmLinkStatusChanged", "vmLinkNotificationGroup")),
            Map.entry("vmVrouterAgent", List.of("vmAgentIdentities", "vmVrouterAgent")),
            Map.entry("vmMigrationTable", List.of("vmMigrationTable", "vmMigrationEntry", "vmMigrationPeer",
                    "vmMigrationStatus", "vmMigrationPeerVmIndex", "vmMigrationResult", "vmMigrationGroup")),
            Map.entry("vmDrain", List.of("vmDrain", "vmDrainState", "vmDrainTotal", "vmDrainMoved", "vmDrainNotMoved",
                    "vmDrainResult", "vmDrainGroup")),
            Map.entry("vmCompliance", List.of("vmCompliance")));

    /** The imported textual conventions, as their RFCs define them (2579, 3411, 6933, 2863). */
    private static final String BASE_CONVENTIONS = """
            DisplayString ::= TEXTUAL-CONVENTION DISPLAY-HINT "255a" SYNTAX OCTET STRING (SIZE (0..255))
            PhysAddress ::= TEXTUAL-CONVENTION DISPLAY-HINT "1x:" SYNTAX OCTET STRING
            MacAddress ::= TEXTUAL-CONVENTION DISPLAY-HINT "1x:" SYNTAX OCTET STRING (SIZE (6))
            TruthValue ::= TEXTUAL-CONVENTION SYNTAX INTEGER { true(1), false(2) }
            RowStatus ::= TEXTUAL-CONVENTION SYNTAX INTEGER { active(1), notInService(2), notReady(3),
                createAndGo(4), createAndWait(5), destroy(6) }
            SnmpAdminString ::= TEXTUAL-CONVENTION DISPLAY-HINT "255t" SYNTAX OCTET STRING (SIZE (0..255))
            UUIDorZero ::= TEXTUAL-CONVENTION DISPLAY-HINT "4x-2x-2x-2x-6x" SYNTAX OCTET STRING (SIZE (0 | 16))
            InterfaceIndexOrZero ::= TEXTUAL-CONVENTION DISPLAY-HINT "d" SYNTAX Integer32 (0..2147483647)
            """;

    @Test
    void newVmmMibKeepsRfc7666sOidsSyntaxAndVarbindsExceptTheListedDifferences() throws IOException {
        Module rfc = Module.parse(resource("rfc7666/VM-MIB"), resource("rfc7666/IANA-STORAGE-MEDIA-TYPE-MIB"),
                BASE_CONVENTIONS);
        Module ours = newVmmMib();
        assertThat(rfc.definitions).containsKeys("vmStorageVmIndex", "vmAffectedVMs", "vmBulkDeleted");
        assertThat(ours.definitions).containsKeys("vmConfigRowStatus", "vmStorageIndex", "vmDeleted");

        List<String> problems = new ArrayList<>();
        Set<String> added = new TreeSet<>();
        ADDED.values().forEach(added::addAll);
        for (Definition r : rfc.definitions.values()) {
            if (r.kind.equals("MODULE-IDENTITY")) continue;
            Definition o = ours.definitions.get(r.name);
            if (OMITTED.containsKey(r.name)) {
                if (o != null) problems.add(r.name + " is listed as omitted but NEW-VMM-MIB has it");
                continue;
            }
            if (o == null) {
                problems.add(r.name + " (RFC 7666 " + r.kind + ") is missing and not listed as omitted");
                continue;
            }
            if (!o.kind.equals(r.kind)) problems.add(r.name + ": " + o.kind + ", RFC 7666 has " + r.kind);
            if (MOVED.containsKey(r.name)) {
                String[] at = MOVED.get(r.name).split(" ");
                List<Integer> expected = ours.oid(at[0], Integer.parseInt(at[1]));
                if (!ours.oid(r.name).equals(expected)) problems.add(r.name + " is not where MOVED says: " + ours.oid(r.name));
                if (ours.oid(r.name).equals(rfc.oid(r.name))) problems.add(r.name + " is listed as moved but is at RFC 7666's OID");
                continue;
            }
            if (!ours.oid(r.name).equals(rfc.oid(r.name))) {
                problems.add(r.name + " is at " + ours.oid(r.name) + ", RFC 7666 has " + rfc.oid(r.name));
            }
            if (r.kind.equals("OBJECT-TYPE")) {
                Syntax rs = rfc.resolve(r.syntax), os = ours.resolve(o.syntax);
                if (CHANGED_SYNTAX.containsKey(r.name)) {
                    if (rs.equals(os)) problems.add(r.name + " is listed as changed but has RFC 7666's syntax");
                } else if (!rs.equals(os)) {
                    problems.add(r.name + " has syntax " + os + ", RFC 7666 has " + rs);
                }
                if (!Objects.equals(r.access, o.access)) problems.add(r.name + " is " + o.access + ", RFC 7666 has " + r.access);
            }
            if (!o.objects.equals(r.objects)) problems.add(r.name + " lists " + o.objects + ", RFC 7666 lists " + r.objects);
        }
        for (Definition o : ours.definitions.values()) {
            if (o.kind.equals("MODULE-IDENTITY") || rfc.definitions.containsKey(o.name)) continue;
            if (!added.contains(o.name)) problems.add(o.name + " (" + o.kind + ") is not in RFC 7666 and not listed as added");
            for (Definition r : rfc.definitions.values()) {
                if (!r.kind.equals("MODULE-IDENTITY") && rfc.oid(r.name).equals(ours.oid(o.name))) {
                    problems.add(o.name + " takes " + r.name + "'s OID " + ours.oid(o.name));
                }
            }
        }
        for (String name : added) {
            if (!ours.definitions.containsKey(name) || rfc.definitions.containsKey(name)) {
                problems.add(name + " is listed as added but is not a NEW-VMM-MIB-only definition");
            }
        }
        for (Map.Entry<String, Convention> tc : ours.conventions.entrySet()) {
            if (rfc.conventions.containsKey(tc.getKey()) && !rfc.resolve(tc.getKey()).equals(ours.resolve(tc.getKey()))) {
                problems.add("textual convention " + tc.getKey() + " is " + ours.resolve(tc.getKey()) + ", RFC 7666 has "
                        + rfc.resolve(tc.getKey()));
            }
        }
        assertThat(problems).as("differences from RFC 7666 that are not listed").isEmpty();
    }

    @Test
    void theMibAndTheReadmeNameEveryDeliberateDifference() throws IOException {
        Module ours = newVmmMib();
        String description = ours.moduleDescription.replaceAll("\\s+", " ");
        String readme = Files.readString(Path.of("README.md"));
        List<String> names = new ArrayList<>(OMITTED.keySet());
        names.addAll(MOVED.keySet());
        names.addAll(CHANGED_SYNTAX.keySet());
        names.addAll(ADDED.keySet());
        for (String name : names) {
            assertThat(description).as("NEW-VMM-MIB's DESCRIPTION names " + name).contains(name);
            assertThat(readme).as("README names " + name).contains(name);
        }
    }

    @Test
    void theAgentsObjectIdentifiersAreTheMibs() throws IOException {
        Module ours = newVmmMib();
        Map<String, OID> agent = new LinkedHashMap<>();
        agent.put("vmPerVMNotificationsEnabled", VmmMib.VM_PER_VM_NOTIFICATIONS_ENABLED);
        agent.put("vmBulkNotificationsEnabled", VmmMib.VM_BULK_NOTIFICATIONS_ENABLED);
        agent.put("vmAffectedVMs", VmmMib.VM_AFFECTED_VMS);
        agent.put("vmConfigNextAvailableVmIndex", VmmMib.VM_CONFIG_NEXT_AVAILABLE_VM_INDEX);
        agent.put("vmConfiguredVMs", VmmMib.VM_CONFIGURED_VMS);
        agent.put("vmActiveVMs", VmmMib.VM_ACTIVE_VMS);
        agent.put("vmVrouterAgent", VmmMib.VROUTER_AGENT);
        agent.put("vmEntry", VmmMib.VM_ENTRY);
        agent.put("vmCpuEntry", VmmMib.VM_CPU_ENTRY);
        agent.put("vmCpuAffinityEntry", VmmMib.VM_CPU_AFFINITY_ENTRY);
        agent.put("vmStorageEntry", VmmMib.VM_STORAGE_ENTRY);
        agent.put("vmNetworkEntry", VmmMib.VM_NETWORK_ENTRY);
        agent.put("vmConfigEntry", VmmMib.VM_CONFIG_ENTRY);
        agent.put("vmNetworkConfigEntry", VmmMib.VM_NETWORK_CONFIG_ENTRY);
        agent.put("vmMigrationEntry", MigrationTable.ENTRY);
        agent.put("vmDrain", DrainScalars.DRAIN);
        agent.put("vmUUID", VmmMib.sub(VmmMib.VM_ENTRY, VmmMib.VM_UUID));
        agent.put("vmOperState", VmmMib.sub(VmmMib.VM_ENTRY, VmmMib.VM_OPER_STATE));
        agent.put("vmPersistent", VmmMib.sub(VmmMib.VM_ENTRY, VmmMib.VM_PERSISTENT));
        agent.put("vmName", VmmMib.sub(VmmMib.VM_CONFIG_ENTRY, VmmMib.VM_NAME));
        agent.put("vmCpuCoreTime", VmmMib.sub(VmmMib.VM_CPU_ENTRY, VmmMib.CPU_CORE_TIME));
        agent.put("vmCpuAffinity", VmmMib.sub(VmmMib.VM_CPU_AFFINITY_ENTRY, VmmMib.CPU_AFFINITY));
        Map<String, Integer> storage = new LinkedHashMap<>();
        storage.put("vmStorageParent", VmmMib.STORAGE_PARENT);
        storage.put("vmStorageSourceType", VmmMib.STORAGE_SOURCE_TYPE);
        storage.put("vmStorageSourceTypeString", VmmMib.STORAGE_SOURCE_TYPE_STRING);
        storage.put("vmStorageResourceID", VmmMib.STORAGE_RESOURCE_ID);
        storage.put("vmStorageAccess", VmmMib.STORAGE_ACCESS);
        storage.put("vmStorageMediaType", VmmMib.STORAGE_MEDIA_TYPE);
        storage.put("vmStorageMediaTypeString", VmmMib.STORAGE_MEDIA_TYPE_STRING);
        storage.put("vmStorageSizeUnit", VmmMib.STORAGE_SIZE_UNIT);
        storage.put("vmStorageDefinedSize", VmmMib.STORAGE_DEFINED_SIZE);
        storage.put("vmStorageAllocatedSize", VmmMib.STORAGE_ALLOCATED_SIZE);
        storage.put("vmStorageReadIOs", VmmMib.STORAGE_READ_IOS);
        storage.put("vmStorageWriteIOs", VmmMib.STORAGE_WRITE_IOS);
        storage.put("vmStorageReadOctets", VmmMib.STORAGE_READ_OCTETS);
        storage.put("vmStorageWriteOctets", VmmMib.STORAGE_WRITE_OCTETS);
        storage.put("vmStorageReadLatency", VmmMib.STORAGE_READ_LATENCY);
        storage.put("vmStorageWriteLatency", VmmMib.STORAGE_WRITE_LATENCY);
        storage.forEach((name, column) -> agent.put(name, VmmMib.sub(VmmMib.VM_STORAGE_ENTRY, column)));
        List<OID> notifications = List.of(VmmMib.VM_RUNNING, VmmMib.VM_SHUTTINGDOWN, VmmMib.VM_SHUTDOWN, VmmMib.VM_PAUSED,
                VmmMib.VM_SUSPENDING, VmmMib.VM_SUSPENDED, VmmMib.VM_RESUMING, VmmMib.VM_MIGRATING, VmmMib.VM_CRASHED,
                VmmMib.VM_DELETED);
        List<String> names = List.of("vmRunning", "vmShuttingdown", "vmShutdown", "vmPaused", "vmSuspending",
                "vmSuspended", "vmResuming", "vmMigrating", "vmCrashed", "vmDeleted");
        for (int n = 0; n < names.size(); n++) agent.put(names.get(n), notifications.get(n));

        agent.forEach((name, oid) -> assertThat(oid).as(name).isEqualTo(absolute(ours, name)));
        assertThat(storage.values()).as("every vmStorageTable column past its index")
                .containsExactlyInAnyOrderElementsOf(ours.definitions.values().stream()
                        .filter(d -> d.parent.equals("vmStorageEntry") && d.access.startsWith("read")).map(d -> d.number).toList());
    }

    /** The OID of a NEW-VMM-MIB definition, from the MIB's text. */
    static OID absolute(Module newVmmMib, String name) {
        OID oid = new OID(VmmMib.ROOT);
        newVmmMib.oid(name).forEach(oid::append);
        return oid;
    }

    /** NEW-VMM-MIB as its text defines it. */
    static Module newVmmMib() throws IOException {
        return Module.parse(resource("mibs/NEW-VMM-MIB"), BASE_CONVENTIONS);
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = Rfc7666ConformanceTest.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name + " on the class path").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    // ------------------------------------------------------------------ a small SMIv2 reader

    /** A syntax with its textual conventions resolved: what a value is on the wire, and how it shows. */
    record Syntax(String base, String constraint, Map<String, Integer> labels, String hint) {
    }

    /** A SYNTAX clause as written: a type name, an optional range or size, an optional enumeration. */
    record Written(String type, String constraint, Map<String, Integer> labels) {
    }

    record Convention(Written syntax, String hint) {
    }

    /** A named definition: its kind, {parent number}, and what of it is compared. */
    record Definition(String name, String kind, String parent, int number, Written syntax, String access,
                      List<String> objects) {
    }

    static final class Module {
        final Map<String, Definition> definitions = new LinkedHashMap<>();
        final Map<String, Convention> conventions = new LinkedHashMap<>();
        String moduleDescription = "";

        /** Reads the modules' definitions (of the first) and textual conventions (of all). */
        static Module parse(String main, String... others) {
            Module m = new Module();
            m.read(tokens(main), true);
            for (String other : others) m.read(tokens(other), false);
            return m;
        }

        /** The OID below the MODULE-IDENTITY of a definition. */
        List<Integer> oid(String name) {
            Definition d = definitions.get(name);
            assertThat(d).as("definition of " + name).isNotNull();
            if (d.kind.equals("MODULE-IDENTITY")) return List.of();
            return oid(d.parent, d.number);
        }

        List<Integer> oid(String parent, int number) {
            List<Integer> oid = new ArrayList<>(oid(parent));
            oid.add(number);
            return oid;
        }

        Syntax resolve(String convention) {
            return resolve(new Written(convention, null, Map.of()));
        }

        Syntax resolve(Written w) {
            if (!w.labels.isEmpty()) return new Syntax("INTEGER", w.constraint, w.labels, null);
            Convention tc = conventions.get(w.type);
            if (tc == null) return new Syntax(w.type.equals("INTEGER") ? "Integer32" : w.type, w.constraint, Map.of(), null);
            Syntax base = resolve(tc.syntax);
            return new Syntax(base.base, w.constraint != null ? w.constraint : base.constraint, base.labels, tc.hint);
        }

        private void read(List<String> t, boolean withDefinitions) {
            for (int i = 0; i + 2 < t.size(); i++) {
                String name = t.get(i), next = t.get(i + 1);
                if (Character.isUpperCase(name.charAt(0)) && next.equals("::=") && t.get(i + 2).equals("TEXTUAL-CONVENTION")) {
                    i = convention(t, name, i + 3);
                } else if (withDefinitions && Character.isLowerCase(name.charAt(0))) {
                    if (Set.of("OBJECT-TYPE", "NOTIFICATION-TYPE", "OBJECT-GROUP", "NOTIFICATION-GROUP", "MODULE-COMPLIANCE",
                            "MODULE-IDENTITY", "OBJECT-IDENTITY").contains(next)) {
                        i = macro(t, name, next, i + 2);
                    } else if (next.equals("OBJECT") && t.get(i + 2).equals("IDENTIFIER") && t.get(i + 3).equals("::=")) {
                        i = assignment(t, name, "OBJECT IDENTIFIER", i + 4, null, null, List.of());
                    }
                }
            }
        }

        private int convention(List<String> t, String name, int i) {
            String hint = null;
            while (!t.get(i).equals("SYNTAX")) {
                if (t.get(i).equals("DISPLAY-HINT")) hint = unquote(t.get(++i));
                i++;
            }
            int[] end = new int[1];
            conventions.put(name, new Convention(syntax(t, i + 1, end), hint));
            return end[0] - 1;
        }

        private int macro(List<String> t, String name, String kind, int i) {
            Written syntax = null;
            String access = null;
            List<String> objects = List.of();
            boolean compliance = kind.equals("MODULE-COMPLIANCE");
            for (; !t.get(i).equals("::="); i++) {
                String w = t.get(i);
                if (w.equals("SYNTAX") && syntax == null && !compliance) {
                    int[] end = new int[1];
                    syntax = syntax(t, i + 1, end);
                    i = end[0] - 1;
                } else if (w.equals("MAX-ACCESS") && access == null && !compliance) {
                    access = t.get(++i);
                } else if ((w.equals("OBJECTS") || w.equals("NOTIFICATIONS")) && objects.isEmpty() && !compliance) {
                    objects = new ArrayList<>();
                    for (i += 2; !t.get(i).equals("}"); i++) if (!t.get(i).equals(",")) objects.add(t.get(i));
                } else if (w.equals("DESCRIPTION") && kind.equals("MODULE-IDENTITY") && moduleDescription.isEmpty()) {
                    moduleDescription = unquote(t.get(++i));
                }
            }
            return assignment(t, name, kind, i + 1, syntax, access, objects);
        }

        /** The { parent number } after ::= at i. */
        private int assignment(List<String> t, String name, String kind, int i, Written syntax, String access, List<String> objects) {
            assertThat(t.get(i)).as("{ after ::= of " + name).isEqualTo("{");
            definitions.put(name, new Definition(name, kind, t.get(i + 1), Integer.parseInt(t.get(i + 2)), syntax, access, objects));
            return i + 3;
        }

        /** A syntax from i on; end[0] is the index after it. */
        private static Written syntax(List<String> t, int i, int[] end) {
            String type = t.get(i++);
            if (type.equals("OCTET") || type.equals("OBJECT")) type += " " + t.get(i++);
            if (type.equals("SEQUENCE")) type += " " + t.get(i++) + " " + t.get(i++);
            Map<String, Integer> labels = new LinkedHashMap<>();
            String constraint = null;
            if (t.get(i).equals("{")) {
                for (i++; !t.get(i).equals("}"); i++) {
                    if (t.get(i).equals(",")) continue;
                    labels.put(t.get(i), Integer.parseInt(t.get(i + 2)));
                    i += 3;
                }
                i++;
            } else if (t.get(i).equals("(")) {
                StringBuilder c = new StringBuilder();
                int depth = 0;
                do {
                    String s = t.get(i++);
                    depth += s.equals("(") ? 1 : s.equals(")") ? -1 : 0;
                    c.append(s);
                } while (depth > 0);
                constraint = c.toString();
            }
            end[0] = i;
            return new Written(type, constraint, labels);
        }

        private static String unquote(String s) {
            return s.substring(1, s.length() - 1);
        }
    }

    /** The tokens of a module: words, numbers, quoted strings, punctuation; comments dropped. */
    static List<String> tokens(String text) {
        List<String> out = new ArrayList<>();
        int n = text.length();
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (text.startsWith("--", i)) {
                // A comment runs to the end of the line or to the next "--".
                int j = i + 2;
                while (j < n && text.charAt(j) != '\n' && !text.startsWith("--", j)) j++;
                i = j < n && text.charAt(j) != '\n' ? j + 2 : j;
            } else if (c == '"' || c == '\'') {
                int j = text.indexOf(c, i + 1);
                out.add(text.substring(i, j + 1));
                i = j + 1;
            } else if (text.startsWith("::=", i) || text.startsWith("..", i)) {
                out.add(text.substring(i, i + (text.charAt(i) == ':' ? 3 : 2)));
                i += text.charAt(i) == ':' ? 3 : 2;
            } else {
                int j = i;
                while (j < n && (Character.isLetterOrDigit(text.charAt(j)) || text.charAt(j) == '-' && !text.startsWith("--", j))) j++;
                if (j == i) j++;
                out.add(text.substring(i, j));
                i = j;
            }
        }
        return out;
    }
}
