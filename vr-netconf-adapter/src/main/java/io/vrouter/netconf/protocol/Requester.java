package io.vrouter.netconf.protocol;

import io.vrouter.core.config.Caller;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.nacm.Nacm;

/**
 * Who sends a session's rpcs, and what they reach: the identity that notifications name (user,
 * session-id, source host), the service as the caller may see and change it (its tenant's VRs only;
 * the core enforces that), the datastores, locks and confirmed commit it shares with its tenant's
 * sessions, and NACM's decisions for the user. The operations take this instead of the session.
 */
record Requester(int sessionId, Caller caller, VirtualRouters service, NetconfServerContext.Scope scope,
                 Nacm.Access access) {
    String user() {
        return caller.user();
    }

    /** The client's address, as the caller was made at authentication. */
    String sourceHost() {
        return caller.source();
    }
}
