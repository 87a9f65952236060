package io.vrouter.netconf.nacm;

import io.vrouter.netconf.protocol.RpcError;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.nacm.Nacm;
import io.vrouter.yang.nacm.NacmConfig;
import io.vrouter.yang.nacm.NacmPath;
import io.vrouter.yang.Ns;
import io.vrouter.yang.edit.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.w3c.dom.Element;

/**
 * An edit-config of {@code /nacm}: the {@code <nacm>} element applied to a copy of the configuration
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

    /** The configuration {@code current} edited by {@code nacm}; refused with the rpc-error that says why. */
    public static NacmConfig apply(NacmConfig current, Element nacm, Operation defaultOp) throws RpcError {
        Operation op = operation(nacm, defaultOp, TOP);
        NacmConfig c = switch (op) {
            case DELETE, REMOVE -> new NacmConfig();
            case REPLACE -> yangDefaults();
            case CREATE -> throw new RpcError(Type.APPLICATION, "data-exists", null, TOP, "/nacm exists: it always does");
            default -> current.copy();
        };
        if (op == Operation.DELETE || op == Operation.REMOVE) return c;
        Operation below = below(op);
        for (Element e : SecureXml.children(nacm)) {
            String name = e.getLocalName();
            String path = TOP + "/" + NacmConfig.MODULE + ":" + name;
            if (!NacmConfig.NS.equals(e.getNamespaceURI())) {
                throw RpcError.unknownElement(Type.APPLICATION, TOP, name, "nacm has no node '" + name + "'");
            }
            if (STATE.contains(name)) throw RpcError.invalidValue(path, name + " is state data: it cannot be edited").info("bad-element", name);
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
                default -> throw RpcError.unknownElement(Type.APPLICATION, TOP, name, "nacm has no node '" + name + "'");
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

    private static void groups(NacmConfig c, Element groups, Operation op, String path) throws RpcError {
        if (op == Operation.DELETE || op == Operation.REMOVE || op == Operation.REPLACE) c.groups.clear();
        if (op == Operation.DELETE || op == Operation.REMOVE) return;
        for (Element g : SecureXml.children(groups)) {
            if (!"group".equals(g.getLocalName())) throw RpcError.unknownElement(Type.APPLICATION, path, g.getLocalName(), "groups holds group entries");
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

    private static void ruleList(NacmConfig c, Element e, Operation inherited, String path) throws RpcError {
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
        for (Element r : SecureXml.children(e)) {
            if ("rule".equals(r.getLocalName())) rule(l, r, below, at + "/" + NacmConfig.MODULE + ":rule");
            else if (!"name".equals(r.getLocalName()) && !"group".equals(r.getLocalName())) {
                throw RpcError.unknownElement(Type.APPLICATION, at, r.getLocalName(), "rule-list has no node '" + r.getLocalName() + "'");
            }
        }
    }

    private static void rule(NacmConfig.RuleList list, Element e, Operation inherited, String path) throws RpcError {
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
        for (Element leaf : SecureXml.children(e)) {
            String n = leaf.getLocalName();
            if (n.equals("name")) continue;
            boolean reset = isDelete(operation(leaf, below(op), at));
            String v = reset ? null : SecureXml.text(leaf).trim();
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
                default -> throw RpcError.unknownElement(Type.APPLICATION, at, n, "rule has no node '" + n + "'");
            }
        }
        if (existing == null) list.rules.add(r);
        else list.rules.set(list.rules.indexOf(existing), r);
    }

    /** Whether an entry stays after its operation (false: it goes); refuses create of one there and delete of one not. */
    private static boolean entry(Operation op, boolean exists, String at) throws RpcError {
        if (op == Operation.DELETE && !exists) throw new RpcError(Type.APPLICATION, "data-missing", null, at, "there is no " + at);
        if (op == Operation.CREATE && exists) throw new RpcError(Type.APPLICATION, "data-exists", null, at, at + " exists already");
        return !isDelete(op);
    }

    private static void leafList(Element parent, String name, Operation op, String at, Consumer<String> remove,
                                 Consumer<String> add) throws RpcError {
        for (Element v : SecureXml.children(parent)) {
            if (!name.equals(v.getLocalName())) continue;
            String value = SecureXml.text(v).trim();
            if (value.isEmpty()) throw RpcError.invalidValue(at, name + " is empty").info("bad-element", name);
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

    private static Operation operation(Element e, Operation inherited, String at) throws RpcError {
        String attr = e.getAttributeNS(Ns.BASE, "operation");
        if (attr.isEmpty()) return inherited;
        Operation op = Operation.ofAttribute(attr);
        if (op == null) throw new RpcError(Type.PROTOCOL, "bad-attribute", null, at, "no operation '" + attr + "'").info("bad-attribute", "operation");
        return op;
    }

    private static String key(Element entry, String at) throws RpcError {
        Element k = SecureXml.child(entry, NacmConfig.NS, "name");
        String name = k == null ? "" : SecureXml.text(k).trim();
        if (name.isEmpty()) throw RpcError.missingElement(Type.PROTOCOL, at, "name", entry.getLocalName() + " needs its name");
        return name;
    }

    private static boolean bool(Element e, String path) throws RpcError {
        String v = SecureXml.text(e).trim();
        if (!v.equals("true") && !v.equals("false")) throw RpcError.invalidValue(path, e.getLocalName() + " is true or false");
        return Boolean.parseBoolean(v);
    }

    private static String action(Element e, String path) throws RpcError {
        String v = SecureXml.text(e).trim();
        if (!v.equals("permit") && !v.equals("deny")) throw RpcError.invalidValue(path, e.getLocalName() + " is permit or deny");
        return v;
    }

    /** The whole configuration's constraints: names, each rule's action, path and access operations. */
    private static void check(NacmConfig c) throws RpcError {
        for (String g : c.groups.keySet()) {
            if (g.startsWith("*")) throw RpcError.invalidValue(TOP, "group name '" + g + "' must not start with '*'");
        }
        for (NacmConfig.RuleList l : c.ruleLists) {
            for (NacmConfig.Rule r : l.rules) {
                String at = TOP + "/" + NacmConfig.MODULE + ":rule-list[name='" + l.name + "']/" + NacmConfig.MODULE
                        + ":rule[name='" + r.name + "']";
                if (r.action == null) throw new RpcError(Type.APPLICATION, "data-missing", "mandatory", at, "rule '" + r.name + "' needs an action");
                if (!r.action.equals("permit") && !r.action.equals("deny")) {
                    throw RpcError.invalidValue(at + "/" + NacmConfig.MODULE + ":action", "action is permit or deny");
                }
                try {
                    Nacm.operations(r.accessOperations);
                } catch (IllegalArgumentException e) {
                    throw RpcError.invalidValue(at + "/" + NacmConfig.MODULE + ":access-operations",
                            "access-operations is * or some of create read update delete exec");
                }
                if (r.path != null) {
                    try {
                        NacmPath.parse(r.path);
                    } catch (IllegalArgumentException e) {
                        throw RpcError.invalidValue(at + "/" + NacmConfig.MODULE + ":path", "path '" + r.path + "': " + e.getMessage());
                    }
                }
            }
        }
    }
}
