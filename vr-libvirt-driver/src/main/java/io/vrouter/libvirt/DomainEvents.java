package io.vrouter.libvirt;

import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.PowerState;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.libvirt.Domain;
import org.libvirt.LibvirtException;
import org.libvirt.Library;
import org.libvirt.event.DomainEvent;
import org.libvirt.event.DomainEventType;
import org.libvirt.event.LifecycleListener;
import org.libvirt.event.StoppedDetail;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * libvirt's domain lifecycle events, told to the service's listener when they are changes made behind
 * vrouter's back: a VR's domain paused, resumed, destroyed, crashed or undefined by another tool. The
 * driver's own operations are not: while one runs for a VR its events are dropped, and an event that
 * arrives after it ended is dropped when it brings the VR to the state the operation left it in.
 */
final class DomainEvents implements LifecycleListener {
    private static final Logger log = LoggerFactory.getLogger(DomainEvents.class);
    private static boolean loopStarted;

    private final Pattern ourName;
    /** What each VR was when vrouter's last operation on it ended. */
    private final Map<Integer, PowerState> expected = new ConcurrentHashMap<>();
    /** VRs whose domain vrouter removed: their undefine is not news. */
    private final Set<Integer> removed = ConcurrentHashMap.newKeySet();
    private final Set<Integer> busy = ConcurrentHashMap.newKeySet();
    // Off the event loop's thread: the listener may read the VR back through libvirt.
    private final ExecutorService dispatch = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "libvirt-domain-events");
        t.setDaemon(true);
        return t;
    });
    private volatile DriverListener listener;
    /** Reads the VR again into the driver's cache before the listener (which reads it) is told. */
    private final java.util.function.IntConsumer refresh;

    DomainEvents(Pattern ourName, java.util.function.IntConsumer refresh) {
        this.ourName = ourName;
        this.refresh = refresh;
    }

    /**
     * libvirt's default event loop, run on a thread of its own: once per process, and before the first
     * connection is opened (a connection opened earlier delivers no events).
     */
    static synchronized void startLoop() throws LibvirtException {
        if (loopStarted) return;
        Library.initEventLoop();
        Thread t = new Thread(() -> {
            try {
                Library.runEventLoop();
            } catch (LibvirtException | InterruptedException e) {
                log.warn("libvirt's event loop stopped: domain events no longer arrive: {}", e.getMessage());
            }
        }, "libvirt-event-loop");
        t.setDaemon(true);
        t.start();
        loopStarted = true;
    }

    void setListener(DriverListener listener) {
        this.listener = listener;
    }

    void begin(int vmIndex) {
        busy.add(vmIndex);
    }

    /** An operation ended, leaving the VR in that state (null: its domain is gone). */
    void end(int vmIndex, PowerState now) {
        if (now == null) {
            expected.remove(vmIndex);
            removed.add(vmIndex);
        } else {
            expected.put(vmIndex, now);
            removed.remove(vmIndex);
        }
        busy.remove(vmIndex);
    }

    @Override
    public int onLifecycleChange(Domain domain, DomainEvent event) {
        String name;
        try {
            name = domain.getName(); // kept in the handle: no call to libvirtd
        } catch (LibvirtException e) {
            return 0;
        }
        Matcher m = ourName.matcher(name);
        if (m.matches()) {
            int vmIndex = Integer.parseInt(m.group(1));
            DomainEventType type = event.getType();
            Object detail = event.getDetail();
            dispatch.execute(() -> handle(vmIndex, type, detail));
        }
        return 0;
    }

    private void handle(int vmIndex, DomainEventType type, Object detail) {
        DriverListener l = listener;
        if (busy.contains(vmIndex)) return; // the operation reads the VR again when it ends
        refresh.accept(vmIndex);
        if (l == null) return;
        if (type == DomainEventType.UNDEFINED) {
            if (!removed.remove(vmIndex)) l.vmVanished(vmIndex);
            return;
        }
        PowerState power = switch (type) {
            case STARTED, RESUMED -> PowerState.RUNNING;
            case SUSPENDED -> PowerState.PAUSED;
            case STOPPED -> detail == StoppedDetail.SAVED ? PowerState.SUSPENDED : PowerState.HALTED;
            case CRASHED -> PowerState.CRASHED;
            default -> null; // defined, shutting down (it stops later), PM suspend: no change of power state
        };
        if (power == null || power == expected.get(vmIndex)) return;
        expected.put(vmIndex, power);
        String what = "domain " + type.name().toLowerCase(java.util.Locale.ROOT)
                + (detail == null ? "" : " (" + detail.toString().toLowerCase(java.util.Locale.ROOT) + ")");
        boolean killed = detail == StoppedDetail.DESTROYED || detail == StoppedDetail.CRASHED || detail == StoppedDetail.FAILED;
        log.info("VR {}: {} outside vrouter", vmIndex, what);
        l.powerStateChanged(vmIndex, killed ? PowerState.CRASHED : power, what);
    }

    void close() {
        dispatch.shutdownNow();
    }
}
