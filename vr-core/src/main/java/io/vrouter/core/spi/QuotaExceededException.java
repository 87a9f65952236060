package io.vrouter.core.spi;


/**
 * The change would take a tenant past one of its quotas, or commit more of the host's CPUs or memory
 * than it has times the overcommit allowed: the message names which, the limit and what the change
 * would make it. Nothing changed; a smaller change, or one that frees something first, may pass.
 */
public class QuotaExceededException extends VrException {
    public QuotaExceededException(String field, String message) {
        super(Reason.QUOTA, field, message);
    }
}
