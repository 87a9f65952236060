package io.vrouter.netconf.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.XmlOut;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/** The examples of RFC 6241 section 6.4, on the RFC's own "users" data, plus the corner cases. */
class SubtreeFilterTest {
    private static final String T = "http://example.com/schema/1.2/config";
    private static final String OTHER = "urn:example:other";

    private static DataNode user(String name, String type, String fullName, String... companyInfo) {
        DataNode.Inner u = DataNode.inner(T, "user", "name").add("name", name).add("type", type).add("full-name", fullName);
        if (companyInfo.length > 0) {
            u.add(DataNode.inner(T, "company-info").add("dept", companyInfo[0]).add("id", companyInfo[1]));
        }
        return u;
    }

    /** The top config: users (a lazy list, as tables are) and a container in another namespace. */
    private static DataNode root() {
        DataNode users = DataNode.lazy(T, "users", () -> List.of(
                user("root", "superuser", "Charlie Root", "1", "1"),
                user("fred", "admin", "Fred Flintstone", "2", "2"),
                user("barney", "admin", "Barney Rubble", "2", "3")).iterator());
        DataNode top = DataNode.lazy(T, "top", () -> List.of(users).iterator());
        DataNode other = DataNode.inner(OTHER, "top").add("x", "1");
        return DataNode.lazy("", "data", () -> List.of(top, other).iterator());
    }

    private static String filter(String filterXml) throws Exception {
        return run(root(), filterXml);
    }

    private static String run(DataNode data, String filterXml) throws Exception {
        Element f = SecureXml.parse(("<filter type='subtree' xmlns='urn:ietf:params:xml:ns:netconf:base:1.0'>"
                + filterXml + "</filter>").getBytes(StandardCharsets.UTF_8)).getDocumentElement();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        XmlOut out = new XmlOut(bytes);
        out.start("urn:ietf:params:xml:ns:netconf:base:1.0", "data");
        SubtreeFilter.apply(data, f, out);
        out.end();
        out.close();
        String s = bytes.toString(StandardCharsets.UTF_8);
        return s.replace("<data xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\">", "").replace("</data>", "")
                .replace("<data xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"/>", "");
    }

    private static final String NS = " xmlns='" + T + "'";

    @Test
    void emptyFilterSelectsNothing() throws Exception {
        assertThat(filter("")).isEmpty();
    }

    @Test
    void selectionNodeSelectsTheWholeSubtree() throws Exception {
        String out = filter("<top" + NS + "><users/></top>");
        assertThat(out).startsWith("<top xmlns=\"" + T + "\"><users><user><name>root</name>");
        assertThat(out).contains("<name>fred</name>").contains("<name>barney</name>").contains("<dept>2</dept>");
    }

    @Test
    void selectionOfOneLeafInEveryEntryKeepsTheKeys() throws Exception {
        // RFC 6241 6.4.5 asks for the names; the type alone still carries each entry's key.
        assertThat(filter("<top" + NS + "><users><user><type/></user></users></top>")).isEqualTo(
                "<top xmlns=\"" + T + "\"><users>"
                        + "<user><name>root</name><type>superuser</type></user>"
                        + "<user><name>fred</name><type>admin</type></user>"
                        + "<user><name>barney</name><type>admin</type></user></users></top>");
    }

    @Test
    void contentMatchAloneSelectsTheWholeMatchingEntry() throws Exception {
        // RFC 6241 6.4.6: one specific user.
        assertThat(filter("<top" + NS + "><users><user><name>fred</name></user></users></top>")).isEqualTo(
                "<top xmlns=\"" + T + "\"><users><user><name>fred</name><type>admin</type>"
                        + "<full-name>Fred Flintstone</full-name><company-info><dept>2</dept><id>2</id></company-info>"
                        + "</user></users></top>");
    }

    @Test
    void contentMatchWithSelectionSelectsThoseNodesOfTheMatchingEntries() throws Exception {
        // RFC 6241 6.4.7: specific elements from a specific entry (content match on a non-key too).
        assertThat(filter("<top" + NS + "><users><user><type> admin </type><full-name/></user></users></top>"))
                .isEqualTo("<top xmlns=\"" + T + "\"><users>"
                        + "<user><name>fred</name><type>admin</type><full-name>Fred Flintstone</full-name></user>"
                        + "<user><name>barney</name><type>admin</type><full-name>Barney Rubble</full-name></user>"
                        + "</users></top>");
    }

    @Test
    void siblingSubtreesForTheSameListAreAUnion() throws Exception {
        // RFC 6241 6.4.8: multiple subtrees, different selections for different entries.
        assertThat(filter("<top" + NS + "><users>"
                + "<user><name>root</name><company-info/></user>"
                + "<user><name>fred</name><company-info><id/></company-info></user>"
                + "<user><name>barney</name><type>superuser</type><company-info/></user>"
                + "</users></top>")).isEqualTo("<top xmlns=\"" + T + "\"><users>"
                + "<user><name>root</name><company-info><dept>1</dept><id>1</id></company-info></user>"
                + "<user><name>fred</name><company-info><id>2</id></company-info></user>"
                + "</users></top>");
    }

    @Test
    void nothingMatchingLeavesNoEmptyContainers() throws Exception {
        assertThat(filter("<top" + NS + "><users><user><name>wilma</name></user></users></top>")).isEmpty();
        assertThat(filter("<top" + NS + "><users><user><nickname/></user></users></top>")).isEmpty();
        assertThat(filter("<top" + NS + "><groups/></top>")).isEmpty();
    }

    @Test
    void namespacesMustMatchUnlessTheFilterHasNone() throws Exception {
        assertThat(filter("<top xmlns='urn:example:nowhere'><users/></top>")).isEmpty();
        // No namespace: matches in every namespace (RFC 6241 6.2.1), so both tops are candidates.
        String any = filter("<top xmlns=''><x/></top>");
        assertThat(any).isEqualTo("<top xmlns=\"" + OTHER + "\"><x>1</x></top>");
        assertThat(filter("<top xmlns='" + OTHER + "'/>")).isEqualTo("<top xmlns=\"" + OTHER + "\"><x>1</x></top>");
    }

    @Test
    void attributeMatchOnDataWithoutAttributesSelectsNothing() throws Exception {
        assertThat(filter("<top" + NS + "><users><user ifName='eth0'/></users></top>")).isEmpty();
    }

    @Test
    void aFilterNamingVrsByIndexReadsOnlyThoseVrs() throws Exception {
        java.util.List<Integer> asked = new java.util.ArrayList<>();
        DataNode table = DataNode.byVr(T, "vms", () -> List.of(1, 2, 3, 4), i -> {
            asked.add(i);
            if (i > 4) return List.of();
            return List.of(DataNode.inner(T, "vm", "vmIndex").add("vmIndex", i).add("name", "vm" + i));
        });
        DataNode data = DataNode.lazy("", "data", () -> List.of(table).iterator());
        String one = run(data, "<vms" + NS + "><vm><vmIndex>3</vmIndex><name/></vm><vm><vmIndex>9</vmIndex></vm></vms>");
        assertThat(one).isEqualTo("<vms xmlns=\"" + T + "\"><vm><vmIndex>3</vmIndex><name>vm3</name></vm></vms>");
        assertThat(asked).containsExactly(3, 9);
        asked.clear();
        String byName = run(data, "<vms" + NS + "><vm><name>vm2</name></vm></vms>");
        assertThat(byName).contains("<name>vm2</name>");
        assertThat(asked).containsExactly(1, 2, 3, 4);
    }

    @Test
    void mixedSelectionAndContainmentAtTheTop() throws Exception {
        String out = filter("<top" + NS + "><users><user><name>barney</name><type/></user></users></top>"
                + "<top xmlns='" + OTHER + "'/>");
        assertThat(out).isEqualTo("<top xmlns=\"" + T + "\"><users><user><name>barney</name><type>admin</type></user>"
                + "</users></top><top xmlns=\"" + OTHER + "\"><x>1</x></top>");
    }
}
