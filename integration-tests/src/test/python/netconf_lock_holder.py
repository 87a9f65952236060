#!/usr/bin/env python3
"""A NETCONF session that holds running's lock for LocksIT, driven line by line on stdin.

Usage: netconf_lock_holder.py --port N --user U --password P

Connects with ncclient over SSH as the user and locks running, then reads one command a line:
  describe INDEX TEXT   an edit-config of running setting the VR's vmConfigDescription (as the holder)
  unlock                <unlock> of running
  lock                  <lock> of running again
  close                 <close-session>, and exits
Each answer is one JSON line on stdout: {"ok": bool, "tag": error-tag, "said": ..., "session": the
session-id}; the first one is the lock's.
"""
import argparse
import json
import sys

import ncclient.transport.session as nc_session
nc_session.TICK = 0.001  # ncclient polls its socket every TICK seconds; the default makes every rpc slow

from ncclient import manager
from ncclient.operations.rpc import RPCError

VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB"
NC = "urn:ietf:params:xml:ns:netconf:base:1.0"


def answer(m, rpc):
    try:
        reply = rpc()
        out = {"ok": True, "said": reply.xml}
    except RPCError as e:
        out = {"ok": False, "tag": e.tag, "said": "%s: %s" % (e.tag, e.message)}
    out["session"] = int(m.session_id)
    print(json.dumps(out), flush=True)


def describe(m, index, text):
    config = ('<config xmlns="%s"><NEW-VMM-MIB xmlns="%s"><vmConfigTable><vmConfigEntry><vmIndex>%d</vmIndex>'
              '<vmConfigDescription>%s</vmConfigDescription></vmConfigEntry></vmConfigTable></NEW-VMM-MIB></config>'
              % (NC, VMM, index, text))
    return m.edit_config(target="running", config=config)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--password", required=True)
    args = p.parse_args()
    m = manager.connect(host="127.0.0.1", port=args.port, username=args.user, password=args.password,
                        hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30)
    answer(m, lambda: m.lock(target="running"))
    for line in sys.stdin:
        words = line.split(None, 2)
        if not words:
            continue
        if words[0] == "describe":
            answer(m, lambda: describe(m, int(words[1]), words[2].strip()))
        elif words[0] == "unlock":
            answer(m, lambda: m.unlock(target="running"))
        elif words[0] == "lock":
            answer(m, lambda: m.lock(target="running"))
        elif words[0] == "close":
            m.close_session()
            print(json.dumps({"ok": True, "said": "closed"}), flush=True)
            return


if __name__ == "__main__":
    main()
