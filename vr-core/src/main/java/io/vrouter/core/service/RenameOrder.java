package io.vrouter.core.service;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The order in which VMs can be renamed so that no two ever share a name on the host: a VM takes
 * its new name only once no other VM has it; when none can move (a swap, a cycle), one steps aside
 * to a temporary name first. Renames in one wave are independent of each other.
 */
final class RenameOrder {
    /** One rename: the VM and the name it takes. */
    record Move<K>(K vm, String name) {
    }

    private RenameOrder() {
    }

    /**
     * @param current   every VM that may be renamed or may hold a name wanted, and its name now
     * @param wanted    the VMs to rename and their new names (unique among themselves)
     * @param temporary a free name for a VM to step aside to
     */
    static <K> List<List<Move<K>>> waves(Map<K, String> current, Map<K, String> wanted, Function<K, String> temporary) {
        Map<String, K> holder = new HashMap<>();
        current.forEach((vm, name) -> holder.put(name, vm));
        Map<K, String> now = new HashMap<>(current);
        Map<K, String> left = new LinkedHashMap<>(wanted);
        left.entrySet().removeIf(w -> w.getValue().equals(current.get(w.getKey())));
        List<List<Move<K>>> waves = new ArrayList<>();
        while (!left.isEmpty()) {
            List<Move<K>> wave = new ArrayList<>();
            for (Map.Entry<K, String> w : left.entrySet()) {
                K h = holder.get(w.getValue());
                if (h == null || h.equals(w.getKey())) wave.add(new Move<>(w.getKey(), w.getValue()));
            }
            if (wave.isEmpty()) {
                K first = left.keySet().iterator().next();
                wave.add(new Move<>(first, temporary.apply(first)));
            } else {
                for (Move<K> m : wave) left.remove(m.vm());
            }
            for (Move<K> m : wave) {
                holder.remove(now.get(m.vm()), m.vm());
                holder.put(m.name(), m.vm());
                now.put(m.vm(), m.name());
            }
            waves.add(wave);
        }
        return waves;
    }
}
