#!/usr/bin/env python3
"""vrouter-history over NETCONF with ncclient: get-commits, rollback, and a read of one VR's row.

Usage: history_scenarios.py commits|rollback|read --port N [--number K] [--index I] [--user U --password P]

Prints one JSON object on its last line of stdout, which HistoryIT asserts on.
"""
import argparse
import json

import ncclient.transport.session as nc_session
nc_session.TICK = 0.001

from ncclient import manager
from ncclient.operations.rpc import RPCError
from ncclient.xml_ import to_ele

VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB"
HIST = "urn:vrouter:yang:vrouter-history"
NS = {"v": VMM, "h": HIST}


def commits(m, args):
    number = "<number>%d</number>" % args.number if args.number else ""
    reply = m.dispatch(to_ele('<get-commits xmlns="%s">%s</get-commits>' % (HIST, number)))
    out = []
    for c in to_ele(reply.xml).xpath("//h:commit", namespaces=NS):
        out.append({
            "number": int(c.findtext("h:number", namespaces=NS)),
            "user": c.findtext("h:user", namespaces=NS),
            "interface": c.findtext("h:interface", namespaces=NS),
            "rollbackTo": c.findtext("h:rollback-to", namespaces=NS),
            "changes": [{"name": ch.findtext("h:name", namespaces=NS), "before": ch.findtext("h:before", namespaces=NS),
                         "after": ch.findtext("h:after", namespaces=NS)}
                        for ch in c.xpath("h:change", namespaces=NS)],
        })
    return {"commits": out}


def rollback(m, args):
    try:
        reply = m.dispatch(to_ele('<rollback xmlns="%s"><number>%d</number></rollback>' % (HIST, args.number)))
    except RPCError as e:
        return {"error": {"tag": e.tag, "message": e.message}}
    return {"commit": int(to_ele(reply.xml).xpath("//h:commit/text()", namespaces=NS)[0])}


def read(m, args):
    flt = ('<NEW-VMM-MIB xmlns="%s"><vmConfigTable><vmConfigEntry><vmIndex>%d</vmIndex></vmConfigEntry></vmConfigTable>'
           '<vmNetworkConfigTable/></NEW-VMM-MIB>' % (VMM, args.index))
    data = m.get_config(source="running", filter=("subtree", flt)).data_ele
    names = data.xpath("//v:vmConfigEntry/v:vmName/text()", namespaces=NS)
    ifaces = []
    for e in data.xpath("//v:vmNetworkConfigEntry[v:vmIndex=%d]" % args.index, namespaces=NS):
        ifaces.append({"index": int(e.findtext("v:vmNetworkConfigIndex", namespaces=NS)),
                       "address": e.findtext("v:vmNetworkConfigAddress", namespaces=NS)})
    return {"vmName": names[0] if names else None, "interfaces": sorted(ifaces, key=lambda i: i["index"])}


SCENARIOS = {"commits": commits, "rollback": rollback, "read": read}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scenario", choices=sorted(SCENARIOS))
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--user", default="admin")
    p.add_argument("--password", default="admin")
    p.add_argument("--number", type=int, default=0)
    p.add_argument("--index", type=int, default=1)
    args = p.parse_args()
    with manager.connect(host=args.host, port=args.port, username=args.user, password=args.password,
                         hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30) as m:
        print(json.dumps(SCENARIOS[args.scenario](m, args)))


if __name__ == "__main__":
    main()
