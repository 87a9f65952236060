package io.vrouter.yang.nacm;

import io.vrouter.yang.edit.EditNode;
import io.vrouter.yang.edit.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * An edit of {@code /nacm} (NETCONF's edit-config, RESTCONF's PUT, PATCH and DELETE): the {@code nacm} node applied to a copy of the configuration
 * in force, with the operations of RFC 6241 section 7.2 on the container, its leaves, the groups,
 * the rule lists and the rules (entries are matched by name; a new rule list or rule goes after
 * the others, as YANG's {@code insert} is not offered), then checked whole. Nothing is changed
 * until the caller takes the result.
 */
public final class NacmEdit {
    private static final String TOP = "/" + NacmConfig.MODULE + ":nacm";
    private static final Set<String> STATE = Set.of("denied-operations", "denied-data-writes", "denied-notifications");

    private NacmEdit() {
    }

    /**
     * An edit refused: the error-tag, error-app-tag, error-path and, for NETCONF, the error-info
     * (bad-element or bad-attribute); {@code protocol} when the error-type is protocol, not application.
     */
    public static final class Refused extends Exception {
        public final boolean protocol;
        public final String tag;
        public final String appTag;
        public final String path;
        public final String infoName;
        public final String infoValue;

        Refused(boolean protocol, String tag, String appTag, String path, String message, String infoName, String infoValue) {
            super(message);
            this.protocol = protocol;
            this.tag = tag;
            this.appTag = appTag;
            this.path = path;
            this.infoName = infoName;
            this.infoValue = infoValue;
        }

        Refused(String tag, String appTag, String path, String message) {
            this(false, tag, appTag, path, message, null, null);
        }
    }

    private static Refused unknownEditNode(String path, String element, String message) {
        return new Refused(false, "unknown-element", null, path, message, "bad-element", element);
    }

    private static Refused invalidValue(String path, String message) {
        return new Refused("invalid-value", null, path, message);
    }

    /** The configuration {@code current} edited by {@code nacm}; refused with the rpc-error that says why. */
    public static NacmConfig apply(NacmConfig current, EditNode nacm, Operation defaultOp) throws Refused {
        Operation op = operation(nacm, defaultOp, TOP);
        NacmConfig c = switch (op) {
            case DELETE, REMOVE -> new NacmConfig();
            case REPLACE -> yangDefaults();
            case CREATE -> throw new Refused("data-exists", null, TOP, "/nacm exists: it always does");
            default -> current.copy();
        };
        if (op == Operation.DELETE || op == Operation.REMOVE) return c;
        Operation below = below(op);
        for (EditNode e : nacm.children()) {
            String name = e.name();
            String path = TOP + "/" + NacmConfig.MODULE + ":" + name;
            if (!NacmConfig.NS.equals(e.ns())) {
                throw unknownEditNode(TOP, name, "nacm has no node '" + name + "'");
            }
            if (STATE.contains(name)) throw new Refused(false, "invalid-value", null, path, name + " is state data: it cannot be edited", "bad-element", name);
            Operation leafOp = operation(e, below, path);
            boolean reset = leafOp == Operation.DELETE || leafOp == Operation.REMOVE;
            NacmConfig d = yangDefaults();
            switch (name) {
                case "enable-nacm" -> c.enableNacm = reset ? d.enableNacm : bool(e, path);
                case "enable-external-groups" -> c.enableExternalGroups = reset ? d.enableExternalGroups : bool(e, path);
                case "read-default" -> c.readDefault = reset ? d.readDefault : action(e, path);
                case "write-default" -> c.writeDefault = reset ? d.writeDefault : action(e, path);
                case "exec-default" -> c.execDefault = reset ? d.execDefault : action(e, path);
                case "groups" -> groups(c, e, leafOp, path);
                case "rule-list" -> ruleList(c, e, below, path);
                default -> throw unknownEditNode(TOP, name, "nacm has no node '" + name + "'");
            }
        }
        check(c);
        return c;
    }

    /** The module's defaults, as a replace of /nacm leaves them (write-default deny). */
    private static NacmConfig yangDefaults() {
        NacmConfig c = new NacmConfig();
        c.writeDefault = "deny";
        return c;
    }

    private static void groups(NacmConfig c, EditNode groups, Operation op, String path) throws Refused {
        if (op == Operation.DELETE || op == Operation.REMOVE || op == Operation.REPLACE) c.groups.clear();
        if (op == Operation.DELETE || op == Operation.REMOVE) return;
        for (EditNode g : groups.children()) {
            if (!"group".equals(g.name())) throw unknownEditNode(path, g.name(), "groups holds group entries");
            String name = key(g, path + "/" + NacmConfig.MODULE + ":group");
            String at = path + "/" + NacmConfig.MODULE + ":group[name='" + name + "']";
            Operation gop = operation(g, below(op), at);
            boolean exists = c.groups.containsKey(name);
            if (!entry(gop, exists, at)) {
                c.groups.remove(name);
                continue;
            }
            if (gop == Operation.REPLACE || !exists) c.groups.put(name, new ArrayList<>());
            List<String> users = c.groups.get(name);
            leafList(g, "user-name", below(gop), at, users::remove, u -> {
                if (!users.contains(u)) users.add(u);
            });
        }
    }

    private static void ruleList(NacmConfig c, EditNode e, Operation inherited, String path) throws Refused {
        String name = key(e, path);
        String at = path + "[name='" + name + "']";
        Operation op = operation(e, inherited, at);
        NacmConfig.RuleList existing = c.ruleList(name);
        if (!entry(op, existing != null, at)) {
            c.ruleLists.remove(existing);
            return;
        }
        NacmConfig.RuleList list = new NacmConfig.RuleList();
        list.name = name;
        if (existing != null && op != Operation.REPLACE) list = existing;
        if (existing == null) c.ruleLists.add(list);
        else c.ruleLists.set(c.ruleLists.indexOf(existing), list);
        NacmConfig.RuleList l = list;
        Operation below = below(op);
        leafList(e, "group", below, at, l.groups::remove, g -> {
            if (!l.groups.contains(g)) l.groups.add(g);
        });
        for (EditNode r : e.children()) {
            if ("rule".equals(r.name())) rule(l, r, below, at + "/" + NacmConfig.MODULE + ":rule");
            else if (!"name".equals(r.name()) && !"group".equals(r.name())) {
                throw unknownEditNode(at, r.name(), "rule-list has no node '" + r.name() + "'");
            }
        }
    }

    private static void rule(NacmConfig.RuleList list, EditNode e, Operation inherited, String path) throws Refused {
        String name = key(e, path);
        String at = path + "[name='" + name + "']";
        Operation op = operation(e, inherited, at);
        NacmConfig.Rule existing = NacmConfig.rule(list, name);
        if (!entry(op, existing != null, at)) {
            list.rules.remove(existing);
            return;
        }
        NacmConfig.Rule r = existing == null || op == Operation.REPLACE ? new NacmConfig.Rule() : existing.copy();
        r.name = name;
        for (EditNode leaf : e.children()) {
            String n = leaf.name();
            if (n.equals("name")) continue;
            boolean reset = isDelete(operation(leaf, below(op), at));
            String v = reset ? null : leaf.value().trim();
            switch (n) {
                case "module-name" -> r.moduleName = v == null ? "*" : v;
                case "access-operations" -> r.accessOperations = v == null ? "*" : v;
                case "action" -> r.action = v;
                case "comment" -> r.comment = v;
                // rule-type is a choice: one case replaces the others
                case "rpc-name", "notification-name", "path" -> {
                    r.rpcName = n.equals("rpc-name") ? v : null;
                    r.notificationName = n.equals("notification-name") ? v : null;
                    r.path = n.equals("path") ? v : null;
                }
                default -> throw unknownEditNode(at, n, "rule has no node '" + n + "'");
            }
        }
        if (existing == null) list.rules.add(r);
        else list.rules.set(list.rules.indexOf(existing), r);
    }

    /** Whether an entry stays after its operation (false: it goes); refuses create of one there and delete of one not. */
    private static boolean entry(Operation op, boolean exists, String at) throws Refused {
        if (op == Operation.DELETE && !exists) throw new Refused("data-missing", null, at, "there is no " + at);
        if (op == Operation.CREATE && exists) throw new Refused("data-exists", null, at, at + " exists already");
        return !isDelete(op);
    }

    private static void leafList(EditNode parent, String name, Operation op, String at, Consumer<String> remove,
                                 Consumer<String> add) throws Refused {
        for (EditNode v : parent.children()) {
            if (!name.equals(v.name())) continue;
            String value = v.value().trim();
            if (value.isEmpty()) throw new Refused(false, "invalid-value", null, at, name + " is empty", "bad-element", name);
            if (isDelete(operation(v, op, at))) remove.accept(value); else add.accept(value);
        }
    }

    private static boolean isDelete(Operation op) {
        return op == Operation.DELETE || op == Operation.REMOVE;
    }

    /** What create and replace make is merged into below. */
    private static Operation below(Operation op) {
        return op == Operation.CREATE || op == Operation.REPLACE ? Operation.MERGE : op;
    }

    private static Operation operation(EditNode e, Operation inherited, String at) throws Refused {
        String attr = e.operation();
        if (attr == null || attr.isEmpty()) return inherited;
        Operation op = Operation.ofAttribute(attr);
        if (op == null) throw new Refused(true, "bad-attribute", null, at, "no operation '" + attr + "'", "bad-attribute", "operation");
        return op;
    }

    private static String key(EditNode entry, String at) throws Refused {
        EditNode k = entry.child("name");
        String name = k == null ? "" : k.value().trim();
        if (name.isEmpty()) throw new Refused(true, "missing-element", null, at, entry.name() + " needs its name", "bad-element", "name");
        return name;
    }

    private static boolean bool(EditNode e, String path) throws Refused {
        String v = e.value().trim();
        if (!v.equals("true") && !v.equals("false")) throw invalidValue(path, e.name() + " is true or false");
        return Boolean.parseBoolean(v);
    }

    private static String action(EditNode e, String path) throws Refused {
        String v = e.value().trim();
        if (!v.equals("permit") && !v.equals("deny")) throw invalidValue(path, e.name() + " is permit or deny");
        return v;
    }

    /** The whole configuration's constraints: names, each rule's action, path and access operations. */
    private static void check(NacmConfig c) throws Refused {
        for (String g : c.groups.keySet()) {
            if (g.startsWith("*")) throw invalidValue(TOP, "group name '" + g + "' must not start with '*'");
        }
        for (NacmConfig.RuleList l : c.ruleLists) {
            for (NacmConfig.Rule r : l.rules) {
                String at = TOP + "/" + NacmConfig.MODULE + ":rule-list[name='" + l.name + "']/" + NacmConfig.MODULE
                        + ":rule[name='" + r.name + "']";
                if (r.action == null) throw new Refused("data-missing", "mandatory", at, "rule '" + r.name + "' needs an action");
                if (!r.action.equals("permit") && !r.action.equals("deny")) {
                    throw invalidValue(at + "/" + NacmConfig.MODULE + ":action", "action is permit or deny");
                }
                try {
                    Nacm.operations(r.accessOperations);
                } catch (IllegalArgumentException e) {
                    throw invalidValue(at + "/" + NacmConfig.MODULE + ":access-operations",
                            "access-operations is * or some of create read update delete exec");
                }
                if (r.path != null) {
                    try {
                        NacmPath.parse(r.path);
                    } catch (IllegalArgumentException e) {
                        throw invalidValue(at + "/" + NacmConfig.MODULE + ":path", "path '" + r.path + "': " + e.getMessage());
                    }
                }
            }
        }
    }
}
