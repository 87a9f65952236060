package io.vrouter.core.model;

import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * One column of a NEW-VMM-MIB table, declared once for every interface: its model field (which is
 * also its JSON and XML name and its YANG leaf), its SNMP column number within the table's entry, the
 * kind of value it holds (which decides its SNMP syntax and its YANG/JSON encoding), the bounds of its
 * values, its unit, and how it is read from (and, for configuration, written to) a model row.
 * {@link ConfigColumn} and {@link NetworkColumn} are the writable tables; {@link Schema} holds the
 * read-only ones and the list of every table.
 *
 * @param <R> the row type, for example {@link VmConfigEntry} or {@link VmNetworkEntry}
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

    /** The unit of its values (the MIB's UNITS), or null. */
    default String unit() {
        return spec().unit();
    }

    /** Whether the column is configuration (writable: YANG config true) rather than state. */
    default boolean config() {
        return spec().setter() != null;
    }

    /** True for a column that indexes its table's rows (SNMP not-accessible, a YANG list key). */
    default boolean index() {
        return spec().index();
    }

    /**
     * The value SNMP shows when the row has none (an existing row has every column), or null when an
     * absent value is no instance at all (a counter the host does not keep).
     */
    default Object snmpAbsent() {
        return spec().snmpAbsent();
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

    /**
     * A column's name, SNMP number (0: an index taken from another table), kind, bounds, unit, what
     * SNMP shows when the row has no value, whether it indexes the rows, and its accessors (no setter:
     * state).
     */
    record Spec<R>(String field, int snmpColumn, Kind kind, long min, long max, String unit, Object snmpAbsent,
                   boolean index, Function<R, Object> getter, BiConsumer<R, Object> setter) {

        /** A configuration column. */
        public Spec(String field, int snmpColumn, Kind kind, long min, long max,
                    Function<R, Object> getter, BiConsumer<R, Object> setter) {
            this(field, snmpColumn, kind, min, max, null, null, false, getter, setter);
        }

        /** A state column: read-only. */
        public static <R> Spec<R> state(String field, int snmpColumn, Kind kind, long min, long max, String unit,
                                        Object snmpAbsent, Function<R, Object> getter) {
            return new Spec<>(field, snmpColumn, kind, min, max, unit, snmpAbsent, false, getter, null);
        }

        /** A column that indexes its table's rows. */
        public static <R> Spec<R> index(String field, int snmpColumn, long min, long max, Function<R, Object> getter) {
            return new Spec<>(field, snmpColumn, Kind.INTEGER, min, max, null, null, true, getter, null);
        }
    }

    /** How a YANG leaf's value is written in RFC 7951 JSON (section 6.1). */
    enum Json {
        /** Integers of 32 bits and fewer. */
        NUMBER,
        /** 64-bit integers, enumerations, text. */
        STRING,
        BOOLEAN
    }

    /**
     * The kinds of value a column holds; each interface has one encoding per kind: its SNMP syntax
     * and its YANG/JSON encoding are the kind's.
     */
    enum Kind {
        /** A string. */
        TEXT("a string", "OCTET STRING", Json.STRING),
        /** A signed 32-bit integer. */
        INTEGER("a whole number", "Integer32", Json.NUMBER),
        /** An unsigned integer (SNMP Unsigned32). */
        UNSIGNED("a whole number", "Unsigned32", Json.NUMBER),
        /** A boolean (SNMP TruthValue). */
        TRUTH("true or false", "TruthValue", Json.BOOLEAN),
        /** {@link AdminState}, by label; SNMP by code. */
        ADMIN_STATE("running, suspended, paused or shutdown", "enumeration", Json.STRING),
        /** {@link InetAddressType}, by label; SNMP by code. */
        ADDRESS_TYPE("unknown, ipv4 or ipv6", "enumeration", Json.STRING),
        /** {@link LinkType}, by label; SNMP by code. */
        LINK_TYPE("bridge, peer, vxlan or macvlan", "enumeration", Json.STRING),
        /** A MAC address, six colon-separated hex octets; SNMP as six octets. */
        MAC("six colon-separated hex octets", "OCTET STRING", Json.STRING),
        /** An IPv4 or IPv6 address in text form; SNMP as its 4 or 16 octets (RFC 4001). */
        INET_ADDRESS("an IPv4 or IPv6 address", "OCTET STRING", Json.STRING),
        /** Any other {@link SmiEnum} of the model (state only), by label; SNMP by code. */
        ENUM("one of the enumeration's labels", "enumeration", Json.STRING),
        /** A UUID in text form; SNMP as its 16 octets (UUIDorZero). */
        UUID("a UUID", "OCTET STRING", Json.STRING),
        /** A 64-bit integer held in a Long; SNMP Integer32, clamped (RFC 7666's sizes and memory). */
        INT64("a whole number", "Integer32", Json.STRING),
        /** A Long of 32 unsigned bits that goes up and down (SNMP Gauge32, yang:gauge32). */
        GAUGE32("a whole number", "Gauge32", Json.NUMBER),
        /** A Long: hundredths of a second (SNMP TimeTicks, yang:timeticks). */
        TIME_TICKS("a whole number", "TimeTicks", Json.NUMBER),
        /** A Long that only grows (SNMP Counter64, yang:counter64). */
        COUNTER64("a whole number", "Counter64", Json.STRING);

        private final String expected;
        private final String smiSyntax;
        private final Json json;

        Kind(String expected, String smiSyntax, Json json) {
            this.expected = expected;
            this.smiSyntax = smiSyntax;
            this.json = json;
        }

        /** What a value of this kind looks like, for error messages. */
        public String expected() {
            return expected;
        }

        /** The SNMP syntax of the kind's values, as the MIB writes it (its base type). */
        public String smiSyntax() {
            return smiSyntax;
        }

        /** How the kind's values are written in RFC 7951 JSON. */
        public Json json() {
            return json;
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
                    case TEXT, MAC, INET_ADDRESS, UUID -> text;
                    case INTEGER, UNSIGNED -> Integer.valueOf(text);
                    case INT64, GAUGE32, TIME_TICKS, COUNTER64 -> Long.valueOf(text);
                    // Only state columns hold other enumerations, and nobody writes those.
                    case ENUM -> throw new IllegalArgumentException(text);
                    case TRUTH -> switch (text) {
                        case "true" -> Boolean.TRUE;
                        case "false" -> Boolean.FALSE;
                        default -> throw new IllegalArgumentException(text);
                    };
                    case ADMIN_STATE -> AdminState.ofLabel(text);
                    case ADDRESS_TYPE -> SmiEnum.ofLabel(InetAddressType.class, text);
                    case LINK_TYPE -> SmiEnum.ofLabel(LinkType.class, text);
                };
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + text + "' is not " + expected, e);
            }
        }
    }
}
