package io.vrouter.netconf.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.yang.edit.ConfigData;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.ModelTree;
import io.vrouter.yang.Ns;
import io.vrouter.yang.XmlOut;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** vmConfigEntry rows write their XML themselves (issue 16): the bytes stay those the JDK writer wrote leaf by leaf. */
class ConfigEntryXmlTest {
    private static VmConfigEntry row(int vmIndex, String name) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmIndex = vmIndex;
        c.vmName = name;
        c.vmAdminState = AdminState.RUNNING;
        c.vmConfigTemplate = "vyos";
        c.vmConfigCpuNumber = 1;
        c.vmConfigMemory = 512;
        c.vmConfigAutoStart = false;
        c.vmConfigDescription = "a <b> & c";
        return c;
    }

    /** The whole configuration of {@code rows}, as a get-config without a filter writes it. */
    private static String configXml(VmConfigEntry... rows) {
        Map<Integer, VmConfigEntry> m = new java.util.TreeMap<>();
        for (VmConfigEntry r : rows) m.put(r.vmIndex, r);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        XmlOut out = new XmlOut(bytes);
        out.start(Ns.BASE, "data");
        ModelTree.config(new ConfigData(m)).write(out);
        out.end();
        out.close();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static final String ENTRY = "<vmConfigEntry><vmIndex>7</vmIndex><vmName>%s</vmName><vmAdminState>running</vmAdminState>"
            + "<vmConfigTemplate>vyos</vmConfigTemplate><vmConfigCpuNumber>1</vmConfigCpuNumber><vmConfigMemory>512</vmConfigMemory>"
            + "<vmConfigAutoStart>false</vmConfigAutoStart><vmConfigDescription>a &lt;b&gt; &amp; c</vmConfigDescription></vmConfigEntry>";

    @Test
    void anEntryInItsTableIsItsLeavesEscapedAsTheJdkWriterEscapesThem() {
        assertThat(configXml(row(7, "vr-7"))).contains("<vmConfigTable>" + ENTRY.formatted("vr-7") + "</vmConfigTable>");
    }

    @Test
    void anEntryWrittenOutsideItsTableDeclaresItsNamespace() {
        VmConfigEntry r = row(7, "vr-7");
        configXml(r);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        XmlOut out = new XmlOut(bytes);
        out.start(Ns.BASE, "data");
        DataNode entry = ModelTree.configEntry(r);
        entry.write(out);
        out.end();
        out.close();
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .contains("<vmConfigEntry xmlns=\"" + Ns.VMM + "\"><vmIndex>7</vmIndex><vmName>vr-7</vmName>");
    }
}
