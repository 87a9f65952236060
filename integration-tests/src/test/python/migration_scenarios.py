#!/usr/bin/env python3
"""vrouter-migration's migrate, drain and open over NETCONF with ncclient.

Usage: migration_scenarios.py migrate --port N --index I --peer NAME [--user U --password P]
       migration_scenarios.py drain --port N [--peer NAME ...]
       migration_scenarios.py open --port N

Prints one JSON object on its last line of stdout, which MigrationRpcIT and DrainIT assert on: the
output's leaves (drain's and open's routers as a list), or the rpc-error's tag and message.
"""
import argparse
import json

import ncclient.transport.session as nc_session
nc_session.TICK = 0.001

from ncclient import manager
from ncclient.operations.rpc import RPCError
from ncclient.xml_ import to_ele

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
    p.add_argument("scenario", choices=["migrate", "drain", "open"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--user", default="admin")
    p.add_argument("--password", default="admin")
    p.add_argument("--index", type=int)
    p.add_argument("--peer", action="append")
    args = p.parse_args()
    with manager.connect(host="127.0.0.1", port=args.port, username=args.user, password=args.password,
                         hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30) as m:
        if args.scenario == "migrate":
            args.peer = args.peer[0]
            print(json.dumps(migrate(m, args)))
        else:
            print(json.dumps(drain_or_open(m, args)))


if __name__ == "__main__":
    main()
