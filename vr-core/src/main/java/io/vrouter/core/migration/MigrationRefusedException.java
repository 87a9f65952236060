package io.vrouter.core.migration;

import io.vrouter.core.spi.VrException;

/**
 * A move the destination refused, or that could not reach it: nothing changed on either router. The
 * reason follows the destination's answer (its 400 is INVALID, its 409 STATE); a peer that cannot be
 * reached, refuses this router's login or fails is FAILED (an upstream's failure, 502 over REST).
 */
public class MigrationRefusedException extends VrException {
    public MigrationRefusedException(Reason reason, String message) {
        super(reason, "peer", message);
    }
}
