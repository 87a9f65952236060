package io.vrouter.netconf.protocol;

import io.vrouter.yang.datastore.Datastore;
import io.vrouter.yang.Ns;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.Schemas;

/**
 * The state data of ietf-netconf-monitoring (RFC 6022): capabilities, datastores (the locks of the
 * session's tenant), schemas, sessions (of the session's tenant; the provider's users see all).
 */
final class Monitoring {
    private Monitoring() {
    }

    static DataNode tree(NetconfServerContext ctx, Requester self) {
        String m = Ns.MONITORING;
        DataNode.Inner state = DataNode.inner(m, "netconf-state");
        DataNode.Inner caps = DataNode.inner(m, "capabilities");
        for (String c : NetconfSession.CAPABILITIES) caps.add("capability", c);
        state.add(caps);
        DataNode.Inner stores = DataNode.inner(m, "datastores");
        for (Datastore.Name n : Datastore.Name.values()) {
            DataNode.Inner ds = DataNode.inner(m, "datastore", "name").add("name", NetconfSession.lower(n));
            int holder = self.scope().datastore().lockHolder(n);
            if (holder != 0) {
                ds.add(DataNode.inner(m, "locks").add(DataNode.inner(m, "global-lock")
                        .add("locked-by-session", holder).add("locked-time", self.scope().datastore().lockTime(n))));
            }
            stores.add(ds);
        }
        state.add(stores);
        DataNode.Inner schemas = DataNode.inner(m, "schemas");
        for (Schemas.Module mod : Schemas.MODULES) {
            schemas.add(DataNode.inner(m, "schema", "identifier", "version", "format")
                    .add("identifier", mod.name()).add("version", mod.revision()).add("format", "yang")
                    .add("namespace", mod.namespace()).add("location", "NETCONF"));
        }
        state.add(schemas);
        DataNode.Inner sessions = DataNode.inner(m, "sessions");
        for (NetconfSession s : ctx.sessions().values()) {
            // A tenant's users see the sessions of their tenant only (the provider's: all).
            if (!self.caller().sees(s.caller().tenant())) continue;
            sessions.add(DataNode.inner(m, "session", "session-id")
                    .add("session-id", s.id()).add("transport", "netconf-ssh").add("username", s.user())
                    .add("source-host", s.sourceHost()).add("login-time", s.loginTime())
                    .add("in-rpcs", s.inRpcs()).add("in-bad-rpcs", s.inBadRpcs())
                    .add("out-rpc-errors", s.outRpcErrors()).add("out-notifications", s.outNotifications()));
        }
        state.add(sessions);
        Statistics st = ctx.statistics();
        state.add(DataNode.inner(m, "statistics").add("netconf-start-time", st.startTime)
                .add("in-bad-hellos", st.inBadHellos).add("in-sessions", st.inSessions)
                .add("dropped-sessions", st.droppedSessions).add("in-rpcs", st.inRpcs).add("in-bad-rpcs", st.inBadRpcs)
                .add("out-rpc-errors", st.outRpcErrors).add("out-notifications", st.outNotifications));
        return state;
    }
}
