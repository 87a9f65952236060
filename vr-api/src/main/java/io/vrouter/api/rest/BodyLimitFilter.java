package io.vrouter.api.rest;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Refuses bodies larger than the limit with 413: at once when Content-Length says so, otherwise
 * when the stream passes the limit while it is read.
 *
 * <p>Before answering, the rest of the body is read and dropped, up to {@link #DRAIN_LIMIT}, so that
 * the connection stays usable for the client's next request (an unread body would be taken for it,
 * and on HTTP/2 it would keep the flow-control window shut).
 */
@Priority(Priorities.ENTITY_CODER)
final class BodyLimitFilter implements ContainerRequestFilter {
    static final long DRAIN_LIMIT = 64L * 1024 * 1024;
    private final BodyLimit maxBody;

    BodyLimitFilter(BodyLimit maxBody) {
        this.maxBody = maxBody;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        long limit = maxBody.bytes();
        if (request.getLength() > limit) {
            drain(request.getEntityStream());
            throw new ProblemException(Response.Status.REQUEST_ENTITY_TOO_LARGE,
                    "the body is " + request.getLength() + " bytes; at most " + limit + " are accepted", null, null);
        }
        if (request.hasEntity()) request.setEntityStream(new Limited(request.getEntityStream(), limit));
    }

    private static void drain(InputStream in) {
        try {
            byte[] sink = new byte[64 * 1024];
            long total = 0;
            int n;
            while (total < DRAIN_LIMIT && (n = in.read(sink)) > 0) total += n;
        } catch (IOException e) {
            // The client went away: nothing left to keep open.
        }
    }

    /** Thrown from inside a body reader; the exception mappers look for it in the cause chain. */
    static final class TooLarge extends IOException {
        TooLarge(long limit) {
            super("the body is larger than " + limit + " bytes");
        }
    }

    private static final class Limited extends FilterInputStream {
        private final long limit;
        private long count;

        Limited(InputStream in, long limit) {
            super(in);
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) add(1);
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            if (n > 0) add(n);
            return n;
        }

        private void add(int n) throws IOException {
            count += n;
            if (count > limit) {
                drain(in);
                throw new TooLarge(limit);
            }
        }
    }
}
