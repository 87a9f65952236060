package io.vrouter.netconf.protocol;

import io.vrouter.yang.Ns;
import io.vrouter.yang.XmlOut;
import java.util.List;

/**
 * An operation's result: a body (ok, data) or errors, and what to do once the reply is sent (end
 * the session, start sending notifications), or null.
 */
record Outcome(Outcome.Body body, List<RpcError> errors, Runnable then) {
    /** What an operation writes inside its rpc-reply. */
    @FunctionalInterface
    interface Body {
        void write(XmlOut x) throws RpcError;
    }

    static final Body OK = x -> x.empty(Ns.BASE, "ok");

    static Outcome of(Body body) {
        return new Outcome(body, List.of(), null);
    }

    static Outcome errors(List<RpcError> errors) {
        return new Outcome(errors.isEmpty() ? OK : null, errors, null);
    }
}
