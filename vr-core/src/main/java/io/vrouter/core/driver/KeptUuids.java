package io.vrouter.core.driver;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A driver's behaviour: the next {@link HypervisorDriver#provision} of a VR gives its VM a UUID it is
 * told beforehand instead of a new one, so that a VR restored or moved here keeps its vmUUID. Without
 * it, such a VR gets a new UUID from its host.
 */
public interface KeptUuids {
    /**
     * The next provisioning of {@code vmIndex} under {@code vmName} gives its VM this UUID; null forgets
     * what was said before (its creation was refused).
     */
    void keepUuid(int vmIndex, String vmName, UUID uuid);

    /** What a driver keeps for its provisioning: the UUIDs told, by vmIndex, each for one name. */
    final class Told {
        private record Entry(String vmName, UUID uuid) {
        }

        private final Map<Integer, Entry> told = new ConcurrentHashMap<>();

        public void put(int vmIndex, String vmName, UUID uuid) {
            if (uuid == null) told.remove(vmIndex);
            else told.put(vmIndex, new Entry(vmName, uuid));
        }

        /** The UUID told for this VR (taken: it serves one provisioning), or null. */
        public UUID take(int vmIndex, String vmName) {
            Entry e = told.remove(vmIndex);
            return e != null && e.vmName.equals(vmName) ? e.uuid : null;
        }
    }
}
