package io.vrouter.gnmi;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.vrouter.core.config.Caller;
import io.vrouter.yang.DataGuard;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.spi.VirtualRouters;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Every call logs in with the {@code username} and {@code password} of its metadata (as gNMI
 * clients send them), against the server's users and under the brake on guessing that every
 * interface shares; a call without them, or with wrong ones, ends UNAUTHENTICATED before the
 * service sees it. Every role may read, which is all this target offers. The client's address goes
 * on in the call's {@link #CLIENT} (the per-client cap on Subscribe streams counts by it), and the
 * core as the caller may see it in its {@link #VIEW} ({@code VirtualRouters.as}: a tenant's user, its
 * tenant's VRs only): Get and Subscribe read through that view alone, for the call's whole life.
 */
final class Authentication implements ServerInterceptor {
    static final Metadata.Key<String> USERNAME = Metadata.Key.of("username", Metadata.ASCII_STRING_MARSHALLER);
    static final Metadata.Key<String> PASSWORD = Metadata.Key.of("password", Metadata.ASCII_STRING_MARSHALLER);
    /** The address the call comes from, as text ("unknown" on a transport without one). */
    static final Context.Key<String> CLIENT = Context.key("gnmi-client");
    /** The core as the call's caller may see it. */
    static final Context.Key<VirtualRouters> VIEW = Context.key("gnmi-view");
    /** Who the call's user is: what a Set's transaction is begun for. */
    static final Context.Key<Caller> CALLER = Context.key("gnmi-caller");
    /**
     * The access control's decisions for the call's caller (NACM, shared with NETCONF and RESTCONF):
     * Get and Subscribe read through {@link DataGuard.Access#readable} (a Set's transaction makes the
     * same guard's write check itself).
     */
    static final Context.Key<DataGuard.Access> ACCESS = Context.key("gnmi-access");

    private final Credentials credentials;
    private final VirtualRouters core;
    private final DataGuard guard;

    Authentication(Credentials credentials, VirtualRouters core, DataGuard guard) {
        this.credentials = credentials;
        this.core = core;
        this.guard = guard;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String user = headers.get(USERNAME);
        String password = headers.get(PASSWORD);
        if (user == null || password == null) {
            return refuse(call, "give a username and a password in the call's metadata");
        }
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        InetAddress client = remote instanceof InetSocketAddress a ? a.getAddress() : null;
        Credentials.Login login = credentials.login("gnmi", client, user, password);
        if (login.throttled()) return refuse(call, "too many failed logins from this address: try again later");
        if (!login.accepted()) return refuse(call, "wrong username or password");
        // Empty when a reload removed the user since its password was checked: never taken for the provider.
        Caller caller = credentials.caller(user, login.role().orElseThrow(), "gnmi", client).orElse(null);
        if (caller == null) return refuse(call, "wrong username or password");
        String address = client == null ? "unknown" : client.getHostAddress();
        return Contexts.interceptCall(Context.current().withValues(CLIENT, address, VIEW, core.as(caller), ACCESS,
                        guard.access(caller)).withValue(CALLER, caller), call, headers, next);
    }

    private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, String why) {
        call.close(Status.UNAUTHENTICATED.withDescription(why), new Metadata());
        return new ServerCall.Listener<>() {
        };
    }
}
