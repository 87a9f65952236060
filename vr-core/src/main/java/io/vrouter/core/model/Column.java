package io.vrouter.core.model;

import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * One writable column of a configuration table, declared once for every interface: its model field
 * (which is also its JSON and XML name and its YANG leaf), its SNMP column number within the table's
 * entry, the kind of value it holds (which decides its encoding on each interface) and the bounds of
 * its values. {@link ConfigColumn} and {@link NetworkColumn} are the two tables.
 *
 * @param <R> the row type: {@link VmConfigEntry} or {@link VmNetworkConfigEntry}
 */
public interface Column<R> {

    /** What the column is: each constant of a column enum holds one. */
    Spec<R> spec();

    /** The model field: the JSON and XML name, the YANG leaf, the MIB object's descriptor. */
    default String field() {
        return spec().field();
    }

    /** The column's sub-identifier under its SNMP table entry (vmConfigEntry.N, vmNetworkConfigEntry.N). */
    default int snmpColumn() {
        return spec().snmpColumn();
    }

    default Kind kind() {
        return spec().kind();
    }

    /** Smallest value (integers) or length (text, in UTF-8 octets). */
    default long min() {
        return spec().min();
    }

    /** Largest value (integers) or length (text, in UTF-8 octets). */
    default long max() {
        return spec().max();
    }

    /** The column's value in a row, null when absent. */
    default Object get(R row) {
        return spec().getter().apply(row);
    }

    /** Sets the column's value in a row (null: absent). The value must be of the column's kind. */
    default void set(R row, Object value) {
        spec().setter().accept(row, value);
    }

    /** The value in its text form (labels for enumerations), or null when absent. */
    default String text(R row) {
        Object v = get(row);
        return v == null ? null : kind().format(v);
    }

    /** The column of a table with the given field name or SNMP column number, or null. */
    static <C extends Enum<C> & Column<?>> C find(Class<C> table, String field, int snmpColumn) {
        for (C c : table.getEnumConstants()) {
            if (c.field().equals(field) || c.snmpColumn() == snmpColumn) return c;
        }
        return null;
    }

    /** A column's name, SNMP number, kind, bounds and accessors. */
    record Spec<R>(String field, int snmpColumn, Kind kind, long min, long max,
                   Function<R, Object> getter, BiConsumer<R, Object> setter) {
    }

    /** The kinds of value a column holds; each interface has one encoding per kind. */
    enum Kind {
        /** A string. */
        TEXT("a string"),
        /** A signed 32-bit integer. */
        INTEGER("a whole number"),
        /** An unsigned integer (SNMP Unsigned32). */
        UNSIGNED("a whole number"),
        /** A boolean (SNMP TruthValue). */
        TRUTH("true or false"),
        /** {@link AdminState}, by label; SNMP by code. */
        ADMIN_STATE("running, suspended, paused or shutdown"),
        /** {@link InetAddressType}, by label; SNMP by code. */
        ADDRESS_TYPE("unknown, ipv4 or ipv6"),
        /** A MAC address, six colon-separated hex octets; SNMP as six octets. */
        MAC("six colon-separated hex octets"),
        /** An IPv4 or IPv6 address in text form; SNMP as its 4 or 16 octets (RFC 4001). */
        INET_ADDRESS("an IPv4 or IPv6 address");

        private final String expected;

        Kind(String expected) {
            this.expected = expected;
        }

        /** What a value of this kind looks like, for error messages. */
        public String expected() {
            return expected;
        }

        /** A value of this kind in text form. */
        public String format(Object value) {
            if (value instanceof SmiEnum e) return e.label();
            return String.valueOf(value);
        }

        /**
         * Parses the text form (as NETCONF carries it) into a value of this kind; throws
         * IllegalArgumentException saying what was expected. Bounds are the service's to check.
         */
        public Object parse(String text) {
            try {
                return switch (this) {
                    case TEXT, MAC, INET_ADDRESS -> text;
                    case INTEGER, UNSIGNED -> Integer.valueOf(text);
                    case TRUTH -> switch (text) {
                        case "true" -> Boolean.TRUE;
                        case "false" -> Boolean.FALSE;
                        default -> throw new IllegalArgumentException(text);
                    };
                    case ADMIN_STATE -> AdminState.ofLabel(text);
                    case ADDRESS_TYPE -> SmiEnum.ofLabel(InetAddressType.class, text);
                };
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + text + "' is not " + expected, e);
            }
        }
    }
}
