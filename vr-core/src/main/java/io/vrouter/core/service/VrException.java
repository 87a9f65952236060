package io.vrouter.core.service;

/** A request the service refuses. Each interface maps the subclasses to its own error terms. */
public abstract class VrException extends RuntimeException {
    protected VrException(String message) {
        super(message);
    }
}
