package io.vrouter.core.driver.sim;

import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.driver.conformance.DriverConformanceKit;
import io.vrouter.core.model.VmConfigEntry;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/** The simulated host runs the driver conformance kit: its journal is what a new driver adopts. */
class SimulatedDriverConformanceTest extends DriverConformanceKit {
    @TempDir
    Path dataDir;

    private Path journal() {
        return dataDir.resolve("sim-host.jsonl");
    }

    @Override
    protected HypervisorDriver openDriver() {
        return new SimulatedDriver(LatencyProfile.NONE, journal());
    }

    @Override
    protected String parent(int n) {
        return "xenbr" + n;
    }

    @Override
    protected VmConfigEntry failingHalfWay(VmConfigEntry row) {
        ((SimulatedDriver) driver).failOn("provision", row.vmName, "the host ran out of disk");
        return row;
    }

    @Override
    protected void stopBehindTheBack(int vmIndex) {
        ((SimulatedDriver) driver).setPowerBehindTheBack(vmIndex, PowerState.HALTED);
    }

    @Override
    protected List<String> leftovers() {
        try (SimulatedDriver host = new SimulatedDriver(LatencyProfile.NONE, journal())) {
            return host.list().stream().map(VmRuntime::vmName).toList();
        }
    }
}
