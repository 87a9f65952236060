#!/usr/bin/env bash
# The evaluation of issue 6: the paper's Section IV (seed 000) for SNMPv2c, SNMPv3, NETCONF, REST/XML and
# REST/JSON, beside Net-SNMP's snmpd and yuma123's netconfd, as CSV, a Markdown report and PNG plots.
#
#   integration-tests/bench.sh [--quick] [--build] [--out DIR] [--netns | --links | --migration | --libvirt | --restconf | --core | --telemetry | --footprint | --kill-recovery]
#
# --quick: fewer cycles and points, under 5 minutes. --build: package the server first even if
# vr-server/target/vrouter.jar exists. Default output: integration-tests/target/bench.
# --netns: only the netns driver's figures (issue 10): real VRs on this host, create-to-running and
# remove-to-gone for the kernel and bird templates, 1,000 VRs in one batch (netns.md, netns.json).
# --links: only links' figures (issue 33), seed 004's forwarding method: 64-byte frames and one TCP stream through
# two routers on four paths, interleaved: native namespaces on veths (the limit), netns VRs on peer links, VRs on
# host bridges (the path before links), VRs on two routers (two servers, each in a namespace) across VXLAN; the
# time to create a link and the delay probe's CPU per link end (links.md, links.json). Needs iperf3 and trafgen
# (netsniff-ng), installed below.
# --migration: only migration's figures (issue 34): two routers (two servers on the netns driver, each in a namespace,
# peers of each other), one VR moved from one to the other: the time and the forwarding gap (pings every 10 ms
# through the VR between two hosts), beside the floor measured in the same rounds (the same VR deleted and created
# again by hand on the destination); then 20 VRs moved one after another, beside the same floor; then libvirt under
# TCG: a VM VR moved live through vrouter between this host's libvirtd and a second one the bench starts, beside
# `virsh migrate --live` of the same kind of domain alone, 3 rounds (migration.md, migration.json). Needs root.
# --libvirt: only the libvirt driver's figures (issue 26): VRs as QEMU VMs booting vrouter's appliance (TCG
# here; KVM too where it runs guests), create-to-running and create-to-forwarding (first ping through) for one
# VR and for 20 in one REST batch, QEMU's resident set per VR (libvirt.md, libvirt.json). Needs libvirtd
# running (.ci/install-test-deps starts it) and what vr-libvirt-driver/appliance/build.sh needs.
# --restconf: only RESTCONF (JSON, XML) beside REST-JSON (issue 14): cycles with CPU per operation, bytes
# on the wire, a list of 10,000 VRs (restconf.md, restconf.json).
# --core: only the core alone (issue 22): vr-bench's JMH benchmark of create, change, remove and read of one VR
# through the service on the simulated host, CPU per operation against the 100 us target (core.md, core.json).
# --telemetry: only gNMI beside SNMP, seed 003's method (issue 24): vmNetworkTable of 10 to 10,000 rows by GETBULK
# (max-repetitions 10, 50), gNMI Get, Subscribe ONCE and a STREAM's SAMPLE period in JSON_IETF and PROTO (bytes,
# time, server CPU), ON_CHANGE beside snmptrapd, RSS with and without gNMI, Telegraf with the README's
# configuration (telemetry.md, telemetry.json); about 8 minutes, 2 with --quick (no 10,000 rows), so not part
# of the full run, whose --quick keeps under 5 minutes.
# --footprint: only each interface's footprint (issue 37): RSS with 1,000 VRs after the mixed workload with every
# interface, with REST and RESTCONF alone (no console), SNMP alone, NETCONF alone and gNMI alone (the others'
# ports off), beside the paper's figure and the peer in the same run (snmpd; netconfd and its sshd); REST alone's
# floor, FootprintFloor with its classes (interfaces.md, interfaces.json). About 5 minutes.
# --kill-recovery: only the long form of KillRecoveryIT's kill -9 rounds (issue 39): KILL_ROUNDS kills (default 300,
# about 15 s each on 2 cores; 20 with --quick) of the server under two tenants' writers on REST, the idempotent
# batch, RESTCONF, NETCONF and SNMP, every acknowledgement checked after each restart (kill-recovery.txt, written
# after every round); fails on anything acknowledged and lost. Not part of the full run.
# The full run has RESTCONF in every phase
# that compares the interfaces (cycles, paper latencies, bytes, footprint workload, list of 10,000,
# throughput); the peers (snmpd, netconfd, nginx) and SSH compression are SNMP's, NETCONF's and REST's own.
# The floor of SNMP's CPU: snmp4j-agent answering the same requests from a fixed MIB (src/bench/floor), run
# from source with the server's jar, and a journal record's fsync. The floor of REST's and RESTCONF's CPU: the JDK
# HttpServer answering the cycles' requests with the replies recorded from vrouter (src/bench/vrbench/FloorServer.java).
# Needs root (apt-get, ip netns, tcpdump). Traffic stays on 127.0.0.1 and in a network namespace it makes;
# every server it starts (vrouter, snmpd, netconfd, sshd, nginx) is stopped before it exits. The server runs
# as the README starts it, through bin/vrouter.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

quick=()
build=false
netns=false
links=false
migration=false
libvirt=false
restconf=false
core=false
telemetry=false
footprint=false
killrecovery=false
out=integration-tests/target/bench
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=(--quick); shift ;;
    --build) build=true; shift ;;
    --netns) netns=true; shift ;;
    --links) links=true; shift ;;
    --migration) migration=true; shift ;;
    --libvirt) libvirt=true; shift ;;
    --restconf) restconf=true; shift ;;
    --core) core=true; shift ;;
    --telemetry) telemetry=true; shift ;;
    --footprint) footprint=true; shift ;;
    --out) out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --kill-recovery) killrecovery=true; shift ;;
    -h|--help) sed -n 2,50p "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

if $core; then
  # The core needs no peers: JMH in a JVM of its own, CPU per operation from the process's CPU time.
  if $build || [ ! -f vr-bench/target/benchmarks.jar ]; then
    mvn -B -q -o package -DskipTests -pl vr-bench -am || mvn -B -q package -DskipTests -pl vr-bench -am
  fi
  mkdir -p "$out"
  jmh=()
  [ ${#quick[@]} -gt 0 ] && jmh=(-wi 2 -w 1 -i 3 -r 1)
  java -jar vr-bench/target/benchmarks.jar "${jmh[@]}" -prof io.vrouter.bench.ProcessCpuProfiler \
    -rf json -rff "$out/core.json" >"$out/core.log"
  exec python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
rows = json.load(open(out + "/core.json"))
lines = ["# The core alone (issue 22): CPU per operation", "",
         "JMH, simulated host with no latency; median of the iterations. The journal is in a disk's directory",
         "(/tmp: every change pays the file system's fsync, whose CPU is the kernel's) and in /dev/shm (no fsync",
         "cost: the core's own CPU). The floor is one journal-sized record appended and forced to disk in the",
         "same directory, in the same run: what a durable change costs before the core does anything.", "",
         "| operation | journal in | VRs standing | CPU per operation (us) | floor: one durable record (us) | above the floor (us) | time per operation (us) | target (us) |",
         "|---|---|---:|---:|---:|---:|---:|---:|"]
def cpu_of(r):
    return r["secondaryMetrics"]["cpu"]["scorePercentiles"]["50.0"]
floor = {}
for r in rows:
    if r["benchmark"].endswith(".durableRecord"):
        floor.setdefault(r["params"]["dataRoot"], []).append(cpu_of(r))
floor = {k: sorted(v)[len(v) // 2] for k, v in floor.items()}
for r in rows:
    name = r["benchmark"].rsplit(".", 1)[1]
    if name == "durableRecord":
        continue
    root = r["params"]["dataRoot"]
    cpu = cpu_of(r)
    t = r["primaryMetric"]["scorePercentiles"]["50.0"]
    writes = 0 if name == "read" else 1
    f = floor.get(root, 0.0) * writes
    above = cpu - f
    verdict = "met" if above <= 100 else f"missed {above / 100:.1f}x"
    lines.append(f"| {name} | {root} | {r['params']['standing']} | {cpu:.1f} | {f:.1f} | {above:.1f} | {t:.1f} | 100 above the floor ({verdict}) |")
open(out + "/core.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
fi

if $killrecovery; then
  # A JUnit job (KillRecoveryBench, not an IT) against the packaged server, with the IT's peers (net-snmp, ncclient).
  rounds=${KILL_ROUNDS:-300}
  [ ${#quick[@]} -gt 0 ] && rounds=20
  mkdir -p "$out"
  status=0
  mvn -B -q verify -pl integration-tests -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test=KillRecoveryBench -Dkill.rounds="$rounds" || status=$?
  cp integration-tests/target/kill-recovery.txt "$out/" 2>/dev/null && cat "$out/kill-recovery.txt"
  exit $status
fi

export DEBIAN_FRONTEND=noninteractive
missing=()
for pkg in snmp snmpd snmptrapd tcpdump netconfd openssh-server openssh-client iproute2 nginx-light wrk procps bird2 iperf3 netsniff-ng; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}" >&2
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
python3 -c 'import ncclient, ezsnmp, pysnmp, matplotlib, pygnmi' 2>/dev/null \
  || python3 -m pip install -q --disable-pip-version-check ncclient ezsnmp pysnmp matplotlib 'pygnmi>=0.8,<0.9'

jar=vr-server/target/vrouter.jar
if $build || [ ! -f "$jar" ]; then
  # package, never install: the local repository is shared with whoever else builds on the machine
  mvn -B -q -o package -DskipTests -pl vr-server -am || mvn -B -q package -DskipTests -pl vr-server -am
fi

export PYTHONPATH="$repo/integration-tests/src/bench${PYTHONPATH:+:$PYTHONPATH}"
if $restconf; then
  exec python3 -m vrbench restconf "${quick[@]}" --out "$out" --jar "$repo/$jar" --launcher "$repo/bin/vrouter"
fi
if $libvirt; then
  exec python3 -m vrbench libvirt "${quick[@]}" --out "$out" --jar "$repo/$jar" --launcher "$repo/bin/vrouter" --repo "$repo"
fi
if $telemetry; then
  # Telegraf with only the plugins the README's configuration uses, from the Go module proxy (about three
  # minutes on a fresh machine), beside gnmi_cli where .ci/install-test-deps puts it
  export TELEGRAF=/opt/vrouter-go/bin/telegraf TELEGRAF_VERSION=v1.37.2
  if [ ! -x "$TELEGRAF" ] && command -v go >/dev/null 2>&1; then
    src=$(GOPATH=/opt/vrouter-go/gopath GOFLAGS=-modcacherw go mod download -json "github.com/influxdata/telegraf@$TELEGRAF_VERSION" \
      | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
    (cd "$src" && GOPATH=/opt/vrouter-go/gopath GOFLAGS=-modcacherw \
      go build -tags custom,inputs.gnmi,outputs.file -o "$TELEGRAF" ./cmd/telegraf) \
      || echo "Telegraf did not build: the report says so" >&2
  fi
  exec python3 -m vrbench telemetry "${quick[@]}" --out "$out" --jar "$repo/$jar" --launcher "$repo/bin/vrouter"
fi
if $footprint; then
  exec python3 -m vrbench interfaces --out "$out" --jar "$repo/$jar" --launcher "$repo/bin/vrouter" --repo "$repo"
fi
if $migration; then
  exec python3 -m vrbench migration "${quick[@]}" --out "$out" --jar "$repo/$jar" --launcher "$repo/bin/vrouter" --repo "$repo"
fi
if $links; then
  exec python3 -m vrbench links "${quick[@]}" --out "$out" --jar "$repo/$jar" --launcher "$repo/bin/vrouter" --repo "$repo"
fi
if $netns; then
  exec python3 -m vrbench netns "${quick[@]}" --out "$out" --jar "$repo/$jar" --launcher "$repo/bin/vrouter"
fi
exec python3 -m vrbench run "${quick[@]}" --out "$out" --jar "$repo/$jar" --launcher "$repo/bin/vrouter" --repo "$repo"
