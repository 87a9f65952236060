package io.vrouter.core.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlEnumValue;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlTransient;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;

/** A change of one VR, published to every management interface (notifications, event streams). */
@XmlRootElement(name = "vrEvent")
@XmlType(name = "vrEvent", propOrder = {"sequence", "timestamp", "type", "vmIndex", "vmName", "vmUUID",
        "vmAdminState", "vmOperState", "previousOperState", "reason", "vmConfigTenant", "previousTenant", "changedBy"})
@XmlAccessorType(XmlAccessType.FIELD)
public class VrEvent {
    /** Increases by one per event of this server process. */
    public long sequence;
    /** ISO-8601 instant. */
    public String timestamp;
    public Type type;
    public int vmIndex;
    public String vmName;
    /**
     * The VR's vmUUID when the event was made (the host's, or the last one seen once its VM is gone),
     * so that a notification made from the event, live or replayed after the VR is gone, carries it;
     * null when the VR never had a VM, and in events logged before events carried it.
     */
    public String vmUUID;
    public AdminState vmAdminState;
    public OperState vmOperState;
    public OperState previousOperState;
    public String reason;
    /** The tenant that owned the VR when the event was made (absent: the provider's): who may see the event. */
    public String vmConfigTenant;
    /**
     * The tenant that owned the VR before this event, when the event tells that its owner changed
     * (the empty string: the provider's); absent otherwise. A tenant's view tells the old owner the
     * VR is gone and the new one that it is there.
     */
    public String previousTenant;
    /**
     * Who made the change set the event tells of (its creation, a change of its row, its removal, and
     * the first change of state the set brings), for the audit; absent for what the host did alone.
     */
    public ChangedBy changedBy;

    /** A change set's author: user, tenant (absent: the provider's), interface and source address. */
    @XmlAccessorType(XmlAccessType.FIELD)
    @XmlType(name = "changedBy", propOrder = {"user", "tenant", "iface", "source"})
    public static class ChangedBy {
        public String user;
        public String tenant;
        @XmlElement(name = "interface")
        @com.fasterxml.jackson.annotation.JsonProperty("interface")
        public String iface;
        public String source;

        public ChangedBy() {
        }

        public ChangedBy(String user, String tenant, String iface, String source) {
            this.user = user;
            this.tenant = tenant;
            this.iface = iface;
            this.source = source;
        }
    }
    /**
     * The VR's leaves that changed since its previous event, with their old and new values: the
     * changes of its row that one change set made (all of them on one event, the first the set
     * publishes about the VR) and the change of vmOperState. For the server's own listeners
     * (telemetry, notifications), which then read nothing to find what changed; not on the wire nor
     * in the replay log, so that what every interface sends is as before.
     */
    @XmlTransient
    @JsonIgnore
    public List<LeafChange> changes = List.of();

    /**
     * One leaf's change: its table and row (vmIndex, and vmNetworkConfigIndex in vmNetworkConfigTable,
     * else null), the leaf by its model name (the YANG leaf's and the MIB object's descriptor), and its
     * values before and after (null: absent, as in a row created or removed). The history's commits
     * carry them in text form (docs/adr/0021-history-and-rollback.md), which is what REST documents.
     */
    public record LeafChange(String table, int vmIndex, Integer networkIndex, String leaf,
                             @io.swagger.v3.oas.annotations.media.Schema(type = "string",
                                     description = "the value before, in text form; absent when it had none") Object before,
                             @io.swagger.v3.oas.annotations.media.Schema(type = "string",
                                     description = "the value after, in text form; absent when it has none") Object after) {
    }

    @XmlType(name = "vrEventType")
    @XmlEnum
    public enum Type {
        /** A VR row was accepted. */
        @XmlEnumValue("created") CREATED("created"),
        /** vmOperState changed. */
        @XmlEnumValue("stateChanged") STATE_CHANGED("stateChanged"),
        /** The configuration changed without a state change (for example an interface). */
        @XmlEnumValue("configChanged") CONFIG_CHANGED("configChanged"),
        /** The VR is gone. */
        @XmlEnumValue("deleted") DELETED("deleted"),
        /** A probed link of the VR went up or down: its change is vmNetworkLinkStatus, its reason says which interface. */
        @XmlEnumValue("linkChanged") LINK_CHANGED("linkChanged");

        private final String label;

        Type(String label) {
            this.label = label;
        }

        /** The name used on the wire (SSE event names, JSON, XML). */
        public String label() {
            return label;
        }
    }

    /** A copy of the event as another subscriber should see it (a VR given away is gone for its old owner). */
    public VrEvent as(Type type) {
        VrEvent e = new VrEvent();
        e.sequence = sequence;
        e.timestamp = timestamp;
        e.type = type;
        e.vmIndex = vmIndex;
        e.vmName = vmName;
        e.vmUUID = vmUUID;
        e.vmAdminState = vmAdminState;
        e.vmOperState = vmOperState;
        e.previousOperState = previousOperState;
        e.reason = reason;
        e.vmConfigTenant = vmConfigTenant;
        e.previousTenant = previousTenant;
        e.changedBy = changedBy;
        e.changes = changes;
        return e;
    }

    @Override
    public String toString() {
        return "VrEvent{" + sequence + " " + type + " vmIndex=" + vmIndex + " " + vmName + " "
                + previousOperState + "->" + vmOperState + (reason == null ? "" : " reason=" + reason) + "}";
    }
}
