package io.vrouter.it.snmp;

/**
 * Numeric OIDs of NEW-VMM-MIB (1.3.6.1.3.7666) for the tests that drive net-snmp's tools, so that no
 * base MIB is needed. Each column OID ends with a dot: append the row's index.
 */
public final class NewVmmOids {
    public static final String MIB = "1.3.6.1.3.7666";
    /** vmConfigEntry. */
    public static final String CONFIG = MIB + ".1.12.1.";
    /** vmEntry. */
    public static final String VM = MIB + ".1.4.1.";
    public static final String NAME = CONFIG + "1.";
    public static final String ADMIN = CONFIG + "2.";
    public static final String CPUS = CONFIG + "4.";
    public static final String MEMORY = CONFIG + "5.";
    public static final String ROW_STATUS = CONFIG + "7.";
    public static final String UUID = VM + "3.";
    public static final String OPER_STATE = VM + "6.";

    private NewVmmOids() {
    }
}
