package io.vrouter.snmp;

import io.vrouter.core.spi.InterfaceProvider;
import io.vrouter.core.spi.ManagementInterface;

/** Names the SNMP interface; {@link SnmpInterface} and what it needs load only when the server creates it. */
public final class SnmpInterfaceProvider implements InterfaceProvider {
    @Override
    public String name() {
        return "snmp";
    }

    @Override
    public ManagementInterface create() {
        return new SnmpInterface();
    }
}
