#!/usr/bin/env python3
"""gNMI Set with pygnmi against a running vrouter: a Set that succeeds, and one that fails in its second update.

Usage: gnmi_set.py ok|fails|describe --port N --vm I [--user U --password P --text T]

Prints one JSON object on its last line of stdout, which GnmiSetIT asserts on.
"""
import argparse
import json

from pygnmi.client import gNMIclient, gNMIException

ENTRY = "/NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex=%d]"


def client(args):
    return gNMIclient(target=("127.0.0.1", args.port), username=args.user, password=args.password, insecure=True)


def name_of(gc, args):
    reply = gc.get(path=[ENTRY % args.vm + "/vmName"], encoding="json_ietf")
    return reply["notification"][0]["update"][0]["val"]


def ok(args):
    with client(args) as gc:
        reply = gc.set(update=[(ENTRY % args.vm, {"vmName": "py-set", "vmConfigDescription": "by pygnmi"})],
                       replace=[(ENTRY % args.vm + "/vmConfigAutoStart", True)], encoding="json_ietf")
        return {"ops": [r["op"] for r in reply["response"]], "vmName": name_of(gc, args)}


def fails(args):
    with client(args) as gc:
        try:
            gc.set(update=[(ENTRY % args.vm + "/vmName", "never-seen"), (ENTRY % args.vm + "/vmConfigCpuNumber", 1000)],
                   encoding="json_ietf")
            error = None
        except gNMIException as e:
            error = str(e.orig_exc.code()) if getattr(e, "orig_exc", None) is not None else str(e)
        return {"error": error, "vmName": name_of(gc, args)}


def describe(args):
    """One Set of the VR's description, as the user: the gRPC code and detail of a refusal, or none."""
    with client(args) as gc:
        try:
            gc.set(update=[(ENTRY % args.vm, {"vmConfigDescription": args.text})], encoding="json_ietf")
            return {"error": None}
        except gNMIException as e:
            cause = getattr(e, "orig_exc", None)
            if cause is None:
                return {"error": str(e)}
            return {"error": str(cause.code()), "detail": cause.details()}


SCENARIOS = {"ok": ok, "fails": fails, "describe": describe}

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("scenario", choices=SCENARIOS)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--vm", type=int, default=1)
    p.add_argument("--user", default="admin")
    p.add_argument("--password", default="admin")
    p.add_argument("--text", default="")
    a = p.parse_args()
    print(json.dumps(SCENARIOS[a.scenario](a), default=str))
