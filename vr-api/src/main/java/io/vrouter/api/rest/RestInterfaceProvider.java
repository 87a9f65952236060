package io.vrouter.api.rest;

import io.vrouter.core.spi.InterfaceProvider;
import io.vrouter.core.spi.ManagementInterface;

/** Names the REST (and RESTCONF) interface; {@link RestInterface} and what it needs load only when the server creates it. */
public final class RestInterfaceProvider implements InterfaceProvider {
    @Override
    public String name() {
        return "rest";
    }

    @Override
    public ManagementInterface create() {
        return new RestInterface();
    }
}
