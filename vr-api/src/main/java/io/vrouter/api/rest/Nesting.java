package io.vrouter.api.rest;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;

/**
 * How deep a request may nest: a JSON or XML body, a RESTCONF {@code fields} expression. The data
 * model is a few levels deep (a YANG Patch of an interface's leaf is about ten); without a bound, a
 * body nested 100,000 deep would be read by recursion until the stack is gone. Bodies are bounded
 * by their parsers, which stop at the first level too many.
 */
public final class Nesting {
    /** The deepest nesting accepted, far above what any valid request needs. */
    public static final int MAX = 64;
    /** The JDK XML parsers' own bound on element depth (JAXP's {@code jdk.xml.maxElementDepth}). */
    public static final String XML_DEPTH_PROPERTY = "jdk.xml.maxElementDepth";
    /** What a client is told; the same for every encoding. */
    public static final String DETAIL = "the request nests deeper than " + MAX + " levels";

    private Nesting() {
    }

    /** Jackson's read constraints with this bound (its default is 1,000). */
    public static StreamReadConstraints json() {
        return StreamReadConstraints.builder().maxNestingDepth(MAX).build();
    }

    /** Whether a parser gave up because of this bound (the JDK's XML parsers say so only in their message). */
    public static boolean exceeded(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof StreamConstraintsException) return true;
            if (t.getMessage() != null && t.getMessage().contains("maxElementDepth")) return true;
        }
        return false;
    }
}
