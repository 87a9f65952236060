#!/usr/bin/env python3
"""One request of TenantsIT's table over NETCONF, driven with ncclient over real SSH as one user.

Usage: netconf_tenants.py ACTION --port N --user U --password P [--index I] [--name NAME] [--cpus C] [--value V]

ACTION create-many (KillRecoveryIT's NETCONF writer): creates VRs named NAME-1, NAME-2, ... on one session
until the server goes away, printing one JSON line per answer as it comes ({"ok", "index", "name", "tag"}),
each at vmConfigNextAvailableVmIndex plus --ahead (other writers take the next indices meanwhile).

Prints one JSON object on its last line of stdout: {"ok": bool, "index": int or null, "tag": the
rpc-error's error-tag, "said": what the server answered} or, for names and events, {"names": [...]}.
The Java side (io.vrouter.it.tenants.NetconfClient) maps it to the table's terms.
"""
import argparse
import json
import time

import ncclient.transport.session as nc_session
nc_session.TICK = 0.001  # ncclient polls its socket every TICK seconds; the default makes every rpc slow

from lxml import etree
from ncclient import manager
from ncclient.operations.rpc import RPCError

VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB"
NC = "urn:ietf:params:xml:ns:netconf:base:1.0"
NS = {"v": VMM}


def connect(args):
    return manager.connect(host="127.0.0.1", port=args.port, username=args.user, password=args.password,
                           hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30)


def edit(m, entry):
    """An edit-config of running with one vmConfigEntry; its reply as the table's outcome."""
    config = ('<config xmlns="%s"><NEW-VMM-MIB xmlns="%s" xmlns:nc="%s"><vmConfigTable>%s</vmConfigTable>'
              '</NEW-VMM-MIB></config>' % (NC, VMM, NC, entry))
    try:
        reply = m.edit_config(target="running", config=config)
        return {"ok": True, "said": reply.xml}
    except RPCError as e:
        return {"ok": False, "tag": e.tag, "said": "%s: %s" % (e.tag, e.message)}


def entry_xml(index, leaves="", op=None):
    attr = ' nc:operation="%s"' % op if op else ""
    return "<vmConfigEntry%s><vmIndex>%d</vmIndex>%s</vmConfigEntry>" % (attr, index, leaves)


def create(m, name, cpus, ahead=0):
    """A create at vmConfigNextAvailableVmIndex (plus ahead), as an operator's script does it."""
    data = m.get(filter=("subtree", '<NEW-VMM-MIB xmlns="%s"><vmObjects><vmConfigNextAvailableVmIndex/>'
                                    '</vmObjects></NEW-VMM-MIB>' % VMM)).data_ele
    index = int(data.xpath("string(//v:vmConfigNextAvailableVmIndex)", namespaces=NS)) + ahead
    out = edit(m, entry_xml(index, "<vmName>%s</vmName><vmConfigCpuNumber>%d</vmConfigCpuNumber>" % (name, cpus), "create"))
    out["index"] = index
    return out


def create_many(args):
    """Creates until the session ends (the server killed): each answer printed at once, and only answers."""
    with connect(args) as m:
        for k in range(1, 1000000):
            out = create(m, "%s-%d" % (args.name, k), args.cpus, args.ahead)
            out["name"] = "%s-%d" % (args.name, k)
            out.pop("said", None)
            print(json.dumps(out), flush=True)


def run(args):
    with connect(args) as m:
        if args.action == "create":
            return create(m, args.name, args.cpus)
        if args.action == "names":
            data = m.get_config(source="running").data_ele
            return {"names": sorted(data.xpath("//v:vmConfigEntry/v:vmName/text()", namespaces=NS))}
        if args.action == "read":
            data = m.get(filter=("subtree", '<NEW-VMM-MIB xmlns="%s"><vmTable><vmEntry><vmIndex>%d</vmIndex></vmEntry>'
                                            '</vmTable></NEW-VMM-MIB>' % (VMM, args.index))).data_ele
            found = bool(data.xpath("//v:vmEntry[v:vmIndex=%d]" % args.index, namespaces=NS))
            return {"ok": found, "tag": None if found else "none", "said": etree.tostring(data).decode()}
        if args.action == "describe":
            return edit(m, entry_xml(args.index, "<vmConfigDescription>%s</vmConfigDescription>" % args.value))
        if args.action == "give":
            return edit(m, entry_xml(args.index, "<vmConfigTenant>%s</vmConfigTenant>" % args.value))
        if args.action == "remove":
            return edit(m, entry_xml(args.index, op="delete"))
        if args.action == "events":
            # Replayed from the start of the log: every VR notification the user may see, up to replayComplete.
            m.create_subscription(start_time="1970-01-01T00:00:00Z")
            names = set()
            end = time.time() + 60
            while time.time() < end:
                n = m.take_notification(block=True, timeout=1)
                if n is None:
                    continue
                ele = etree.fromstring(n.notification_xml.encode())
                if ele.xpath("//*[local-name()='replayComplete']"):
                    return {"names": sorted(names)}
                names.update(ele.xpath("//v:vmName/v:vmName/text()", namespaces=NS))
            raise SystemExit("no replayComplete within 60 s")
        raise SystemExit("unknown action " + args.action)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("action")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--index", type=int)
    p.add_argument("--name")
    p.add_argument("--cpus", type=int, default=1)
    p.add_argument("--value")
    p.add_argument("--ahead", type=int, default=0)
    args = p.parse_args()
    if args.action == "create-many":
        try:
            create_many(args)
        except Exception as e:  # the server went away: what was answered is printed already
            print(json.dumps({"ended": repr(e)}), flush=True)
        return
    print(json.dumps(run(args)))


if __name__ == "__main__":
    main()
