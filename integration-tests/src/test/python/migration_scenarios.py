#!/usr/bin/env python3
"""vrouter-migration's migrate over NETCONF with ncclient.

Usage: migration_scenarios.py migrate --port N --index I --peer NAME [--user U --password P]

Prints one JSON object on its last line of stdout, which MigrationRpcIT asserts on: the output's
leaves, or the rpc-error's tag and message.
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("scenario", choices=["migrate"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--user", default="admin")
    p.add_argument("--password", default="admin")
    p.add_argument("--index", type=int, required=True)
    p.add_argument("--peer", required=True)
    args = p.parse_args()
    with manager.connect(host="127.0.0.1", port=args.port, username=args.user, password=args.password,
                         hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30) as m:
        print(json.dumps(migrate(m, args)))


if __name__ == "__main__":
    main()
