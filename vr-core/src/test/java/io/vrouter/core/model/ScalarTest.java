package io.vrouter.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The scalars declared once: each a field of the Hypervisor group, every field one scalar, each OID once. */
class ScalarTest {

    @Test
    void everyHypervisorFieldIsOneScalarReadFromThatField() throws Exception {
        Hypervisor h = new Hypervisor();
        Set<String> fields = new HashSet<>();
        for (Field f : Hypervisor.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers())) fields.add(f.getName());
        }
        assertThat(Arrays.stream(Scalar.values()).map(Scalar::leafName)).containsExactlyInAnyOrderElementsOf(fields);
        h.vmHvSoftware = "sw";
        h.vmHvUpTime = 42L;
        h.vmActiveVMs = 3;
        h.vmCommittedMemory = 512L;
        assertThat(Scalar.HV_SOFTWARE.get(h)).isEqualTo("sw");
        assertThat(Scalar.HV_UP_TIME.get(h)).isEqualTo(42L);
        assertThat(Scalar.ACTIVE_VMS.get(h)).isEqualTo(3);
        assertThat(Scalar.COMMITTED_MEMORY.get(h)).isEqualTo(512L);
        assertThat(Scalar.HV_CPUS.get(h)).as("no CPUs reported: 0, as the MIB says").isEqualTo(0);
    }

    @Test
    void eachScalarHasItsOwnPlaceInTheMib() {
        Set<String> seen = new HashSet<>();
        for (Scalar s : Scalar.values()) {
            assertThat(seen.add(s.group().snmpArc() + "." + s.snmpArc())).as(s + " reuses an OID").isTrue();
            if (s.group() == Scalar.Group.OBJECTS) {
                // Under vmObjects the scalars sit between the tables (Schema.Table.snmpTable) and vmHypervisor (1).
                assertThat(s.snmpArc()).isNotEqualTo(1);
                assertThat(Arrays.stream(Schema.Table.values()).map(Schema.Table::snmpTable)).doesNotContain(s.snmpArc());
            }
        }
    }
}
