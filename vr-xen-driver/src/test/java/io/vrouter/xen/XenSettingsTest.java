package io.vrouter.xen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Settings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class XenSettingsTest {
    @Test
    void readsTheXenKeysWithTheirDefaults() {
        XenSettings s = XenSettings.from(Settings.of(Map.of("xen.url", "https://xs.example", "xen.password", "pw",
                "xen.network.xenbr0", "Pool-wide network associated with eth0", "xen.shutdown-timeout", "1.5s",
                "xen.call-timeout", "500ms", "xen.task-timeout", "2m")));
        assertThat(s.url().toString()).isEqualTo("https://xs.example");
        assertThat(s.username()).isEqualTo("root");
        assertThat(s.template()).isEqualTo("vyos");
        assertThat(s.sr()).isEmpty();
        assertThat(s.shutdownTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(s.callTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(s.taskTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(s.eventTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.retries()).isEqualTo(3);
        assertThat(s.networkFor("xenbr0")).isEqualTo("Pool-wide network associated with eth0");
        assertThat(s.networkFor("other")).isEqualTo("other");
        assertThat(s.parentFor("Pool-wide network associated with eth0")).isEqualTo("xenbr0");
        assertThat(s.parentFor("unmapped")).isEqualTo("unmapped");
        assertThat(s.tls()).isNull();
    }

    @Test
    void refusesWhatItCannotUse() {
        assertThatThrownBy(() -> XenSettings.from(Settings.empty()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("xen.url");
        assertThatThrownBy(() -> XenSettings.from(Settings.of(Map.of("xen.url", "http://h", "xen.call-timeout", "soon"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("xen.call-timeout");
        XenSettings s = XenSettings.from(Settings.of(Map.of("xen.url", "http://h", "xen.tls.truststore", "/no/such/file")));
        assertThatThrownBy(s::tls).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("xen.tls.truststore");
    }

    @Test
    void aNonTransientErrorIsNotRetriedButAReadIs() {
        assertThat(XenApiClient.isRepeatable("VM.get_record")).isTrue();
        assertThat(XenApiClient.isRepeatable("event.from")).isTrue();
        assertThat(XenApiClient.isRepeatable("Async.VM.clone")).isFalse();
        assertThat(XenApiClient.isRepeatable("VIF.create")).isFalse();
        assertThat(new XenApiException("HOST_STILL_BOOTING", java.util.List.of()).isTransient()).isTrue();
        assertThat(new XenApiException("VM_BAD_POWER_STATE", java.util.List.of()).isTransient()).isFalse();
    }
}
