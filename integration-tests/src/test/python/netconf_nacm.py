#!/usr/bin/env python3
"""NacmIT's NETCONF side, with ncclient over real SSH as one user.

Usage: netconf_nacm.py ACTION --port N --user U --password P

ACTION deny-description: edits /nacm in running, adding the rule list "no-descriptions" for the group
admin that denies every operation on vmConfigEntry's vmConfigDescription.
ACTION get-config: the running configuration as the user may read it.

Prints one JSON object on its last line of stdout: {"ok": bool, "tag": the rpc-error's error-tag, "said": the reply}.
"""
import argparse
import json

import ncclient.transport.session as nc_session
nc_session.TICK = 0.001  # ncclient polls its socket every TICK seconds; the default makes every rpc slow

from ncclient import manager
from ncclient.operations.rpc import RPCError

NC = "urn:ietf:params:xml:ns:netconf:base:1.0"
NACM = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm"
PATH = ("/new-vmm-mib:NEW-VMM-MIB/new-vmm-mib:vmConfigTable/new-vmm-mib:vmConfigEntry"
        "/new-vmm-mib:vmConfigDescription")


def run(args):
    with manager.connect(host="127.0.0.1", port=args.port, username=args.user, password=args.password,
                         hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30) as m:
        try:
            if args.action == "deny-description":
                config = ('<config xmlns="%s"><nacm xmlns="%s"><rule-list><name>no-descriptions</name><group>admin</group>'
                          '<rule><name>description</name><module-name>NEW-VMM-MIB</module-name>'
                          '<path xmlns:new-vmm-mib="urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB">%s</path>'
                          '<access-operations>*</access-operations><action>deny</action></rule></rule-list></nacm></config>'
                          % (NC, NACM, PATH))
                return {"ok": True, "said": m.edit_config(target="running", config=config).xml}
            if args.action == "get-config":
                return {"ok": True, "said": m.get_config(source="running").data_xml}
        except RPCError as e:
            return {"ok": False, "tag": e.tag, "said": "%s: %s" % (e.tag, e.message)}
    raise SystemExit("unknown action " + args.action)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("action")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--password", required=True)
    print(json.dumps(run(p.parse_args())))
