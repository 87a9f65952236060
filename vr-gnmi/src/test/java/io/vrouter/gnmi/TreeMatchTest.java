package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.gnmi.proto.PathElem;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.Ns;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TreeMatchTest {
    /** The VRs whose entries the table was asked for. */
    private final List<Integer> read = new ArrayList<>();

    /** A tree shaped as ModelTree's: scalars, and a table of VRs 1 and 2 produced VR by VR. */
    private DataNode tree() {
        DataNode objects = DataNode.inner(Ns.VMM, "vmObjects").add("vmNumber", 2);
        DataNode table = DataNode.byVr(Ns.VMM, "vmTable", () -> List.of(1, 2), i -> {
            read.add(i);
            if (i < 1 || i > 2) return List.of(); // as the service does for a VR it does not have
            return List.of(DataNode.inner(Ns.VMM, "vmEntry", "vmIndex").add("vmIndex", i).add("vmOperState", "running"));
        });
        return DataNode.lazy(Ns.VMM, "NEW-VMM-MIB", () -> List.of(objects, table).iterator());
    }

    private List<String> find(String path) {
        return find(path, null);
    }

    private List<String> find(String path, Set<Integer> vrs) {
        List<String> found = new ArrayList<>();
        TreeMatch.find(tree(), GnmiPathsTest.parse(path), vrs, m -> found.add(GnmiPaths.text(m.path())));
        return found;
    }

    @Test
    void aKeyedPathReadsOnlyItsVrAndComesBackWithItsKeys() {
        assertThat(find("/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=2]/vmOperState"))
                .containsExactly("/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=2]/vmOperState");
        assertThat(read).containsExactly(2);
    }

    @Test
    void aListWithoutKeysOrWithAWildcardKeyNamesEveryEntry() {
        List<String> both = List.of("/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=1]/vmOperState",
                "/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=2]/vmOperState");
        assertThat(find("/NEW-VMM-MIB/vmTable/vmEntry/vmOperState")).isEqualTo(both);
        assertThat(find("/NEW-VMM-MIB/*/vmEntry[vmIndex=*]/vmOperState")).isEqualTo(both);
        assertThat(find("/NEW-VMM-MIB/.../vmOperState")).isEqualTo(both);
    }

    @Test
    void theModuleQualifiedNameOfTheTopContainerIsTheSame() {
        assertThat(find("/NEW-VMM-MIB:NEW-VMM-MIB/vmObjects/vmNumber")).containsExactly("/NEW-VMM-MIB/vmObjects/vmNumber");
    }

    @Test
    void aTrailingAnyDepthIsTheNodeItselfOnce() {
        assertThat(find("/NEW-VMM-MIB/vmTable/...")).containsExactly("/NEW-VMM-MIB/vmTable");
        assertThat(find("/")).containsExactly("/");
    }

    @Test
    void whatIsNotThereMatchesNothing() {
        assertThat(find("/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=3]")).isEmpty();
        assertThat(find("/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=x]")).isEmpty();
        assertThat(find("/NEW-VMM-MIB/vmTable/vmEntry[vmName=a]")).isEmpty();
        assertThat(find("/NEW-VMM-MIB/nothing")).isEmpty();
    }

    @Test
    void aReadOfSomeVrsLeavesTheOthersUnread() {
        assertThat(find("/NEW-VMM-MIB/vmTable/vmEntry/vmIndex", Set.of(1))).containsExactly(
                "/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=1]/vmIndex");
        assertThat(find("/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=2]", Set.of(1))).isEmpty();
        assertThat(read).containsExactly(1);
        List<String> leaves = new ArrayList<>();
        TreeMatch.leaves(tree(), new ArrayList<>(List.of(PathElem.newBuilder().setName("NEW-VMM-MIB").build())), Set.of(2),
                m -> leaves.add(GnmiPaths.text(m.path())));
        assertThat(leaves).containsExactly("/NEW-VMM-MIB/vmObjects/vmNumber", "/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=2]/vmIndex",
                "/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=2]/vmOperState");
    }
}
