package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlType;

/**
 * One row of vmStorageTable (RFC 7666). Enumerated columns carry their RFC 7666 values:
 * vmStorageSourceType unknown(1) other(2) block(3) raw(4) sparse(5) network(6);
 * vmStorageAccess unknown(1) readWrite(2) readOnly(3);
 * vmStorageMediaType unknown(1) other(2) hardDisk(3) opticalDisk(4).
 */
@XmlType(name = "vmStorageEntry", propOrder = {"vmStorageIndex", "vmStorageParent", "vmStorageSourceType",
        "vmStorageSourceTypeString", "vmStorageResourceID", "vmStorageAccess", "vmStorageMediaType",
        "vmStorageMediaTypeString", "vmStorageSizeUnit", "vmStorageDefinedSize", "vmStorageAllocatedSize",
        "vmStorageReadIOs", "vmStorageWriteIOs", "vmStorageReadOctets", "vmStorageWriteOctets",
        "vmStorageReadLatency", "vmStorageWriteLatency"})
@XmlAccessorType(XmlAccessType.FIELD)
public class VmStorageEntry {
    public Integer vmStorageIndex;
    public Integer vmStorageParent;
    public Integer vmStorageSourceType;
    public String vmStorageSourceTypeString;
    public String vmStorageResourceID;
    public Integer vmStorageAccess;
    public Integer vmStorageMediaType;
    public String vmStorageMediaTypeString;
    /** Bytes per unit of the two size columns. */
    public Integer vmStorageSizeUnit;
    public Long vmStorageDefinedSize;
    public Long vmStorageAllocatedSize;
    public Long vmStorageReadIOs;
    public Long vmStorageWriteIOs;
    public Long vmStorageReadOctets;
    public Long vmStorageWriteOctets;
    /** Total read latency in microseconds. */
    public Long vmStorageReadLatency;
    public Long vmStorageWriteLatency;
}
