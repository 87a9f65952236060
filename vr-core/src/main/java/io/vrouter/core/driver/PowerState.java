package io.vrouter.core.driver;

import io.vrouter.core.model.OperState;

/** A VM's power state on the host, as XenAPI names them. */
public enum PowerState {
    HALTED(OperState.SHUTDOWN),
    RUNNING(OperState.RUNNING),
    PAUSED(OperState.PAUSED),
    SUSPENDED(OperState.SUSPENDED),
    CRASHED(OperState.CRASHED);

    private final OperState operState;

    PowerState(OperState operState) {
        this.operState = operState;
    }

    /** The stable vmOperState this power state means. */
    public OperState operState() {
        return operState;
    }
}
