package io.vrouter.gnmi;

import io.vrouter.core.spi.InterfaceProvider;
import io.vrouter.core.spi.ManagementInterface;

/** Names the gNMI interface; {@link GnmiInterface} and what it needs load only when the server creates it. */
public final class GnmiInterfaceProvider implements InterfaceProvider {
    @Override
    public String name() {
        return "gnmi";
    }

    /** gNMI has no "any free port": 0 turns it off too, as it always has. */
    @Override
    public boolean off(io.vrouter.core.config.Settings settings) {
        String port = settings.get("gnmi-port", "").trim();
        return port.equalsIgnoreCase("off") || port.equals("0");
    }

    @Override
    public ManagementInterface create() {
        return new GnmiInterface();
    }
}
