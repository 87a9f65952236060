package io.vrouter.it.tenants;

import java.util.Optional;
import java.util.Set;

/**
 * One management interface as the users of {@link TenantsIT}'s table use it: each method does one
 * thing as one user, in the interface's own protocol, and says what came of it in the table's terms.
 * An implementation maps only what its protocol says; it never decides what should have happened.
 */
interface TenantClient {
    /** The interface's name, also the suffix of the VRs its rows use. */
    String name();

    Outcome create(TenantsIT.User user, String vmName, int cpus);

    /** The names of the VRs the user's list (or walk) shows. */
    Set<String> names(TenantsIT.User user);

    Outcome read(TenantsIT.User user, int vmIndex);

    /** Sets the VR's vmConfigDescription. */
    Outcome describe(TenantsIT.User user, int vmIndex, String description);

    /** Sets the VR's vmConfigTenant. */
    Outcome giveTo(TenantsIT.User user, int vmIndex, String tenant);

    Outcome remove(TenantsIT.User user, int vmIndex);

    /**
     * The names of the VRs the user's event subscription tells of, replayed from the start; empty
     * when the interface has no subscription of its own (SNMP: notifications go to the provider's
     * trap targets).
     */
    Optional<Set<String>> eventNames(TenantsIT.User user) throws Exception;

    /** What came of one request: its kind in the table's terms, and what the protocol said, for messages. */
    record Outcome(Kind kind, Integer vmIndex, String said) {
        enum Kind { OK, NOT_FOUND, DENIED, QUOTA, OTHER }

        static Outcome ok(Integer vmIndex, String said) {
            return new Outcome(Kind.OK, vmIndex, said);
        }

        static Outcome of(Kind kind, String said) {
            return new Outcome(kind, null, said);
        }
    }
}
