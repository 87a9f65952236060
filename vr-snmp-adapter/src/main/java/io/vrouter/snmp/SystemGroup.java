package io.vrouter.snmp;

import io.vrouter.core.config.Settings;
import io.vrouter.core.persistence.DamagedConfigurationException;
import io.vrouter.core.persistence.FileFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.snmp4j.PDU;
import org.snmp4j.agent.ManagedObject;
import org.snmp4j.agent.MOServer;
import org.snmp4j.agent.mo.MOChangeEvent;
import org.snmp4j.agent.mo.MOChangeListener;
import org.snmp4j.agent.mo.MOScalar;
import org.snmp4j.agent.mo.snmp.SNMPv2MIB;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * sysName, sysContact and sysLocation of SNMPv2-MIB's system group, as snmpd has them: a value given
 * in the settings ({@code snmp.sysName}, {@code snmp.sysContact}, {@code snmp.sysLocation}) is the
 * object's and makes it read-only (a SET is {@code notWritable}); one not given is writable by the
 * provider's writers and kept in {@code DATA_DIR/snmp/system.properties} across restarts. sysName
 * is the host's name until set.
 */
final class SystemGroup {
    private static final Logger log = LoggerFactory.getLogger(SystemGroup.class);
    static final String FILE = "system.properties";
    static final int FORMAT = 1;
    /** DisplayString (RFC 2579): at most 255 octets. */
    static final int MAX_OCTETS = 255;

    enum Field {
        NAME("sysName", SnmpConstants.sysName),
        CONTACT("sysContact", SnmpConstants.sysContact),
        LOCATION("sysLocation", SnmpConstants.sysLocation);

        final String object;
        /** The scalar's instance, {@code .0}. */
        final OID instance;

        Field(String object, OID instance) {
            this.object = object;
            this.instance = instance;
        }

        String setting() {
            return "snmp." + object;
        }
    }

    /** The values of the settings, which pin their objects. */
    private final Map<Field, String> pinned;
    private final Path dir;
    /** The values now, pinned or not. */
    private final Map<Field, String> values = new EnumMap<>(Field.class);

    private SystemGroup(Map<Field, String> pinned, Path dir, Map<Field, String> stored) {
        this.pinned = pinned;
        this.dir = dir;
        for (Field f : Field.values()) {
            String value = pinned.containsKey(f) ? pinned.get(f) : stored.get(f);
            values.put(f, value != null ? value : f == Field.NAME ? hostName() : "");
        }
    }

    /** The settings' values, checked; fields not set are absent. */
    static Map<Field, String> pinned(Settings s) {
        Map<Field, String> pinned = new EnumMap<>(Field.class);
        for (Field f : Field.values()) {
            String v = s.get(f.setting(), null);
            if (v == null) continue;
            if (v.getBytes(StandardCharsets.UTF_8).length > MAX_OCTETS) {
                throw new IllegalArgumentException("setting '" + f.setting() + "' is longer than " + MAX_OCTETS
                        + " octets, the most a DisplayString holds");
            }
            pinned.put(f, v);
        }
        return pinned;
    }

    /** The pinned values from the settings, the others as stored in {@code dir} (or their defaults). */
    static SystemGroup load(Settings s, Path dir) throws IOException {
        return new SystemGroup(pinned(s), dir, read(dir));
    }

    /** The stored values, read without writing anything; a file that cannot be read stops the start. */
    static Map<Field, String> read(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        Map<Field, String> stored = new EnumMap<>(Field.class);
        Optional<Properties> read = PropertiesFile.read(file, what -> damaged(file, what));
        if (read.isEmpty()) return stored;
        Properties p = read.get();
        String stated = p.getProperty(FileFormat.FIELD);
        if (stated == null) throw damaged(file, "it states no format");
        try {
            FileFormat.readable(file, "", Integer.parseInt(stated.trim()), FORMAT);
        } catch (NumberFormatException e) {
            throw damaged(file, "its format is not a number");
        }
        for (Field f : Field.values()) {
            String v = p.getProperty(f.object);
            if (v != null) stored.put(f, v);
        }
        return stored;
    }

    private static DamagedConfigurationException damaged(Path file, String what) {
        return new DamagedConfigurationException(file, file + " is damaged: " + what + ". It holds the sysName, "
                + "sysContact and sysLocation set over SNMP. Nothing has been changed. Restore it from a backup of the "
                + "data directory, or delete it (the objects then start from the settings, or empty).");
    }

    /** Gives snmp4j's system group our values, and our rules for writing them; call once the MIBs are registered. */
    void attach(SNMPv2MIB mib, MOServer server) {
        mib.setName(new OctetString(values.get(Field.NAME)));
        mib.setContact(new OctetString(values.get(Field.CONTACT)));
        mib.setLocation(new OctetString(values.get(Field.LOCATION)));
        for (Field f : Field.values()) {
            MOScalar<?> scalar = scalar(server, f.instance);
            if (pinned.containsKey(f)) {
                // snmpd's rule: the operator's value in the configuration is not for a manager to change.
                scalar.addMOValueValidationListener(e -> e.setValidationStatus(PDU.notWritable));
            } else {
                scalar.addMOChangeListener(new Keeper(f));
            }
        }
    }

    private static MOScalar<?> scalar(MOServer server, OID instance) {
        var entries = server.iterator();
        while (entries.hasNext()) {
            ManagedObject<?> mo = entries.next().getValue();
            if (mo instanceof MOScalar<?> s && s.getOid().equals(instance)) return s;
        }
        throw new IllegalStateException("snmp4j-agent registered no scalar " + instance);
    }

    /** Stores a value once a SET has changed it; a value that cannot be stored fails the SET (commitFailed). */
    private final class Keeper implements MOChangeListener {
        private final Field field;

        Keeper(Field field) {
            this.field = field;
        }

        @Override
        public void afterMOChange(MOChangeEvent e) {
            try {
                store(field, new String(((OctetString) e.getNewValue()).getValue(), StandardCharsets.UTF_8));
            } catch (IOException failed) {
                log.error("SNMP: {} could not be kept in {}: {}", field.object, dir.resolve(FILE), failed.toString());
                if (e.getSubRequest() != null) e.getSubRequest().getStatus().setErrorStatus(PDU.commitFailed);
            }
        }

        @Override
        public void beforePrepareMOChange(MOChangeEvent e) {
        }

        @Override
        public void afterPrepareMOChange(MOChangeEvent e) {
        }

        @Override
        public void beforeMOChange(MOChangeEvent e) {
        }
    }

    /** Writes the objects that are not pinned, whole, and moves the file into place. */
    private synchronized void store(Field changed, String value) throws IOException {
        values.put(changed, value);
        Properties p = new Properties();
        p.setProperty(FileFormat.FIELD, Integer.toString(FORMAT));
        for (Field f : Field.values()) {
            if (!pinned.containsKey(f)) p.setProperty(f.object, values.get(f));
        }
        PropertiesFile.write(dir.resolve(FILE), p,
                "sysName, sysContact and sysLocation as set over SNMP (settings snmp.sys* take precedence)");
    }

    /** The host's name, as snmpd's default sysName (the kernel's nodename); empty when it cannot be read. */
    private static String hostName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (IOException | RuntimeException e) {
            String env = System.getenv("HOSTNAME");
            return env == null ? "" : env;
        }
    }
}
