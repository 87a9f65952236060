package io.vrouter.netconf;

import io.vrouter.core.spi.InterfaceProvider;
import io.vrouter.core.spi.ManagementInterface;

/** Names the NETCONF interface; {@link NetconfInterface} and what it needs load only when the server creates it. */
public final class NetconfInterfaceProvider implements InterfaceProvider {
    @Override
    public String name() {
        return "netconf";
    }

    @Override
    public ManagementInterface create() {
        return new NetconfInterface();
    }
}
