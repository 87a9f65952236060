package io.vrouter.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The schema table itself: each column names a field of its row, reads that field, and fits its kind and bounds. */
class SchemaTableTest {

    /** The Java type a column of each kind holds (an enumeration: any SmiEnum). */
    private static Class<?> valueType(Column.Kind kind) {
        return switch (kind) {
            case TEXT, MAC, INET_ADDRESS, UUID -> String.class;
            case INTEGER, UNSIGNED -> Integer.class;
            case TRUTH -> Boolean.class;
            case ADMIN_STATE -> AdminState.class;
            case ADDRESS_TYPE -> InetAddressType.class;
            case LINK_TYPE -> LinkType.class;
            case ENUM -> SmiEnum.class;
            case INT64, GAUGE32, TIME_TICKS, COUNTER64 -> Long.class;
        };
    }

    @Test
    void snmpColumnNumbersAreUniqueWithinEachTable() {
        for (Schema.Table t : Schema.Table.values()) {
            Set<Integer> seen = new HashSet<>();
            for (Column<?> c : t.columns()) {
                if (c.snmpColumn() == 0) {
                    assertThat(c.index()).as(t + "." + c.field() + ": only an index borrowed from another table has no column").isTrue();
                    continue;
                }
                assertThat(seen.add(c.snmpColumn())).as(t + "." + c.field() + " reuses column " + c.snmpColumn()).isTrue();
            }
            assertThat(t.snmpColumns()).as(t + "'s readable columns, ascending").isSorted();
        }
    }

    @Test
    void everyColumnIsAFieldOfItsRowOfItsKindAndItsGetterReadsThatField() throws Exception {
        for (Schema.Table t : Schema.Table.values()) {
            for (Column<?> c : t.columns()) {
                String at = t + "." + c.field();
                Field f = t.rowType().getField(c.field());
                assertThat(valueType(c.kind())).as(at + " is of its kind").isAssignableFrom(f.getType());
                Object row = t.rowType().getConstructor().newInstance();
                assertThat(Schema.get(c, row)).as(at + " absent").isNull();
                Object value = sample(f.getType());
                f.set(row, value);
                assertThat(Schema.get(c, row)).as(at + "'s getter reads " + f.getName()).isSameAs(value);
                if (c.config()) {
                    Object row2 = t.rowType().getConstructor().newInstance();
                    set(c, row2, value);
                    assertThat(f.get(row2)).as(at + "'s setter writes " + f.getName()).isSameAs(value);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void set(Column<?> c, Object row, Object value) {
        ((Column<Object>) c).set(row, value);
    }

    private static Object sample(Class<?> type) {
        if (type == String.class) return new String("x");
        if (type == Integer.class) return Integer.valueOf(100_000);
        if (type == Long.class) return Long.valueOf(100_000);
        if (type == Boolean.class) return Boolean.TRUE;
        return type.getEnumConstants()[type.getEnumConstants().length - 1];
    }

    @Test
    void everyValueFieldOfTheModelRowsIsAColumn() {
        Set<Class<?>> rows = new HashSet<>();
        Set<String> declared = new HashSet<>();
        for (Schema.Table t : Schema.Table.values()) {
            rows.add(t.rowType());
            declared.addAll(t.keys());
            for (Column<?> c : t.columns()) declared.add(c.field());
        }
        List<String> missing = new ArrayList<>();
        for (Class<?> row : rows) {
            for (Field f : row.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || !Modifier.isPublic(f.getModifiers()) || List.class.isAssignableFrom(f.getType())) {
                    continue;
                }
                if (!declared.contains(f.getName())) missing.add(row.getSimpleName() + "." + f.getName());
            }
        }
        assertThat(missing).as("model fields without a column").isEmpty();
    }

    @Test
    void boundsAndAbsentValuesFitTheKinds() {
        for (Schema.Table t : Schema.Table.values()) {
            for (Column<?> c : t.columns()) {
                String at = t + "." + c.field();
                assertThat(c.min()).as(at + " min <= max").isLessThanOrEqualTo(c.max());
                switch (c.kind()) {
                    case INTEGER -> assertThat(c.max()).as(at).isLessThanOrEqualTo(Integer.MAX_VALUE);
                    case INT64 -> assertThat(c.max()).as(at + ": SNMP Integer32 holds it").isLessThanOrEqualTo(Integer.MAX_VALUE);
                    case GAUGE32, TIME_TICKS -> assertThat(c.max()).as(at).isEqualTo(0xFFFF_FFFFL);
                    case COUNTER64 -> assertThat(c.min()).as(at).isZero();
                    default -> {
                    }
                }
                if (c.index()) {
                    assertThat(c.kind()).as(at + ": an index is an integer").isEqualTo(Column.Kind.INTEGER);
                    assertThat(c.min()).as(at + ": RFC 7666 indices start at 1").isEqualTo(1);
                }
                if (c.config() || c.index()) {
                    assertThat(c.snmpAbsent()).as(at + ": only state columns say what SNMP shows for none").isNull();
                } else if (c.snmpAbsent() != null) {
                    assertThat(valueType(c.kind()).isInstance(c.snmpAbsent())).as(at + "'s absent value is of its kind").isTrue();
                } else {
                    assertThat(c.kind()).as(at + ": only counters may have no instance").isEqualTo(Column.Kind.COUNTER64);
                }
            }
        }
    }

    @Test
    void theLeafLookupSaysWhatIsConfiguration() {
        assertThat(Schema.isConfig("vmName")).isTrue();
        assertThat(Schema.isConfig("vmNetworkConfigPrefixLength")).isTrue();
        assertThat(Schema.isConfig("vmOperState")).isFalse();
        assertThat(Schema.isConfig("vmNetworkInErrors")).isFalse();
        assertThat(Schema.isConfig("noSuchLeaf")).isFalse();
        assertThat(Schema.column("vmNetworkOutDiscards")).isSameAs(Schema.Network.OUT_DISCARDS);
        assertThat(Schema.column("vmConfigMemory")).isSameAs(ConfigColumn.VM_CONFIG_MEMORY);
        assertThat(Schema.Table.NETWORK.keys()).containsExactly("vmIndex", "vmNetworkIndex");
        assertThat(Schema.Table.CPU_AFFINITY.keys()).containsExactly("vmIndex", "vmCpuIndex", "vmCpuPhysIndex");
        assertThat(Schema.Table.NETWORK_CONFIG.keys()).containsExactly("vmIndex", "vmNetworkConfigIndex");
        assertThat(Schema.Table.NETWORK.bySnmpColumn(13)).isSameAs(Schema.Network.OUT_DISCARDS);
        assertThat(Schema.Table.NETWORK.bySnmpColumn(1)).as("the index is not readable").isNull();
    }

    @Test
    void eachTableIsFoundByItsContainerAndListAndNamesItsRowsByItsKeys() {
        for (Schema.Table t : Schema.Table.values()) {
            assertThat(Schema.Table.named(t.tableName())).isSameAs(t);
            assertThat(Schema.Table.ofEntry(t.entryName())).isSameAs(t);
            assertThat(t.keys().get(0)).isEqualTo(t.vrKey());
            assertThat(t.rowKey()).isEqualTo(t.keys().get(t.keys().size() - 1));
        }
        assertThat(Schema.Table.named("vmConfigEntry")).isNull();
        assertThat(Schema.Table.ofEntry("vmConfigTable")).isNull();
        // The wire's names: the key of an interface is the network configuration table's own, no column.
        assertThat(Schema.Table.CONFIG.keys()).containsExactly("vmIndex");
        assertThat(Schema.Table.NETWORK_CONFIG.keys()).containsExactly("vmIndex", "vmNetworkConfigIndex");
        assertThat(Schema.Table.STORAGE.keys()).containsExactly("vmStorageVmIndex", "vmStorageIndex");
        assertThat(Schema.Table.CPU_AFFINITY.keys()).containsExactly("vmIndex", "vmCpuIndex", "vmCpuPhysIndex");
    }
}
