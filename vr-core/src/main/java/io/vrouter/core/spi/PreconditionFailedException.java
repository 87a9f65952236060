package io.vrouter.core.spi;


/** A change set's condition does not hold: what it was made against has changed since ({@link Reason#CHANGED}). */
public class PreconditionFailedException extends VrException {

    public PreconditionFailedException(String message) {
        super(Reason.CHANGED, null, message);
    }
}
