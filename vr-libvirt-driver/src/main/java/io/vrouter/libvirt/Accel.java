package io.vrouter.libvirt;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which accelerator the VRs' QEMU uses: KVM where it works, TCG (QEMU's emulator) where it does not.
 * That {@code /dev/kvm} exists and libvirt offers the {@code kvm} domain type does not mean a guest runs
 * under it (inside some VMs KVM stops at the first real guest code with "KVM internal error"), so
 * {@code auto} boots the appliance's kernel once under KVM, with no root file system: a working KVM prints
 * the kernel's panic and exits within seconds, a broken one does not.
 *
 * @param domainType libvirt's domain type: {@code kvm} or {@code qemu} (TCG)
 * @param why        how it was chosen, for the log and the README's "which accelerator"
 */
record Accel(String domainType, String why) {
    private static final Logger log = LoggerFactory.getLogger(Accel.class);
    private static final long PROBE_SECONDS = 20;

    boolean kvm() {
        return domainType.equals("kvm");
    }

    /** The setting's choice, probing KVM for {@code auto} with a template's kernel (null: no template has one). */
    static Accel choose(String setting, String capabilities, Path kernel) {
        if (setting.equals("tcg")) return new Accel("qemu", "TCG: libvirt.accel=tcg");
        if (setting.equals("kvm")) return new Accel("kvm", "KVM: libvirt.accel=kvm");
        String emulator = emulator(capabilities);
        if (!capabilities.contains("<domain type='kvm'")) return new Accel("qemu", "TCG: libvirt offers no KVM on this host");
        if (emulator == null) return new Accel("qemu", "TCG: libvirt names no x86_64 emulator");
        if (kernel == null) return new Accel("qemu", "TCG: no template has a kernel to try KVM with (libvirt.accel=kvm skips the test)");
        return probe(emulator, kernel);
    }

    /** The x86_64 guests' emulator in libvirt's capabilities XML. */
    static String emulator(String capabilities) {
        int arch = capabilities.indexOf("<arch name='x86_64'>");
        if (arch < 0) return null;
        int start = capabilities.indexOf("<emulator>", arch);
        int end = capabilities.indexOf("</emulator>", start);
        return start < 0 || end < 0 ? null : capabilities.substring(start + "<emulator>".length(), end).strip();
    }

    private static Accel probe(String emulator, Path kernel) {
        List<String> argv = List.of(emulator, "-machine", "pc,accel=kvm", "-nodefaults", "-display", "none", "-no-reboot",
                "-m", "128", "-kernel", kernel.toString(), "-append", "console=ttyS0 panic=-1 quiet", "-serial", "stdio");
        Path out = null;
        try {
            out = Files.createTempFile("vrouter-kvm-probe", ".log");
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            p.getOutputStream().close();
            boolean exited = p.waitFor(PROBE_SECONDS, TimeUnit.SECONDS);
            if (!exited) p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            String printed = Files.readString(out, StandardCharsets.UTF_8);
            if (exited && printed.contains("Kernel panic")) return new Accel("kvm", "KVM: a test guest ran under it");
            String what = printed.contains("KVM internal error") ? "KVM internal error"
                    : exited ? "the test guest exited " + p.exitValue() : "the test guest did not run in " + PROBE_SECONDS + " s";
            return new Accel("qemu", "TCG: KVM is offered but does not run guests here (" + what + ")");
        } catch (IOException e) {
            return new Accel("qemu", "TCG: cannot run " + emulator + " to try KVM: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Accel("qemu", "TCG: interrupted while trying KVM");
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException e) {
                    log.debug("cannot remove {}: {}", out, e.getMessage());
                }
            }
        }
    }
}
