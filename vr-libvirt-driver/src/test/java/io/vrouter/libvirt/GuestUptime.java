package io.vrouter.libvirt;

import io.vrouter.netns.TestHost;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A guest kernel's uptime, as it stamps the message that Alt+SysRq+H (sent to its keyboard with
 * {@code virsh send-key}) prints on its console: a guest moved live reads later than before, one booted
 * again earlier. Shared (test-jar) with integration-tests' LibvirtLiveMigrationIT.
 */
public final class GuestUptime {
    private static final Pattern SYSRQ = Pattern.compile("\\[\\s*(\\d+\\.\\d+)\\] sysrq: HELP");

    private GuestUptime() {
    }

    /** The console log QEMU writes, or "" before it has one. */
    public static String console(Path consoleLog) {
        try {
            return Files.readString(consoleLog, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** The uptime in seconds of domain {@code domain} of the libvirtd at {@code uri}, whose console goes to {@code consoleLog}. */
    public static double read(String uri, String domain, Path consoleLog) throws IOException, InterruptedException {
        int before = SYSRQ.matcher(console(consoleLog)).results().toList().size();
        TestHost.ok("virsh", "-c", uri, "send-key", domain, "KEY_LEFTALT", "KEY_SYSRQ", "KEY_H");
        if (!TestHost.await(() -> SYSRQ.matcher(console(consoleLog)).results().toList().size() > before, 60)) {
            throw new AssertionError("no SysRq message on the console of " + domain + ":\n" + console(consoleLog));
        }
        Matcher m = SYSRQ.matcher(console(consoleLog));
        double last = -1;
        while (m.find()) last = Double.parseDouble(m.group(1));
        return last;
    }
}
