package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlEnumValue;
import jakarta.xml.bind.annotation.XmlType;

/** One row of vmStorageTable (RFC 7666); its enumerations are RFC 7666's, labels on REST and NETCONF as everywhere. */
@XmlType(name = "vmStorageEntry", propOrder = {"vmStorageIndex", "vmStorageParent", "vmStorageSourceType",
        "vmStorageSourceTypeString", "vmStorageResourceID", "vmStorageAccess", "vmStorageMediaType",
        "vmStorageMediaTypeString", "vmStorageSizeUnit", "vmStorageDefinedSize", "vmStorageAllocatedSize",
        "vmStorageReadIOs", "vmStorageWriteIOs", "vmStorageReadOctets", "vmStorageWriteOctets",
        "vmStorageReadLatency", "vmStorageWriteLatency"})
@XmlAccessorType(XmlAccessType.FIELD)
public class VmStorageEntry {
    public Integer vmStorageIndex;
    public Integer vmStorageParent;
    public SourceType vmStorageSourceType;
    public String vmStorageSourceTypeString;
    public String vmStorageResourceID;
    public Access vmStorageAccess;
    public MediaType vmStorageMediaType;
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

    /** RFC 7666 VirtualMachineStorageSourceType. */
    @XmlType(name = "VirtualMachineStorageSourceType")
    @XmlEnum
    public enum SourceType implements SmiEnum {
        @XmlEnumValue("unknown") UNKNOWN(1),
        @XmlEnumValue("other") OTHER(2),
        @XmlEnumValue("block") BLOCK(3),
        @XmlEnumValue("raw") RAW(4),
        @XmlEnumValue("sparse") SPARSE(5),
        @XmlEnumValue("network") NETWORK(6);

        private final int code;

        SourceType(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** RFC 7666 VirtualMachineStorageAccess. */
    @XmlType(name = "VirtualMachineStorageAccess")
    @XmlEnum
    public enum Access implements SmiEnum {
        @XmlEnumValue("unknown") UNKNOWN(1),
        @XmlEnumValue("readwrite") READWRITE(2),
        @XmlEnumValue("readonly") READONLY(3);

        private final int code;

        Access(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** IANAStorageMediaType of IANA-STORAGE-MEDIA-TYPE-MIB (RFC 7666's vmStorageMediaType), revision 2016-06-17. */
    @XmlType(name = "VirtualMachineStorageMediaType")
    @XmlEnum
    public enum MediaType implements SmiEnum {
        @XmlEnumValue("other") OTHER(1),
        @XmlEnumValue("unknown") UNKNOWN(2),
        @XmlEnumValue("hardDisk") HARD_DISK(3),
        @XmlEnumValue("opticalDisk") OPTICAL_DISK(4),
        @XmlEnumValue("floppyDisk") FLOPPY_DISK(5);

        private final int code;

        MediaType(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }
}
