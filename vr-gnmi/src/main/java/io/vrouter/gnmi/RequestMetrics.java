package io.vrouter.gnmi;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.vrouter.core.metrics.VrMetrics;
import java.util.Locale;

/**
 * Each call counted in {@code vrouter.requests} as the other interfaces count theirs: interface
 * {@code gnmi}, operation the RPC ({@code get}, {@code subscribe} ...), outcome {@code ok} or the
 * status code ({@code invalid_argument}); a Subscribe's time is the stream's life.
 */
final class RequestMetrics implements ServerInterceptor {
    private final VrMetrics metrics;

    RequestMetrics(VrMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        long started = System.nanoTime();
        String operation = call.getMethodDescriptor().getBareMethodName().toLowerCase(Locale.ROOT);
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                String outcome = status.isOk() ? "ok" : status.getCode().name().toLowerCase(Locale.ROOT);
                metrics.recordRequest("gnmi", operation, outcome, System.nanoTime() - started);
                super.close(status, trailers);
            }
        }, headers);
    }
}
