#!/bin/sh
# Makes an upgrade fixture: the data directory that the release checked out here leaves behind, for
# UpgradeIT, which starts today's server on a copy of it. Run it from the checkout of the release
# whose formats the fixture is to hold (after `mvn -B -q package -DskipTests`), never by hand-editing
# files, with net-snmp's snmpset and python3's ncclient installed:
#
#   integration-tests/src/test/resources/upgrade/make-fixture.sh integration-tests/src/test/resources/upgrade/format-1
#
# It starts bin/vrouter on a new data directory on free loopback ports and creates, on the
# simulated host, with the development credentials:
#   rest-edge      over REST, with an interface and the Idempotency-Key "fixture-key-1", running
#   rest-stopped   over REST, then stopped (admin state shutdown)
#   snmp-vr        over SNMPv2c (createAndGo)
#   netconf-vr     over NETCONF (edit-config on running)
# then stops it with SIGTERM, starts and stops it once more (so snmpEngineBoots is 2) and copies the
# data directory (without its lock file) to OUT. Its netconf-host-key is a throwaway test key.
set -eu
out=${1:?usage: make-fixture.sh OUT_DIR}
root=$(cd "$(dirname "$0")/../../../../.." && pwd)
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
free_port() { python3 -c 'import socket,sys; s=socket.socket(socket.AF_INET, getattr(socket, sys.argv[1])); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' "$1"; }
rest=$(free_port SOCK_STREAM); snmp=$(free_port SOCK_DGRAM); netconf=$(free_port SOCK_STREAM)
base=http://127.0.0.1:$rest/api/v1
mib=1.3.6.1.3.7666

start() {
    "$root/bin/vrouter" --data-dir "$work/data" --rest-port "$rest" --snmp-port "$snmp" --netconf-port "$netconf" \
        >>"$work/server.log" 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        curl -sf "http://127.0.0.1:$rest/health/ready" >/dev/null 2>&1 && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$work/server.log"; exit 1; }
        sleep 0.1
    done
    echo "server not ready" >&2; exit 1
}
stop() { kill -TERM "$pid"; wait "$pid" || true; }

start
curl -sf -u admin:admin -H 'Content-Type: application/json' -H 'Idempotency-Key: fixture-key-1' \
    -d '{"vmName":"rest-edge","vmNetworkConfigTable":[{"vmNetworkConfigParent":"xenbr0","vmNetworkConfigAddress":"192.0.2.1"}]}' \
    "$base/routers?wait=30s" >/dev/null
curl -sf -u admin:admin -H 'Content-Type: application/json' -d '{"vmName":"rest-stopped"}' "$base/routers?wait=30s" >/dev/null
curl -sf -u admin:admin -X POST "$base/routers/2/stop?wait=30s" >/dev/null
snmpset -v2c -c private -t 10 "127.0.0.1:$snmp" "$mib.1.12.1.7.3" i 4 "$mib.1.12.1.1.3" s snmp-vr >/dev/null
python3 - "$netconf" <<'PY'
import sys
from ncclient import manager
vmm = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB"
with manager.connect(host="127.0.0.1", port=int(sys.argv[1]), username="admin", password="admin",
                     hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30) as m:
    m.edit_config(target="running", config=(
        '<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><NEW-VMM-MIB xmlns="%s"><vmConfigTable>'
        '<vmConfigEntry><vmIndex>4</vmIndex><vmName>netconf-vr</vmName></vmConfigEntry>'
        '</vmConfigTable></NEW-VMM-MIB></config>' % vmm))
PY
for i in $(seq 100); do
    curl -sf -u admin:admin "$base/routers?operState=running" | grep -q '"total":3' && break
    sleep 0.1
done
stop
start
stop
rm -f "$work/data/.lock"
mkdir -p "$out"
cp -R "$work/data/." "$out/"
echo "fixture written to $out:"
(cd "$out" && find . -type f | sort)
