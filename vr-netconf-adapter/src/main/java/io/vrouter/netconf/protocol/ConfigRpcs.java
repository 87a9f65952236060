package io.vrouter.netconf.protocol;

import static io.vrouter.netconf.protocol.Outcome.OK;

import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.yang.nacm.Nacm;
import io.vrouter.yang.nacm.NacmConfig;
import io.vrouter.yang.nacm.NacmEdit;
import io.vrouter.yang.nacm.NacmPath;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.Ns;
import io.vrouter.yang.edit.ConfigData;
import io.vrouter.yang.edit.Datastores;
import io.vrouter.yang.edit.Operation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Element;

/**
 * The operations of one session that change or check configuration (RFC 6241 section 7, RFC 8526):
 * edit-config, edit-data, copy-config, commit, cancel-commit, discard-changes, validate, lock and
 * unlock. Each reads its parameters, edits a datastore through vr-yang's edit engine under NACM's
 * write check, and tells the subscribers what it changed (netconf-config-change). The session reads
 * each rpc, dispatches it here and answers.
 */
final class ConfigRpcs {
    private static final Logger log = LoggerFactory.getLogger(ConfigRpcs.class);

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
    static Datastores.Name datastore(Element op, String param) throws RpcError {
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
        Datastores.Name target = datastore(op, "target");
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
     * Edits a datastore with the given config; the service checks the result (every rule about VRs
     * is its) and, for running, applies it as one change set. With test-then-set (the default) or
     * rollback-on-error, an edit with any error changes nothing; with test-option set, stop-on-error
     * keeps what was edited before the error and continue-on-error everything but the failed entries,
     * and VRs the service refuses are left out of what is applied.
     */
    private List<RpcError> edit(Datastores.Name target, Element config, Operation defaultOp,
                                EditConfig.ErrorOption errorOption, TestOption test) throws RpcError {
        List<Changes.Applied> accepted = new ArrayList<>(1);
        Element nacmEdit = SecureXml.child(config, NacmConfig.NS, "nacm");
        List<RpcError> errors;
        if (nacmEdit == null) {
            errors = edit(target, config, defaultOp, errorOption, test, accepted);
        } else {
            // /nacm is the server's, not a datastore's: edited in running, with the VRs' part all or nothing.
            if (target != Datastores.Name.RUNNING) {
                throw new RpcError(Type.APPLICATION, "operation-not-supported", null, NACM_PATH,
                        "/nacm is edited in running (it is not part of the candidate)");
            }
            if (!who.access().mayWrite(NacmConfig.MODULE, NacmPath.ROOT.child("nacm"), Nacm.Op.UPDATE)) throw denied(NACM_PATH);
            synchronized (ctx.nacm()) {
                NacmConfig next = nacmEdited(nacmEdit, defaultOp);
                errors = edit(target, config, defaultOp, EditConfig.ErrorOption.ROLLBACK_ON_ERROR,
                        test == TestOption.TEST_ONLY ? test : TestOption.TEST_THEN_SET, accepted);
                if (errors.isEmpty() && test != TestOption.TEST_ONLY) keepNacm(next);
            }
        }
        ownNotifications.run();
        // outside the datastores' lock, so that sessions editing at once share one flush of the journal
        for (Changes.Applied a : accepted) a.awaitDurable();
        return errors;
    }

    private List<RpcError> edit(Datastores.Name target, Element config, Operation defaultOp,
                                EditConfig.ErrorOption errorOption, TestOption test,
                                List<Changes.Applied> accepted) throws RpcError {
        Datastores ds = who.scope().datastores();
        synchronized (ds) {
            ds.checkWritable(target, who.sessionId());
            ConfigData running = ConfigData.of(who.service());
            ConfigData[] cb = target == Datastores.Name.CANDIDATE ? ds.candidateAndBase() : new ConfigData[] {running.copy(), running};
            EditConfig edit = new EditConfig(cb[0], errorOption);
            List<RpcError> errors = new ArrayList<>(edit.apply(config, defaultOp));
            boolean allOrNothing = test != TestOption.SET || errorOption == EditConfig.ErrorOption.ROLLBACK_ON_ERROR;
            if (!errors.isEmpty() && allOrNothing) return errors;
            RpcError denied = writeDenied(cb[1], edit.data());
            if (denied != null) {
                errors.add(denied);
                return errors;
            }
            if (target == Datastores.Name.RUNNING && test != TestOption.TEST_ONLY) {
                // checked once, by the service's accept (VRs it refuses are left out unless all or nothing)
                Changes.Applied applied = Changes.apply(who.service(), ds, cb[1], edit.data(), !allOrNothing);
                accepted.add(applied);
                errors.addAll(applied.errors());
                if (applied.changed()) configChanged(cb[1], edit.data());
                return errors;
            }
            errors.addAll(Changes.check(who.service(), ds, cb[1], edit.data(), !allOrNothing));
            if (test == TestOption.TEST_ONLY || (!errors.isEmpty() && allOrNothing)) return errors;
            ds.storeCandidate(edit.data(), cb[1]);
            return errors;
        }
    }

    private static final String NACM_PATH = "/" + NacmConfig.MODULE + ":nacm";

    private RpcError denied(String path) {
        return new RpcError(Type.APPLICATION, "access-denied", null, path, "access control (NACM) denies user '" + who.user()
                + "' this change");
    }

    /** The configuration in force edited by {@code <nacm>}; refused with the rpc-error that says why. */
    private NacmConfig nacmEdited(Element nacm, Operation defaultOp) throws RpcError {
        try {
            return NacmEdit.apply(ctx.nacm().config(), new EditConfig.XmlNode(nacm), defaultOp);
        } catch (NacmEdit.Refused r) {
            RpcError e = new RpcError(r.protocol ? Type.PROTOCOL : Type.APPLICATION, r.tag, r.appTag, r.path, r.getMessage());
            throw r.infoName == null ? e : e.info(r.infoName, r.infoValue);
        }
    }

    /** Takes an edited /nacm: durable (in the data directory) before it is in force. */
    private void keepNacm(NacmConfig next) throws RpcError {
        try {
            ctx.nacm().replace(next);
        } catch (java.io.IOException e) {
            log.error("NETCONF session {}: cannot keep the access control configuration: {}", who.sessionId(), e.toString());
            throw new RpcError(Type.APPLICATION, "operation-failed", "the access control configuration cannot be kept"
                    + " (the server's log says why); it is unchanged");
        }
    }

    /** NACM's write check (RFC 8341 3.4.5) of the change from {@code base} to {@code edited}: the first denied is the error. */
    private RpcError writeDenied(ConfigData base, ConfigData edited) {
        String target = who.access().deniedWrite(base, edited);
        return target == null ? null : denied(target);
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
        Datastores.Name target = datastore(op, "target");
        Element src = SecureXml.child(op, Ns.BASE, "source");
        if (src == null) throw RpcError.missingElement(Type.PROTOCOL, null, "source", "copy-config needs <source>");
        Element inline = config(src);
        if (inline != null) {
            return Outcome.errors(edit(target, inline, Operation.REPLACE, EditConfig.ErrorOption.ROLLBACK_ON_ERROR,
                    TestOption.TEST_THEN_SET));
        }
        Datastores.Name source = datastore(op, "source");
        if (source == target) {
            throw RpcError.invalidValue(null, "source and target are the same datastore").info("bad-element", "target");
        }
        if (target == Datastores.Name.CANDIDATE) return discard();
        Changes.Applied applied;
        synchronized (who.scope().datastores()) {
            who.scope().datastores().checkWritable(Datastores.Name.RUNNING, who.sessionId());
            applied = commitCandidate(new HashMap<>());
        }
        applied.awaitDurable();
        return Outcome.errors(applied.errors());
    }

    // ------------------------------------------------------------------ candidate

    /**
     * {@code <commit>}: the candidate's changes to running, and the :confirmed-commit:1.1 parameters
     * (RFC 6241 section 8.4): confirmed, confirm-timeout, persist, persist-id.
     */
    Outcome commit(Element op) throws RpcError {
        ConfirmedCommit.Params p = ConfirmedCommit.Params.of(op);
        Datastores ds = who.scope().datastores();
        Changes.Applied applied;
        synchronized (ds) {
            ds.checkWritable(Datastores.Name.RUNNING, who.sessionId());
            who.scope().confirmedCommit().checkCommit(who, p);
            Map<Integer, VmConfigEntry> touched = new HashMap<>();
            applied = commitCandidate(touched);
            if (applied.errors().isEmpty()) who.scope().confirmedCommit().committed(who, p, touched, applied.work());
        }
        ownNotifications.run();
        // outside the datastores' lock, so that sessions committing at once share one flush of the journal
        applied.awaitDurable();
        return Outcome.errors(applied.errors());
    }

    /**
     * Applies the candidate's changes to running; {@code touched} gets the running rows, before, of
     * the VRs they change (null for VRs they create). Called with the datastores locked; the caller
     * makes what it applied durable ({@link Changes.Applied#awaitDurable}) once it lets go of them.
     */
    private Changes.Applied commitCandidate(Map<Integer, VmConfigEntry> touched) {
        ConfigData[] cb = who.scope().datastores().candidateAndBase();
        RpcError denied = writeDenied(cb[1], cb[0]);
        if (denied != null) return Changes.Applied.nothing(List.of(denied));
        Datastores.Committed c = who.scope().datastores().commit(who.service());
        if (c == null) return Changes.Applied.nothing(List.of());
        touched.putAll(c.before());
        Changes.Applied applied = Changes.of(c.accepted());
        if (applied.errors().isEmpty()) configChanged(c.base(), c.candidate());
        return applied;
    }

    /** {@code <cancel-commit>}: the pending confirmed commit goes back now. */
    Outcome cancelCommit(Element op) throws RpcError {
        Element pid = SecureXml.child(op, Ns.BASE, "persist-id");
        who.scope().confirmedCommit().cancel(who, pid == null ? null : SecureXml.text(pid));
        return Outcome.of(OK);
    }

    Outcome discard() throws RpcError {
        Datastores ds = who.scope().datastores();
        synchronized (ds) {
            ds.checkWritable(Datastores.Name.CANDIDATE, who.sessionId());
            ds.discardCandidate();
        }
        return Outcome.of(OK);
    }

    Outcome validate(Element op) throws RpcError {
        Element src = SecureXml.child(op, Ns.BASE, "source");
        if (src == null) throw RpcError.missingElement(Type.PROTOCOL, null, "source", "validate needs <source>");
        Element inline = config(src);
        ConfigData running = ConfigData.of(who.service());
        if (inline != null) {
            EditConfig edit = new EditConfig(new ConfigData(java.util.Map.of()), EditConfig.ErrorOption.STOP_ON_ERROR);
            List<RpcError> errors = new ArrayList<>(edit.apply(inline, Operation.MERGE));
            if (errors.isEmpty()) {
                errors.addAll(Changes.check(who.service(), who.scope().datastores(), running, edit.data(), false));
            }
            return Outcome.errors(errors);
        }
        Datastores.Name source = datastore(op, "source");
        if (source == Datastores.Name.CANDIDATE) {
            ConfigData[] cb = who.scope().datastores().candidateAndBase();
            return Outcome.errors(Changes.check(who.service(), who.scope().datastores(), cb[1], cb[0], false));
        }
        return Outcome.of(OK);
    }

    Outcome lock(Element op, boolean lock) throws RpcError {
        Datastores.Name target = datastore(op, "target");
        if (lock) {
            who.scope().datastores().lock(target, who.caller());
        } else {
            who.scope().datastores().unlock(target, who.sessionId());
        }
        return Outcome.of(OK);
    }

}
