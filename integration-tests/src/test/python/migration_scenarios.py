#!/usr/bin/env python3
"""vrouter-migration's migrate, drain and open over NETCONF with ncclient.

Usage: migration_scenarios.py migrate --port N --index I --peer NAME [--user U --password P]
       migration_scenarios.py watch --port N --name VMNAME --until KIND [--seconds S]
       migration_scenarios.py backup --port N [--user U --password P]
       migration_scenarios.py restore --port N --file F [--wait S] [--user U --password P]
       migration_scenarios.py drain --port N [--peer NAME ...]
       migration_scenarios.py open --port N

Prints one JSON object on its last line of stdout, which MigrationRpcIT and DrainIT assert on: the
output's leaves (drain's and open's routers as a list), or the rpc-error's tag and message. watch
subscribes to the NETCONF stream, prints "subscribed" once it is, then every notification about the
VR named VMNAME (its kind and vmOperState), each on a line as it comes and all on the last, until one
of kind KIND arrives or S seconds pass (MigrationSnmpIT). backup prints the backup's document; restore
sends the file's text as the document and prints restore's output (created, done, and each router's
leaves) (BackupRpcIT).
"""
import argparse
import json
import sys
import time

import ncclient.transport.session as nc_session
nc_session.TICK = 0.001

from ncclient import manager
from ncclient.operations.rpc import RPCError
from ncclient.xml_ import to_ele
from lxml import etree

MIG = "urn:vrouter:yang:vrouter-migration"
NS = {"m": MIG}


def migrate(m, args):
    try:
        reply = m.dispatch(to_ele('<migrate xmlns="%s"><vmIndex>%d</vmIndex><peer>%s</peer></migrate>'
                                  % (MIG, args.index, args.peer)))
    except RPCError as e:
        return {"error": {"tag": e.tag, "message": e.message}}
    out = to_ele(reply.xml)
    return {leaf: out.xpath("//m:%s/text()" % leaf, namespaces=NS)[0] for leaf in ("vmName", "peer", "vmIndex", "peer-index")}


VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB"


def backup(m, args):
    try:
        reply = m.dispatch(to_ele('<backup xmlns="%s"/>' % MIG))
    except RPCError as e:
        return {"error": {"tag": e.tag, "message": e.message}}
    return {"document": to_ele(reply.xml).xpath("string(//m:document)", namespaces=NS)}


def restore(m, args):
    rpc = etree.Element("{%s}restore" % MIG)
    with open(args.file, encoding="utf-8") as f:
        etree.SubElement(rpc, "{%s}document" % MIG).text = f.read()
    if args.wait is not None:
        etree.SubElement(rpc, "{%s}wait" % MIG).text = str(args.wait)
    try:
        reply = m.dispatch(rpc)
    except RPCError as e:
        return {"error": {"tag": e.tag, "message": e.message}}
    out = to_ele(reply.xml)
    routers = [{etree.QName(c).localname: c.text for c in r} for r in out.xpath("//m:router", namespaces=NS)]
    return {"created": int(out.xpath("string(//m:created)", namespaces=NS)),
            "done": out.xpath("string(//m:done)", namespaces=NS), "routers": routers}


def watch(m, args):
    m.create_subscription()
    print("subscribed", flush=True)
    seen = []
    end = time.time() + args.seconds
    while time.time() < end:
        n = m.take_notification(block=True, timeout=1)
        if n is None:
            continue
        ele = n.notification_ele
        kinds = [etree.QName(c).localname for c in ele if etree.QName(c).localname != "eventTime"]
        if ele.xpath("string(.//v:vmName/v:vmName)", namespaces={"v": VMM}) != args.name:
            continue
        seen.append({"kind": kinds[0] if kinds else None,
                     "state": ele.xpath("string(.//v:vmOperState/v:vmOperState)", namespaces={"v": VMM})})
        print(json.dumps(seen[-1]), flush=True)  # as it comes, for a test that looks before the end
        if seen[-1]["kind"] == args.until:
            break
    return {"notifications": seen}


def drain_or_open(m, args):
    peers = "".join("<peer>%s</peer>" % p for p in (args.peer or []))
    try:
        reply = m.dispatch(to_ele('<%s xmlns="%s">%s</%s>' % (args.scenario, MIG, peers, args.scenario)))
    except RPCError as e:
        return {"error": {"tag": e.tag, "message": e.message}}
    out = to_ele(reply.xml)
    report = {leaf: out.xpath("//m:%s/text()" % leaf, namespaces=NS)[0]
              for leaf in ("drained", "draining", "total", "moved", "not-moved")}
    report["routers"] = [{leaf.tag.split("}")[1]: leaf.text for leaf in r}
                         for r in out.xpath("//m:router", namespaces=NS)]
    return report


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scenario", choices=["migrate", "watch", "backup", "restore", "drain", "open"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--user", default="admin")
    p.add_argument("--password", default="admin")
    p.add_argument("--index", type=int)
    p.add_argument("--peer", action="append")
    p.add_argument("--name")
    p.add_argument("--until")
    p.add_argument("--seconds", type=float, default=120)
    p.add_argument("--file")
    p.add_argument("--wait", type=int)
    args = p.parse_args()
    with manager.connect(host="127.0.0.1", port=args.port, username=args.user, password=args.password,
                         hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30) as m:
        if args.scenario == "migrate":
            args.peer = args.peer[0]
        scenario = {"migrate": migrate, "watch": watch, "backup": backup, "restore": restore,
                    "drain": drain_or_open, "open": drain_or_open}[args.scenario]
        print(json.dumps(scenario(m, args)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
