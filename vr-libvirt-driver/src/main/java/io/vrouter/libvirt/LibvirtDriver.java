package io.vrouter.libvirt;

import io.vrouter.core.driver.CpuWeights;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.Interfaces;
import io.vrouter.core.driver.Links;
import io.vrouter.core.driver.LiveMigration;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.PowerStates;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.LinkStatus;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.libvirt.Connect;
import org.libvirt.Domain;
import org.libvirt.DomainInfo;
import org.libvirt.Error;
import org.libvirt.LibvirtException;
import org.libvirt.jna.Libvirt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VRs as libvirt domains: QEMU virtual machines that boot vrouter's router appliance (or another
 * template's kernel and initramfs) directly, the day-0 addresses on the kernel command line, or boot a
 * template's disk image (VyOS, a cloud image), the day-0 addresses on a NoCloud seed; with the VR's vCPUs
 * and memory, one virtio NIC per interface on the host bridge its parent names, and the serial console
 * logged to a file. The domain's metadata carries the vmIndex: the marker that says a domain is vrouter's. Every step looks at the domain before it acts, so a step re-run after a
 * crash finds its work done.
 */
public final class LibvirtDriver implements HypervisorDriver, PowerStates, Interfaces, CpuWeights, Links, LiveMigration {
    private static final Logger log = LoggerFactory.getLogger(LibvirtDriver.class);
    private static final Pattern BRIDGE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,14}");
    private static final Pattern ADDRESS = Pattern.compile("[0-9A-Fa-f:.]{2,45}");
    private static final String KERNEL = "vmlinuz";
    private static final String INITRD = "initrd.img";
    private static final String CONSOLE_LOG = "console.log";
    /** A template's disk image, and the name of each VR's overlay on it in its run directory. */
    private static final String DISK = "disk.qcow2";
    private static final long MIB = 1024 * 1024;
    /** virDomainGetXMLDesc's VIR_DOMAIN_XML_INACTIVE: the persistent definition, not the running one. */
    private static final int XML_INACTIVE = 2;
    /** VIR_DOMAIN_AFFECT_LIVE: a device change made to the running guest (the definition is changed apart). */
    private static final int AFFECT_LIVE = 1;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final long BUTTON_REPEAT_NANOS = 5_000_000_000L;
    /** Called before each press of the power button with the vmIndex; tests hold the moment open. */
    java.util.function.IntConsumer beforeButton = vmIndex -> { };
    /** Called before each use of the connection; tests hold libvirt up with it, as a hung libvirtd would. */
    Runnable beforeLibvirt = () -> { };
    /**
     * libvirt prints every error to standard error unless a callback takes them; the driver reports the
     * ones that matter as exceptions (a lookup of an absent domain is not one). Held here: JNA keeps
     * only a weak reference to a callback.
     */
    private static final Libvirt.VirErrorCallback QUIET = (userData, error) -> { };

    private final LibvirtSettings settings;
    private final Bridges bridges;
    private final Pattern ourName;
    private final DomainEvents events;
    private Connect conn;
    private Accel accel;
    private String versions = "";
    private volatile String problem;
    /** What reads are served from: every VR as libvirt last showed it. */
    private final LibvirtReads reads;
    /** The VRs a peer's libvirtd is about to send here (LiveMigration). */
    private final LiveMigration.Arrivals arrivals = new LiveMigration.Arrivals();
    private LibvirtDriver(LibvirtSettings settings) {
        this.settings = settings;
        this.bridges = new Bridges(settings.ip(), settings.bridgeAlias(), settings.commandTimeout());
        this.ourName = Pattern.compile(Pattern.quote(settings.prefix()) + "([1-9][0-9]{0,9})");
        this.reads = new LibvirtReads(settings, ourName, this);
        this.events = new DomainEvents(ourName, reads::refresh);
    }

    public static LibvirtDriver open(LibvirtSettings settings) throws DriverException {
        LibvirtDriver d = new LibvirtDriver(settings);
        List<String> templates = d.templates();
        if (templates.isEmpty()) {
            throw new DriverException("NO_TEMPLATES", "--driver libvirt found no template in " + settings.imageDir()
                    + " (a directory holding vmlinuz and initrd.img, or disk.qcow2): build the appliance with vr-libvirt-driver/appliance/build.sh "
                    + settings.imageDir());
        }
        try {
            Files.createDirectories(settings.runDir());
        } catch (IOException e) {
            throw new DriverException("NOT_PERMITTED", "--driver libvirt cannot use " + settings.runDir() + ": " + e.getMessage(), e);
        }
        try {
            Connect.setErrorCallback(QUIET);
            DomainEvents.startLoop();
            d.conn = new Connect(settings.uri());
            d.conn.addLifecycleListener(d.events);
            Path probeKernel = templates.stream().filter(d::bootsItsKernel).findFirst().map(t -> d.image(t, KERNEL)).orElse(null);
            d.accel = Accel.choose(settings.accel(), d.conn.getCapabilities(), probeKernel);
            d.versions = "libvirt " + version(d.conn.getLibVersion()) + ", QEMU " + version(d.conn.getVersion());
        } catch (LibvirtException e) {
            d.close();
            throw new DriverException("LIBVIRT_UNREACHABLE", "--driver libvirt cannot reach libvirt at " + settings.uri() + ": "
                    + e.getError().getMessage(), e);
        }
        log.info("libvirt driver: VRs as domains {}<vmIndex> at {}, templates {} from {}; {}", settings.prefix(), settings.uri(),
                templates, settings.imageDir(), d.accel.why());
        d.reads.start();
        return d;
    }

    @Override
    public String name() {
        return "libvirt";
    }

    @Override
    public Hypervisor hypervisor() {
        Hypervisor h = new Hypervisor();
        h.vmHvSoftware = "libvirt QEMU (" + (accel.kvm() ? "KVM" : "TCG") + ")";
        h.vmHvVersion = versions;
        h.vmHvObjectID = "0.0";
        try {
            h.vmHvUpTime = (long) (Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]) * 100);
        } catch (IOException | RuntimeException e) {
            h.vmHvUpTime = 0L;
        }
        io.vrouter.core.driver.HostResources.fill(h);
        return h;
    }

    private static String version(long v) {
        return (v / 1_000_000) + "." + (v / 1000 % 1000) + "." + (v % 1000);
    }

    /** The accelerator chosen at start-up, and why. */
    public String accelerator() {
        return accel.why();
    }

    /**
     * The subdirectories of the image directory that hold a kernel and an initramfs, or else a disk image to
     * boot from, {@code bird} first when there, then by name.
     */
    @Override
    public List<String> templates() {
        try (Stream<Path> dirs = Files.list(settings.imageDir())) {
            return dirs.filter(d -> bootsItsKernel(d) || Files.isReadable(d.resolve(DISK)))
                    .map(d -> d.getFileName().toString())
                    .sorted(Comparator.comparing((String t) -> !t.equals("bird")).thenComparing(Comparator.naturalOrder()))
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Whether a template boots its kernel and initramfs directly (else its disk image, with a NoCloud seed). */
    private boolean bootsItsKernel(String template) {
        return bootsItsKernel(settings.imageDir().resolve(template));
    }

    private static boolean bootsItsKernel(Path templateDir) {
        return Files.isReadable(templateDir.resolve(KERNEL)) && Files.isReadable(templateDir.resolve(INITRD));
    }

    /** Pause and suspend, which is libvirt's managed save. */
    @Override
    public Set<AdminState> suspendStates() {
        return EnumSet.of(AdminState.PAUSED, AdminState.SUSPENDED);
    }

    @Override
    public void setListener(DriverListener listener) {
        events.setListener(listener);
    }

    @Override
    public Optional<String> problem() {
        long stuck = reads.refreshingForSeconds();
        if (problem == null && stuck >= 30) {
            return Optional.of("libvirt at " + settings.uri() + " has not answered for " + stuck + " s: reads show what it said last");
        }
        return Optional.ofNullable(problem);
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void provision(VmConfigEntry config) throws DriverException {
        op(config.vmIndex, () -> doProvision(config));
    }

    private void doProvision(VmConfigEntry config) throws DriverException {
        int i = config.vmIndex;
        if (arrivals.expected(i, config.vmName)) {
            // moved here by libvirt (LiveMigration): the running domain is adopted, not defined
            try {
                ours(arrivals.await(i, LiveMigration.ARRIVAL_WAIT, () -> {
                    Optional<Domain> d = lookup(i);
                    return d.isPresent() && active(d.get()) ? d : Optional.empty();
                }));
            } catch (DriverException notArrived) {
                // what expectArrival made ready goes: the bridges nothing uses, the run directory
                List<DomainXml.Nic> nics = new ArrayList<>();
                for (VmNetworkConfigEntry n : config.interfaces()) nics.add(nic(i, n, List.of()));
                if (lookup(i).isEmpty()) removeLeftovers(i, bridgesOf(nics), notArrived);
                throw notArrived;
            }
            return;
        }
        String template = config.vmConfigTemplate == null ? templates().get(0) : config.vmConfigTemplate;
        Optional<Domain> existing = lookup(i);
        // A provisioning cut short (a kill -9) may have defined the domain already: defined again, with its MACs.
        List<DomainXml.Nic> before = existing.isPresent() ? ours(existing.get()).nics() : List.of();
        List<DomainXml.Nic> nics = new ArrayList<>();
        for (VmNetworkConfigEntry n : config.interfaces()) nics.add(nic(i, n, before));
        try {
            define(i, config.vmName, template, cpus(config), memory(config), LibvirtWeights.shares(config), nics, () -> { });
            autostart(i, config);
        } catch (DriverException e) {
            // libvirt refused the domain after its bridges and run directory were made: a first try leaves nothing.
            if (existing.isEmpty()) removeLeftovers(i, bridgesOf(nics), e);
            throw e;
        }
    }

    /** What a VR without a domain leaves: the bridges made for it that nothing uses, its run directory. */
    private void removeLeftovers(int vmIndex, List<String> bridgeNames, DriverException failure) {
        try {
            for (String b : bridgeNames) bridges.removeIfUnused(b);
            deleteTree(settings.runDir().resolve(settings.domainName(vmIndex)));
        } catch (DriverException e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public void reconfigure(VmConfigEntry config) throws DriverException {
        op(config.vmIndex, () -> doReconfigure(config));
    }

    private void doReconfigure(VmConfigEntry config) throws DriverException {
        DomainXml.Parsed p = parsed(domain(config.vmIndex));
        Domain d = domain(config.vmIndex);
        int shares = LibvirtWeights.shares(config);
        define(config.vmIndex, config.vmName, p.template(), cpus(config), memory(config), shares, p.nics(), () -> { });
        // The definition holds for the next boot; a running VR takes its weight now.
        if (active(d)) call("set CPU shares", () -> { LibvirtWeights.setLive(d, shares); return null; });
        autostart(config.vmIndex, config);
    }

    /** vmConfigAutoStart as libvirt's autostart: libvirtd starts the domain when it starts (the host boots). */
    private void autostart(int vmIndex, VmConfigEntry config) throws DriverException {
        Domain d = domain(vmIndex);
        boolean wanted = Boolean.TRUE.equals(config.vmConfigAutoStart);
        if (call("autostart", d::getAutostart) != wanted) call("set autostart", () -> { d.setAutostart(wanted); return null; });
    }

    /**
     * Defines (or defines again) the VR's domain: the one step that makes it exist, after its bridges and
     * its run directory, then the step that follows it while the bridges are held (a hot-plug).
     */
    private void define(int vmIndex, String vmName, String template, int cpus, int memoryMib, int shares, List<DomainXml.Nic> nics,
                        Step then) throws DriverException {
        if (!templates().contains(template)) {
            throw new DriverException("INVALID_CONFIG", "template '" + template + "' is not one of this host's: " + templates());
        }
        String name = settings.domainName(vmIndex);
        Path dir = settings.runDir().resolve(name);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new DriverException("NOT_PERMITTED", "cannot make " + dir + ": " + e.getMessage(), e);
        }
        // Defined again (a re-run, a change): the same domain, so the same UUID; never one that is not vrouter's.
        Optional<Domain> existing = lookup(vmIndex);
        String uuid = null;
        if (existing.isPresent()) {
            ours(existing.get());
            uuid = call("uuid", existing.get()::getUUIDString);
        }
        Path disk = overlay(template, dir);
        // A disk-booting guest's day 0 is its seed, written again before every definition: a changed network or name.
        DomainXml.Boot boot = bootsItsKernel(template) ? DomainXml.Boot.direct(image(template, KERNEL), image(template, INITRD))
                : DomainXml.Boot.fromDisk(NoCloudSeed.write(dir, name, vmName == null || vmName.isEmpty() ? name : vmName, nics,
                        image(template, NoCloudSeed.USER_DATA), settings.genisoimage(), settings.commandTimeout()));
        String xml = LibvirtWeights.withShares(DomainXml.build(name, uuid, vmIndex, vmName == null ? "" : vmName, template,
                accel.domainType(), cpus, memoryMib, boot, dir.resolve(CONSOLE_LOG), nics, disk), shares);
        bridges.withBridges(bridgesOf(nics), () -> {
            Connect c = connection();
            call("define " + name, () -> c.domainDefineXML(xml));
            then.run();
            return null;
        });
        log.debug("defined {}: {}", name, xml);
    }

    /**
     * The VR's disk: a qcow2 overlay in its run directory on the template's image, made when missing (whole or
     * not at all: made under another name, then renamed), or null when the template has no disk image.
     */
    private Path overlay(String template, Path dir) throws DriverException {
        Path base = image(template, DISK);
        if (!Files.isReadable(base)) return null;
        Path overlay = dir.resolve(DISK);
        if (Files.exists(overlay)) return overlay;
        Path part = dir.resolve(DISK + ".part");
        Bridges.run(settings.commandTimeout(), settings.qemuImg(), "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", base.toString(),
                part.toString());
        try {
            Files.move(part, overlay, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new DriverException("NOT_PERMITTED", "cannot make " + overlay + ": " + e.getMessage(), e);
        }
        return overlay;
    }

    @Override
    public void start(int vmIndex) throws DriverException {
        op(vmIndex, () -> doStart(vmIndex));
    }

    private void doStart(int vmIndex) throws DriverException {
        Domain d = domain(vmIndex);
        DomainInfo.DomainState state = info(d).state;
        switch (state) {
            case VIR_DOMAIN_PAUSED -> call("resume", () -> { d.resume(); return null; });
            case VIR_DOMAIN_SHUTOFF, VIR_DOMAIN_CRASHED, VIR_DOMAIN_NOSTATE -> {
                // Its bridges made again if a removal took them while it was off (then it had no port on them).
                List<String> names = bridgesOf(parsed(d).nics());
                bridges.withBridges(names, () -> call("start", d::create));
                // Restored from a managed save of a paused guest, it comes back paused.
                if (info(d).state == DomainInfo.DomainState.VIR_DOMAIN_PAUSED) call("resume", () -> { d.resume(); return null; });
            }
            default -> {
                // running, blocked or shutting down: running already
            }
        }
    }

    // ---------------------------------------------------------------- behaviour: live migration (LibvirtMigration)

    /** Offered when {@code libvirt.migration-uri} says how a peer's libvirtd reaches this one. */
    @Override
    public <B> Optional<B> behaviour(Class<B> type) {
        if (type == LiveMigration.class && settings.migrationUri().isEmpty()) return Optional.empty();
        return HypervisorDriver.super.behaviour(type);
    }

    /** Makes the VR's run directory, its disk overlay (and seed) and its bridges here, for QEMU to start on. */
    @Override
    public Map<String, String> expectArrival(VmConfigEntry config) throws DriverException {
        String uri = settings.migrationUri().orElseThrow(() -> new DriverException("NOT_SUPPORTED",
                "libvirt.migration-uri is not set: this host's libvirtd takes no live migration"));
        int i = config.vmIndex;
        String template = config.vmConfigTemplate == null ? templates().get(0) : config.vmConfigTemplate;
        if (!templates().contains(template)) {
            throw new DriverException("INVALID_CONFIG", "template '" + template + "' is not one of this host's: " + templates());
        }
        String name = settings.domainName(i);
        if (lookup(i).isPresent()) throw new DriverException("VM_EXISTS", "a domain " + name + " exists here already");
        List<DomainXml.Nic> nics = new ArrayList<>();
        for (VmNetworkConfigEntry n : config.interfaces()) nics.add(nic(i, n, List.of()));
        Path dir = settings.runDir().resolve(name);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new DriverException("NOT_PERMITTED", "cannot make " + dir + ": " + e.getMessage(), e);
        }
        overlay(template, dir);
        if (!bootsItsKernel(template)) {
            NoCloudSeed.write(dir, name, config.vmName, nics, image(template, NoCloudSeed.USER_DATA), settings.genisoimage(),
                    settings.commandTimeout());
        }
        bridges.withBridges(bridgesOf(nics), () -> null);
        arrivals.expect(i, config.vmName);
        return LibvirtMigration.destination(uri, name, i, dir);
    }

    @Override
    public void cancelArrival(int vmIndex) {
        arrivals.cancel(vmIndex);
    }

    /** What expectArrival made ready (run directory, overlay, bridges) is there still: only the wait is made again. */
    @Override
    public void expectAgain(int vmIndex, String vmName) {
        arrivals.expect(vmIndex, vmName);
    }

    /** The domain of its name here: leaving while a migration job of it runs, else here; gone when there is none. */
    @Override
    public Whereabouts whereabouts(int vmIndex) throws DriverException {
        Optional<Domain> d = lookup(vmIndex);
        if (d.isEmpty()) return Whereabouts.GONE;
        int job = call("job info", () -> d.get().getJobInfo()).getType();
        return job == 0 ? Whereabouts.HERE : Whereabouts.LEAVING; // 0: VIR_DOMAIN_JOB_NONE
    }

    /** libvirt's peer-to-peer live migration (see {@link LibvirtMigration}); libvirt resumes the guest here when it fails. */
    @Override
    public void migrate(int vmIndex, Map<String, String> destination) throws DriverException {
        op(vmIndex, () -> {
            Domain d = domain(vmIndex);
            String uri = LibvirtMigration.require(destination, LibvirtMigration.URI);
            String name = LibvirtMigration.require(destination, LibvirtMigration.NAME);
            int there = Integer.parseInt(LibvirtMigration.require(destination, LibvirtMigration.INDEX));
            String xml = call("xml", () -> d.getXMLDesc(LibvirtMigration.XML_MIGRATABLE));
            String dxml = LibvirtMigration.forDestination(xml, there, settings.runDir().resolve(settings.domainName(vmIndex)),
                    Path.of(LibvirtMigration.require(destination, LibvirtMigration.DIR)));
            long flags = LibvirtMigration.flags(xml);
            List<String> used = bridgesOf(ours(d).nics());
            call("live migration to " + uri, () -> d.migrateToURI(uri, null, dxml, flags, name, 0));
            log.info("{} moved live to {} as {}", settings.domainName(vmIndex), uri, name);
            // gone from here: the bridges made for it that nothing else uses go too (its removal finds no domain)
            for (String b : used) bridges.removeIfUnused(b);
        });
    }

    /** The ACPI power button, then, when the guest has not powered off within the stop timeout, destroy. */
    @Override
    public void stop(int vmIndex) throws DriverException {
        op(vmIndex, () -> doStop(vmIndex));
    }

    private void doStop(int vmIndex) throws DriverException {
        Domain d = domain(vmIndex);
        DomainInfo.DomainState state = info(d).state;
        if (state == DomainInfo.DomainState.VIR_DOMAIN_SHUTOFF) {
            // Suspended: stopping it forgets the saved memory, so the next start boots afresh.
            if (call("managed save image", d::hasManagedSaveImage) == 1) call("managed save remove", d::managedSaveRemove);
            return;
        }
        if (state != DomainInfo.DomainState.VIR_DOMAIN_PAUSED) { // a paused guest cannot see the button
            long deadline = System.nanoTime() + settings.stopTimeout().toNanos();
            long press = 0;
            boolean pausedMeanwhile = false;
            while (System.nanoTime() < deadline && !pausedMeanwhile) {
                // Pressed again every few seconds: a guest still booting misses a press before its acpid runs.
                if (System.nanoTime() - press >= BUTTON_REPEAT_NANOS) {
                    beforeButton.accept(vmIndex);
                    DomainInfo.DomainState refusedIn = pressButton(d);
                    if (refusedIn == DomainInfo.DomainState.VIR_DOMAIN_SHUTOFF) {
                        log.info("{} powered off on the ACPI power button", settings.domainName(vmIndex));
                        return;
                    }
                    pausedMeanwhile = refusedIn == DomainInfo.DomainState.VIR_DOMAIN_PAUSED;
                    press = System.nanoTime();
                }
                sleep(200);
                if (!active(d)) {
                    log.info("{} powered off on the ACPI power button", settings.domainName(vmIndex));
                    return;
                }
            }
            log.info(pausedMeanwhile ? "{} was paused while it was being stopped: destroying it" : "{} did not power off in {} ms: destroying it",
                    settings.domainName(vmIndex), settings.stopTimeout().toMillis());
        }
        if (active(d)) whileActive(d, "destroy", () -> { d.destroy(); return null; });
    }

    /**
     * The ACPI power button, which libvirt refuses ("domain is not running") unless the domain runs: a guest
     * that powered off since the look (a press a moment ago, slow under TCG), one powering off (libvirt's
     * "in shutdown", from QEMU's report of the power-off until QEMU has exited: seconds when many VRs stop at
     * once on a loaded host) or one paused meanwhile. Returns the state it was refused in (shut off, in
     * shutdown or paused), or null when it was pressed.
     */
    private DomainInfo.DomainState pressButton(Domain d) throws DriverException {
        try {
            call("shutdown", () -> { d.shutdown(); return null; });
            return null;
        } catch (DriverException e) {
            if (!active(d)) return DomainInfo.DomainState.VIR_DOMAIN_SHUTOFF;
            DomainInfo.DomainState now = info(d).state;
            if (now == DomainInfo.DomainState.VIR_DOMAIN_SHUTDOWN || now == DomainInfo.DomainState.VIR_DOMAIN_PAUSED) return now;
            throw e;
        }
    }

    /**
     * A call that libvirt refuses once the domain is off ("domain is not running"): a guest that
     * powers off between the look and the call (a press of the button a moment ago, slow under TCG)
     * is what the call wanted, not a failure. Returns false when the domain was off.
     */
    private boolean whileActive(Domain d, String what, LibvirtCall<Void> c) throws DriverException {
        try {
            call(what, c);
            return true;
        } catch (DriverException e) {
            if (active(d)) throw e;
            return false;
        }
    }

    @Override
    public void suspend(int vmIndex, AdminState how) throws DriverException {
        op(vmIndex, () -> doSuspend(vmIndex, how));
    }

    /**
     * Pause: the vCPUs stopped, memory kept. Suspend: libvirt's managed save, the guest's memory written to
     * libvirt's save directory and QEMU gone; the next start restores it.
     */
    private void doSuspend(int vmIndex, AdminState how) throws DriverException {
        Domain d = domain(vmIndex);
        if (how == AdminState.SUSPENDED) {
            if (active(d)) call("managed save", d::managedSave);
        } else if (info(d).state != DomainInfo.DomainState.VIR_DOMAIN_PAUSED) {
            call("suspend", () -> { d.suspend(); return null; });
        }
    }

    /**
     * Removes the domain and everything the driver made for it: off by force, the bridges it made that are
     * now unused (while the definition still names them, so a re-run after a crash finds them), the
     * definition, the run directory.
     */
    @Override
    public void destroy(int vmIndex) throws DriverException {
        op(vmIndex, () -> doDestroy(vmIndex));
    }

    private void doDestroy(int vmIndex) throws DriverException {
        Optional<Domain> found = lookup(vmIndex);
        if (found.isPresent()) {
            Domain d = found.get();
            DomainXml.Parsed p = ours(d);
            // The running guest's NICs too: one removed from the definition that the guest has not let go yet.
            Set<String> used = new TreeSet<>(bridgesOf(p.nics()));
            if (active(d)) {
                used.addAll(DomainXml.bridges(call("xml", () -> d.getXMLDesc(0))));
                call("destroy", () -> { d.destroy(); return null; });
            }
            for (String b : used) bridges.removeIfUnused(b);
            call("undefine", () -> { d.undefine(Domain.UndefineFlags.MANAGED_SAVE | Domain.UndefineFlags.SNAPSHOTS_METADATA); return null; });
        }
        deleteTree(settings.runDir().resolve(settings.domainName(vmIndex)));
    }

    /**
     * Adds the interface to the definition; on a running VR also to the running guest (hot-plug). The
     * appliance addresses it from the day-0 data at its next boot.
     */
    @Override
    public void addInterface(int vmIndex, VmNetworkConfigEntry iface) throws DriverException {
        op(vmIndex, () -> doAddInterface(vmIndex, iface));
    }

    private void doAddInterface(int vmIndex, VmNetworkConfigEntry iface) throws DriverException {
        Domain d = domain(vmIndex);
        DomainXml.Parsed p = parsed(d);
        if (p.nics().stream().anyMatch(n -> n.index() == iface.vmNetworkConfigIndex)) return;
        DomainXml.Nic nic = nic(vmIndex, iface, List.of());
        List<DomainXml.Nic> nics = new ArrayList<>(p.nics());
        nics.add(nic);
        define(p.vmIndex(), p.vmName(), p.template(), p.vcpus(), (int) (p.memoryKib() / 1024), sharesOf(d), nics, () -> {
            if (active(d)) call("attach", () -> { d.attachDeviceFlags(DomainXml.interfaceXml(nic), AFFECT_LIVE); return null; });
        });
    }

    @Override
    public void removeInterface(int vmIndex, int networkIndex) throws DriverException {
        op(vmIndex, () -> doRemoveInterface(vmIndex, networkIndex));
    }

    private void doRemoveInterface(int vmIndex, int networkIndex) throws DriverException {
        Domain d = domain(vmIndex);
        DomainXml.Parsed p = parsed(d);
        Optional<DomainXml.Nic> nic = p.nics().stream().filter(n -> n.index() == networkIndex).findFirst();
        if (nic.isEmpty()) return;
        if (active(d)) call("detach", () -> { d.detachDeviceFlags(DomainXml.interfaceXml(nic.get()), AFFECT_LIVE); return null; });
        define(p.vmIndex(), p.vmName(), p.template(), p.vcpus(), (int) (p.memoryKib() / 1024), sharesOf(d),
                p.nics().stream().filter(n -> n.index() != networkIndex).toList(), () -> { });
        // A peer link's end is on no bridge.
        if (nic.get().bridge() != null) bridges.removeIfUnused(nic.get().bridge());
    }

    private interface Step {
        void run() throws DriverException;
    }

    /**
     * Runs one of vrouter's operations on a VR: the domain events it causes are not changes behind
     * vrouter's back, so they are held back while it runs, and those arriving later are measured against
     * the state it left the VR in.
     */
    private void op(int vmIndex, Step step) throws DriverException {
        events.begin(vmIndex);
        try {
            step.run();
        } finally {
            reads.refresh(vmIndex);
            events.end(vmIndex, inspect(vmIndex).map(VmRuntime::power).orElse(null));
        }
    }

    // ---------------------------------------------------------------- observation: LibvirtReads

    /** The VR as libvirt last showed it: from the cache, never a call to libvirt. */
    @Override
    public Optional<VmRuntime> inspect(int vmIndex) {
        return reads.inspect(vmIndex);
    }

    /** Every VR read again from libvirt (at start-up, for reconciliation), the cache with them. */
    @Override
    public List<VmRuntime> list() throws DriverException {
        return reads.list();
    }

    @Override
    public Set<LinkType> linkTypes() {
        return EnumSet.of(LinkType.PEER);
    }

    // ---------------------------------------------------------------- helpers

    interface LibvirtCall<T> {
        T call() throws LibvirtException;
    }

    /** Runs a libvirt call, its failure a {@link DriverException} with libvirt's own message. */
    <T> T call(String what, LibvirtCall<T> c) throws DriverException {
        try {
            T result = c.call();
            problem = null;
            return result;
        } catch (LibvirtException e) {
            Error err = e.getError();
            throw new DriverException("LIBVIRT_" + (err == null ? "ERROR" : err.getCode().name().replaceFirst("^VIR_ERR_", "")),
                    what + ": " + (err == null ? e.getMessage() : err.getMessage()), e);
        }
    }

    /** The connection, opened again when libvirtd went away. */
    Connect connection() throws DriverException {
        beforeLibvirt.run();
        return openConnection();
    }

    private synchronized Connect openConnection() throws DriverException {
        try {
            if (conn != null && conn.isAlive()) return conn;
        } catch (LibvirtException dead) {
            // opened again below
        }
        try {
            conn = new Connect(settings.uri());
            conn.addLifecycleListener(events);
            problem = null;
            return conn;
        } catch (LibvirtException e) {
            problem = "libvirt at " + settings.uri() + " unreachable: " + e.getError().getMessage();
            throw new DriverException("LIBVIRT_UNREACHABLE", problem, e);
        }
    }

    Optional<Domain> lookup(int vmIndex) throws DriverException {
        Connect c = connection();
        try {
            return Optional.of(c.domainLookupByName(settings.domainName(vmIndex)));
        } catch (LibvirtException e) {
            if (e.getError() != null && e.getError().getCode() == Error.ErrorNumber.VIR_ERR_NO_DOMAIN) return Optional.empty();
            throw new DriverException("LIBVIRT_ERROR", "lookup of " + settings.domainName(vmIndex) + ": "
                    + (e.getError() == null ? e.getMessage() : e.getError().getMessage()), e);
        }
    }

    private Domain domain(int vmIndex) throws DriverException {
        Domain d = lookup(vmIndex).orElseThrow(() -> new DriverException("NO_SUCH_VR",
                "VR " + vmIndex + " has no domain " + settings.domainName(vmIndex) + " on this host"));
        ours(d);
        return d;
    }

    /** The VR facts of a domain that must be vrouter's: one of the same name that is not is never touched. */
    private DomainXml.Parsed ours(Domain d) throws DriverException {
        DomainXml.Parsed p = parsed(d);
        if (p == null) throw new DriverException("NOT_OURS", "domain " + call("name", d::getName) + " is not vrouter's");
        return p;
    }

    /** The CPU shares the domain's definition gives: kept when an interface changes. */
    private int sharesOf(Domain d) throws DriverException {
        return LibvirtWeights.sharesOf(call("xml", () -> d.getXMLDesc(XML_INACTIVE)));
    }

    DomainXml.Parsed parsed(Domain d) throws DriverException {
        return DomainXml.parse(call("xml", () -> d.getXMLDesc(XML_INACTIVE)));
    }

    DomainInfo info(Domain d) throws DriverException {
        return call("info", d::getInfo);
    }

    boolean active(Domain d) throws DriverException {
        return call("active", d::isActive) == 1;
    }

    private Path image(String template, String file) {
        return settings.imageDir().resolve(template).resolve(file).toAbsolutePath();
    }

    /** One interface as the domain will have it: every operator string checked, the MAC kept or made. */
    private static DomainXml.Nic nic(int vmIndex, VmNetworkConfigEntry n, List<DomainXml.Nic> before) throws DriverException {
        LibvirtLinks.Peer peer = LinkType.of(n) == LinkType.PEER ? LibvirtLinks.peer(vmIndex, n) : null;
        String bridge = peer == null ? n.vmNetworkConfigParent : null;
        if (peer == null && (bridge == null || !BRIDGE.matcher(bridge).matches())) {
            throw new DriverException("INVALID_CONFIG", "vmNetworkConfigParent '" + bridge + "' is not a Linux bridge name"
                    + " (1 to 15 letters, digits, '.', '_' or '-', starting with a letter or digit)");
        }
        if (peer == null && Bridges.isNonBridge(bridge)) {
            throw new DriverException("INVALID_CONFIG", "vmNetworkConfigParent '" + bridge + "' is an interface of the host that is not a bridge");
        }
        String address = null;
        if (n.vmNetworkConfigAddress != null) {
            if (!ADDRESS.matcher(n.vmNetworkConfigAddress).matches()) {
                throw new DriverException("INVALID_CONFIG", "vmNetworkConfigAddress '" + n.vmNetworkConfigAddress + "' is not an IP address");
            }
            int len = n.vmNetworkConfigPrefixLength != null ? n.vmNetworkConfigPrefixLength
                    : VmNetworkConfigEntry.defaultPrefixLength(!n.vmNetworkConfigAddress.contains(":"));
            address = n.vmNetworkConfigAddress + "/" + len;
        }
        String mac = n.vmNetworkConfigPhysAddress;
        if (mac == null) {
            // The one this interface had when a provisioning cut short defined it, else a new one in QEMU's range.
            mac = before.stream().filter(b -> b.index() == n.vmNetworkConfigIndex).map(DomainXml.Nic::mac).findFirst()
                    .orElseGet(() -> "52:54:00:" + HexFormat.ofDelimiter(":").formatHex(randomBytes(3)));
        }
        return new DomainXml.Nic(n.vmNetworkConfigIndex, bridge, mac.toLowerCase(java.util.Locale.ROOT), address, peer);
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    private static List<String> bridgesOf(List<DomainXml.Nic> nics) {
        return nics.stream().map(DomainXml.Nic::bridge).filter(b -> b != null).distinct().sorted().toList();
    }

    private static int cpus(VmConfigEntry c) {
        return c.vmConfigCpuNumber == null ? VmConfigEntry.Defaults.CPU_NUMBER : c.vmConfigCpuNumber;
    }

    private static int memory(VmConfigEntry c) {
        return c.vmConfigMemory == null ? VmConfigEntry.Defaults.MEMORY_MIB : c.vmConfigMemory;
    }

    private static void deleteTree(Path dir) throws DriverException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new DriverException("NOT_PERMITTED", "cannot remove " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Removes scratch files, a failure only logged: what is left is inside the VR's run directory, removed with it. */
    static void deleteTreeQuietly(Path dir) {
        try {
            deleteTree(dir);
        } catch (DriverException e) {
            log.warn("{}", e.getMessage());
        }
    }

    private static void sleep(long millis) throws DriverException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DriverException("INTERRUPTED", "interrupted while waiting for the guest to power off", e);
        }
    }

    @Override
    public synchronized void close() {
        reads.close();
        events.close();
        if (conn == null) return;
        try {
            // Deregistered first: libvirt keeps a closed connection's callbacks while a domain handle still holds
            // it, and an event delivered to a callback the JVM has collected crashed the JVM in libvirt's event loop.
            conn.removeLifecycleListener(events);
        } catch (LibvirtException e) {
            log.debug("deregistering the domain events: {}", e.getMessage());
        }
        try {
            conn.close();
        } catch (LibvirtException e) {
            log.debug("closing the libvirt connection: {}", e.getMessage());
        }
        conn = null;
    }
}
