package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.TypedValue;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.Ns;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ValuesTest {
    private static DataNode leaf(String name, String value) {
        return DataNode.leaf(Ns.VMM, name, value);
    }

    @Test
    void protoTakesEachLeafsKindFromTheModulesType() {
        // yang:counter64, past the largest signed long: an unsigned 64-bit value
        assertThat(Values.scalar(leaf("vmNetworkInOctets", "18446744073709551615")))
                .isEqualTo(TypedValue.newBuilder().setUintVal(-1L).build());
        assertThat(Values.isCounter(leaf("vmNetworkInOctets", "1"))).isTrue();
        assertThat(Values.scalar(leaf("vmCurMem", "-1"))).isEqualTo(TypedValue.newBuilder().setIntVal(-1).build());
        assertThat(Values.scalar(leaf("vmIndex", "7"))).isEqualTo(TypedValue.newBuilder().setIntVal(7).build());
        assertThat(Values.scalar(leaf("vmUpTime", "100"))).isEqualTo(TypedValue.newBuilder().setUintVal(100).build());
        assertThat(Values.isCounter(leaf("vmUpTime", "100"))).isFalse();
        assertThat(Values.scalar(leaf("vmOperState", "running"))).isEqualTo(TypedValue.newBuilder().setStringVal("running").build());
    }

    @Test
    void jsonIetfNamesTheModuleAtTheTopAndJsonDoesNot() {
        DataNode entry = DataNode.inner(Ns.VMM, "vmEntry", "vmIndex").add("vmIndex", 3).add("vmCpuTime", 5L);
        assertThat(Values.of(entry, Encoding.JSON_IETF).getJsonIetfVal().toString(StandardCharsets.UTF_8))
                .isEqualTo("{\"NEW-VMM-MIB:vmIndex\":3,\"NEW-VMM-MIB:vmCpuTime\":\"5\"}");
        assertThat(Values.of(entry, Encoding.JSON).getJsonVal().toString(StandardCharsets.UTF_8))
                .isEqualTo("{\"vmIndex\":3,\"vmCpuTime\":\"5\"}");
        assertThat(Values.of(leaf("vmOperState", "running"), Encoding.JSON_IETF).getJsonIetfVal().toString(StandardCharsets.UTF_8))
                .isEqualTo("\"running\"");
    }

    @Test
    void anEncodingNotServedIsUnimplemented() {
        assertThatThrownBy(() -> Values.served(Encoding.ASCII)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
        assertThat(Values.served(Encoding.PROTO)).isEqualTo(Encoding.PROTO);
    }
}
