"""The footprint of each interface alone (issue 37), in one run of its own:
    python3 -m vrbench interfaces --out DIR --jar vr-server/target/vrouter.jar --launcher bin/vrouter --repo .
The server as the README starts it (bin/vrouter), on the simulated driver without latency, with the same 1,000
VRs (one data directory, made once and copied), started with every interface, then with each alone (REST with
RESTCONF and no console files; SNMP; NETCONF; gNMI: the others' ports off), each given the footprint's mixed
workload on the interfaces it has: creations and removals over each (gNMI has no writes), reads of every VR
(SNMP GETBULK walks of vmTable, NETCONF get-configs, REST and RESTCONF lists in JSON and XML, gNMI Get and
Subscribe ONCE of vmTable in JSON_IETF and PROTO). RSS (VmRSS) after it, beside the paper's figure for that
interface and the peer measured in this run (snmpd with ifTable of 1,000 rows, walked; netconfd with 1,000
entries configured, read, behind its sshd). For REST alone, the floor: FootprintFloor with the classes that
server had loaded, its threads and its live heap, and no vrouter code (interfaces.md, interfaces.json).
"""
import os
import re
import shutil
import subprocess
import time

from . import clients as C
from . import phases
from .server import Server
from .util import children, free_port, log, rss_kb, tree_rss_kb, write_results

VRS = 1000
PER_IFACE = 20
#: name, what it is, the parts turned off (console: --console off; gNMI: --gnmi-port off; the others: their port)
CONFIGS = [("all", "every interface (the default)", ()),
           ("rest", "REST and RESTCONF alone, no console", ("snmp", "netconf", "gnmi", "console")),
           ("snmp", "SNMP alone (v2c and v3)", ("rest", "netconf", "gnmi")),
           ("netconf", "NETCONF alone", ("rest", "snmp", "gnmi")),
           ("gnmi", "gNMI alone", ("rest", "snmp", "netconf"))]
#: the paper's Table III (average over creation, retrieval, removal; the agent alone, 6 VRs at most)
PAPER = {"rest": "RWS agent 73.1 MB", "snmp": "snmpd: SNMPv2c 3.2 MB, SNMPv3 3.5 MB",
         "netconf": "netconfd 3.9 MB", "gnmi": "– (not in the paper)", "all": "–"}


def _rest(server):
    for make in (lambda f: C.RestClient(server, None, False, f), lambda f: C.RestconfClient(server, None, False, f)):
        for fmt in ("json", "xml"):
            _writes(make(fmt), server)
    for _ in range(3):
        for fmt in ("json", "xml"):
            C.RestClient(server, fmt=fmt).list_all()
            C.RestconfClient(server, notify=False, fmt=fmt).list_all()


def _snmp(server):
    for version in ("2c", "3"):
        _writes(C.SnmpClient(server, None, False, version), server)
    snmp = C.SnmpClient(server, version="2c")
    snmp.community = "public"
    session = snmp.session()
    for _ in range(3):
        session.bulk_walk(C.VM)


def _netconf(server):
    _writes(C.NetconfClient(server, None, notify=False), server)
    nc = C.NetconfClient(server, None, notify=False)
    nc.open()
    for _ in range(3):
        nc.m.get_config(source="running")
    nc.close()


def _gnmi(server):
    import grpc
    from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc
    from .telemetry import ENCODINGS, META
    table = gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=n) for n in ("NEW-VMM-MIB", "vmTable")])
    channel = grpc.insecure_channel("127.0.0.1:%d" % server.gnmi_port, options=[("grpc.max_receive_message_length", -1)])
    try:
        stub = gnmi_pb2_grpc.gNMIStub(channel)
        stub.Capabilities(gnmi_pb2.CapabilityRequest(), metadata=META, timeout=30)
        for _ in range(3):
            for enc in ENCODINGS.values():
                stub.Get(gnmi_pb2.GetRequest(path=[table], encoding=enc), metadata=META, timeout=300)
                once = gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
                    mode=gnmi_pb2.SubscriptionList.ONCE, encoding=enc, subscription=[gnmi_pb2.Subscription(path=table)]))
                for r in stub.Subscribe(iter([once]), metadata=META, timeout=300):
                    if r.sync_response:
                        break
    finally:
        channel.close()


def _writes(client, server):
    """PER_IFACE creations, then their removals, over one client, each answered before the next is sent."""
    base = server.next_index
    server.next_index += 1000
    client.open()
    try:
        for i in range(PER_IFACE):
            client.create(base + i, wait=False)
        for i in range(PER_IFACE):
            client.remove(base + i, wait=False)
    finally:
        client.close()


WORKLOADS = {"rest": _rest, "snmp": _snmp, "netconf": _netconf, "gnmi": _gnmi}


def _by_library(classes):
    counts = {}
    for c in classes:
        lib = phases.library_of(c)
        counts[lib] = counts.get(lib, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def heap_after_gc(pid):
    """Heap in use after a full GC (bytes), from jcmd: the servers without REST have no /metrics."""
    subprocess.run(["jcmd", str(pid), "GC.run"], capture_output=True, timeout=60)
    info = subprocess.run(["jcmd", str(pid), "GC.heap_info"], capture_output=True, text=True, timeout=60).stdout
    # "def new generation   total 2432K, used 123K [...]" and "tenured generation   total 9216K, used 8000K [...]"
    return sum(int(k) * 1024 for k in re.findall(r"generation\s+total \d+K, used (\d+)K", info))


def measure(jar, launcher, work, seed_data, name, what, off):
    gnmi_port = free_port()
    extra = ["--gnmi-port", "off" if "gnmi" in off else str(gnmi_port)]
    if "console" in off:
        extra += ["--console", "off"]
    server = Server(jar, work, "iface-" + name, launcher=launcher, extra_args=extra,
                    off=[o for o in off if o in ("rest", "snmp", "netconf")])
    server.gnmi_port = gnmi_port
    server.next_index = 900000
    shutil.copytree(seed_data, os.path.join(server.dir, "data"))
    server.start()
    try:
        time.sleep(1)
        rss_start = server.rss_kb()
        on = [k for k in WORKLOADS if k not in off]
        t0 = time.time()
        for kind in on:
            WORKLOADS[kind](server)
        workload_s = time.time() - t0
        time.sleep(1)
        rss = server.rss_kb()
        threads = len(os.listdir("/proc/%d/task" % server.pid))
        classes = phases.loaded_class_names(server.pid)
        heap = heap_after_gc(server.pid)
        row = dict(config=name, what=what, interfaces=", ".join(on), vrs=VRS, rss_start_kb=rss_start, rss_mixed_kb=rss,
                   threads=threads, threads_mixed=threads, classes=len(classes), heap_bytes=heap,
                   workload_s=workload_s, server=what, cmd=" ".join(server.cmd[:1] + server.extra_args),
                   libraries=_by_library(classes))
        log("  %s: RSS %.1f MB with %d VRs, %.1f MB after the workload (%d threads, %d classes, heap %.1f MiB)"
            % (what, rss_start / 1024, VRS, rss / 1024, threads, len(classes), heap / 2**20))
        return row, classes
    finally:
        server.stop()


def peers(work, repo):
    """snmpd (ifTable of VRS rows, walked) and netconfd (VRS entries configured, read back) with its sshd."""
    from .peers import NetconfdPeer, SnmpdPeer
    out = {}
    snmpd = SnmpdPeer(work).start()
    try:
        snmpd.set_links(VRS)
        snmpd.walk(3)
        out["snmpd_kb"] = rss_kb(snmpd.pid)
    finally:
        snmpd.stop()
    netconfd = NetconfdPeer(work, repo).start()
    try:
        client = C.NetconfdClient(netconfd)
        client.batch("create", list(range(100000, 100000 + VRS)))
        client.open()
        try:
            for _ in range(3):
                client.m.get_config(source="running")
            sessions = children(netconfd.sshd.pid)
            out["netconfd_kb"] = rss_kb(netconfd.pid)
            out["sshd_kb"] = rss_kb(netconfd.sshd.pid)
            out["session_kb"] = tree_rss_kb(sessions)
        finally:
            client.close()
    finally:
        netconfd.stop()
    log("  peers: %s" % out)
    return out


def run(args):
    out = os.path.abspath(args.out)
    work = os.path.join(out, "interfaces-work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    commit = subprocess.run(["git", "-C", args.repo, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    meta = dict(started=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit=commit, vrs=VRS,
                load_start=open("/proc/loadavg").read().split()[:3])
    seed = Server(args.jar, work, "seed", launcher=args.launcher, extra_args=["--gnmi-port", "off"]).start()
    try:
        seed.populate(VRS)
    finally:
        seed.stop()
    seed_data = os.path.join(seed.dir, "data")
    rows, floor = [], None
    for name, what, off in CONFIGS:
        row, classes = measure(args.jar, args.launcher, work, seed_data, name, what, off)
        rows.append(row)
        if name == "rest":
            class_list = os.path.join(work, "rest-classes.txt")
            with open(class_list, "w") as f:
                f.write("\n".join(classes) + "\n")
            from .peers import FootprintFloor
            res = phases.Results()
            phases.footprint_floor(res, lambda *a: FootprintFloor(work, args.repo, args.jar, args.launcher, *a).start(),
                                   lambda fl: fl.stop(), row, class_list)
            floor = dict(res.tables["rss_floor"][0], nmt=res.tables["nmt"])
    peer = peers(work, args.repo)
    meta["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    meta["load_end"] = open("/proc/loadavg").read().split()[:3]
    shutil.rmtree(work, ignore_errors=True)
    log("done: %s" % write_results(out, "interfaces", dict(meta=meta, rows=rows, floor=floor, peers=peer),
                                   markdown(meta, rows, floor, peer)))
    return 0


def _mb(kb):
    return "%.1f" % (kb / 1024)


def markdown(meta, rows, floor, peer):
    peer_of = {"snmp": "snmpd %s MB (ifTable of %d rows, walked)" % (_mb(peer["snmpd_kb"]), VRS),
               "netconf": "netconfd %s MB + its sshd %s MB (listener) + %s MB (session and netconf-subsystem)"
                          % (_mb(peer["netconfd_kb"]), _mb(peer["sshd_kb"]), _mb(peer["session_kb"]))}
    out = ["## Footprint of each interface", "",
           "`integration-tests/bench.sh --footprint`, %s to %s, commit `%s` (load average %s at the start, %s at the end)."
           % (meta["started"], meta["finished"], meta["commit"], " ".join(meta["load_start"]), " ".join(meta["load_end"])),
           "", "The server as the README starts it (`bin/vrouter`), %d VRs on the simulated driver (the same data "
           "directory for every row), each configuration given the footprint's mixed workload on the interfaces it "
           "has; RSS (`VmRSS`) after it. The others' ports `off`: their classes are never loaded." % VRS, "",
           "| configuration | RSS with the VRs [MB] | after the mixed workload [MB] | threads | classes | heap after GC [MiB] "
           "| the paper (Table III) | the peer in this run |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %s | **%s** | %d | %d | %.1f | %s | %s |" % (
            r["what"], _mb(r["rss_start_kb"]), _mb(r["rss_mixed_kb"]), r["threads"], r["classes"], r["heap_bytes"] / 2**20,
            PAPER[r["config"]], peer_of.get(r["config"], "–")))
    if floor:
        rest = next(r for r in rows if r["config"] == "rest")
        verdict = "under" if rest["rss_mixed_kb"] / 1024 < 73 else "over"
        out += ["", "REST alone after the mixed workload: %s MB, %s the paper's 73 MB. Its floor (FootprintFloor: a JVM "
                "started by `bin/vrouter` that loads and initialises the %d library and JDK classes that server had "
                "loaded, runs %d threads, holds its %.1f MiB of live heap and runs no vrouter code): **%s MB**; REST "
                "alone is %s MB above it." % (_mb(rest["rss_mixed_kb"]), verdict, floor.get("loaded", 0), floor["threads"],
                                              rest["heap_bytes"] / 2**20, _mb(floor["rss_kb"]),
                                              _mb(rest["rss_mixed_kb"] - floor["rss_kb"]))]
        # the categories, not the totals nor the thread count that nmt_summary adds
        nmt = sorted((n for n in floor["nmt"] if n["category"][0].isupper() and "view" not in n["category"]),
                     key=lambda n: -n["committed_kb"])[:5]
        out.append("Its classes by library: " + ", ".join("%s %d" % kv for kv in rest["libraries"].items()) + ".")
        out.append("Of the floor, by Native Memory Tracking (committed): " + ", ".join(
            "%s %s MB" % (n["category"], _mb(n["committed_kb"])) for n in nmt) + ".")
    return "\n".join(out) + "\n"
