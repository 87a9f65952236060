package io.vrouter.xen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.PowerState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Predicate;

/**
 * The host's objects as the event feed last reported them, by class (lower case, as events name
 * them) and opaque reference. Every read is in memory. Changes wake the threads waiting in
 * {@link #await}. A change to a VR's VM that vrouter did not wait for becomes a note for the
 * {@link DriverListener}, run by the caller outside the lock.
 */
final class XenCache {
    private final Map<String, Map<String, JsonNode>> objects = new HashMap<>();
    /** vmIndex values that a driver operation is working on: their changes are vrouter's own. */
    private final java.util.Set<Integer> busy = java.util.concurrent.ConcurrentHashMap.newKeySet();

    void busy(int vmIndex) {
        busy.add(vmIndex);
    }

    void idle(int vmIndex) {
        busy.remove(vmIndex);
    }

    /** The vmIndex a VM record is marked with, if it is a VR's VM (not a template, snapshot or dom0). */
    static OptionalInt vmIndexOf(JsonNode vm) {
        if (vm.path("is_a_template").asBoolean() || vm.path("is_a_snapshot").asBoolean()
                || vm.path("is_control_domain").asBoolean()) {
            return OptionalInt.empty();
        }
        String v = vm.path("other_config").path(XenDriver.MARKER).asText("");
        try {
            return v.isEmpty() ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(v.trim()));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /** Replaces everything with a full load (event.from with an empty token). */
    synchronized List<Runnable> replaceAll(JsonNode events, DriverListener listener) {
        Map<String, JsonNode> before = new HashMap<>(table("vm"));
        objects.clear();
        List<Runnable> notes = apply(events, listener);
        for (Map.Entry<String, JsonNode> e : before.entrySet()) {
            JsonNode now = table("vm").get(e.getKey());
            if (now == null) {
                notes.addAll(vanished(e.getValue(), listener));
            } else {
                powerChange(e.getValue(), now, listener).ifPresent(notes::add);
            }
        }
        return notes;
    }

    /** Applies a batch of events. */
    synchronized List<Runnable> apply(JsonNode events, DriverListener listener) {
        List<Runnable> notes = new ArrayList<>();
        for (JsonNode ev : events) {
            String cls = ev.path("class").asText().toLowerCase(Locale.ROOT);
            String ref = ev.path("ref").asText();
            String op = ev.path("operation").asText();
            if ("del".equals(op)) {
                JsonNode old = table(cls).remove(ref);
                if ("vm".equals(cls) && old != null) notes.addAll(vanished(old, listener));
            } else if (ev.hasNonNull("snapshot")) {
                JsonNode snap = ev.get("snapshot");
                JsonNode old = table(cls).put(ref, snap);
                if ("vm".equals(cls) && old != null) powerChange(old, snap, listener).ifPresent(notes::add);
            }
        }
        notifyAll();
        return notes;
    }

    /** A note of a power change of one of our VMs that no operation of ours is under way for. */
    private Optional<Runnable> powerChange(JsonNode old, JsonNode snap, DriverListener listener) {
        OptionalInt idx = vmIndexOf(snap);
        PowerState was = XenReads.power(old);
        PowerState now = XenReads.power(snap);
        if (listener == null || idx.isEmpty() || was == now || busy.contains(idx.getAsInt())) return Optional.empty();
        int i = idx.getAsInt();
        return Optional.of(() -> listener.powerStateChanged(i, now));
    }

    private List<Runnable> vanished(JsonNode old, DriverListener listener) {
        OptionalInt idx = vmIndexOf(old);
        if (idx.isEmpty() || listener == null || busy.contains(idx.getAsInt())) return List.of();
        int i = idx.getAsInt();
        return List.of(() -> listener.vmVanished(i));
    }

    private Map<String, JsonNode> table(String cls) {
        return objects.computeIfAbsent(cls, k -> new HashMap<>());
    }

    synchronized void putVm(String ref, ObjectNode record) {
        put("vm", ref, record);
    }

    /** Stores a record read directly rather than from the feed. */
    synchronized void put(String cls, String ref, JsonNode record) {
        table(cls).put(ref, record);
        notifyAll();
    }

    /** Drops a VM we destroyed ourselves, and what hung off it. */
    synchronized void forget(String vmRef) {
        JsonNode vm = table("vm").remove(vmRef);
        table("vif").values().removeIf(v -> vmRef.equals(v.path("VM").asText()));
        table("vbd").values().removeIf(v -> vmRef.equals(v.path("VM").asText()));
        if (vm != null) table("vm_metrics").remove(vm.path("metrics").asText());
        notifyAll();
    }

    synchronized Optional<String> vmRef(int vmIndex) {
        for (Map.Entry<String, JsonNode> e : table("vm").entrySet()) {
            if (vmIndexOf(e.getValue()).orElse(-1) == vmIndex) return Optional.of(e.getKey());
        }
        return Optional.empty();
    }

    /**
     * The name-labels of the host's templates that an operator made: VM records with is_a_template,
     * not snapshots (which are templates too), and not XenServer's own OS-install templates, which
     * carry other_config:default_template=true.
     */
    synchronized List<String> operatorTemplates() {
        return table("vm").values().stream()
                .filter(vm -> vm.path("is_a_template").asBoolean() && !vm.path("is_a_snapshot").asBoolean()
                        && !vm.path("other_config").path("default_template").asText("").equals("true"))
                .map(vm -> vm.path("name_label").asText(""))
                .filter(name -> !name.isBlank())
                .sorted()
                .toList();
    }

    synchronized Map<Integer, String> markedVms() {
        Map<Integer, String> out = new HashMap<>();
        table("vm").forEach((ref, vm) -> vmIndexOf(vm).ifPresent(i -> out.put(i, ref)));
        return out;
    }

    synchronized Optional<JsonNode> vm(String ref) {
        return Optional.ofNullable(table("vm").get(ref));
    }

    synchronized Optional<JsonNode> get(String cls, String ref) {
        return Optional.ofNullable(table(cls).get(ref));
    }

    synchronized Optional<JsonNode> host() {
        return table("host").values().stream().findFirst();
    }

    synchronized List<JsonNode> vifsOf(String vmRef) {
        return table("vif").values().stream().filter(v -> vmRef.equals(v.path("VM").asText())).toList();
    }

    synchronized List<JsonNode> vifsOn(String networkRef) {
        return table("vif").values().stream().filter(v -> networkRef.equals(v.path("network").asText())).toList();
    }

    synchronized List<JsonNode> vbdsOf(String vmRef) {
        return table("vbd").values().stream().filter(v -> vmRef.equals(v.path("VM").asText())).toList();
    }

    /** Waits until the VM's record satisfies the predicate; false on timeout. */
    synchronized boolean await(String vmRef, Predicate<JsonNode> done, long millis) {
        return awaitTrue(() -> {
            JsonNode vm = table("vm").get(vmRef);
            return vm != null && done.test(vm);
        }, millis);
    }

    /** Waits until the feed reports the VM deleted; false on timeout. */
    synchronized boolean awaitGone(String vmRef, long millis) {
        return awaitTrue(() -> !table("vm").containsKey(vmRef), millis);
    }

    private boolean awaitTrue(java.util.function.BooleanSupplier condition, long millis) {
        long end = System.currentTimeMillis() + millis;
        while (!condition.getAsBoolean()) {
            long left = end - System.currentTimeMillis();
            if (left <= 0) return false;
            try {
                wait(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
