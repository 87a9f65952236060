package io.vrouter.xen;

import java.util.List;

/**
 * A XenAPI call failed. {@link #code()} is XenAPI's error code (the JSON-RPC error's {@code message},
 * for example {@code SESSION_INVALID}, {@code HANDLE_INVALID}, {@code VM_BAD_POWER_STATE}) and
 * {@link #params()} its parameters (the error's {@code data}). Failures below XenAPI use codes of
 * the client's own: {@code TRANSPORT} (no connection, an HTTP error, a malformed reply) and
 * {@code TIMEOUT} (no reply within the call timeout).
 */
public class XenApiException extends Exception {
    public static final String TRANSPORT = "TRANSPORT";
    public static final String TIMEOUT = "TIMEOUT";

    private final String code;
    private final List<String> params;

    public XenApiException(String code, List<String> params) {
        super(code + (params.isEmpty() ? "" : " " + params));
        this.code = code;
        this.params = List.copyOf(params);
    }

    public XenApiException(String code, String detail, Throwable cause) {
        super(code + " " + detail, cause);
        this.code = code;
        this.params = List.of(detail);
    }

    public String code() {
        return code;
    }

    public List<String> params() {
        return params;
    }

    /** A failure of the transport or of the host's availability rather than of the request. */
    public boolean isTransient() {
        return TRANSPORT.equals(code) || TIMEOUT.equals(code) || "HOST_STILL_BOOTING".equals(code)
                || "OTHER_OPERATION_IN_PROGRESS".equals(code) || "HOST_OFFLINE".equals(code);
    }
}
