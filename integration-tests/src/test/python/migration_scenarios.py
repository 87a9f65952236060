#!/usr/bin/env python3
"""vrouter-migration's migrate over NETCONF with ncclient.

Usage: migration_scenarios.py migrate --port N --index I --peer NAME [--user U --password P]
       migration_scenarios.py watch --port N --name VMNAME --until KIND [--seconds S]

Prints one JSON object on its last line of stdout, which MigrationRpcIT asserts on: the output's
leaves, or the rpc-error's tag and message. watch subscribes to the NETCONF stream, prints
"subscribed" once it is, then every notification about the VR named VMNAME (its kind and
vmOperState), each on a line as it comes and all on the last, until one of kind KIND arrives or S
seconds pass (MigrationSnmpIT).
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scenario", choices=["migrate", "watch"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--user", default="admin")
    p.add_argument("--password", default="admin")
    p.add_argument("--index", type=int)
    p.add_argument("--peer")
    p.add_argument("--name")
    p.add_argument("--until")
    p.add_argument("--seconds", type=float, default=120)
    args = p.parse_args()
    with manager.connect(host="127.0.0.1", port=args.port, username=args.user, password=args.password,
                         hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30) as m:
        scenario = {"migrate": migrate, "watch": watch}[args.scenario]
        print(json.dumps(scenario(m, args)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
