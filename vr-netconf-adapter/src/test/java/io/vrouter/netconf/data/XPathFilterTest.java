package io.vrouter.netconf.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.ModelTree;
import io.vrouter.yang.Ns;
import io.vrouter.yang.edit.ConfigData;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.XmlOut;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

class XPathFilterTest {
    private static VmConfigEntry vr(int index, String name, int memory) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmIndex = index;
        c.vmName = name;
        c.vmAdminState = AdminState.RUNNING;
        c.vmConfigMemory = memory;
        return c;
    }

    private static String select(String filterAttrs, String expr) throws Exception {
        DataNode root = DataNode.lazy("", "data", () -> List.of(
                ModelTree.config(new ConfigData(Map.of(1, vr(1, "a", 256), 2, vr(2, "b", 512), 3, vr(3, "c", 512))))).iterator());
        Element f = SecureXml.parse(("<filter type='xpath' " + filterAttrs + " xmlns='urn:ietf:params:xml:ns:netconf:base:1.0'/>")
                .getBytes(StandardCharsets.UTF_8)).getDocumentElement();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        XmlOut out = new XmlOut(bytes);
        out.start(Ns.BASE, "data");
        XPathFilter.evaluate(root, f, expr).write(out);
        out.end();
        out.close();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void prefixedPathsSelectNodesWithTheirAncestorsAndListKeys() throws Exception {
        String out = select("xmlns:v='" + Ns.VMM + "'", "/v:NEW-VMM-MIB/v:vmConfigTable/v:vmConfigEntry[v:vmConfigMemory=512]/v:vmName");
        assertThat(out).contains("<NEW-VMM-MIB xmlns=\"" + Ns.VMM + "\"><vmConfigTable>"
                + "<vmConfigEntry><vmIndex>2</vmIndex><vmName>b</vmName></vmConfigEntry>"
                + "<vmConfigEntry><vmIndex>3</vmIndex><vmName>c</vmName></vmConfigEntry></vmConfigTable></NEW-VMM-MIB>");
        assertThat(out).doesNotContain("<vmName>a</vmName>", "vmConfigMemory");
    }

    @Test
    void aSelectedEntryComesWhole() throws Exception {
        String out = select("xmlns:v='" + Ns.VMM + "'", "//v:vmConfigEntry[v:vmName='a']");
        assertThat(out).contains("<vmIndex>1</vmIndex><vmName>a</vmName><vmAdminState>running</vmAdminState>"
                + "<vmConfigMemory>256</vmConfigMemory>").doesNotContain("<vmName>b</vmName>");
    }

    @Test
    void theModuleNameWorksAsAPrefixAndUnprefixedPathsMatchAnyNamespace() throws Exception {
        assertThat(select("", "/NEW-VMM-MIB:NEW-VMM-MIB/NEW-VMM-MIB:vmConfigTable/NEW-VMM-MIB:vmConfigEntry[NEW-VMM-MIB:vmIndex=3]/NEW-VMM-MIB:vmName"))
                .contains("<vmConfigEntry><vmIndex>3</vmIndex><vmName>c</vmName></vmConfigEntry>");
        // As yangcli sends it: no prefixes, so names match whatever their namespace.
        assertThat(select("", "/NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmName='b']/vmConfigMemory"))
                .contains("<NEW-VMM-MIB xmlns=\"" + Ns.VMM + "\"><vmConfigTable><vmConfigEntry><vmIndex>2</vmIndex>"
                        + "<vmConfigMemory>512</vmConfigMemory></vmConfigEntry></vmConfigTable></NEW-VMM-MIB>");
        assertThat(select("xmlns:x='urn:example:x'", "/x:NEW-VMM-MIB")).doesNotContain("NEW-VMM-MIB xmlns");
    }

    @Test
    void expressionsThatAreNotNodeSetsOrDoNotParseAreRefused() {
        assertThatThrownBy(() -> select("", "count(//vmName)")).isInstanceOf(XPathFilter.BadExpression.class);
        assertThatThrownBy(() -> select("", "/NEW-VMM-MIB[")).isInstanceOf(XPathFilter.BadExpression.class);
    }

    @Test
    void aRefusedExpressionIsDescribedWithoutTheEnginesTextOrAllOfALongExpression() {
        String longSelect = "/NEW-VMM-MIB[" + "x".repeat(10_000);
        assertThatThrownBy(() -> select("", longSelect)).isInstanceOf(XPathFilter.BadExpression.class)
                .satisfies(e -> assertThat(e.getMessage()).startsWith("bad XPath expression '/NEW-VMM-MIB[xxx")
                        .doesNotContain("Exception").doesNotContain("javax").hasSizeLessThan(300));
        assertThatThrownBy(() -> select("", "/y:NEW-VMM-MIB")).isInstanceOf(XPathFilter.BadExpression.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("Exception").doesNotContain("javax"));
    }
}
