package io.vrouter.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.snmp4j.smi.TimeTicks;

/** The notifications' sysUpTime.0 reads as snmp4j's TimeTicks does, and stays itself when copied. */
class UptimeTest {
    @Test
    void formatsAsTimeTicksDoes() {
        for (long t : new long[]{0, 7, 99, 100, 6_000, 359_999, 360_000, 8_639_999, 8_640_000, 8_640_001,
                17_280_000 + 360_000 * 13 + 6000 * 7 + 100 * 5 + 3, 4_294_967_295L}) {
            assertThat(new Notifier.Uptime(t).toString()).as("%d ticks", t).isEqualTo(new TimeTicks(t).toString());
        }
        Object copy = new Notifier.Uptime(12_345).clone();
        assertThat(copy).isInstanceOf(Notifier.Uptime.class).isEqualTo(new TimeTicks(12_345));
    }
}
