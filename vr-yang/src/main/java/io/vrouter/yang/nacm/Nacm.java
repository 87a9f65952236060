package io.vrouter.yang.nacm;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.config.Caller;
import io.vrouter.core.model.ModelJson;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.Ns;
import io.vrouter.yang.Schemas;
import io.vrouter.yang.edit.ConfigData;
import io.vrouter.yang.edit.ConfigEdits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Access control (RFC 8341), the {@link DataGuard} of NETCONF, RESTCONF and gNMI (one instance the
 * application makes): the {@code /nacm} configuration, kept in the data directory as
 * {@value #FILE} (written whole and moved into place, so a crash leaves the old or the new one), its
 * three counters, and the decisions for one user ({@link Access}).
 *
 * <p>A decision (section 3.4): NACM off (the setting {@code netconf.nacm=false}, the recovery path,
 * or {@code enable-nacm false}): permitted. Otherwise the rules of the rule lists of the user's
 * groups, in order, the first that matches decides; then the implicit rule of the provider's
 * operators (group {@value #ADMIN}): permitted; then what the modules mark default-deny-all
 * ({@code /nacm}, kill-session, delete-config): denied; then read-default, write-default or
 * exec-default. A user's groups are the {@code /nacm} groups that name it and, unless
 * {@code enable-external-groups} is false, the group the server's configuration gives it: its
 * tenant's name, or {@value #ADMIN} for the provider's operators.
 */
public final class Nacm implements DataGuard {
    static final String FILE = "netconf-nacm.json";
    /** The group of the provider's operators. */
    public static final String ADMIN = "admin";

    public enum Op { CREATE, READ, UPDATE, DELETE, EXEC }

    private final boolean enforced;
    private final Path file;
    private final ObjectMapper json = ModelJson.mapper();
    private volatile NacmConfig config;
    private final AtomicLong deniedOperations = new AtomicLong();
    private final AtomicLong deniedDataWrites = new AtomicLong();
    private final AtomicLong deniedNotifications = new AtomicLong();
    private static final Map<String, String> MODULES_BY_NAMESPACE = new HashMap<>();

    static {
        for (Schemas.Module m : Schemas.MODULES) MODULES_BY_NAMESPACE.putIfAbsent(m.namespace(), m.name());
    }

    /**
     * @param dataDir  where the configuration is kept (null: in memory only)
     * @param enforced false for the recovery path ({@code netconf.nacm=false}): nothing is denied
     * @throws IllegalStateException when the file there cannot be read: the server does not start
     *                               with no access control by mistake
     */
    public Nacm(Path dataDir, boolean enforced) {
        this.enforced = enforced;
        this.file = dataDir == null ? null : dataDir.resolve(FILE);
        this.config = load();
    }

    private NacmConfig load() {
        if (file == null || !Files.exists(file)) return new NacmConfig();
        try {
            return json.readValue(file.toFile(), NacmConfig.class);
        } catch (IOException e) {
            throw new IllegalStateException("the access control (NACM) configuration " + file + " cannot be read ("
                    + e.getMessage() + "): restore it from a backup, or delete it for the factory configuration");
        }
    }

    public boolean enforced() {
        return enforced;
    }

    public NacmConfig config() {
        return config;
    }

    /** Takes a new configuration: durable first, then in force. */
    public synchronized void replace(NacmConfig next) throws IOException {
        if (file != null) {
            Path tmp = file.resolveSibling(FILE + ".tmp");
            Files.write(tmp, json.writeValueAsBytes(next));
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        config = next;
    }

    public long deniedOperations() {
        return deniedOperations.get();
    }

    public long deniedDataWrites() {
        return deniedDataWrites.get();
    }

    public long deniedNotifications() {
        return deniedNotifications.get();
    }

    /** {@code /nacm}, with its counters when {@code state}, its defaults as the with-defaults mode shows them. */
    public DataNode tree(boolean state, io.vrouter.yang.WithDefaults mode) {
        return config.tree(state ? this : null, mode);
    }

    /** The module whose namespace a node is in ("*" matches it too). */
    public static String module(String namespace) {
        return MODULES_BY_NAMESPACE.getOrDefault(namespace, namespace);
    }

    @Override
    public Access access(Caller caller) {
        return new Access(caller);
    }

    /** The decisions for one user (a session's or a request's). */
    public final class Access implements DataGuard.Access {
        private final Caller caller;

        Access(Caller caller) {
            this.caller = caller;
        }

        /** The user's groups under the configuration in force. */
        Set<String> groups(NacmConfig c) {
            Set<String> out = new LinkedHashSet<>();
            c.groups.forEach((g, users) -> {
                if (users.contains(caller.user())) out.add(g);
            });
            if (c.enableExternalGroups) {
                if (caller.tenant() != null) {
                    out.add(caller.tenant());
                } else if (caller.mayChange()) {
                    out.add(ADMIN);
                }
            }
            return out;
        }

        /** An operation (rpc); a denied one is counted. close-session is always permitted (RFC 8341 3.4.4). */
        public boolean mayExec(String module, String rpc) {
            if (module.equals("ietf-netconf") && rpc.equals("close-session")) return true;
            boolean ok = decide(Kind.RPC, module, rpc, null, Op.EXEC);
            if (!ok) deniedOperations.incrementAndGet();
            return ok;
        }

        /** A notification to send; a denied one is counted. */
        public boolean mayNotify(String module, String name) {
            boolean ok = decide(Kind.NOTIFICATION, module, name, null, Op.READ);
            if (!ok) deniedNotifications.incrementAndGet();
            return ok;
        }

        /** A write of a data node; a denied one is counted. */
        public boolean mayWrite(String module, NacmPath path, Op op) {
            boolean ok = decide(Kind.DATA, module, null, path, op);
            if (!ok) deniedDataWrites.incrementAndGet();
            return ok;
        }

        /**
         * RFC 8341 3.4.5's write check of NEW-VMM-MIB's data: each entry created or deleted and each
         * leaf or interface replaced, as netconf-config-change names them.
         */
        @Override
        public String deniedWrite(ConfigData base, ConfigData edited) {
            if (writesAnyVr()) return null;
            for (ConfigEdits.Edit e : ConfigEdits.between(base, edited)) {
                Op op = switch (e.operation()) {
                    case "create" -> Op.CREATE;
                    case "delete" -> Op.DELETE;
                    default -> Op.UPDATE;
                };
                if (!mayWrite(Ns.VMM_MODULE, NacmPath.parse(e.target()), op)) return e.target();
            }
            return null;
        }

        public boolean mayRead(String module, NacmPath path) {
            return decide(Kind.DATA, module, null, path, Op.READ);
        }

        private boolean decide(Kind kind, String module, String name, NacmPath path, Op op) {
            NacmConfig c = config;
            if (!enforced || !c.enableNacm) return true;
            Set<String> groups = groups(c);
            for (NacmConfig.RuleList list : c.ruleLists) {
                if (!applies(list, groups)) continue;
                for (NacmConfig.Rule r : list.rules) {
                    if (matches(r, kind, module, name, path, op)) return "permit".equals(r.action);
                }
            }
            if (groups.contains(ADMIN)) return true;
            if (defaultDenyAll(kind, module, name)) return false;
            String byDefault = switch (op) {
                case READ -> c.readDefault;
                case EXEC -> c.execDefault;
                default -> c.writeDefault;
            };
            return "permit".equals(byDefault);
        }

        /**
         * The tree a reply is written from, without the nodes the user may not read (silently
         * omitted, RFC 8341 3.4.5); the keys of an entry it may read stay. Without data rules for the
         * user, each top-level node is decided once.
         */
        @Override
        public DataNode readable(DataNode root) {
            NacmConfig c = config;
            if (!enforced || !c.enableNacm) return root;
            return prune(root, NacmPath.ROOT, hasDataRules(c, groups(c)));
        }

        /**
         * Whether every write of NEW-VMM-MIB's data is permitted to the user now (no data rule for
         * its groups, and it is admin or write-default permits), so that an edit needs no check node
         * by node.
         */
        public boolean writesAnyVr() {
            NacmConfig c = config;
            if (!enforced || !c.enableNacm) return true;
            Set<String> groups = groups(c);
            return !hasDataRules(c, groups) && (groups.contains(ADMIN) || "permit".equals(c.writeDefault));
        }

        private DataNode prune(DataNode node, NacmPath at, boolean walk) {
            List<String> keys = node.keys();
            return DataNode.view(node, children -> new Iterator<>() {
                private DataNode next = advance();

                private DataNode advance() {
                    while (children.hasNext()) {
                        DataNode c = children.next();
                        if (keys.contains(c.name())) return c;
                        NacmPath p = at.child(c.name(), keyValues(c));
                        if (!mayRead(module(c.ns()), p)) continue;
                        return walk && !c.isLeaf() ? prune(c, p, true) : c;
                    }
                    return null;
                }

                @Override
                public boolean hasNext() {
                    return next != null;
                }

                @Override
                public DataNode next() {
                    if (next == null) throw new NoSuchElementException();
                    DataNode n = next;
                    next = advance();
                    return n;
                }
            });
        }
    }

    private static Map<String, String> keyValues(DataNode n) {
        if (n.isLeaf() || n.keys().isEmpty()) return Map.of();
        Map<String, String> out = new HashMap<>();
        for (String k : n.keys()) {
            DataNode leaf = n.leaf(k);
            if (leaf != null) out.put(k, leaf.value());
        }
        return out;
    }

    private enum Kind { RPC, NOTIFICATION, DATA }

    /** Whether a rule of the groups' rule lists may decide about data (it has a path, or no type at all). */
    private static boolean hasDataRules(NacmConfig c, Set<String> groups) {
        for (NacmConfig.RuleList list : c.ruleLists) {
            if (!applies(list, groups)) continue;
            for (NacmConfig.Rule r : list.rules) {
                if (r.rpcName == null && r.notificationName == null) return true;
            }
        }
        return false;
    }

    private static boolean applies(NacmConfig.RuleList list, Set<String> groups) {
        for (String g : list.groups) {
            if (g.equals("*") || groups.contains(g)) return true;
        }
        return false;
    }

    /** RFC 8341 3.4.4 to 3.4.6: module, rule type and access operations all match. */
    private static boolean matches(NacmConfig.Rule r, Kind kind, String module, String name, NacmPath path, Op op) {
        if (!r.moduleName.equals("*") && !r.moduleName.equals(module)) return false;
        if (r.rpcName != null && (kind != Kind.RPC || !(r.rpcName.equals("*") || r.rpcName.equals(name)))) return false;
        if (r.notificationName != null
                && (kind != Kind.NOTIFICATION || !(r.notificationName.equals("*") || r.notificationName.equals(name)))) {
            return false;
        }
        if (r.path != null && (kind != Kind.DATA || !r.parsedPath().covers(path))) return false;
        return operations(r.accessOperations).contains(op);
    }

    /** The operations of an access-operations value ("*": all). */
    public static Set<Op> operations(String accessOperations) {
        if (accessOperations.trim().equals("*")) return Set.of(Op.values());
        Set<Op> out = new LinkedHashSet<>();
        for (String bit : accessOperations.trim().split("\\s+")) out.add(Op.valueOf(bit.toUpperCase(Locale.ROOT)));
        return out;
    }

    /** What the modules served mark nacm:default-deny-all: /nacm, kill-session and delete-config. */
    private static boolean defaultDenyAll(Kind kind, String module, String name) {
        return switch (kind) {
            case RPC -> module.equals("ietf-netconf") && (name.equals("kill-session") || name.equals("delete-config"));
            case DATA -> module.equals(NacmConfig.MODULE);
            case NOTIFICATION -> false;
        };
    }

}
