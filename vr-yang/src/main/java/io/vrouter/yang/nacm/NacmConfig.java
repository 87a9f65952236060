package io.vrouter.yang.nacm;

import io.vrouter.yang.DataNode;
import io.vrouter.yang.WithDefaults;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The configuration of {@code /nacm} (RFC 8341, module ietf-netconf-acm): the switches and defaults,
 * the groups and the rule lists, in order. Mutable for an edit, which works on a {@link #copy};
 * kept as JSON in the data directory (the public fields are what Jackson writes).
 */
public final class NacmConfig {
    public static final String NS = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm";
    public static final String MODULE = "ietf-netconf-acm";

    public boolean enableNacm = true;
    public String readDefault = "permit";
    /**
     * RFC 8341's default is deny; the server's factory configuration says permit, so that the
     * operators of tenants change their VRs without a rule (the core confines them to their own).
     */
    public String writeDefault = "permit";
    public String execDefault = "permit";
    public boolean enableExternalGroups = true;
    /** Group name to its user names. */
    public Map<String, List<String>> groups = new LinkedHashMap<>();
    public List<RuleList> ruleLists = new ArrayList<>();

    /** One rule-list: the groups it applies to ("*": all) and its rules, in order. */
    public static final class RuleList {
        public String name;
        public List<String> groups = new ArrayList<>();
        public List<Rule> rules = new ArrayList<>();

        public RuleList copy() {
            RuleList c = new RuleList();
            c.name = name;
            c.groups = new ArrayList<>(groups);
            for (Rule r : rules) c.rules.add(r.copy());
            return c;
        }
    }

    /**
     * One rule: the module ("*": any), at most one of rpc-name, notification-name and path (none:
     * any request), the access operations ("*" or a space-separated set of create read update delete
     * exec) and the action (permit or deny).
     */
    public static final class Rule {
        public String name;
        public String moduleName = "*";
        public String rpcName;
        public String notificationName;
        public String path;
        public String accessOperations = "*";
        public String action;
        public String comment;
        /** The path parsed, once (checked when the rule was edited). */
        private NacmPath parsedPath;

        NacmPath parsedPath() {
            if (parsedPath == null && path != null) parsedPath = NacmPath.parse(path);
            return parsedPath;
        }

        public Rule copy() {
            Rule c = new Rule();
            c.name = name;
            c.moduleName = moduleName;
            c.rpcName = rpcName;
            c.notificationName = notificationName;
            c.path = path;
            c.accessOperations = accessOperations;
            c.action = action;
            c.comment = comment;
            return c;
        }
    }

    public NacmConfig copy() {
        NacmConfig c = new NacmConfig();
        c.enableNacm = enableNacm;
        c.readDefault = readDefault;
        c.writeDefault = writeDefault;
        c.execDefault = execDefault;
        c.enableExternalGroups = enableExternalGroups;
        groups.forEach((g, users) -> c.groups.put(g, new ArrayList<>(users)));
        for (RuleList l : ruleLists) c.ruleLists.add(l.copy());
        return c;
    }

    public RuleList ruleList(String name) {
        for (RuleList l : ruleLists) {
            if (l.name.equals(name)) return l;
        }
        return null;
    }

    public static Rule rule(RuleList list, String name) {
        for (Rule r : list.rules) {
            if (r.name.equals(name)) return r;
        }
        return null;
    }

    /**
     * {@code /nacm} as the data tree shows it: the configuration, and with {@code counters} the state
     * leaves; the leaves that have a default in the module as the with-defaults mode shows them (RFC 6243).
     */
    DataNode tree(Nacm counters, WithDefaults mode) {
        DataNode.Inner nacm = DataNode.inner(NS, "nacm");
        leaf(nacm, mode, "enable-nacm", String.valueOf(enableNacm), "true", DataNode.Json.BOOLEAN);
        leaf(nacm, mode, "read-default", readDefault, "permit");
        leaf(nacm, mode, "write-default", writeDefault, "deny");
        leaf(nacm, mode, "exec-default", execDefault, "permit");
        leaf(nacm, mode, "enable-external-groups", String.valueOf(enableExternalGroups), "true", DataNode.Json.BOOLEAN);
        if (counters != null) {
            // zero-based-counter32: numbers in JSON (RFC 7951)
            nacm.addUnsigned32("denied-operations", counters.deniedOperations())
                    .addUnsigned32("denied-data-writes", counters.deniedDataWrites())
                    .addUnsigned32("denied-notifications", counters.deniedNotifications());
        }
        DataNode.Inner g = DataNode.inner(NS, "groups");
        groups.forEach((name, users) -> {
            DataNode.Inner group = DataNode.inner(NS, "group", "name").add("name", name);
            for (String u : users) group.addLeafList("user-name", u);
            g.add(group);
        });
        nacm.add(g);
        for (RuleList l : ruleLists) {
            DataNode.Inner list = DataNode.inner(NS, "rule-list", "name").add("name", l.name);
            for (String group : l.groups) list.addLeafList("group", group);
            for (Rule r : l.rules) {
                DataNode.Inner rule = DataNode.inner(NS, "rule", "name").add("name", r.name);
                leaf(rule, mode, "module-name", r.moduleName, "*");
                rule.add("rpc-name", r.rpcName).add("notification-name", r.notificationName).add("path", r.path);
                leaf(rule, mode, "access-operations", r.accessOperations, "*");
                list.add(rule.add("action", r.action).add("comment", r.comment));
            }
            nacm.add(list);
        }
        return nacm;
    }

    private static void leaf(DataNode.Inner parent, WithDefaults mode, String name, String value, String byDefault) {
        leaf(parent, mode, name, value, byDefault, DataNode.Json.STRING);
    }

    private static void leaf(DataNode.Inner parent, WithDefaults mode, String name, String value, String byDefault,
                             DataNode.Json json) {
        boolean isDefault = value.equals(byDefault);
        if (isDefault && mode == WithDefaults.TRIM) return;
        DataNode leaf = DataNode.leaf(NS, name, value, json);
        parent.add(isDefault && mode == WithDefaults.REPORT_ALL_TAGGED ? DataNode.taggedDefault(leaf) : leaf);
    }
}
