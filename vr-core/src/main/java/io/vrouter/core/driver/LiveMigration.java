package io.vrouter.core.driver;

import io.vrouter.core.model.VmConfigEntry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A driver's behaviour: the hypervisor moves a VR's running machine to another host itself, so the
 * guest keeps running (libvirt's peer-to-peer live migration, XenAPI's {@code VM.pool_migrate} and
 * {@code VM.migrate_send}), instead of the destination re-creating the VR from its row
 * (docs/adr/0023-backup-restore-and-migration.md, decision 13).
 *
 * <p>Three steps, on two routers: the destination's driver is told the VR is coming
 * ({@link #expectArrival}) and answers where to send it; its next {@link Lifecycle#provision} of that
 * VR then waits for the machine and adopts it instead of making one. The source's driver sends the
 * machine there ({@link #migrate}). Should that fail, the machine still runs on the source and the
 * destination is told ({@link #cancelArrival}), so its provisioning fails and its change set is undone
 * whole: nothing is left there.
 */
public interface LiveMigration {
    /** How long a destination waits for the machine once it expects it (a live move under TCG takes seconds). */
    Duration ARRIVAL_WAIT = Duration.ofMinutes(2);
    /**
     * The destination's side: the next provisioning of this VR (its vmIndex here and its name) adopts
     * the machine of that name arriving by the hypervisor instead of making one. The host is made ready
     * for it here (the bridges its interfaces need, say), as the source's hypervisor starts it at once.
     *
     * @return what the source's driver needs to send it here (its hypervisor's address, a XenAPI
     *     {@code host.migrate_receive} token, ...), passed unread through the routers to {@link #migrate}
     */
    Map<String, String> expectArrival(VmConfigEntry config) throws DriverException;

    /** The destination's side: the machine will not come; a provisioning waiting for it fails at once. */
    void cancelArrival(int vmIndex);

    /**
     * The source's side: moves the VR's running machine to the destination, live. When it returns
     * the machine runs there and is gone here; when it throws, the machine still runs here.
     *
     * @param destination what the destination's {@link #expectArrival} answered
     */
    void migrate(int vmIndex, Map<String, String> destination) throws DriverException;

    /** Where a VR's machine is, as this host sees it. */
    enum Whereabouts {
        /** On this host, and no migration of it under way: it did not leave. */
        HERE,
        /** On this host, its migration under way: ask again. */
        LEAVING,
        /** Not on this host: the hypervisor moved it. */
        GONE
    }

    /**
     * The source's side, at a restart in the middle of a move (docs/adr/0023, decision 17): whether the
     * machine of VR {@code vmIndex} is still here, is leaving, or left.
     */
    Whereabouts whereabouts(int vmIndex) throws DriverException;

    /**
     * At a restart in the middle of a move, before the start-up provisions what is missing: the machine
     * of VR {@code vmIndex} ({@code vmName}) is expected, so its provisioning adopts it when it is here or
     * comes, instead of making one; {@link #cancelArrival} ends that wait. The destination's side: what
     * {@link #expectArrival} made ready on the host is there still. The source's side: a machine the
     * hypervisor had moved away is not made again here.
     */
    void expectAgain(int vmIndex, String vmName);

    /** What a driver keeps for the destination's side: the arrivals expected, by vmIndex, each for one name. */
    final class Arrivals {
        /** What a provisioning looks for on its host: the arrived machine, when it is there. */
        public interface Finder<T> {
            Optional<T> find() throws DriverException;
        }

        private record Expected(String vmName, CountDownLatch cancelled) {
        }

        private final Map<Integer, Expected> expected = new ConcurrentHashMap<>();

        public void expect(int vmIndex, String vmName) {
            Expected old = expected.put(vmIndex, new Expected(vmName, new CountDownLatch(1)));
            if (old != null) old.cancelled.countDown();
        }

        /**
         * The arrival will not come. It stays known as cancelled until its provisioning asks, which
         * then fails, even when the provisioning begins only after this (rather than make the VR anew).
         */
        public void cancel(int vmIndex) {
            Expected e = expected.get(vmIndex);
            if (e != null) e.cancelled.countDown();
        }

        /** Whether the provisioning of this VR is an arrival to wait for rather than a machine to make. */
        public boolean expected(int vmIndex, String vmName) {
            Expected e = expected.get(vmIndex);
            return e != null && e.vmName.equals(vmName);
        }

        /**
         * Waits until {@code find} finds the arrived machine (looking again every half second at most),
         * and forgets the arrival. Fails when it is cancelled or has not come within {@code timeout}.
         */
        public <T> T await(int vmIndex, Duration timeout, Finder<T> find) throws DriverException {
            Expected e = expected.get(vmIndex);
            if (e == null) throw new DriverException("MIGRATION_CANCELLED", "no arrival of VR " + vmIndex + " is expected");
            long deadline = System.nanoTime() + timeout.toNanos();
            long pause = 20;
            try {
                while (true) {
                    Optional<T> found = find.find();
                    if (found.isPresent()) {
                        expected.remove(vmIndex, e);
                        return found.get();
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        expected.remove(vmIndex, e);
                        throw new DriverException("TIMEOUT", "VR " + e.vmName + " did not arrive within " + timeout.toSeconds() + " s");
                    }
                    // the latch wakes the wait at once when the source says the machine will not come
                    if (e.cancelled.getCount() == 0 || e.cancelled.await(Math.min(pause, TimeUnit.NANOSECONDS.toMillis(left) + 1), TimeUnit.MILLISECONDS)) {
                        expected.remove(vmIndex, e);
                        throw new DriverException("MIGRATION_CANCELLED", "the source's hypervisor did not send VR " + e.vmName
                                + " here; nothing was made");
                    }
                    pause = Math.min(pause * 2, 500);
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new DriverException("MIGRATION_CANCELLED", "waiting for VR " + e.vmName + " interrupted", ie);
            }
        }
    }
}
