package io.vrouter.core.driver;

/**
 * A driver's refusal of a configuration it could never build, found by {@link HypervisorDriver#check}
 * before the change is accepted: it names the column (its model field) and the interface when it is
 * about one, so that every management interface refuses it at that column in its own terms.
 */
public class ConfigRefusedException extends Exception {
    private final String field;
    private Integer networkIndex;

    /** @param message what is wrong with the value, without the field's name (the service adds it) */
    public ConfigRefusedException(String field, String message) {
        super(message);
        this.field = field;
    }

    /** The model field of the refused column (vmNetworkConfigParent, say). */
    public String field() {
        return field;
    }

    /** The interface (vmNetworkConfigIndex) refused, or null when the refusal is about the VR's row. */
    public Integer networkIndex() {
        return networkIndex;
    }

    /** Says which interface the refusal is about; returns this. */
    public ConfigRefusedException about(int networkIndex) {
        this.networkIndex = networkIndex;
        return this;
    }
}
