package io.vrouter.core.driver;

import io.vrouter.core.model.LinkType;
import java.util.Set;

/**
 * A driver's behaviour: it attaches interfaces in other ways than to a host bridge
 * (vmNetworkConfigLinkType). Its {@link HypervisorDriver#provision} and {@link HypervisorDriver#addInterface}
 * carry those out; the service refuses a link type the driver does not list before anything changes
 * (docs/adr/0018-links.md).
 *
 * <p>A peer link is declared at each end, each naming the other: the driver builds its end when the
 * interface is attached, whether or not the far end exists yet, and the two meet when both do. Removing
 * either end takes the link down and leaves the other end's interface in its VR.
 */
public interface Links {

    /** The link types the driver attaches besides {@link LinkType#BRIDGE}. */
    Set<LinkType> linkTypes();
}
