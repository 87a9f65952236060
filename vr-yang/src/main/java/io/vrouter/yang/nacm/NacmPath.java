package io.vrouter.yang.nacm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A data node's place, as a NACM rule's {@code path} (RFC 8341 node-instance-identifier) names it:
 * steps of node names, module prefixes dropped (the rule's module-name says the module), each with
 * the key values of a list entry, given or not. A rule's path covers the node it names and every
 * node below it; a step without keys covers every entry of its list.
 */
public record NacmPath(List<Step> steps) {
    /** One node name and the keys that select its entries (empty: every entry). */
    public record Step(String name, Map<String, String> keys) {
    }

    public static final NacmPath ROOT = new NacmPath(List.of());

    /** The path below this one by a node (with its key values, for a list entry). */
    public NacmPath child(String name, Map<String, String> keys) {
        List<Step> next = new ArrayList<>(steps);
        next.add(new Step(name, keys));
        return new NacmPath(List.copyOf(next));
    }

    public NacmPath child(String name) {
        return child(name, Map.of());
    }

    /** Whether this (a rule's path) covers {@code node}: it is the node or an ancestor of it. */
    public boolean covers(NacmPath node) {
        if (steps.size() > node.steps.size()) return false;
        for (int i = 0; i < steps.size(); i++) {
            Step rule = steps.get(i);
            Step at = node.steps.get(i);
            if (!rule.name.equals(at.name)) return false;
            for (Map.Entry<String, String> k : rule.keys.entrySet()) {
                if (!k.getValue().equals(at.keys.get(k.getKey()))) return false;
            }
        }
        return true;
    }

    /**
     * Parses an instance identifier such as
     * {@code /new-vmm-mib:NEW-VMM-MIB/new-vmm-mib:vmConfigTable/new-vmm-mib:vmConfigEntry[new-vmm-mib:vmIndex='3']};
     * "/" alone is every node.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static NacmPath parse(String text) {
        String s = text.trim();
        if (!s.startsWith("/")) throw new IllegalArgumentException("a path starts with '/'");
        List<Step> steps = new ArrayList<>();
        int i = 1;
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && s.charAt(i) != '/' && s.charAt(i) != '[') i++;
            String name = local(s.substring(start, i));
            Map<String, String> keys = new LinkedHashMap<>();
            while (i < s.length() && s.charAt(i) == '[') {
                int eq = s.indexOf('=', i);
                if (eq < 0 || eq + 1 >= s.length()) throw new IllegalArgumentException("a key predicate needs '=' and a quoted value");
                char quote = s.charAt(eq + 1);
                int close = quote == '\'' || quote == '"' ? s.indexOf(quote, eq + 2) : -1;
                if (close < 0 || close + 1 >= s.length() || s.charAt(close + 1) != ']') {
                    throw new IllegalArgumentException("a key predicate is [name='value']");
                }
                keys.put(local(s.substring(i + 1, eq)), s.substring(eq + 2, close));
                i = close + 2;
            }
            if (name.isEmpty()) throw new IllegalArgumentException("a path step has no name");
            steps.add(new Step(name, Map.copyOf(keys)));
            if (i < s.length()) {
                if (s.charAt(i) != '/') throw new IllegalArgumentException("unexpected '" + s.charAt(i) + "' in the path");
                i++;
                if (i == s.length()) throw new IllegalArgumentException("a path does not end with '/'");
            }
        }
        return new NacmPath(List.copyOf(steps));
    }

    private static String local(String qualified) {
        String n = qualified.trim();
        return n.substring(n.indexOf(':') + 1).trim();
    }
}
