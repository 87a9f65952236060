package io.vrouter.netconf.protocol;

import io.vrouter.yang.Ns;
import io.vrouter.yang.XmlOut;
import java.util.LinkedHashMap;
import java.util.Map;

/** One {@code <rpc-error>} (RFC 6241 section 4.3 and Appendix A), thrown by the operations. */
public final class RpcError extends Exception {
    public enum Type { TRANSPORT, RPC, PROTOCOL, APPLICATION }

    private final Type type;
    private final String tag;
    private final String appTag;
    private final String path;
    private final Map<String, String> info = new LinkedHashMap<>();

    public RpcError(Type type, String tag, String message) {
        this(type, tag, null, null, message);
    }

    public RpcError(Type type, String tag, String appTag, String path, String message) {
        super(message);
        this.type = type;
        this.tag = tag;
        this.appTag = appTag;
        this.path = path;
    }

    /** Adds an {@code <error-info>} child such as bad-element, bad-attribute or session-id. */
    public RpcError info(String name, String value) {
        info.put(name, value);
        return this;
    }

    public String tag() {
        return tag;
    }

    public Type type() {
        return type;
    }

    public String path() {
        return path;
    }

    public static RpcError unknownElement(Type type, String path, String element, String message) {
        return new RpcError(type, "unknown-element", null, path, message).info("bad-element", element);
    }

    public static RpcError invalidValue(String path, String message) {
        return new RpcError(Type.APPLICATION, "invalid-value", null, path, message);
    }

    public static RpcError missingElement(Type type, String path, String element, String message) {
        return new RpcError(type, "missing-element", null, path, message).info("bad-element", element);
    }

    public static RpcError operationFailed(String message) {
        return new RpcError(Type.APPLICATION, "operation-failed", message);
    }

    /** Writes the {@code <rpc-error>} element (the reply is open). */
    public void write(XmlOut out) {
        out.start(Ns.BASE, "rpc-error");
        out.leaf(Ns.BASE, "error-type", type.name().toLowerCase(java.util.Locale.ROOT));
        out.leaf(Ns.BASE, "error-tag", tag);
        out.leaf(Ns.BASE, "error-severity", "error");
        if (appTag != null) out.leaf(Ns.BASE, "error-app-tag", appTag);
        if (path != null) {
            out.start(Ns.BASE, "error-path");
            // The path's prefix names the module whose nodes it walks.
            out.namespace(Ns.VMM_PREFIX, Ns.VMM);
            out.text(path);
            out.end();
        }
        if (getMessage() != null) {
            out.start(Ns.BASE, "error-message");
            out.attribute("xml", "http://www.w3.org/XML/1998/namespace", "lang", "en");
            out.text(getMessage());
            out.end();
        }
        if (!info.isEmpty()) {
            out.start(Ns.BASE, "error-info");
            info.forEach((k, v) -> out.leaf(Ns.BASE, k, v));
            out.end();
        }
        out.end();
    }
}
