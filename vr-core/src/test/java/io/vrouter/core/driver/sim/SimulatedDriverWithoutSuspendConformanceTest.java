package io.vrouter.core.driver.sim;

import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.model.AdminState;
import java.util.EnumSet;

/** The simulated host offering no suspend, as a driver that cannot save a VR's memory: the kit asserts it refused. */
class SimulatedDriverWithoutSuspendConformanceTest extends SimulatedDriverConformanceTest {
    @Override
    protected HypervisorDriver openDriver() {
        SimulatedDriver d = (SimulatedDriver) super.openDriver();
        d.limitAdminStates(EnumSet.of(AdminState.RUNNING, AdminState.PAUSED, AdminState.SHUTDOWN));
        return d;
    }
}
