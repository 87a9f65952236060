package io.vrouter.yang.edit;

import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.ModelTree;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The content of a configuration datastore: vmConfigTable rows by vmIndex, each with its
 * vmNetworkConfigTable rows, as a copy that costs what is edited in it rather than the size of
 * the table.
 *
 * <p>A configuration is a <em>table</em> (the running configuration of the service, or fixed rows)
 * under the rows that edits put in or removed. The running table is read row by row as an edit or
 * a reply needs it, and a row is kept as it was first read, so that a configuration and its copies
 * share every row nobody edited: what changed from one to the other is found among the rows
 * edited ({@link #changedFrom}), and an edit-config of one VR among 10,000 touches one row. Rows
 * are never changed in place (writers put a changed copy).
 */
public final class ConfigData implements ModelTree.ConfigSource {
    /** The rows under the edits, shared by a configuration and its copies. */
    private static final class Table {
        /** Stands for "no row" among the rows read (a concurrent map holds no nulls). */
        private static final VmConfigEntry ABSENT = new VmConfigEntry();

        private final VirtualRouters service;
        private final Map<Integer, VmConfigEntry> rows;
        private final NavigableSet<Integer> indices;

        /** The running configuration, read from the service on demand. */
        Table(VirtualRouters service) {
            this.service = service;
            this.rows = new ConcurrentHashMap<>();
            this.indices = service.indices();
        }

        /** Fixed rows. */
        Table(Map<Integer, VmConfigEntry> fixed) {
            TreeMap<Integer, VmConfigEntry> copy = new TreeMap<>(fixed);
            this.service = null;
            this.rows = copy;
            this.indices = Collections.unmodifiableNavigableSet(copy.navigableKeySet());
        }

        VmConfigEntry get(int vmIndex) {
            if (service == null) return rows.get(vmIndex);
            VmConfigEntry row = rows.computeIfAbsent(vmIndex, i -> service.getConfig(i).orElse(ABSENT));
            return row == ABSENT ? null : row;
        }
    }

    private final Table table;
    /** Rows put (the row) or removed (null) by edits, over the table. */
    private final TreeMap<Integer, VmConfigEntry> edits;

    /** Fixed rows. */
    public ConfigData(Map<Integer, VmConfigEntry> rows) {
        this(new Table(rows), new TreeMap<>());
    }

    private ConfigData(Table table, TreeMap<Integer, VmConfigEntry> edits) {
        this.table = table;
        this.edits = edits;
    }

    /** The running configuration as the service holds it, each row as first read. */
    public static ConfigData of(VirtualRouters service) {
        return new ConfigData(new Table(service), new TreeMap<>());
    }

    /** A copy to edit: it shares the table and the rows read from it, and costs the edits made so far. */
    public ConfigData copy() {
        return new ConfigData(table, new TreeMap<>(edits));
    }

    @Override
    public VmConfigEntry get(int vmIndex) {
        return edits.containsKey(vmIndex) ? edits.get(vmIndex) : table.get(vmIndex);
    }

    public void put(VmConfigEntry row) {
        edits.put(row.vmIndex, row);
    }

    public VmConfigEntry remove(int vmIndex) {
        VmConfigEntry was = get(vmIndex);
        edits.put(vmIndex, null);
        return was;
    }

    /** Removes every row (the whole table's worth of edits). */
    public void clear() {
        List<Integer> all = new ArrayList<>();
        for (Integer i : indices()) all.add(i);
        for (Integer i : all) edits.put(i, null);
    }

    public boolean isEmpty() {
        return !indices().iterator().hasNext();
    }

    /**
     * The vmIndex values whose rows may differ between this configuration and {@code base}: the
     * rows either edited, when both are over the same table; every row otherwise. In order.
     */
    public Collection<Integer> changedFrom(ConfigData base) {
        TreeSet<Integer> out = new TreeSet<>(edits.keySet());
        out.addAll(base.edits.keySet());
        if (base.table != table) {
            for (Integer i : indices()) out.add(i);
            for (Integer i : base.indices()) out.add(i);
        }
        return out;
    }

    /** The change set that turns {@code base} into this configuration, found among the rows edited. */
    public ChangeSet changesFrom(ConfigData base) {
        return ChangeSet.between(changedFrom(base), base::get, this::get);
    }

    /** Every row, in vmIndex order (reads the whole table). */
    public Map<Integer, VmConfigEntry> rows() {
        TreeMap<Integer, VmConfigEntry> all = new TreeMap<>();
        for (VmConfigEntry row : values()) all.put(row.vmIndex, row);
        return Collections.unmodifiableMap(all);
    }

    /** Every row, in vmIndex order, read as the iteration reaches it. */
    public Iterable<VmConfigEntry> values() {
        return () -> new Iterator<>() {
            private final Iterator<Integer> indices = indices().iterator();

            @Override
            public boolean hasNext() {
                return indices.hasNext();
            }

            @Override
            public VmConfigEntry next() {
                return get(indices.next());
            }
        };
    }

    /** The vmIndex values of the rows, in order: the table's and the edits' merged, without the removed ones. */
    @Override
    public Iterable<Integer> indices() {
        return () -> new Iterator<>() {
            private final Iterator<Integer> under = table.indices.iterator();
            private final Iterator<Map.Entry<Integer, VmConfigEntry>> edited = edits.entrySet().iterator();
            private Integer nextUnder = advance(under);
            private Map.Entry<Integer, VmConfigEntry> nextEdit = advance(edited);
            private Integer next = step();

            private <T> T advance(Iterator<T> it) {
                return it.hasNext() ? it.next() : null;
            }

            /** The next index present, merging the two ordered sequences (an edit wins over the table). */
            private Integer step() {
                while (nextUnder != null || nextEdit != null) {
                    int c = nextEdit == null ? -1 : nextUnder == null ? 1 : Integer.compare(nextUnder, nextEdit.getKey());
                    if (c < 0) {
                        Integer i = nextUnder;
                        nextUnder = advance(under);
                        if (table.get(i) != null) return i;
                        continue;
                    }
                    Map.Entry<Integer, VmConfigEntry> e = nextEdit;
                    nextEdit = advance(edited);
                    if (c == 0) nextUnder = advance(under);
                    if (e.getValue() != null) return e.getKey();
                }
                return null;
            }

            @Override
            public boolean hasNext() {
                return next != null;
            }

            @Override
            public Integer next() {
                if (next == null) throw new NoSuchElementException();
                Integer i = next;
                next = step();
                return i;
            }
        };
    }
}
