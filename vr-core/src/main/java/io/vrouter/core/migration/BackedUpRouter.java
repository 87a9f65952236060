package io.vrouter.core.migration;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.vrouter.core.model.VmConfigEntry;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlType;

/**
 * One VR in a {@link RouterBackup}: its whole vmConfigTable row (name, admin state, template, CPUs,
 * memory, description, tenant, CPU weight, and every interface with its MAC, address, link and rates)
 * and the identity the host gave it, its vmUUID.
 */
@XmlType(name = "backedUpRouter")
@XmlAccessorType(XmlAccessType.FIELD)
@JsonPropertyOrder({"vmIndex", "vmName", "vmUUID"})
public class BackedUpRouter extends VmConfigEntry {
    /** The VR's vmUUID on the router it was saved from (absent when the host reported none). */
    public String vmUUID;

    /** The configuration row alone, as a change set creates it. */
    public VmConfigEntry row() {
        VmConfigEntry row = new VmConfigEntry();
        copyColumnsTo(row);
        return row.copy();
    }

    static BackedUpRouter of(VmConfigEntry row, String uuid) {
        BackedUpRouter b = new BackedUpRouter();
        row.copy().copyColumnsTo(b);
        b.vmUUID = uuid;
        return b;
    }
}
