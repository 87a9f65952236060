package io.vrouter.netconf.protocol;

import static io.vrouter.netconf.protocol.Outcome.OK;

import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.VrException;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.Ns;
import io.vrouter.yang.datastore.ConfirmedCommit;
import io.vrouter.yang.datastore.Datastore;
import io.vrouter.yang.datastore.Transaction;
import io.vrouter.yang.edit.ConfigData;
import io.vrouter.yang.edit.Operation;
import io.vrouter.yang.edit.TreeEdit;
import io.vrouter.yang.nacm.NacmConfig;
import io.vrouter.yang.nacm.NacmEdit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.w3c.dom.Element;

/**
 * The operations of one session that change or check configuration (RFC 6241 section 7, RFC 8526):
 * edit-config, edit-data, copy-config, commit, cancel-commit, discard-changes, validate, lock and
 * unlock. Each reads its parameters, changes a datastore in one of vr-yang's transactions
 * ({@link Transaction}: the edit, NACM's write check, the locks, the service's check and accept), maps
 * what it refused into rpc-errors, and tells the subscribers what it changed (netconf-config-change).
 * The session reads each rpc, dispatches it here and answers.
 */
final class ConfigRpcs {
    private final NetconfServerContext ctx;
    private final Requester who;
    /** Writes what the rpc queued for the session's own subscription, once the rpc holds no lock. */
    private final Runnable ownNotifications;

    ConfigRpcs(NetconfServerContext ctx, Requester who, Runnable ownNotifications) {
        this.ctx = ctx;
        this.who = who;
        this.ownNotifications = ownNotifications;
    }

    /**
     * The {@code <config>} parameter. Clients (ncclient among them) often send it without a namespace
     * when the user wrote it so; it is accepted that way too.
     */
    private static Element config(Element parent) {
        Element c = SecureXml.child(parent, Ns.BASE, "config");
        if (c != null) return c;
        for (Element e : SecureXml.children(parent)) {
            if ("config".equals(e.getLocalName()) && (e.getNamespaceURI() == null || e.getNamespaceURI().isEmpty())) return e;
        }
        return null;
    }

    /** The datastore named in {@code <source>} or {@code <target>}. */
    static Datastore.Name datastore(Element op, String param) throws RpcError {
        Element p = SecureXml.child(op, Ns.BASE, param);
        if (p == null) {
            throw RpcError.missingElement(Type.PROTOCOL, null, param, op.getLocalName() + " needs <" + param + ">");
        }
        List<Element> kids = SecureXml.children(p);
        if (kids.size() != 1) {
            throw RpcError.missingElement(Type.PROTOCOL, null, param, "<" + param + "> names one datastore");
        }
        Element ds = kids.get(0);
        if (Ns.NMDA.equals(ds.getNamespaceURI()) && ds.getLocalName().equals("datastore")) {
            // RFC 8526 section 3.1.3: lock and unlock name NMDA datastores this way too.
            String name = Retrieval.datastore(ds);
            if (name.equals("operational")) {
                throw RpcError.invalidValue(null, "the operational datastore is not writable").info("bad-element", "datastore");
            }
            return EditConfig.datastore(name, null);
        }
        if (ds.getLocalName().equals("url")) {
            throw new RpcError(Type.PROTOCOL, "operation-not-supported", ":url is not supported");
        }
        if (ds.getLocalName().equals("config")) {
            throw new RpcError(Type.PROTOCOL, "invalid-value", "<config> is not allowed in <" + param + "> of "
                    + op.getLocalName()).info("bad-element", "config");
        }
        return EditConfig.datastore(ds.getLocalName(), null);
    }

    // ------------------------------------------------------------------ edit-config, copy-config

    /**
     * {@code <edit-data>} (RFC 8526): edit-config on an NMDA datastore (running or candidate), always
     * all or nothing (test-then-set, rollback-on-error).
     */
    Outcome editData(Element op) throws RpcError {
        Element dsElement = SecureXml.child(op, Ns.NMDA, "datastore");
        if (dsElement == null) throw RpcError.missingElement(Type.PROTOCOL, null, "datastore", "edit-data needs <datastore>");
        String ds = Retrieval.datastore(dsElement);
        if (ds.equals("operational")) {
            throw RpcError.invalidValue(null, "the operational datastore is not writable").info("bad-element", "datastore");
        }
        Operation defaultOp = defaultOperation(SecureXml.child(op, Ns.NMDA, "default-operation"));
        Element config = SecureXml.child(op, Ns.NMDA, "config");
        if (config == null) {
            if (SecureXml.child(op, Ns.NMDA, "url") != null) {
                throw new RpcError(Type.PROTOCOL, "operation-not-supported", ":url is not supported").info("bad-element", "url");
            }
            throw RpcError.missingElement(Type.PROTOCOL, null, "config", "edit-data needs <config>");
        }
        return Outcome.errors(edit(EditConfig.datastore(ds, null), config, defaultOp, EditConfig.ErrorOption.ROLLBACK_ON_ERROR,
                TestOption.TEST_THEN_SET));
    }

    private static Operation defaultOperation(Element d) throws RpcError {
        if (d == null) return Operation.MERGE;
        return switch (SecureXml.text(d).trim()) {
            case "merge" -> Operation.MERGE;
            case "replace" -> Operation.REPLACE;
            case "none" -> Operation.NONE;
            default -> throw RpcError.invalidValue(null, "default-operation must be merge, replace or none")
                    .info("bad-element", "default-operation");
        };
    }

    Outcome editConfig(Element op) throws RpcError {
        Datastore.Name target = datastore(op, "target");
        Operation defaultOp = defaultOperation(SecureXml.child(op, Ns.BASE, "default-operation"));
        TestOption test = TestOption.TEST_THEN_SET;
        Element t = SecureXml.child(op, Ns.BASE, "test-option");
        if (t != null) {
            test = switch (SecureXml.text(t).trim()) {
                case "test-then-set" -> TestOption.TEST_THEN_SET;
                case "set" -> TestOption.SET;
                case "test-only" -> TestOption.TEST_ONLY;
                default -> throw RpcError.invalidValue(null, "test-option must be test-then-set, set or test-only")
                        .info("bad-element", "test-option");
            };
        }
        EditConfig.ErrorOption errorOption = EditConfig.ErrorOption.STOP_ON_ERROR;
        Element eo = SecureXml.child(op, Ns.BASE, "error-option");
        if (eo != null) {
            errorOption = switch (SecureXml.text(eo).trim()) {
                case "stop-on-error" -> EditConfig.ErrorOption.STOP_ON_ERROR;
                case "continue-on-error" -> EditConfig.ErrorOption.CONTINUE_ON_ERROR;
                case "rollback-on-error" -> EditConfig.ErrorOption.ROLLBACK_ON_ERROR;
                default -> throw RpcError.invalidValue(null,
                        "error-option must be stop-on-error, continue-on-error or rollback-on-error")
                        .info("bad-element", "error-option");
            };
        }
        Element config = config(op);
        if (config == null) {
            if (SecureXml.child(op, Ns.BASE, "url") != null) {
                throw new RpcError(Type.PROTOCOL, "operation-not-supported", ":url is not supported");
            }
            throw RpcError.missingElement(Type.PROTOCOL, null, "config", "edit-config needs <config>");
        }
        return Outcome.errors(edit(target, config, defaultOp, errorOption, test));
    }

    /**
     * Edits a datastore with the given config in one transaction; the service checks the result (every
     * rule about VRs is its) and, for running, applies it as one change set. With test-then-set (the
     * default) or rollback-on-error, an edit with any error changes nothing; with test-option set,
     * stop-on-error keeps what was edited before the error and continue-on-error everything but the
     * failed entries, and VRs the service refuses are left out of what is applied.
     */
    private List<RpcError> edit(Datastore.Name target, Element config, Operation defaultOp,
                                EditConfig.ErrorOption errorOption, TestOption test) throws RpcError {
        Element nacmEdit = SecureXml.child(config, NacmConfig.NS, "nacm");
        if (nacmEdit != null) {
            // /nacm is the server's, not a datastore's: edited in running, with the VRs' part all or nothing.
            if (target != Datastore.Name.RUNNING) {
                throw new RpcError(Type.APPLICATION, "operation-not-supported", null, Transaction.NACM_PATH,
                        "/nacm is edited in running (it is not part of the candidate)");
            }
            errorOption = EditConfig.ErrorOption.ROLLBACK_ON_ERROR;
            if (test != TestOption.TEST_ONLY) test = TestOption.TEST_THEN_SET;
        }
        boolean allOrNothing = test != TestOption.SET || errorOption == EditConfig.ErrorOption.ROLLBACK_ON_ERROR;
        List<RpcError> errors;
        Transaction.Result result = null;
        try (Transaction tx = who.scope().datastore().begin(who.caller(), target,
                errorOption == EditConfig.ErrorOption.CONTINUE_ON_ERROR)) {
            if (nacmEdit != null) editNacm(tx, nacmEdit, defaultOp);
            errors = new ArrayList<>(new EditConfig(tx::edit, errorOption).apply(config, defaultOp));
            if (errors.isEmpty() || !allOrNothing) {
                // checked once, by the service's accept (VRs it refuses are left out unless all or nothing)
                result = test == TestOption.TEST_ONLY ? tx.validate(!allOrNothing) : tx.commit(!allOrNothing);
                errors.addAll(errors(result));
                if (result.changed()) configChanged(tx.base(), tx.data());
            }
        }
        ownNotifications.run();
        // outside the datastore's lock, so that sessions editing at once share one flush of the journal
        if (result != null) result.awaitDurable();
        return errors;
    }

    /** The transaction's {@code <nacm>}: refused whole with the rpc-error that says why. */
    private void editNacm(Transaction tx, Element nacm, Operation defaultOp) throws RpcError {
        String denied;
        try {
            denied = tx.editNacm(new EditConfig.XmlNode(nacm), defaultOp);
        } catch (NacmEdit.Refused r) {
            RpcError e = new RpcError(r.protocol ? Type.PROTOCOL : Type.APPLICATION, r.tag, r.appTag, r.path, r.getMessage());
            throw r.infoName == null ? e : e.info(r.infoName, r.infoValue);
        } catch (VrException e) {
            throw Changes.error(e);
        }
        if (denied != null) throw denied(denied);
    }

    private RpcError denied(String path) {
        return new RpcError(Type.APPLICATION, "access-denied", null, path, "access control (NACM) denies user '" + who.user()
                + "' this change");
    }

    /** A transaction's refusals as rpc-errors: access control's (RFC 8341 3.4.5, the first node denied), or the service's. */
    private List<RpcError> errors(Transaction.Result r) {
        if (r.denied() != null) return List.of(denied(r.denied()));
        List<RpcError> out = new ArrayList<>();
        for (VrException e : r.refused()) out.add(Changes.error(e));
        if (r.notKept() != null) out.add(new RpcError(Type.APPLICATION, "operation-failed", r.notKept()));
        return out;
    }

    /** Tells the subscribers that this session changed running from {@code before} to {@code after} (RFC 6470). */
    private void configChanged(ConfigData before, ConfigData after) {
        if (!ctx.hasSubscriptions()) return;
        java.util.Collection<Integer> changed = after.changedFrom(before);
        ConfigChange.between(who, changed, before::get, after::get).ifPresent(n -> ctx.publish(n, who.caller().tenant()));
        if (!who.caller().provider()) return;
        // The provider's change of tenants' VRs: each tenant is told of the edits of its own VRs.
        Map<String, List<Integer>> byOwner = new java.util.TreeMap<>();
        for (int i : changed) {
            VmConfigEntry row = after.get(i) != null ? after.get(i) : before.get(i);
            if (row != null && row.vmConfigTenant != null) byOwner.computeIfAbsent(row.vmConfigTenant, t -> new ArrayList<>()).add(i);
        }
        byOwner.forEach((tenant, vrs) -> ConfigChange.between(who, vrs, before::get, after::get)
                .ifPresent(n -> ctx.publish(n, c -> tenant.equals(c.tenant()))));
    }

    enum TestOption { TEST_THEN_SET, SET, TEST_ONLY }

    Outcome copyConfig(Element op) throws RpcError {
        Datastore.Name target = datastore(op, "target");
        Element src = SecureXml.child(op, Ns.BASE, "source");
        if (src == null) throw RpcError.missingElement(Type.PROTOCOL, null, "source", "copy-config needs <source>");
        Element inline = config(src);
        if (inline != null) {
            return Outcome.errors(edit(target, inline, Operation.REPLACE, EditConfig.ErrorOption.ROLLBACK_ON_ERROR,
                    TestOption.TEST_THEN_SET));
        }
        Datastore.Name source = datastore(op, "source");
        if (source == target) {
            throw RpcError.invalidValue(null, "source and target are the same datastore").info("bad-element", "target");
        }
        if (target == Datastore.Name.CANDIDATE) return discard();
        Transaction.Result r;
        try (Transaction tx = who.scope().datastore().begin(who.caller(), Datastore.Name.RUNNING, false)) {
            r = commitCandidate(tx);
        }
        ownNotifications.run();
        r.awaitDurable();
        return Outcome.errors(errors(r));
    }

    // ------------------------------------------------------------------ candidate

    /**
     * {@code <commit>}: the candidate's changes to running, and the :confirmed-commit:1.1 parameters
     * (RFC 6241 section 8.4): confirmed, confirm-timeout, persist, persist-id.
     */
    Outcome commit(Element op) throws RpcError {
        ConfirmedCommit.Params p = confirmedCommit(op);
        Transaction.Result r;
        try (Transaction tx = who.scope().datastore().begin(who.caller(), Datastore.Name.RUNNING, false)) {
            who.scope().confirmedCommit().checkCommit(who.caller(), p);
            r = commitCandidate(tx);
            if (errors(r).isEmpty()) who.scope().confirmedCommit().committed(who.caller(), p, tx.before(), r.work());
        } catch (ConfirmedCommit.Refused e) {
            throw error(e);
        }
        ownNotifications.run();
        // outside the datastore's lock, so that sessions committing at once share one flush of the journal
        r.awaitDurable();
        return Outcome.errors(errors(r));
    }

    /** The candidate's changes into running, told to the subscribers (RFC 6470). */
    private Transaction.Result commitCandidate(Transaction tx) {
        Transaction.Result r = tx.commitCandidate();
        if (r.changed() && r.refused().isEmpty()) configChanged(tx.base(), tx.data());
        return r;
    }

    /** {@code <cancel-commit>}: the pending confirmed commit goes back now. */
    Outcome cancelCommit(Element op) throws RpcError {
        Element pid = SecureXml.child(op, Ns.BASE, "persist-id");
        try {
            who.scope().confirmedCommit().cancel(who.caller(), pid == null ? null : SecureXml.text(pid));
        } catch (ConfirmedCommit.Refused e) {
            throw error(e);
        }
        return Outcome.of(OK);
    }

    /** A commit's :confirmed-commit:1.1 parameters: confirmed, confirm-timeout (600 s unless given), persist, persist-id. */
    private static ConfirmedCommit.Params confirmedCommit(Element commit) throws RpcError {
        boolean confirmed = SecureXml.child(commit, Ns.BASE, "confirmed") != null;
        long timeout = 600;
        Element t = SecureXml.child(commit, Ns.BASE, "confirm-timeout");
        if (t != null) {
            try {
                timeout = Long.parseLong(SecureXml.text(t).trim());
            } catch (NumberFormatException e) {
                timeout = -1;
            }
            if (timeout < 1 || timeout > 0xFFFFFFFFL) {
                throw RpcError.invalidValue(null, "confirm-timeout must be 1 to 4294967295 seconds")
                        .info("bad-element", "confirm-timeout");
            }
        }
        Element p = SecureXml.child(commit, Ns.BASE, "persist");
        Element pid = SecureXml.child(commit, Ns.BASE, "persist-id");
        return new ConfirmedCommit.Params(confirmed, timeout, p == null ? null : SecureXml.text(p),
                pid == null ? null : SecureXml.text(pid));
    }

    /** Why the pending confirmed commit may not be confirmed, extended or cancelled (RFC 6241 8.4.5.1), as an rpc-error. */
    private static RpcError error(ConfirmedCommit.Refused e) {
        return switch (e.why) {
            case PERSIST_ID_MISSING -> RpcError.missingElement(Type.PROTOCOL, null, "persist-id", e.getMessage());
            case NO_SUCH_PERSIST_ID -> RpcError.invalidValue(null, e.getMessage()).info("bad-element", "persist-id");
            case NOT_THE_OWNER -> new RpcError(Type.PROTOCOL, "in-use", null, null, e.getMessage())
                    .info("session-id", String.valueOf(e.owner));
            case NONE_PENDING -> new RpcError(Type.APPLICATION, "operation-failed", e.getMessage());
        };
    }

    Outcome discard() throws RpcError {
        who.scope().datastore().discardCandidate(who.sessionId());
        return Outcome.of(OK);
    }

    Outcome validate(Element op) throws RpcError {
        Element src = SecureXml.child(op, Ns.BASE, "source");
        if (src == null) throw RpcError.missingElement(Type.PROTOCOL, null, "source", "validate needs <source>");
        Element inline = config(src);
        if (inline != null) {
            // the inline configuration as the whole of running: edited on its own, checked against running
            TreeEdit edit = new TreeEdit(new ConfigData(java.util.Map.of()), false);
            List<RpcError> errors = new ArrayList<>(new EditConfig(edit::apply, EditConfig.ErrorOption.STOP_ON_ERROR)
                    .apply(inline, Operation.MERGE));
            if (errors.isEmpty()) errors.addAll(checked(ConfigData.of(who.service()), edit.data()));
            return Outcome.errors(errors);
        }
        Datastore.Name source = datastore(op, "source");
        if (source == Datastore.Name.CANDIDATE) {
            ConfigData[] cb = who.scope().datastore().candidateAndBase();
            return Outcome.errors(checked(cb[1], cb[0]));
        }
        return Outcome.of(OK);
    }

    /** The service's check of the change from {@code base} to {@code edited}, as rpc-errors. */
    private List<RpcError> checked(ConfigData base, ConfigData edited) {
        List<RpcError> errors = new ArrayList<>();
        for (VrException e : Datastore.check(who.service(), base, edited, false)) errors.add(Changes.error(e));
        return errors;
    }

    Outcome lock(Element op, boolean lock) throws RpcError {
        Datastore.Name target = datastore(op, "target");
        if (lock) {
            who.scope().datastore().lock(target, who.caller());
        } else {
            who.scope().datastore().unlock(target, who.sessionId());
        }
        return Outcome.of(OK);
    }

}
