package io.vrouter.netconf.protocol;

import io.vrouter.yang.Ns;
import io.vrouter.yang.DataNode;

/** The notifications of ietf-netconf-notifications (RFC 6470) about the server's own sessions. */
final class ServerNotifications {
    /** Why a session ended (RFC 6470 termination-reason). */
    enum Termination {
        CLOSED("closed"), KILLED("killed"), DROPPED("dropped"), TIMEOUT("timeout"), BAD_HELLO("bad-hello"), OTHER("other");

        final String label;

        Termination(String label) {
            this.label = label;
        }
    }

    private ServerNotifications() {
    }

    private static DataNode.Inner withSession(String name, String user, int sessionId, String sourceHost) {
        return DataNode.inner(Ns.NETCONF_NOTIFICATIONS, name)
                .add("username", user).add("session-id", sessionId).add("source-host", sourceHost);
    }

    static DataNode sessionStart(Requester s) {
        return withSession("netconf-session-start", s.user(), s.sessionId(), s.sourceHost());
    }

    /** @param killedBy the session that killed it, when the reason is {@link Termination#KILLED} */
    static DataNode sessionEnd(Requester s, Termination reason, int killedBy) {
        return withSession("netconf-session-end", s.user(), s.sessionId(), s.sourceHost())
                .add("killed-by", reason == Termination.KILLED && killedBy != 0 ? killedBy : null)
                .add("termination-reason", reason.label);
    }
}
