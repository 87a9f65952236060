package io.vrouter.yang;

import io.vrouter.core.model.Schema;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * With-defaults (RFC 6243; RESTCONF's {@code with-defaults} parameter, RFC 8040 section 4.8.9): how a reply shows the configuration leaves that
 * have a schema default. The leaves with one are those of vmConfigEntry that NEW-VMM-MIB gives a
 * {@code default} statement; state data has none.
 *
 * <ul>
 *   <li>{@code report-all}: every leaf (the basic mode: the service stores every column of a VR, the
 *       defaults it filled in included, and does not remember which a client set);</li>
 *   <li>{@code trim}: a leaf whose value is its default is left out;</li>
 *   <li>{@code report-all-tagged}: every leaf, and those whose value is the default carry
 *       {@code wd:default="true"}.</li>
 * </ul>
 */
public enum WithDefaults {
    REPORT_ALL("report-all"), TRIM("trim"), REPORT_ALL_TAGGED("report-all-tagged");

    /** The mode of a request without the parameter. */
    public static final WithDefaults BASIC = REPORT_ALL;

    /** The {@code default} statements of NEW-VMM-MIB's vmConfigEntry (YANG text, as the values are written). */
    public static final Map<String, String> CONFIG_DEFAULTS = Map.of("vmAdminState", "running", "vmConfigTemplate", "vyos",
            "vmConfigCpuNumber", "1", "vmConfigMemory", "512", "vmConfigAutoStart", "false");

    /** The nodes on the way from a reply's root to vmConfigEntry. */
    private static final Set<String> ON_THE_WAY = Set.of("data", "NEW-VMM-MIB", Schema.Table.CONFIG.tableName());

    public final String label;

    WithDefaults(String label) {
        this.label = label;
    }

    /** The mode with this label, or null (RFC 6243's explicit is not offered: see ADR 0008). */
    public static WithDefaults ofLabel(String label) {
        for (WithDefaults m : values()) {
            if (m.label.equals(label)) return m;
        }
        return null;
    }

    /** The tree as this mode shows it; only the branch down to vmConfigEntry is looked at. */
    public DataNode apply(DataNode tree) {
        return this == REPORT_ALL ? tree : view(tree);
    }

    private DataNode view(DataNode n) {
        if (n.isLeaf()) return n;
        if (Ns.VMM.equals(n.ns()) && n.name().equals(Schema.Table.CONFIG.entryName())) return entry(n);
        if (!ON_THE_WAY.contains(n.name())) return n;
        WithDefaults mode = this;
        return DataNode.view(n, it -> new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public DataNode next() {
                return mode.view(it.next());
            }
        });
    }

    private DataNode entry(DataNode e) {
        DataNode.Inner out = DataNode.inner(e.ns(), e.name(), e.keys().toArray(new String[0]));
        for (DataNode c : e.children()) {
            boolean isDefault = c.isLeaf() && c.value().equals(CONFIG_DEFAULTS.get(c.name()));
            if (!isDefault) {
                out.add(c);
            } else if (this == REPORT_ALL_TAGGED) {
                out.add(DataNode.taggedDefault(c));
            }
        }
        return out;
    }
}
