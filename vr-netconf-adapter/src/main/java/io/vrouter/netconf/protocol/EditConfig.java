package io.vrouter.netconf.protocol;

import io.vrouter.yang.edit.Paths;
import io.vrouter.yang.nacm.NacmConfig;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.Ns;
import io.vrouter.yang.datastore.Datastore;
import io.vrouter.yang.datastore.Transaction;
import io.vrouter.yang.edit.EditError;
import io.vrouter.yang.edit.EditNode;
import io.vrouter.yang.edit.Operation;
import io.vrouter.yang.edit.Target;
import io.vrouter.yang.edit.TreeEdit;
import java.util.ArrayList;
import java.util.List;
import org.w3c.dom.Element;

/**
 * The {@code <config>} of an edit-config (RFC 6241 section 7.2) given to a transaction's edit
 * ({@link Transaction#edit}, the edit engine {@link TreeEdit} on a copy of a datastore): each element as an {@link EditNode}
 * with its {@code operation} attribute, and the engine's errors as rpc-errors. With
 * {@code continue-on-error} a failing entry is skipped and the others are edited; with the other
 * options the edit stops at the first error. Whether an edit with errors is applied at all is the
 * caller's decision (test-option and error-option).
 */
public final class EditConfig {
    public enum ErrorOption { STOP_ON_ERROR, CONTINUE_ON_ERROR, ROLLBACK_ON_ERROR }

    private final Transaction.Editor edit;
    private final boolean continueOnError;
    /** The engine's errors already given as rpc-errors. */
    private int reported;

    /** @param edit where the edits go: a transaction's ({@link Transaction#edit}), or a bare engine's */
    public EditConfig(Transaction.Editor edit, ErrorOption errorOption) {
        this.continueOnError = errorOption == ErrorOption.CONTINUE_ON_ERROR;
        this.edit = edit;
    }

    /** A datastore's name as an operation's parameter gives it. */
    static Datastore.Name datastore(String name, String path) throws RpcError {
        return switch (name) {
            case "running" -> Datastore.Name.RUNNING;
            case "candidate" -> Datastore.Name.CANDIDATE;
            case "startup" -> throw new RpcError(Type.PROTOCOL, "operation-not-supported", null, path,
                    "this server has no startup datastore (:startup is not advertised)");
            default -> throw RpcError.unknownElement(Type.PROTOCOL, path, name, "no datastore named '" + name + "'");
        };
    }

    /** Applies the children of {@code <config>}; returns the errors (empty on success). */
    public List<RpcError> apply(Element config, Operation defaultOp) {
        List<RpcError> errors = new ArrayList<>();
        for (Element top : SecureXml.children(config)) {
            if (!errors.isEmpty() && !continueOnError) break;
            // /nacm is the session's to edit (NacmEdit), not the engine's
            if (NacmConfig.NS.equals(top.getNamespaceURI()) && "nacm".equals(top.getLocalName())) continue;
            if (!Ns.VMM.equals(top.getNamespaceURI()) || !"NEW-VMM-MIB".equals(top.getLocalName())) {
                errors.add(RpcError.unknownElement(Type.APPLICATION, "/", top.getLocalName(),
                        "unknown element '" + top.getLocalName() + "' in namespace '" + top.getNamespaceURI()
                                + "': this server has the data of module NEW-VMM-MIB (" + Ns.VMM + ")"));
                continue;
            }
            List<EditError> all = edit.apply(Target.TOP, defaultOp, new XmlNode(top));
            for (EditError e : all.subList(reported, all.size())) errors.add(error(e));
            reported = all.size();
        }
        return errors;
    }

    /** An element of {@code <config>} as the engine reads it: leaf text trimmed, the base namespace's operation attribute. */
    record XmlNode(Element e) implements EditNode {
        @Override
        public String ns() {
            return e.getNamespaceURI() == null ? "" : e.getNamespaceURI();
        }

        @Override
        public String name() {
            return e.getLocalName();
        }

        @Override
        public String value() {
            return SecureXml.text(e).trim();
        }

        @Override
        public List<XmlNode> children() {
            List<XmlNode> out = new ArrayList<>();
            for (Element c : SecureXml.children(e)) out.add(new XmlNode(c));
            return out;
        }

        @Override
        public String operation() {
            return e.getAttributeNS(Ns.BASE, "operation");
        }
    }

    /** The engine's error as an rpc-error: error-path at the node (down to the child it names), error-tag by kind. */
    static RpcError error(EditError e) {
        String child = e.child();
        String at = e.at() == null ? null : Paths.of(e.at());
        String path = child == null ? at : Paths.child(keyParent(e.at(), at, child), child);
        String m = e.getMessage();
        RpcError r = switch (e.kind()) {
            case UNKNOWN_ELEMENT -> RpcError.unknownElement(Type.APPLICATION, at, child, m);
            case MISSING_ELEMENT -> RpcError.missingElement(Type.PROTOCOL, keyParent(e.at(), at, child), child, m);
            case INVALID_VALUE, NOT_CONFIG -> RpcError.invalidValue(path, m);
            case DATA_EXISTS -> new RpcError(Type.APPLICATION, "data-exists", null, path, m);
            case DATA_MISSING, NOT_FOUND -> new RpcError(Type.APPLICATION, "data-missing", null, path, m);
            case INSTANCE_REQUIRED -> new RpcError(Type.APPLICATION, "data-missing", "instance-required", path, m);
            case BAD_OPERATION -> new RpcError(Type.PROTOCOL, "bad-attribute", null, at, m).info("bad-attribute", "operation");
            case IN_USE -> new RpcError(Type.PROTOCOL, "in-use", null, null, m);
            case LOCK_DENIED -> new RpcError(Type.PROTOCOL, "lock-denied", null, null, m);
            case OPERATION_FAILED -> new RpcError(Type.PROTOCOL, "operation-failed", null, null, m);
        };
        return switch (e.kind()) {
            case INVALID_VALUE, NOT_CONFIG, BAD_OPERATION -> child == null ? r : r.info("bad-element", child);
            case IN_USE, LOCK_DENIED, OPERATION_FAILED -> r.info("session-id", String.valueOf(e.holder()));
            default -> r;
        };
    }

    /** A key named at its table is a leaf of the table's entry element. */
    private static String keyParent(Target at, String path, String child) {
        boolean table = at == Target.CONFIG_TABLE || at == Target.NETWORK_TABLE;
        return table && at.table().keys().contains(child) ? Paths.child(path, at.table().entryName()) : path;
    }
}
