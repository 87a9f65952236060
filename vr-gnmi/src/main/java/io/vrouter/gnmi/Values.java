package io.vrouter.gnmi;

import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.TypedValue;
import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.JsonOut;
import io.vrouter.yang.Ns;
import io.vrouter.yang.Schemas;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node's value in a gNMI encoding: JSON_IETF as RFC 7951 (RESTCONF's writer, members named by
 * module at the top), JSON the same with plain names, PROTO a scalar per leaf whose kind the YANG
 * module's type of the leaf gives (counters and other unsigned types as {@code uint_val}).
 */
final class Values {
    /** The encodings served. */
    static final java.util.List<Encoding> ENCODINGS = java.util.List.of(Encoding.JSON, Encoding.JSON_IETF, Encoding.PROTO);

    /** The scalar kinds of PROTO's TypedValue. */
    enum Kind { UINT, INT, BOOL, STRING }

    /** {@code leaf X { type T} or {@code typedef X { type T}. */
    private static final Pattern TYPED = Pattern.compile("\\b(leaf|typedef)\\s+(\\S+)\\s*\\{\\s*type\\s+([^;\\s{]+)");

    /** Leaf name to built-in type, from the module's text: SMIv2 names its objects uniquely, so a name is one type. */
    private static final Map<String, String> TYPES = types(Schemas.text(Schemas.find(Ns.VMM_MODULE, Ns.VMM_REVISION)));

    private Values() {
    }

    /** The encoding asked for, if served; UNIMPLEMENTED otherwise (specification 2.3). */
    static Encoding served(Encoding e) {
        if (!ENCODINGS.contains(e)) {
            throw Status.UNIMPLEMENTED.withDescription("encoding " + e + " is not supported; this target serves "
                    + ENCODINGS).asRuntimeException();
        }
        return e;
    }

    /** A node's value: a JSON document for JSON and JSON_IETF; for PROTO, the node must be a leaf. */
    static TypedValue of(DataNode n, Encoding encoding) {
        if (encoding == Encoding.PROTO) return scalar(n);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonOut out = new JsonOut(bytes)) {
            if (n.isLeaf()) out.value(n, false);
            else object(out, n, encoding == Encoding.JSON_IETF);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ByteString json = ByteString.copyFrom(bytes.toByteArray());
        return encoding == Encoding.JSON_IETF ? TypedValue.newBuilder().setJsonIetfVal(json).build()
                : TypedValue.newBuilder().setJsonVal(json).build();
    }

    /**
     * An inner node as one object whose members are named by module where {@code qualified} (RFC 7951
     * at the top of a document), the entries of a list in one array; below them vr-yang's writer names
     * members as their parent does. Written here, not by the writer's own qualified form, because
     * openconfig-interfaces is no module of vr-yang's.
     */
    private static void object(JsonOut out, DataNode n, boolean qualified) throws IOException {
        JsonGenerator g = out.generator();
        g.writeStartObject();
        String open = null; // the list whose array is open
        for (DataNode c : n.children()) {
            boolean list = !c.keys().isEmpty();
            String name = qualified ? module(c) + ":" + c.name() : c.name();
            if (open != null && !(list && name.equals(open))) {
                g.writeEndArray();
                open = null;
            }
            if (list && open == null) {
                g.writeArrayFieldStart(name);
                open = name;
            }
            if (!list) g.writeFieldName(name);
            out.value(c, false);
        }
        if (open != null) g.writeEndArray();
        g.writeEndObject();
    }

    private static String module(DataNode n) {
        return n.ns().equals(OpenConfigInterfaces.NS) ? OpenConfigInterfaces.MODULE : JsonOut.module(n.ns());
    }

    static TypedValue scalar(DataNode leaf) {
        String v = leaf.value();
        try {
            return switch (kind(leaf)) {
                case UINT -> TypedValue.newBuilder().setUintVal(Long.parseUnsignedLong(v)).build();
                case INT -> TypedValue.newBuilder().setIntVal(Long.parseLong(v)).build();
                case BOOL -> TypedValue.newBuilder().setBoolVal(Boolean.parseBoolean(v)).build();
                case STRING -> TypedValue.newBuilder().setStringVal(v).build();
            };
        } catch (NumberFormatException notANumber) {
            return TypedValue.newBuilder().setStringVal(v).build();
        }
    }

    /** Whether the leaf is a counter (yang:counter32/64): TARGET_DEFINED samples these. */
    static boolean isCounter(DataNode leaf) {
        if (leaf instanceof OpenConfigInterfaces.Leaf l) return l.counter;
        String t = TYPES.get(leaf.name());
        return t != null && t.substring(t.indexOf(':') + 1).startsWith("counter");
    }

    static Kind kind(DataNode leaf) {
        if (leaf instanceof OpenConfigInterfaces.Leaf l) return l.kind;
        String t = TYPES.get(leaf.name());
        if (t != null) return kindOf(t);
        return switch (leaf.json()) {
            case NUMBER -> Kind.INT;
            case BOOLEAN -> Kind.BOOL;
            default -> Kind.STRING;
        };
    }

    /**
     * Reads {@code leaf X { type T} and {@code typedef X { type T}, resolving typedefs; a leaf of a
     * leafref type keeps the type of its name's first, referenced, definition.
     */
    static Map<String, String> types(String yang) {
        Map<String, String> typedefs = new HashMap<>();
        Map<String, String> leaves = new HashMap<>();
        Matcher m = TYPED.matcher(yang);
        while (m.find()) {
            if (m.group(1).equals("typedef")) typedefs.put(m.group(2), m.group(3));
            else if (!m.group(3).equals("leafref")) leaves.putIfAbsent(m.group(2), m.group(3));
        }
        Map<String, String> types = new HashMap<>();
        leaves.forEach((name, type) -> {
            String t = type;
            for (int hops = 0; typedefs.containsKey(t) && hops < 8; hops++) t = typedefs.get(t);
            types.put(name, t);
        });
        return Map.copyOf(types);
    }

    private static Kind kindOf(String type) {
        String t = type.substring(type.indexOf(':') + 1);
        if (t.startsWith("uint") || t.startsWith("counter") || t.startsWith("gauge") || t.equals("timeticks")) return Kind.UINT;
        if (t.startsWith("int")) return Kind.INT;
        if (t.equals("boolean")) return Kind.BOOL;
        return Kind.STRING;
    }
}
