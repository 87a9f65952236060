"""gNMI beside SNMP, seed 003's method (issue 24), in one run of its own:

    python3 -m vrbench telemetry [--quick] --out DIR --jar vr-server/target/vrouter.jar --launcher bin/vrouter

One server (simulated driver, no latency) as the README starts it, VRs of ten interfaces each, so that
vmNetworkTable has 10, 100, 1,000 and 10,000 rows. Each size is retrieved by SNMP GETBULK (Net-SNMP's
snmpbulkwalk, max-repetitions 10 and 50), gNMI Get, gNMI Subscribe ONCE and one SAMPLE period of a STREAM,
each of the gNMI ones in JSON_IETF and PROTO: bytes on the wire (tcpdump on lo, the server's ports), time
to the last update, the server's CPU. Then ON_CHANGE latency (a VR's admin state changed over REST to the
collector's update) beside the SNMP notification of the same change at snmptrapd, and the server's RSS
with and without gNMI after the same workload (telemetry.md, telemetry.json).
"""
import json
import os
import queue
import re
import shutil
import subprocess
import threading
import time

import grpc
from pygnmi.spec.v080 import gnmi_pb2, gnmi_pb2_grpc

from .capture import Capture
from .server import Server
from .util import CpuMeter, free_port, log, median, write_results

META = [("username", "admin"), ("password", "admin")]
NETWORK_TABLE = "1.3.6.1.3.7666.1.8"  # vmNetworkTable
INTERFACES = 10  # per VR: rows = VRs x 10
ENCODINGS = {"JSON_IETF": gnmi_pb2.JSON_IETF, "PROTO": gnmi_pb2.PROTO}
DEADLINE = 300


def _path(*names):
    return gnmi_pb2.Path(elem=[gnmi_pb2.PathElem(name=n) for n in names])


TABLE = _path("NEW-VMM-MIB", "vmNetworkTable")
OPER_STATE = _path("NEW-VMM-MIB", "vmTable", "vmEntry", "vmOperState")


class Gnmi:
    """One channel to the target, kept open as a collector keeps it: what is measured is the call."""

    def __init__(self, port):
        self.channel = grpc.insecure_channel("127.0.0.1:%d" % port, options=[
            ("grpc.max_receive_message_length", -1)])
        self.stub = gnmi_pb2_grpc.gNMIStub(self.channel)
        self.stub.Capabilities(gnmi_pb2.CapabilityRequest(), metadata=META, timeout=30)

    def close(self):
        self.channel.close()

    def get(self, enc):
        r = self.stub.Get(gnmi_pb2.GetRequest(path=[TABLE], encoding=ENCODINGS[enc]), metadata=META, timeout=DEADLINE)
        return sum(len(n.update) for n in r.notification)

    def once(self, enc):
        req = gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
            mode=gnmi_pb2.SubscriptionList.ONCE, encoding=ENCODINGS[enc], subscription=[gnmi_pb2.Subscription(path=TABLE)]))
        n = 0
        for r in self.stub.Subscribe(iter([req]), metadata=META, timeout=DEADLINE):
            if r.sync_response:
                break
            n += len(r.update.update)
        return n

    def stream(self, subscription, enc, updates_only):
        """A STREAM subscription whose responses come on a queue as (arrival, response); returns (queue, cancel)."""
        done = threading.Event()
        req = gnmi_pb2.SubscribeRequest(subscribe=gnmi_pb2.SubscriptionList(
            mode=gnmi_pb2.SubscriptionList.STREAM, encoding=ENCODINGS[enc], updates_only=updates_only,
            subscription=[subscription]))

        def requests():
            yield req
            done.wait()  # the stream stays open until cancelled

        call = self.stub.Subscribe(requests(), metadata=META)
        q = queue.Queue()

        def read():
            try:
                for r in call:
                    q.put((time.perf_counter(), r))
            except grpc.RpcError as e:
                q.put((time.perf_counter(), e))
        threading.Thread(target=read, daemon=True).start()

        def cancel():
            done.set()
            call.cancel()
        return q, cancel


def _next(q, what):
    t, r = q.get(timeout=DEADLINE)
    if isinstance(r, Exception):
        raise RuntimeError("%s: the stream ended: %s" % (what, r))
    return t, r


def sample_period(gnmi, enc, leaves, interval_s, cap, cpu, idle_ns_per_s, label):
    """One SAMPLE period of a STREAM with updates_only: sync_response at once, then every leaf after one
    interval. Bytes from the sync_response to the period's last update; time from its first update to its
    last (the period starts on the server's timer, not on a request); CPU from the sync_response to the last
    update less the idle server's rate over the wait for the first."""
    sub = gnmi_pb2.Subscription(path=TABLE, mode=gnmi_pb2.SAMPLE, sample_interval=int(interval_s * 1e9))
    q, cancel = gnmi.stream(sub, enc, updates_only=True)
    try:
        t, r = _next(q, label)
        if not r.sync_response:
            raise RuntimeError("%s: expected sync_response first, got %s" % (label, r))
        t_sync = time.perf_counter()
        cpu.sample()

        def period():
            n, first = 0, None
            while n < leaves:
                t, r = _next(q, label)
                if r.sync_response:
                    continue
                first = first or t
                n += len(r.update.update)
            return first, t, n
        first, last, n = cap.window(label, period)
        return last - first, n, (cpu.sample() - idle_ns_per_s * (first - t_sync)) / 1e6
    finally:
        cancel()


def measure(rows, cap, cpu, key, fn):
    """Runs fn() -> (seconds, updates) inside a capture window, with the server's CPU around it."""
    cpu.sample()
    secs, n = cap.window(key, fn)
    rows.append(dict(key=key, s=secs, n=n, cpu_ms=cpu.sample() / 1e6))


def timed(fn):
    def run():
        t0 = time.perf_counter()
        n = fn()
        return time.perf_counter() - t0, n
    return run


def snmp_walk(port, max_rep):
    from ezsnmp import netsnmp
    return len(netsnmp.snmpbulkwalk(["-v2c", "-c", "public", "-Cr%d" % max_rep, "-On", "-t", "30", "-r", "0",
                                     "127.0.0.1:%d" % port, NETWORK_TABLE]))


def populate(server, vrs):
    """VRs of INTERFACES interfaces each up to vrs, running, in batches that wait until they are up."""
    have = server.count()
    idx = have + 1
    while have < vrs:
        n = min(100, vrs - have)
        body = [{"vmIndex": idx + i, "vmName": "tm-%d" % (idx + i), "vmAdminState": "running",
                 "vmNetworkConfigTable": [{"vmNetworkConfigParent": "br%d" % k} for k in range(INTERFACES)]}
                for i in range(n)]
        status, reply = server.request("POST", "/api/v1/routers/batch?wait=300s", json.dumps({"virtualRouter": body}),
                                       timeout=600)
        if status not in (200, 201, 202):
            raise RuntimeError("batch create failed: %s %s" % (status, reply[:300]))
        idx += n
        have += n


def retrievals(server, sizes, reps, workdir, rows, idles):
    gnmi = Gnmi(server.gnmi_port)
    cpu = CpuMeter(server.pid)
    try:
        for size in sizes:
            populate(server, size // INTERFACES)
            time.sleep(1)
            counts = {}
            for enc in ENCODINGS:  # warm-up, and the number of leaves a period holds
                gnmi.get(enc)
                counts[enc] = gnmi.once(enc)
            snmp_walk(server.snmp_port, 50)
            cpu.sample()
            time.sleep(2)
            idle = cpu.sample() / 2  # ns a second of the idle server (the driver's refresh, the JVM's own)
            idles.append(dict(rows=size, idle_ms_per_s=idle / 1e6))
            with Capture(os.path.join(workdir, "telemetry-%d.pcap" % size), [server.snmp_port, server.gnmi_port]) as cap:
                for rep in range(reps):
                    for mr in (10, 50):
                        measure(rows, cap, cpu, ("GETBULK-%d" % mr, size, rep), timed(lambda mr=mr: snmp_walk(server.snmp_port, mr)))
                    for enc in ENCODINGS:
                        measure(rows, cap, cpu, ("Get " + enc, size, rep), timed(lambda enc=enc: gnmi.get(enc)))
                        measure(rows, cap, cpu, ("ONCE " + enc, size, rep), timed(lambda enc=enc: gnmi.once(enc)))
                        interval = 10 if size >= 10000 else 2
                        label = ("SAMPLE " + enc, size, rep)
                        secs, n, cpu_ms = sample_period(gnmi, enc, counts[enc], interval, cap, cpu, idle, label)
                        rows.append(dict(key=label, s=secs, n=n, cpu_ms=cpu_ms))
            totals = cap.totals()
            os.remove(cap.path)
            for r in rows:
                if r["key"] in totals:
                    r["bytes"], r["packets"] = totals[r["key"]]
            log("  telemetry: %d rows: %s" % (size, ", ".join(
                "%s %.0f ms %d B" % (r["key"][0], r["s"] * 1000, r.get("bytes", 0)) for r in rows
                if r["key"][1] == size and r["key"][2] == 0)))
    finally:
        gnmi.close()
    for r in rows:
        r["method"], r["rows"], r["rep"] = r.pop("key")


class SnmpTrapd:
    """Net-SNMP's snmptrapd on a loopback port, each notification printed on a line as it comes."""

    def __init__(self, workdir):
        self.port = free_port(2)
        conf = os.path.join(workdir, "snmptrapd.conf")
        with open(conf, "w") as f:
            f.write("disableAuthorization yes\ndoNotLogTraps no\n")
        self.proc = subprocess.Popen(
            ["stdbuf", "-oL", "snmptrapd", "-f", "-n", "-On", "-C", "-c", conf, "-Lo", "-p", os.path.join(workdir, "trapd.pid"),
             "-F", "TRAP %v\n", "udp:127.0.0.1:%d" % self.port],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ, MIBS=""))
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put((time.perf_counter(), line))

    def wait(self, vm_index, trap, deadline=60):
        """Arrival of the notification trap (its number under vmNotifications) about vm_index."""
        end = time.perf_counter() + deadline
        want = re.compile(r"1\.3\.6\.1\.3\.7666\.0\.%d\b" % trap)
        index = re.compile(r"\.%d\s*=" % vm_index)
        while True:
            t, line = self.lines.get(timeout=max(0.1, end - time.perf_counter()))
            if line.startswith("TRAP") and want.search(line) and index.search(line):
                return t

    def close(self):
        self.proc.terminate()
        self.proc.wait(10)


def on_change(server, trapd, changes, rows):
    """A VR's vmAdminState set over REST (PATCH, answered at once), to the ON_CHANGE update of its vmOperState
    at a gNMI collector and to the vmShutdown or vmRunning notification at snmptrapd: both of one change."""
    vm = 1
    gnmi = Gnmi(server.gnmi_port)
    try:
        for enc in ENCODINGS:
            q, cancel = gnmi.stream(gnmi_pb2.Subscription(path=OPER_STATE, mode=gnmi_pb2.ON_CHANGE), enc, updates_only=True)
            try:
                while not _next(q, "on_change")[1].sync_response:
                    pass
                for i in range(changes):
                    state = "shutdown" if i % 2 == 0 else "running"
                    trap = 3 if state == "shutdown" else 1  # vmShutdown, vmRunning
                    t0 = time.perf_counter()
                    status, body = server.request("PATCH", "/api/v1/routers/%d" % vm, json.dumps({"vmAdminState": state}),
                                                  ctype="application/merge-patch+json")
                    if status not in (200, 202):
                        raise RuntimeError("PATCH: %s %s" % (status, body[:300]))
                    while True:
                        t, r = _next(q, "on_change")
                        vals = [u.val for u in r.update.update]
                        if any((v.string_val or json.loads(v.json_ietf_val or b'""')) == state for v in vals):
                            break
                    t_trap = trapd.wait(vm, trap)
                    rows.append(dict(encoding=enc, change=state, gnmi_ms=(t - t0) * 1000, trap_ms=(t_trap - t0) * 1000))
            finally:
                cancel()
    finally:
        gnmi.close()


def rss_after_workload(jar, launcher, workdir, gnmi_on, vrs, config):
    """The server's RSS (MiB) idle after start and after the same workload (VRs, SNMP walks, REST list, and
    with gNMI its Get, ONCE and a stream of three periods in both encodings), after a full GC."""
    port = free_port()
    server = Server(jar, workdir, "rss-" + ("gnmi" if gnmi_on else "off"), launcher=launcher,
                    jvm_flags=["-XX:NativeMemoryTracking=summary"],
                    extra_args=["--config", config, "--gnmi-port", str(port) if gnmi_on else "off"]).start()
    server.gnmi_port = port
    try:
        idle = server.rss_kb() / 1024
        populate(server, vrs)
        for _ in range(3):
            snmp_walk(server.snmp_port, 50)
            server.request("GET", "/api/v1/routers?limit=100000")
        if gnmi_on:
            gnmi = Gnmi(port)
            try:
                for enc in ENCODINGS:
                    leaves = gnmi.once(enc)
                    gnmi.get(enc)
                    sub = gnmi_pb2.Subscription(path=TABLE, mode=gnmi_pb2.SAMPLE, sample_interval=1_000_000_000)
                    q, cancel = gnmi.stream(sub, enc, updates_only=False)
                    n = 0
                    while n < 3 * leaves:
                        n += len(_next(q, "rss stream")[1].update.update)
                    cancel()
            finally:
                gnmi.close()
        # SerialGC damps the shrinking of a heap that grew (0%, 10%, 40%, then 100% of the excess at four
        # successive full GCs): the RSS after one full GC, and after four, when the heap is back to its live data
        after = []
        for _ in range(4):
            subprocess.run(["jcmd", str(server.pid), "GC.run"], capture_output=True, timeout=60)
            time.sleep(1)
            after.append(server.rss_kb() / 1024)
        threads = len(os.listdir("/proc/%d/task" % server.pid))
        return dict(gnmi=gnmi_on, idle_mb=idle, after_mb=after[0], settled_mb=after[-1], threads=threads,
                    nmt=_nmt(server.pid))
    finally:
        server.stop()


TELEGRAF = os.environ.get("TELEGRAF", "/opt/vrouter-go/bin/telegraf")


def readme_block(repo, marker):
    """The README's code block whose first line is marker: the configuration as a reader copies it."""
    text = open(os.path.join(repo, "README.md")).read()
    m = re.search(r"```\w*\n(%s\n.*?)```" % re.escape(marker), text, re.S)
    if not m:
        raise RuntimeError("README has no block starting with " + marker)
    return m.group(1)


def telegraf(server, workdir, repo):
    """The README's Telegraf configuration, its address moved to this server's port (nothing else changed),
    run until every subscription has given metrics: what each gave and how long the first took."""
    if not os.access(TELEGRAF, os.X_OK):
        return dict(ran=False, why="no Telegraf at " + TELEGRAF)
    conf = readme_block(repo, "# telegraf.conf").replace("127.0.0.1:9339", "127.0.0.1:%d" % server.gnmi_port)
    path = os.path.join(workdir, "telegraf.conf")
    with open(path, "w") as f:
        f.write(conf)
    names = re.findall(r'^\s*name = "([^"]+)"', conf, re.M)
    version = "Telegraf %s (inputs.gnmi, outputs.file)" % os.environ.get("TELEGRAF_VERSION", "?")
    proc = subprocess.Popen([TELEGRAF, "--config", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put((time.perf_counter(), x)) for x in proc.stdout], daemon=True).start()
    t0 = time.perf_counter()
    seen, first, errors = {}, {}, []
    try:
        while time.perf_counter() - t0 < 60 and not all(seen.get(n) for n in names):
            try:
                t, line = lines.get(timeout=1)
            except queue.Empty:
                continue
            name = line.split(",", 1)[0].split(" ", 1)[0]
            if name in names:
                seen[name] = seen.get(name, 0) + 1
                first.setdefault(name, (t - t0, line.strip()))
            elif " E! " in line:
                errors.append(line.strip())
    finally:
        proc.terminate()
        proc.wait(10)
    return dict(ran=True, version=version, subscriptions=names, metrics=seen, first=first, errors=errors[:5],
                ok=all(seen.get(n) for n in names))


def _nmt(pid):
    """The JVM's own account by category (committed KiB), when native memory tracking is on."""
    out = subprocess.run(["jcmd", str(pid), "VM.native_memory", "summary"], capture_output=True, text=True).stdout
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"-\s+(\w[\w ]*?) \(reserved=\d+KB, committed=(\d+)KB", out)}


def _load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


# Seed 003 (Ivanov): the ifTable of 653 interfaces of an IOS XRv 9000 by GetBulk 258 KB, compact GPB 106 KB,
# GPB key-value 610 KB; telemetry's delay about 4x lower than GetBulk's; its CPU lower (a plot, no figure).
SEED_BYTES = {"GETBULK": "1.00 (395 B/row)", "PROTO": "k/v 2.36 (934 B/row), compact 0.41 (162)"}
SEED_TIME, SEED_CPU = "0.25", "< 1"
METHODS = ["GETBULK-10", "GETBULK-50", "Get JSON_IETF", "Get PROTO", "ONCE JSON_IETF", "ONCE PROTO",
           "SAMPLE JSON_IETF", "SAMPLE PROTO"]


def markdown(meta, ret, chg, rss, collectors):
    sizes = sorted({r["rows"] for r in ret})
    out = ["# gNMI beside SNMP: seed 003's method (issue 24)", "",
           "%s, commit %s, %s, server %s, %d repetitions per figure (medians). Load average (1, 5, 15 min): %s." % (
               meta["started"], meta["commit"], meta["machine"], meta["server"], meta["reps"],
               "; ".join("%s %s" % tuple(kv) for kv in meta["load"])), "",
           "Ratios are to GETBULK-10 of the same size in the same run; the seed's are to its GetBulk.", "",
           "| rows | method | bytes | B/row | bytes ratio | seed's bytes ratio | ms to last update | time ratio | seed's | server CPU ms | CPU ratio | seed's | updates |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for size in sizes:
        base = None
        for m in METHODS:
            rs = [r for r in ret if r["rows"] == size and r["method"] == m]
            if not rs:
                continue
            b, ms, c = median([r.get("bytes", 0) for r in rs]), median([r["s"] * 1000 for r in rs]), median([r["cpu_ms"] for r in rs])
            base = base or dict(b=b, ms=ms, c=c)
            kind = "GETBULK" if m.startswith("GETBULK") else "PROTO" if m.endswith("PROTO") else None
            seed = lambda x: x if kind == "PROTO" else ("1.00" if kind else "-")
            out.append("| %d | %s | %d | %.0f | %.2f | %s | %.1f | %.2f | %s | %.1f | %.2f | %s | %d |" % (
                size, m, b, b / size, b / base["b"], SEED_BYTES.get(kind, "-"), ms, ms / base["ms"],
                seed(SEED_TIME), c, c / base["c"] if base["c"] else float("nan"), seed(SEED_CPU), rs[0]["n"]))
    out += ["", "## ON_CHANGE beside the SNMP notification of the same change", "",
            "| encoding | changes | gNMI ON_CHANGE median ms | snmptrapd median ms | gNMI min-max | trap min-max |",
            "|---|---|---|---|---|---|"]
    for enc in ENCODINGS:
        rs = [r for r in chg if r["encoding"] == enc]
        if rs:
            g, t = [r["gnmi_ms"] for r in rs], [r["trap_ms"] for r in rs]
            out.append("| %s | %d | %.1f | %.1f | %.1f-%.1f | %.1f-%.1f |" % (enc, len(rs), median(g), median(t), min(g), max(g), min(t), max(t)))
    out += ["", "## RSS with and without gNMI, the same workload", "",
            "| gNMI | RSS idle MiB | after the workload and a full GC | after four full GCs | Java heap committed MiB | class metadata, symbols, code MiB | threads |",
            "|---|---|---|---|---|---|---|"]
    for r in rss:
        nmt = r["nmt"]
        out.append("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %d |" % (
            "on" if r["gnmi"] else "off", r["idle_mb"], r["after_mb"], r["settled_mb"], nmt.get("Java Heap", 0) / 1024,
            sum(nmt.get(k, 0) for k in ("Class", "Metaspace", "Symbol", "Code")) / 1024, r["threads"]))
    if len(rss) == 2:
        off, on = rss
        out += ["", "Growth with gNMI: %.1f MiB idle, %.1f MiB after the workload and a full GC, %.1f MiB after four"
                " (target: at most 15)." % (on["idle_mb"] - off["idle_mb"], on["after_mb"] - off["after_mb"],
                                            on["settled_mb"] - off["settled_mb"])]
    tg = collectors.get("telegraf", {})
    out += ["", "## Telegraf with the README's configuration", ""]
    if tg.get("ran"):
        out.append("%s: %s; metrics per subscription %s%s." % (
            tg["version"], "every subscription gave metrics" if tg["ok"] else "NOT every subscription gave metrics",
            ", ".join("%s %d (first after %.1f s)" % (n, tg["metrics"].get(n, 0), tg["first"][n][0]) if n in tg["first"]
                      else "%s none" % n for n in tg["subscriptions"]),
            "; errors: " + " / ".join(tg["errors"]) if tg["errors"] else ""))
        for n in tg["subscriptions"]:
            if n in tg["first"]:
                out += ["", "    " + tg["first"][n][1][:400]]
    else:
        out.append("Not run: %s." % tg.get("why", "?"))
    return "\n".join(out) + "\n"


def run(args):
    quick = args.quick
    sizes = [10, 100, 1000] if quick else [10, 100, 1000, 10000]
    reps, changes = (1, 6) if quick else (3, 20)
    out = os.path.abspath(args.out)
    work = os.path.join(out, "telemetry-work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    config = os.path.join(work, "vrouter.properties")
    with open(config, "w") as f:
        # 10,000 rows are 140,000 leaves in one read, more than the default's 100,000 waiting updates and
        # than the leaves 256 MiB of heap allow by default, and 16 MB in a Get in PROTO, more than the default's 4 MiB
        f.write("gnmi.max-pending = 1000000\ngnmi.max-leaves = 1000000\ngnmi.max-get-bytes = 67108864\n")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    meta = dict(started=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit=commit, reps=reps,
                machine="%d CPUs" % os.cpu_count(), load=[("at the start", _load())])
    ret, chg, rss, idles, collectors = [], [], [], [], {}
    trapd = SnmpTrapd(work)
    gnmi_port = free_port()
    # Past 1,000 rows the default heap (64 MiB) and direct memory (8 MiB) of bin/vrouter do not hold a
    # subscription to the whole table or a Get of it in PROTO (the report says what happens then)
    big = max(sizes) > 1000
    server = Server(args.jar, work, "telemetry", launcher=args.launcher, trap_port=trapd.port,
                    env={"VROUTER_HEAP": "256m"} if big else {},
                    jvm_flags=["-XX:MaxDirectMemorySize=64m"] if big else [],
                    extra_args=["--config", config, "--gnmi-port", str(gnmi_port)])
    meta["server"] = "VROUTER_HEAP=256m JAVA_OPTS=-XX:MaxDirectMemorySize=64m" if big else "bin/vrouter's defaults"
    server.gnmi_port = gnmi_port
    server.start()
    try:
        populate(server, 1)
        on_change(server, trapd, changes, chg)
        meta["load"].append(("after ON_CHANGE", _load()))
        collectors["telegraf"] = telegraf(server, work, os.path.dirname(os.path.dirname(os.path.abspath(args.launcher))))
        log("  telegraf: %s" % {k: v for k, v in collectors["telegraf"].items() if k != "first"})
        retrievals(server, sizes, reps, work, ret, idles)
        meta["load"].append(("after the retrievals", _load()))
    finally:
        server.stop()
        trapd.close()
    for gnmi_on in (False, True):
        rss.append(rss_after_workload(args.jar, args.launcher, work, gnmi_on, 100, config))
    meta["load"].append(("at the end", _load()))
    shutil.rmtree(work, ignore_errors=True)
    log("done: %s" % write_results(out, "telemetry", dict(meta=meta, retrievals=ret, idle=idles, on_change=chg, rss=rss,
                                                        collectors=collectors), markdown(meta, ret, chg, rss, collectors)))
    return 0
