package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.gnmi.proto.Path;
import com.github.gnmi.proto.PathElem;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.List;
import org.junit.jupiter.api.Test;

class GnmiPathsTest {
    /** A path of the text form {@code /a/b[k=v][k2=v2]} (test input only: no escapes). */
    static List<PathElem> parse(String text) {
        Path.Builder p = Path.newBuilder();
        for (String part : text.split("/")) {
            if (part.isEmpty()) continue;
            int bracket = part.indexOf('[');
            PathElem.Builder e = PathElem.newBuilder().setName(bracket < 0 ? part : part.substring(0, bracket));
            if (bracket >= 0) {
                for (String kv : part.substring(bracket + 1, part.length() - 1).split("\\]\\[")) {
                    e.putKey(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                }
            }
            p.addElem(e);
        }
        return GnmiPaths.join(Path.getDefaultInstance(), p.build());
    }

    private static Path path(PathElem... elems) {
        return Path.newBuilder().addAllElem(List.of(elems)).build();
    }

    private static PathElem elem(String name) {
        return PathElem.newBuilder().setName(name).build();
    }

    private static void assertInvalid(Path prefix, Path path, String message) {
        assertThatThrownBy(() -> GnmiPaths.join(prefix, path)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(e.getStatus().getDescription()).contains(message);
        });
    }

    @Test
    void thePrefixComesFirst() {
        List<PathElem> joined = GnmiPaths.join(Path.newBuilder().setOrigin("NEW-VMM-MIB").addElem(elem("NEW-VMM-MIB")).build(),
                path(PathElem.newBuilder().setName("vmTable").build(), PathElem.newBuilder().setName("vmEntry").putKey("vmIndex", "1").build()));
        assertThat(GnmiPaths.text(joined)).isEqualTo("/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=1]");
    }

    @Test
    void malformedPathsAreInvalidArguments() {
        Path none = Path.getDefaultInstance();
        assertInvalid(none, path(elem("NEW-VMM-MIB"), elem("")), "malformed path element ''");
        assertInvalid(none, path(elem("a/b")), "malformed path element 'a/b'");
        assertInvalid(none, path(elem("vmTable[vmIndex=1]")), "malformed path element");
        assertInvalid(none, path(PathElem.newBuilder().setName("vmEntry").putKey("vmIndex", "").build()), "a key without a name or value");
        assertInvalid(none, path(PathElem.newBuilder().setName("...").putKey("a", "b").build()), "'...' takes no keys");
        assertInvalid(none, Path.newBuilder().addElement("vmEntry[vmIndex=1").build(), "malformed path element 'vmEntry[vmIndex=1'");
        assertInvalid(none, Path.newBuilder().addElement("vmEntry[=1]").build(), "a key without a name or value");
    }

    @Test
    void theDeprecatedElementStringsAreReadAsGnmiCliSendsThem() {
        List<PathElem> joined = GnmiPaths.join(Path.getDefaultInstance(), Path.newBuilder().addElement("NEW-VMM-MIB")
                .addElement("vmEntry[vmIndex=1][vmName=a\\]b]").build());
        assertThat(joined).containsExactly(elem("NEW-VMM-MIB"),
                PathElem.newBuilder().setName("vmEntry").putKey("vmIndex", "1").putKey("vmName", "a]b").build());
    }

    @Test
    void onlyTheModulesOwnOriginAndOpenconfigAreServed() {
        assertInvalid(Path.getDefaultInstance(), Path.newBuilder().setOrigin("ietf").addElem(elem("interfaces")).build(),
                "unknown origin 'ietf': this target serves origins NEW-VMM-MIB and openconfig");
        assertThat(GnmiPaths.origin(Path.getDefaultInstance(), Path.newBuilder().setOrigin("openconfig").build()))
                .isEqualTo("openconfig");
        assertThat(GnmiPaths.origin(Path.getDefaultInstance(), Path.newBuilder().setOrigin("openconfig-interfaces").build()))
                .as("pygnmi's origin for openconfig-interfaces:interfaces/...").isEqualTo("openconfig");
        assertInvalid(Path.newBuilder().setOrigin("NEW-VMM-MIB").build(), Path.newBuilder().setOrigin("NEW-VMM-MIB").build(),
                "an origin in both the prefix and the path");
        assertThat(GnmiPaths.origin(Path.newBuilder().setOrigin("NEW-VMM-MIB").build(), Path.getDefaultInstance()))
                .isEqualTo("NEW-VMM-MIB");
    }
}
