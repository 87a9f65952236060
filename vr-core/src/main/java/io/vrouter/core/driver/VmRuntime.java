package io.vrouter.core.driver;

import io.vrouter.core.model.VmCpuEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.model.VmStorageEntry;
import java.util.List;

/**
 * One VM as the host reports it. {@code entry} carries the vmTable state columns; the service sets
 * vmOperState itself, since only it knows whether an operation is under way.
 *
 * @param vmName the VM's name on the host, used to report VMs vrouter cannot resolve
 */
public record VmRuntime(int vmIndex, String vmName, PowerState power, VmEntry entry,
                        List<VmCpuEntry> cpus, List<VmStorageEntry> storage, List<VmNetworkEntry> networks) {
}
