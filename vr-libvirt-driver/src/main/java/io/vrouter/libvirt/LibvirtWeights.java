package io.vrouter.libvirt;

import io.vrouter.core.driver.CpuWeights;
import io.vrouter.core.model.VmConfigEntry;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.libvirt.Domain;
import org.libvirt.LibvirtException;
import org.libvirt.SchedParameter;
import org.libvirt.SchedUlongParameter;

/**
 * A VR's CPU weight (vmConfigCpuWeight) as libvirt's {@code <cputune><shares>}: the weight of the
 * domain's cgroup against the other VMs' (libvirt writes it to {@code cpu.shares} on cgroup v1, turns
 * it into {@code cpu.weight} on v2). vrouter's 100 is libvirt's 1024, its default; the domain's
 * definition keeps it for the next boot, {@code virDomainSetSchedulerParameters} ({@code cpu_shares})
 * sets it on the running QEMU at once.
 */
final class LibvirtWeights {
    private static final Pattern SHARES = Pattern.compile("<cputune>\\s*<shares>(\\d+)</shares>");
    /** libvirt's own default, the cgroup v1 default. */
    static final int DEFAULT_SHARES = 1024;

    private LibvirtWeights() {
    }

    /** The VR's weight in libvirt's shares (2 to 262144, libvirt's range). */
    static int shares(VmConfigEntry c) {
        int w = c.vmConfigCpuWeight == null ? CpuWeights.DEFAULT : c.vmConfigCpuWeight;
        return (int) Math.max(2, Math.min(262_144, (long) w * DEFAULT_SHARES / CpuWeights.DEFAULT));
    }

    /** The shares a domain's XML gives, or libvirt's default when it names none. */
    static int sharesOf(String domainXml) {
        Matcher m = SHARES.matcher(domainXml);
        return m.find() ? Integer.parseInt(m.group(1)) : DEFAULT_SHARES;
    }

    /** The domain XML with its {@code <cputune>} giving the shares, after its {@code <memory>}. */
    static String withShares(String domainXml, int shares) {
        int at = domainXml.indexOf("</memory>");
        if (at < 0) throw new IllegalArgumentException("a domain without <memory>");
        at += "</memory>".length();
        return domainXml.substring(0, at) + "<cputune><shares>" + shares + "</shares></cputune>" + domainXml.substring(at);
    }

    /** Sets the shares of the running domain, now. */
    static void setLive(Domain d, int shares) throws LibvirtException {
        SchedUlongParameter p = new SchedUlongParameter(shares);
        p.field = "cpu_shares";
        d.setSchedulerParameters(new SchedParameter[] {p});
    }

    /** The running domain's shares as libvirt reports them. */
    static long live(Domain d) throws LibvirtException {
        for (SchedParameter p : d.getSchedulerParameters()) {
            if ("cpu_shares".equals(p.field)) return Long.parseLong(p.getValueAsString());
        }
        return -1;
    }
}
