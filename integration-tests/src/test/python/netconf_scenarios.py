#!/usr/bin/env python3
"""NETCONF scenarios against a running vrouter server, driven with ncclient over real SSH.

Usage: netconf_scenarios.py SCENARIO --port N [--framing 1.0|1.1] [--user U --password P] [--out DIR]

Each scenario prints one JSON object with what it observed on its last line of stdout; the Java
integration tests (io.vrouter.it.netconf) assert on it. A scenario that cannot go on raises, which
exits non-zero with the traceback on stderr.
"""
import argparse
import json
import os
import sys
import time

import ncclient.transport.session as nc_session
nc_session.TICK = 0.001  # ncclient polls its socket every TICK seconds; the default makes every rpc slow

from lxml import etree
from ncclient import manager
from ncclient.devices.default import DefaultDeviceHandler
from ncclient.operations.rpc import RPCError
from ncclient.transport.session import SessionListener
from ncclient.xml_ import to_ele

VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB"
NC = "urn:ietf:params:xml:ns:netconf:base:1.0"
NOTIF = "urn:ietf:params:xml:ns:netconf:notification:1.0"
MON = "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring"
WD = "urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults"
WD_ATTR = "urn:ietf:params:xml:ns:netconf:default:1.0"
NMDA = "urn:ietf:params:xml:ns:yang:ietf-netconf-nmda"
DS = "urn:ietf:params:xml:ns:yang:ietf-datastores"
YLIB = "urn:ietf:params:xml:ns:yang:ietf-yang-library"
STREAMS = "urn:ietf:params:xml:ns:netmod:notification"
NCN = "urn:ietf:params:xml:ns:yang:ietf-netconf-notifications"
NS = {"v": VMM, "nc": NC, "m": MON, "y": YLIB, "s": STREAMS, "n": NCN, "d": NMDA}


def connect(args, framing=None):
    framing = framing or args.framing
    if framing == "1.0":
        DefaultDeviceHandler._BASE_CAPABILITIES = ["urn:ietf:params:netconf:base:1.0"]
    else:
        DefaultDeviceHandler._BASE_CAPABILITIES = ["urn:ietf:params:netconf:base:1.0",
                                                   "urn:ietf:params:netconf:base:1.1"]
    return manager.connect(host=args.host, port=args.port, username=args.user, password=args.password,
                           hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30)


def base_of(m):
    return "1.1" if m._session._base == nc_session.NetconfBase.BASE_11 else "1.0"


def config(tables):
    return ('<config xmlns="%s"><NEW-VMM-MIB xmlns="%s" xmlns:nc="%s">%s</NEW-VMM-MIB></config>'
            % (NC, VMM, NC, tables))


def vr_entry(index, name, extra="", op=None):
    attr = ' nc:operation="%s"' % op if op else ""
    return ("<vmConfigEntry%s><vmIndex>%d</vmIndex><vmName>%s</vmName>%s</vmConfigEntry>"
            % (attr, index, name, extra))


def xpath_oper_state(m, index):
    reply = m.get(filter=("xpath", ({"v": VMM}, "/v:NEW-VMM-MIB/v:vmTable/v:vmEntry[v:vmIndex=%d]/v:vmOperState" % index)))
    states = reply.data_ele.xpath("//v:vmOperState/text()", namespaces=NS)
    return states[0] if states else None


def wait_state(m, index, wanted, seconds=20):
    end = time.time() + seconds
    seen = []
    while time.time() < end:
        s = xpath_oper_state(m, index)
        if not seen or seen[-1] != s:
            seen.append(s)
        if s == wanted:
            return seen
        time.sleep(0.05)
    raise AssertionError("VR %d never reached %s, saw %s" % (index, wanted, seen))


def error_of(e):
    return {"tag": e.tag, "type": e.type, "app_tag": e.app_tag, "path": (e.path or "").strip(),
            "message": e.message, "info": e.info}


# ------------------------------------------------------------------ scenarios

def hello(args):
    with connect(args) as m:
        caps = list(m.server_capabilities)
        reply = m.get_config(source="running")
        return {"session_id": m.session_id, "framing": base_of(m), "capabilities": caps,
                "get_config_ok": reply.ok, "data_tag": etree.QName(reply.data_ele).localname}


def lifecycle(args):
    index, name = args.index, args.name
    out = {"framing": None}
    with connect(args) as m:
        out["framing"] = base_of(m)
        iface = ("<vmNetworkConfigTable><vmNetworkConfigEntry><vmIndex>%d</vmIndex>"
                 "<vmNetworkConfigIndex>1</vmNetworkConfigIndex><vmNetworkConfigParent>br-lan</vmNetworkConfigParent>"
                 "<vmNetworkConfigAddress>192.0.2.1</vmNetworkConfigAddress></vmNetworkConfigEntry></vmNetworkConfigTable>"
                 % index)
        m.edit_config(target="candidate", config=config(
            "<vmConfigTable>%s</vmConfigTable>%s" % (vr_entry(index, name, "<vmConfigMemory>256</vmConfigMemory>", "create"), iface)))
        running = m.get_config(source="running").data_ele
        out["in_running_before_commit"] = bool(running.xpath("//v:vmConfigEntry[v:vmName='%s']" % name, namespaces=NS))
        candidate = m.get_config(source="candidate").data_ele
        out["in_candidate"] = bool(candidate.xpath("//v:vmConfigEntry[v:vmName='%s']" % name, namespaces=NS))
        m.commit()
        out["states_after_commit"] = wait_state(m, index, "running")

        subtree = ('<NEW-VMM-MIB xmlns="%s"><vmConfigTable><vmConfigEntry><vmName>%s</vmName></vmConfigEntry>'
                   '</vmConfigTable></NEW-VMM-MIB>' % (VMM, name))
        got = m.get_config(source="running", filter=("subtree", subtree)).data_ele
        entries = got.xpath("//v:vmConfigEntry", namespaces=NS)
        out["subtree_entries"] = len(entries)
        out["subtree_memory"] = got.xpath("string(//v:vmConfigEntry/v:vmConfigMemory)", namespaces=NS)
        out["subtree_index"] = got.xpath("string(//v:vmConfigEntry/v:vmIndex)", namespaces=NS)
        sel = ('<NEW-VMM-MIB xmlns="%s"><vmNetworkTable><vmNetworkEntry><vmIndex>%d</vmIndex>'
               '<vmNetworkPhysAddress/></vmNetworkEntry></vmNetworkTable></NEW-VMM-MIB>' % (VMM, index))
        got = m.get(filter=("subtree", sel)).data_ele
        out["mac"] = got.xpath("string(//v:vmNetworkPhysAddress)", namespaces=NS)
        out["mac_reply_leaves"] = sorted(set(etree.QName(e).localname for e in got.iter() if len(e) == 0))
        xp = m.get(filter=("xpath", ({"v": VMM}, "/v:NEW-VMM-MIB/v:vmConfigTable/v:vmConfigEntry[v:vmName='%s']/v:vmConfigMemory" % name))).data_ele
        out["xpath_memory"] = xp.xpath("string(//v:vmConfigMemory)", namespaces=NS)
        out["xpath_leaves"] = sorted(set(etree.QName(e).localname for e in xp.iter() if len(e) == 0))

        m.edit_config(target="running", config=config(
            "<vmConfigTable><vmConfigEntry><vmIndex>%d</vmIndex><vmAdminState>shutdown</vmAdminState></vmConfigEntry></vmConfigTable>" % index))
        out["states_after_stop"] = wait_state(m, index, "shutdown")
        m.edit_config(target="candidate", config=config(
            "<vmConfigTable><vmConfigEntry><vmIndex>%d</vmIndex><vmAdminState>running</vmAdminState></vmConfigEntry></vmConfigTable>" % index))
        m.commit()
        out["states_after_start"] = wait_state(m, index, "running")
        if args.keep:
            return out
        m.edit_config(target="candidate", config=config(
            "<vmConfigTable>%s</vmConfigTable>" % ('<vmConfigEntry nc:operation="delete"><vmIndex>%d</vmIndex></vmConfigEntry>' % index)))
        m.commit()
        end = time.time() + 20
        while time.time() < end and xpath_oper_state(m, index) is not None:
            time.sleep(0.05)
        out["gone_after_delete"] = xpath_oper_state(m, index) is None
        out["in_running_after_delete"] = bool(m.get_config(source="running").data_ele.xpath(
            "//v:vmConfigEntry[v:vmIndex=%d]" % index, namespaces=NS))
    return out


class ArrivalOrder(SessionListener):
    """Records the message-id of every rpc-reply in the order the replies arrive."""

    def __init__(self):
        self.ids = []

    def callback(self, root, raw):
        tag, attrs = root
        if tag == "{%s}rpc-reply" % NC:
            self.ids.append(attrs.get("message-id"))

    def errback(self, ex):
        pass


def pipeline(args):
    n = args.count
    with connect(args) as m:
        order = ArrivalOrder()
        m._session.add_listener(order)
        m.async_mode = True
        sent = []
        rpcs = []
        for i in range(n):
            if i % 2 == 0:
                r = m.get_config(source="running")
            else:
                r = m.get(filter=("subtree", '<NEW-VMM-MIB xmlns="%s"><vmObjects/></NEW-VMM-MIB>' % VMM))
            rpcs.append(r)
            sent.append(r.id)
        deadline = time.time() + 60
        for r in rpcs:
            r.event.wait(max(0.0, deadline - time.time()))
        m.async_mode = False
        ok = sum(1 for r in rpcs if r.reply is not None and r.reply.ok)
        replied = [i for i in order.ids if i in sent]
        return {"sent": sent, "arrived": replied, "ok": ok, "count": n, "framing": base_of(m)}


def notify(args):
    index, name = args.index, args.name
    with connect(args) as m:
        m.create_subscription()
        t0 = time.time()
        m.edit_config(target="running", config=config("<vmConfigTable>%s</vmConfigTable>" % vr_entry(index, name, op="create")))
        events = []
        running = None
        end = time.time() + 20
        while time.time() < end and running is None:
            n = m.take_notification(block=True, timeout=1)
            if n is None:
                continue
            ele = n.notification_ele
            kinds = [etree.QName(c).localname for c in ele if etree.QName(c).localname != "eventTime"]
            vm_name = ele.xpath("string(.//v:vmName/v:vmName)", namespaces=NS)
            events.append({"kind": kinds[0] if kinds else None, "vmName": vm_name,
                           "eventTime": ele.xpath("string(n:eventTime)", namespaces={"n": NOTIF}), "state": ele.xpath("string(.//v:vmOperState/v:vmOperState)", namespaces=NS)})
            if kinds and kinds[0] == "vmRunning" and vm_name == name:
                running = events[-1]
        # Interleave: the subscribed session still answers rpcs.
        still = m.get_config(source="running").ok
        return {"events": events, "running": running, "seconds": time.time() - t0, "rpc_after_subscribe": still}


def errors(args):
    out = {}
    with connect(args) as m:
        # Malformed XML: sent raw; the reply (without message-id) is caught by a listener.
        class Raw(SessionListener):
            def __init__(self):
                self.replies = []

            def callback(self, root, raw):
                if root[0] == "{%s}rpc-reply" % NC and "message-id" not in root[1]:
                    self.replies.append(raw)

            def errback(self, ex):
                pass

        raw = Raw()
        m._session.add_listener(raw)
        m._session.send('<rpc message-id="x1" xmlns="%s"><get><filter></get></rpc>' % NC)
        end = time.time() + 10
        while time.time() < end and not raw.replies:
            time.sleep(0.01)
        out["malformed_reply"] = raw.replies[0] if raw.replies else None

        try:
            m.dispatch(to_ele('<frobnicate xmlns="urn:example:nothing"/>'))
            out["unknown_operation"] = None
        except RPCError as e:
            out["unknown_operation"] = error_of(e)

        try:
            m.edit_config(target="running", config=config(
                "<vmConfigTable>%s</vmConfigTable>" % vr_entry(args.index, "leafy", "<vmColour>red</vmColour>")))
            out["unknown_leaf"] = None
        except RPCError as e:
            out["unknown_leaf"] = error_of(e)

        try:
            m.edit_config(target="running", config=config(
                "<vmConfigTable>%s</vmConfigTable>" % ('<vmConfigEntry nc:operation="delete"><vmIndex>%d</vmIndex></vmConfigEntry>' % 999999)))
            out["delete_missing"] = None
        except RPCError as e:
            out["delete_missing"] = error_of(e)

        out["session_alive"] = m.get_config(source="running").ok
        out["leafy_created"] = bool(m.get_config(source="running").data_ele.xpath(
            "//v:vmConfigEntry[v:vmName='leafy']", namespaces=NS))
    with connect(args) as m2:
        out["server_alive"] = m2.get(filter=("subtree", '<NEW-VMM-MIB xmlns="%s"><vmObjects/></NEW-VMM-MIB>' % VMM)).ok
    return out


def schema(args):
    out = {"files": []}
    with connect(args) as m:
        listing = m.get(filter=("subtree", '<netconf-state xmlns="%s"><schemas/></netconf-state>' % MON)).data_ele
        for s in listing.xpath("//m:schema", namespaces=NS):
            ident = s.xpath("string(m:identifier)", namespaces=NS)
            version = s.xpath("string(m:version)", namespaces=NS)
            text = m.get_schema(ident, version=version, format="yang").data
            path = os.path.join(args.out, "%s@%s.yang" % (ident, version))
            with open(path, "w") as f:
                f.write(text)
            out["files"].append(path)
        out["module_capability"] = [c for c in m.server_capabilities if "module=NEW-VMM-MIB" in c]
    return out


def viewer(args):
    out = {}
    with connect(args) as m:
        out["get_ok"] = m.get_config(source="running").ok
        try:
            m.edit_config(target="running", config=config("<vmConfigTable>%s</vmConfigTable>" % vr_entry(args.index, "nope")))
            out["edit"] = None
        except RPCError as e:
            out["edit"] = error_of(e)
    return out


def reconfigure(args):
    """A running VR: a resize is refused; stopped, resized and renamed on the candidate, then committed."""
    index, name = args.index, args.name
    out = {}
    with connect(args) as m:
        m.edit_config(target="running", config=config(
            "<vmConfigTable>%s</vmConfigTable>" % vr_entry(index, name, "<vmConfigMemory>256</vmConfigMemory>", "create")))
        wait_state(m, index, "running")

        def entry(leaves):
            return config("<vmConfigTable><vmConfigEntry><vmIndex>%d</vmIndex>%s</vmConfigEntry></vmConfigTable>"
                          % (index, leaves))

        try:
            m.edit_config(target="running", config=entry("<vmConfigMemory>1024</vmConfigMemory>"))
            out["resize_running"] = None
        except RPCError as e:
            out["resize_running"] = error_of(e)
        out["memory_after_refusal"] = m.get_config(source="running").data_ele.xpath(
            "string(//v:vmConfigEntry[v:vmIndex=%d]/v:vmConfigMemory)" % index, namespaces=NS)

        m.edit_config(target="candidate", config=entry("<vmAdminState>shutdown</vmAdminState>"))
        m.edit_config(target="candidate", config=entry(
            "<vmConfigMemory>1024</vmConfigMemory><vmName>%s-big</vmName>" % name))
        out["memory_before_commit"] = m.get_config(source="running").data_ele.xpath(
            "string(//v:vmConfigEntry[v:vmIndex=%d]/v:vmConfigMemory)" % index, namespaces=NS)
        out["commit_ok"] = m.commit().ok
        out["states_after_commit"] = wait_state(m, index, "shutdown")
        got = m.get_config(source="running").data_ele
        out["name"] = got.xpath("string(//v:vmConfigEntry[v:vmIndex=%d]/v:vmName)" % index, namespaces=NS)
        out["memory"] = got.xpath("string(//v:vmConfigEntry[v:vmIndex=%d]/v:vmConfigMemory)" % index, namespaces=NS)

        try:
            m.edit_config(target="running", config=entry("<vmConfigTemplate>other</vmConfigTemplate>"))
            out["template"] = None
        except RPCError as e:
            out["template"] = error_of(e)
    return out


def entry_leaves(data, index):
    """The leaves of a vmConfigEntry as {name: (value, wd:default attribute)}."""
    out = {}
    for e in data.xpath("//v:vmConfigEntry[v:vmIndex=%d]/*" % index, namespaces=NS):
        out[etree.QName(e).localname] = [e.text, e.get("{%s}default" % WD_ATTR)]
    return out


def create(args):
    """Creates a VR on running (2 CPUs, the default memory given explicitly) and waits until it runs."""
    with connect(args) as m:
        m.edit_config(target="running", config=config("<vmConfigTable>%s</vmConfigTable>" % vr_entry(
            args.index, args.name, "<vmConfigCpuNumber>2</vmConfigCpuNumber><vmConfigMemory>512</vmConfigMemory>", "create")))
        wait_state(m, args.index, "running")
        streams = m.get(filter=("subtree", '<netconf xmlns="%s"><streams/></netconf>' % STREAMS)).data_ele
        return {"replayLogCreationTime": streams.xpath("string(//s:replayLogCreationTime)", namespaces=NS)}


def withdefaults(args):
    """get-config in each with-defaults mode (ncclient checks the mode against the capability), then a bad one."""
    out = {"capability": [c for c in m_caps(args) if ":with-defaults:" in c]}
    with connect(args) as m:
        for mode in ("report-all", "trim", "report-all-tagged", None):
            data = m.get_config(source="running", with_defaults=mode).data_ele if mode else m.get_config(source="running").data_ele
            out[mode or "basic"] = entry_leaves(data, args.index)
        try:
            m.dispatch(to_ele('<get-config xmlns="%s"><source><running/></source><with-defaults xmlns="%s">everything</with-defaults>'
                              '</get-config>' % (NC, WD)))
            out["bad"] = None
        except RPCError as e:
            out["bad"] = error_of(e)
    return out


def m_caps(args):
    with connect(args) as m:
        return list(m.server_capabilities)


def get_data(m, datastore, params=""):
    reply = m.dispatch(to_ele('<get-data xmlns="%s" xmlns:ds="%s"><datastore>ds:%s</datastore>%s</get-data>'
                              % (NMDA, DS, datastore, params)))
    return etree.fromstring(reply.xml.encode())


def nmda(args):
    """get-data on the three datastores, with config-filter, max-depth and filters; the YANG library."""
    index = args.index
    out = {}
    with connect(args) as m:
        m.edit_config(target="candidate", config=config("<vmConfigTable>%s</vmConfigTable>" % vr_entry(index + 1, args.name + "-cand")))

        def names(data):
            return sorted(data.xpath("//v:vmConfigEntry/v:vmName/text()", namespaces=NS))

        def tops(data):
            return sorted(etree.QName(e).localname for e in data.xpath("//d:data/*", namespaces=NS))

        running = get_data(m, "running")
        candidate = get_data(m, "candidate")
        operational = get_data(m, "operational")
        out["running_names"] = names(running)
        out["candidate_names"] = names(candidate)
        out["operational_names"] = names(operational)
        out["running_has_state"] = bool(running.xpath("//v:vmOperState", namespaces=NS))
        out["operational_state"] = operational.xpath("string(//v:vmEntry[v:vmIndex=%d]/v:vmOperState)" % index, namespaces=NS)
        out["operational_tops"] = tops(operational)
        state_only = get_data(m, "operational", "<config-filter>false</config-filter>")
        out["state_only_has_config"] = bool(state_only.xpath("//v:vmConfigTable", namespaces=NS))
        out["state_only_tops"] = tops(state_only)
        depth = get_data(m, "operational", "<max-depth>2</max-depth><subtree-filter><NEW-VMM-MIB xmlns='%s'/></subtree-filter>" % VMM)
        out["depth2_children"] = sorted(etree.QName(e).localname for e in depth.xpath("//v:NEW-VMM-MIB/*", namespaces=NS))
        out["depth2_grandchildren"] = len(depth.xpath("//v:NEW-VMM-MIB/*/*", namespaces=NS))
        xp = get_data(m, "operational", "<xpath-filter xmlns:v='%s'>/v:NEW-VMM-MIB/v:vmTable/v:vmEntry[v:vmIndex=%d]/v:vmOperState"
                      "</xpath-filter>" % (VMM, index))
        out["xpath_leaves"] = sorted(set(etree.QName(e).localname for e in xp.iter() if len(e) == 0))
        lib = get_data(m, "operational", "<subtree-filter><yang-library xmlns='%s'/></subtree-filter>" % YLIB)
        out["content_id"] = lib.xpath("string(//y:content-id)", namespaces=NS)
        out["library_capability"] = [c for c in m.server_capabilities if ":yang-library:1.1" in c]
        out["datastores"] = sorted(lib.xpath("//y:datastore/y:name/text()", namespaces=NS))
        out["modules"] = sorted(lib.xpath("//y:module-set/y:module/y:name/text()", namespaces=NS))
        try:
            get_data(m, "intended")
            out["intended"] = None
        except RPCError as e:
            out["intended"] = error_of(e)
        m.discard_changes()
    return out


def notification_of(n):
    """A notification's kind, vmName, vmUUID and eventTime."""
    ele = n.notification_ele
    kind = [etree.QName(c).localname for c in ele if etree.QName(c).localname != "eventTime"][0]
    return {"kind": kind, "vmName": ele.xpath("string(.//v:vmName/v:vmName)", namespaces=NS),
            "vmUUID": ele.xpath("string(.//v:vmUUID/v:vmUUID)", namespaces=NS),
            "eventTime": ele.xpath("string(n:eventTime)", namespaces={"n": NOTIF})}


def replay(args):
    """A subscription replaying from --since until --until: what arrives up to notificationComplete."""
    out = {"notifications": []}
    with connect(args) as m:
        m.create_subscription(start_time=args.since, stop_time=args.until)
        end = time.time() + 20
        while time.time() < end:
            n = m.take_notification(block=True, timeout=1)
            if n is None:
                continue
            out["notifications"].append(notification_of(n))
            if out["notifications"][-1]["kind"] == "notificationComplete":
                break
        # The subscription is over: the session answers and may subscribe again.
        out["subscribe_again"] = m.create_subscription().ok
    return out


def states_notified(args):
    """Subscribes, then takes VR --index (--name) through every state the simulated host has over
    edit-config (running, paused, running, suspended, running, shutdown) and removes it: the
    notifications about it as they came, up to its vmDeleted."""
    index, name = args.index, args.name
    out = {"notifications": []}

    def admin(m, state):
        m.edit_config(target="running", config=config(
            "<vmConfigTable><vmConfigEntry><vmIndex>%d</vmIndex><vmAdminState>%s</vmAdminState></vmConfigEntry>"
            "</vmConfigTable>" % (index, state)))
        wait_state(m, index, state)

    with connect(args) as m:
        m.create_subscription()
        m.edit_config(target="running", config=config("<vmConfigTable>%s</vmConfigTable>" % vr_entry(index, name, op="create")))
        wait_state(m, index, "running")
        for state in ("paused", "running", "suspended", "running", "shutdown"):
            admin(m, state)
        m.edit_config(target="running", config=config(
            '<vmConfigTable><vmConfigEntry nc:operation="delete"><vmIndex>%d</vmIndex></vmConfigEntry></vmConfigTable>' % index))
        end = time.time() + 20
        while time.time() < end:
            n = m.take_notification(block=True, timeout=1)
            if n is None:
                continue
            got = notification_of(n)
            if got["vmName"] != name:
                continue
            out["notifications"].append(got)
            if got["kind"] == "vmDeleted":
                break
    return out


def sessions(args):
    """A subscriber sees other sessions start and end (closed, killed), then reads the statistics."""
    out = {"notifications": []}
    with connect(args) as m:
        m.create_subscription()
        with connect(args) as closed:
            out["closed_id"] = int(closed.session_id)
        victim = connect(args)
        out["killed_id"] = int(victim.session_id)
        m.kill_session(victim.session_id)
        out["watcher_id"] = int(m.session_id)
        end = time.time() + 20
        while time.time() < end and len(out["notifications"]) < 4:
            n = m.take_notification(block=True, timeout=1)
            if n is None:
                continue
            body = [c for c in n.notification_ele if etree.QName(c).localname != "eventTime"][0]
            if etree.QName(body).namespace != NCN:
                continue
            out["notifications"].append({etree.QName(c).localname: c.text for c in body} | {"kind": etree.QName(body).localname})
        stats = m.get(filter=("subtree", '<netconf-state xmlns="%s"><statistics/></netconf-state>' % MON)).data_ele
        out["statistics"] = {etree.QName(e).localname: e.text for e in stats.xpath("//m:statistics/*", namespaces=NS)}
    return out


def add_interface(args):
    """Adds interface --net-index to VR --index on the running datastore (parent, address, prefix length)."""
    leaves = "<vmNetworkConfigParent>%s</vmNetworkConfigParent>" % args.parent
    if args.address:
        leaves += ("<vmNetworkConfigAddress>%s</vmNetworkConfigAddress><vmNetworkConfigPrefixLength>%d"
                   "</vmNetworkConfigPrefixLength>" % (args.address, args.prefix))
    with connect(args) as m:
        reply = m.edit_config(target="running", config=config(
            '<vmNetworkConfigTable><vmNetworkConfigEntry nc:operation="create"><vmIndex>%d</vmIndex>'
            "<vmNetworkConfigIndex>%d</vmNetworkConfigIndex>%s</vmNetworkConfigEntry></vmNetworkConfigTable>"
            % (args.index, args.net_index, leaves)))
        return {"ok": reply.ok}


def network_table(args):
    """Every vmNetworkEntry with all its leaves, as text."""
    with connect(args) as m:
        got = m.get(filter=("subtree", '<NEW-VMM-MIB xmlns="%s"><vmNetworkTable/></NEW-VMM-MIB>' % VMM)).data_ele
        entries = [{etree.QName(leaf).localname: leaf.text for leaf in e}
                   for e in got.xpath("//v:vmNetworkEntry", namespaces=NS)]
        return {"entries": entries}


def admin_state(args):
    """Sets vmAdminState of VR --index to --state on the running datastore; the rpc-error, if any."""
    with connect(args) as m:
        try:
            m.edit_config(target="running", config=config(
                "<vmConfigTable><vmConfigEntry><vmIndex>%d</vmIndex><vmAdminState>%s</vmAdminState></vmConfigEntry>"
                "</vmConfigTable>" % (args.index, args.state)))
            return {"error": None}
        except RPCError as e:
            return {"error": error_of(e)}


def edits(args):
    """Each line of the file --edits names is the content of one edit-config of running (the
    NEW-VMM-MIB tables); all in one session. Prints, in order, ok or the rpc-errors of each."""
    out = []
    with open(args.edits) as f:
        bodies = [line.rstrip("\n") for line in f if line.strip()]
    with connect(args) as m:
        for body in bodies:
            try:
                m.edit_config(target="running", config=config(body))
                out.append({"ok": True})
            except RPCError as e:
                out.append({"ok": False, "errors": [error_of(x) for x in (e.errlist or [e])]})
    return out


def confirmed(args):
    """A confirmed commit (RFC 6241 8.4) that creates VR --index, resizes VR --index+1 and removes VR --index+2,
    left unconfirmed: the server puts all three back when the timeout runs out. Then one that is confirmed."""
    index, out = args.index, {"events": []}
    with connect(args) as m:
        def rows():
            data = m.get_config(source="running").data_ele
            return {i: {"name": data.xpath("string(//v:vmConfigEntry[v:vmIndex=%d]/v:vmName)" % i, namespaces=NS),
                        "memory": data.xpath("string(//v:vmConfigEntry[v:vmIndex=%d]/v:vmConfigMemory)" % i, namespaces=NS)}
                    for i in (index, index + 1, index + 2)}

        m.edit_config(target="running", config=config("<vmConfigTable>%s%s</vmConfigTable>" % (
            vr_entry(index + 1, args.name + "-kept", "<vmAdminState>shutdown</vmAdminState><vmConfigMemory>256</vmConfigMemory>"),
            vr_entry(index + 2, args.name + "-removed", ""))))
        wait_state(m, index + 2, "running")
        out["before"] = rows()
        m.create_subscription(filter=("subtree", '<netconf-confirmed-commit xmlns="%s"/>' % NCN))
        m.edit_config(target="candidate", config=config("<vmConfigTable>%s%s%s</vmConfigTable>" % (
            vr_entry(index, args.name + "-new", "", "create"),
            "<vmConfigEntry><vmIndex>%d</vmIndex><vmConfigMemory>1024</vmConfigMemory></vmConfigEntry>" % (index + 1),
            '<vmConfigEntry nc:operation="delete"><vmIndex>%d</vmIndex></vmConfigEntry>' % (index + 2))))
        out["commit_ok"] = m.commit(confirmed=True, timeout="3").ok
        out["during"] = rows()
        end = time.time() + 3
        while time.time() < end and xpath_oper_state(m, index + 2) is not None:
            time.sleep(0.02)
        out["removed_during"] = xpath_oper_state(m, index + 2) is None
        end = time.time() + 30
        while time.time() < end and not any(e["confirm-event"] == "timeout" for e in out["events"]):
            n = m.take_notification(block=True, timeout=1)
            if n is not None:
                body = [c for c in n.notification_ele if etree.QName(c).localname != "eventTime"][0]
                out["events"].append({etree.QName(c).localname: c.text for c in body})
        end = time.time() + 20
        while time.time() < end and rows() != out["before"]:
            time.sleep(0.05)
        out["after_timeout"] = rows()
        out["removed_back"] = wait_state(m, index + 2, "running")[-1]

        # Confirmed by a second commit: it stays.
        m.edit_config(target="candidate", config=config("<vmConfigTable>%s</vmConfigTable>" % vr_entry(index, args.name + "-new", "", "create")))
        m.commit(confirmed=True, timeout="60", persist="token-%d" % index)
        try:
            m.cancel_commit(persist_id="wrong")
            out["wrong_persist_id"] = None
        except RPCError as e:
            out["wrong_persist_id"] = error_of(e)
        out["confirm_ok"] = m.commit(persist_id="token-%d" % index).ok
        out["confirmed"] = rows()
        try:
            m.cancel_commit()
            out["cancel_nothing"] = None
        except RPCError as e:
            out["cancel_nothing"] = error_of(e)
    return out


def large_messages(args):
    """--count sessions (alternately end-of-message and chunked framing) each send at once a legal get
    of --megabytes MB (a subtree filter naming VRs one by one); then each, and a new session, reads."""
    import threading
    entries = "".join("<vmEntry><vmIndex>%d</vmIndex></vmEntry>" % (i % 100000 + 1)
                      for i in range(args.megabytes * 1024 * 1024 // 44))
    big = '<NEW-VMM-MIB xmlns="%s"><vmTable>%s</vmTable></NEW-VMM-MIB>' % (VMM, entries)
    sessions = [connect(args, framing="1.0" if k % 2 == 0 else "1.1") for k in range(args.count)]
    results = [None] * args.count

    def send(k):
        m = sessions[k]
        m.timeout = 300
        try:
            m.get(filter=("subtree", big))
            big_reply = {"ok": True}
        except RPCError as e:
            big_reply = error_of(e)
        except Exception as e:  # the session ended: what the server did instead of answering
            big_reply = {"exception": type(e).__name__}
        try:
            after = m.get_config(source="running").ok
        except Exception as e:
            after = type(e).__name__
        results[k] = {"framing": base_of(m), "big": big_reply, "after": after}

    threads = [threading.Thread(target=send, args=(k,)) for k in range(args.count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for m in sessions:
        try:
            m.close_session()
        except Exception:
            pass
    with connect(args) as m:
        fresh = m.get_config(source="running").ok
    return {"bytes": len(big), "sessions": results, "fresh_get_ok": fresh}


SCENARIOS = {f.__name__: f for f in (hello, lifecycle, pipeline, notify, errors, schema, viewer, reconfigure, create,
                                      withdefaults, nmda, replay, sessions, states_notified,
                                      add_interface, network_table, admin_state, edits, confirmed, large_messages)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scenario", choices=sorted(SCENARIOS))
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--framing", choices=["1.0", "1.1"], default="1.1")
    p.add_argument("--user", default="admin")
    p.add_argument("--password", default="admin")
    p.add_argument("--index", type=int, default=1)
    p.add_argument("--name", default="vr1")
    p.add_argument("--count", type=int, default=50)
    p.add_argument("--keep", action="store_true", help="lifecycle: leave the VR in place")
    p.add_argument("--state", default="running", help="admin_state: the vmAdminState to set")
    p.add_argument("--net-index", type=int, default=1, help="add_interface: vmNetworkConfigIndex")
    p.add_argument("--parent", default="br-lan", help="add_interface: vmNetworkConfigParent")
    p.add_argument("--address", help="add_interface: vmNetworkConfigAddress")
    p.add_argument("--prefix", type=int, default=24, help="add_interface: vmNetworkConfigPrefixLength")
    p.add_argument("--out", default=".")
    p.add_argument("--since", help="replay: startTime")
    p.add_argument("--until", help="replay: stopTime")
    p.add_argument("--edits", help="edits: a file with one edit-config content a line")
    p.add_argument("--megabytes", type=int, default=15, help="large_messages: the size of each message")
    args = p.parse_args()
    result = SCENARIOS[args.scenario](args)
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
