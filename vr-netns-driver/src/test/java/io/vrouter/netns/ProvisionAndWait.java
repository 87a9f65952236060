package io.vrouter.netns;

import io.vrouter.core.config.Settings;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A process to kill -9 in the middle of provisioning: opens the driver with a prefix and run
 * directory, provisions VR 10 with N interfaces on one bridge, then waits to be killed.
 */
public final class ProvisionAndWait {
    private ProvisionAndWait() {
    }

    public static void main(String[] args) throws Exception {
        NetnsDriver d = NetnsDriver.open(NetnsSettings.from(Settings.of(Map.of("netns.prefix", args[0], "netns.run-dir", args[1]))));
        List<VmNetworkConfigEntry> ifaces = new ArrayList<>();
        for (int n = 1; n <= Integer.parseInt(args[3]); n++) {
            VmNetworkConfigEntry e = new VmNetworkConfigEntry();
            e.vmNetworkConfigIndex = n;
            e.vmNetworkConfigParent = args[2];
            ifaces.add(e);
        }
        VmConfigEntry c = new VmConfigEntry();
        c.vmIndex = 10;
        c.vmName = "killed";
        c.vmNetworkConfigTable = ifaces;
        d.provision(c);
        System.out.println("provisioned: too late to be killed half-way");
        Thread.sleep(Long.MAX_VALUE);
    }
}
