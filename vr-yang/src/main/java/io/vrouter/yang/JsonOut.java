package io.vrouter.yang;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Writes a data tree as JSON by RFC 7951 (the encoding of RESTCONF's application/yang-data+json):
 * a member is named {@code module:name} where its namespace differs from its parent's; the entries
 * of a list and the values of a leaf-list are arrays; a leaf's value is written as its type says
 * ({@link DataNode#json()}: numbers of 32 bits and fewer, booleans, and strings for the rest, 64-bit
 * integers included); an identity names its module; a leaf tagged as its default carries RFC 7952's
 * annotation {@code ietf-netconf-with-defaults:default}. Streams: a table is written VR by VR.
 */
public final class JsonOut implements AutoCloseable {
    private static final JsonFactory FACTORY = new JsonFactory();
    /** The modules this server knows, by namespace. */
    private static final Map<String, String> MODULES = modules();

    private final JsonGenerator g;

    public JsonOut(OutputStream out) {
        try {
            this.g = FACTORY.createGenerator(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, String> modules() {
        Map<String, String> m = new java.util.HashMap<>();
        for (Schemas.Module mod : Schemas.ALL) m.put(mod.namespace(), mod.name());
        return Map.copyOf(m);
    }

    /** The name of the module whose namespace this is. */
    public static String module(String ns) {
        String m = MODULES.get(ns);
        if (m == null) throw new IllegalArgumentException("no module with namespace " + ns);
        return m;
    }

    /** The raw generator, for documents around the data (errors, YANG Patch status). */
    public JsonGenerator generator() {
        return g;
    }

    /**
     * Writes {@code nodes} (siblings of one parent: several entries of one list, or one node) as
     * one JSON object, qualified by module: the document of a RESTCONF resource.
     */
    public void document(List<DataNode> nodes, int depth) {
        try {
            g.writeStartObject();
            members(nodes.iterator(), null, depth, List.of());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes one node's value alone (gNMI's JSON values): a leaf's scalar, or an inner node's object
     * whose members are named by module where {@code qualified} (RFC 7951 at the top of a document),
     * else as their parent names them.
     */
    public void value(DataNode n, boolean qualified) {
        try {
            if (n.isLeaf()) {
                value(n, DataNode.UNBOUNDED);
                return;
            }
            g.writeStartObject();
            members(n.children().iterator(), qualified ? null : n.ns(), DataNode.UNBOUNDED, n.keys());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes the members of an object: {@code children}, in the namespace {@code parentNs}, each down to
     * {@code depth} levels (1: the node alone; {@link DataNode#UNBOUNDED} all), or only the keys
     * {@code keys} when the depth is spent.
     */
    public void members(Iterator<DataNode> children, String parentNs, int depth, List<String> keys) throws IOException {
        String open = null; // the list or leaf-list whose array is open
        while (children.hasNext()) {
            DataNode c = children.next();
            if (depth < 1 && !(c.isLeaf() && keys.contains(c.name()))) continue;
            boolean array = c.isLeafList() || !c.keys().isEmpty();
            String name = name(c, parentNs);
            if (open != null && !(array && name.equals(open))) {
                g.writeEndArray();
                open = null;
            }
            if (array && open == null) {
                g.writeArrayFieldStart(name);
                open = name;
            }
            if (!array) g.writeFieldName(name);
            value(c, depth);
            if (c.taggedDefault() && !array) {
                g.writeObjectFieldStart("@" + name);
                g.writeBooleanField("ietf-netconf-with-defaults:default", true);
                g.writeEndObject();
            }
        }
        if (open != null) g.writeEndArray();
    }

    private void value(DataNode n, int depth) throws IOException {
        if (!n.isLeaf()) {
            g.writeStartObject();
            members(n.children().iterator(), n.ns(), DataNode.below(depth), n.keys());
            g.writeEndObject();
            return;
        }
        String v = n.value();
        switch (n.json()) {
            case NUMBER -> g.writeNumber(v);
            case BOOLEAN -> g.writeBoolean(Boolean.parseBoolean(v));
            default -> {
                if (n.valueNs() != null && v.indexOf(':') > 0) v = module(n.valueNs()) + v.substring(v.indexOf(':'));
                g.writeString(v);
            }
        }
    }

    private static String name(DataNode n, String parentNs) {
        return n.ns().equals(parentNs) ? n.name() : module(n.ns()) + ":" + n.name();
    }


    public void flush() {
        try {
            g.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            g.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
