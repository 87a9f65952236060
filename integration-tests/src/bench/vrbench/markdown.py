"""The Markdown report: the paper's Tables I-IV with its figures beside ours and the peers', the network,
peer and scale tables, the targets with the cause of every miss; the plots beside it (plots.py)."""
import math
import os
from collections import defaultdict

from .util import mean, mean_ci, median, median_ci

# The paper's figures (seed 000, Section IV-D). RWS there is REST with XML bodies.
PAPER_T1 = {"SNMPv2c": (1.02, 0.03, 3.41), "SNMPv3": (1.12, 0.08, 3.53), "NETCONF": (1.08, 0.04, 3.48),
            "RWS": (1.06, 0.16, 3.48)}  # seconds: creation, retrieval, removal
PAPER_T2 = {"SNMPv2c": (7.7, 9.3, 8.3), "SNMPv3": (8.7, 7.3, 9.3), "NETCONF": (8.0, 2.0, 8.3),
            "RWS": (13.0, 14.0, 11.0)}  # ms, maximum CPU time
PAPER_T3 = {"SNMPv2c": (3.2, 3.2, 3.2), "SNMPv3": (3.5, 3.5, 3.5), "NETCONF": (3.9, 3.8, 3.8),
            "RWS": (73.1, 73.2, 73.1)}  # MB
PAPER_T4 = {
    "Response time": ("SNMPv2c RWS NETCONF SNMPv3", "SNMPv2c NETCONF SNMPv3 RWS", "SNMPv2c RWS≡NETCONF SNMPv3"),
    "CPU time": ("SNMPv2c NETCONF SNMPv3 RWS", "NETCONF SNMPv3 SNMPv2c RWS", "SNMPv2c≡NETCONF SNMPv3 RWS"),
    "Memory consumption": ("SNMPv2c SNMPv3 NETCONF RWS",) * 3,
    "Network usage": ("SNMPv2c NETCONF SNMPv3 RWS (#VR>22)", "SNMPv2c SNMPv3 RWS NETCONF", "SNMPv2c NETCONF SNMPv3 RWS (#VR>30)"),
}
IFACES = ["SNMPv2c", "SNMPv3", "NETCONF", "REST-XML", "REST-JSON", "RESTCONF-XML", "RESTCONF-JSON"]
PAPER_NAME = {"SNMPv2c": "SNMPv2c", "SNMPv3": "SNMPv3", "NETCONF": "NETCONF", "REST-XML": "RWS", "REST-JSON": None,
              "RESTCONF-XML": None, "RESTCONF-JSON": None}
OPS3 = ("create", "retrieve", "remove")
TARGET_RSS_MB = 73.0


def f(x, nd=2):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if abs(x) >= 100:
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x
    return ("%." + str(nd) + "f") % x


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out) + "\n"


def fl(r, k):
    try:
        return float(r[k])
    except (KeyError, TypeError, ValueError):
        return float("nan")


class Data:
    def __init__(self, res):
        self.t = res.tables
        self.cyc = defaultdict(list)  # (server, pre, iface, op) -> rows
        for r in self.t["cycles"]:
            self.cyc[(r["server"], r["pre"], r["iface"], r["op"])].append(r)

    def vals(self, server, pre, iface, op, key):
        return [fl(r, key) for r in self.cyc.get((server, pre, iface, op), []) if not math.isnan(fl(r, key))]

    def pres(self, server):
        return sorted({k[1] for k in self.cyc if k[0] == server})

    def server_time(self, server, pre, iface, want):
        """Mean server-side time (ms) of the requests an operation makes, from the server's own timers."""
        rows = [r for r in self.t["server_time"] if r["server"] == server and r["pre"] == pre and r["iface"] == iface]
        sel = [r for r in rows if want(r["operation"])]
        return mean([r["mean_ms"] for r in sel]) if sel else float("nan")


RETRIEVE_OP = {"snmp": lambda o: o == "get", "netconf": lambda o: o == "get",
               "rest": lambda o: o.startswith("GET /api/v1/routers/") or o.startswith("GET /restconf/data/")}


def iface_proto(iface):
    return "snmp" if iface.startswith("SNMP") else ("netconf" if iface == "NETCONF" else "rest")


def write(out, res, meta):
    from . import plots
    d = Data(res)
    figs = {}
    try:
        figs = plots.write(out, res, d)
    except Exception as e:  # a report without plots is still a report
        res.notes.append("plots failed: %r" % e)
    L = []
    m = meta["machine"]
    L.append("# vrouter evaluation: the paper's Section IV, for every interface, beside its peers\n")
    L.append("Produced by `integration-tests/bench.sh%s` (mode **%s**) at commit `%s`, from %s to %s (%.0f s).\n"
             % (" --quick" if meta["mode"] == "quick" else "", meta["mode"], meta.get("commit", "?"), meta["started"],
                meta["finished"], meta["seconds"]))
    L.append("**Machine:** %s, %d cores (`nproc`), kernel %s, %s; load average at start %s. `free -h`:\n"
             % (m["cpu"], m["nproc"], m["kernel"], m["java"], m["loadavg_at_start"]))
    L.append("```\n%s\n```\n" % m["free"])
    L.append("Clients and peers: " + ", ".join("%s %s" % kv for kv in meta["versions"].items()) + ".\n")
    L.append("Server under test: `%s` (ports chosen free on 127.0.0.1 for each server started); the jar was built at %s; "
             "the checkout was at commit `%s`, the server modules' tree %s.\n" % (meta.get("server_cmd", "?"), meta.get("jar_built", "?"),
                                                                     meta.get("commit", "?"), meta.get("server_tree", "?")))
    L.append("Every number below comes from this one run; the raw rows are in the CSV files the run writes beside this report "
             "(`cycles.csv`, `server_time.csv`, `memory.csv`, `nmt.csv`, `network.csv`, `walks.csv`, `peer_cycles.csv`, "
             "`scale.csv`, `throughput.csv`, `threads.csv`; not committed with the report).\n")
    L.append(METHOD % {"cycles": meta["config"]["cycles"], "warmup": "%d (%d before the later points)" % tuple(meta["config"]["warmup"]),
                       "lean": " ".join(meta["lean_flags"]), "paper_cycles": meta["config"]["paper_cycles"]})

    targets = targets_section(d, res)
    L.append(targets)
    L.append(issue16_section(d, res))
    L.append(issue22_section(d, res))

    # ---------------------------------------------------------------- Table I
    L.append("## Table I: response time\n")
    L.append("Mean response time as the paper reports it (T1 to completion, seconds). *Paper*: XenServer 5.6, its "
             "Table I. *Ours, paper latencies*: the simulated driver with the paper's XenServer timings "
             "(`--sim-latency paper`), %d cycles, interfaces side by side. *Ours, no latency*: the simulated driver "
             "at zero latency (vrouter's own management-plane cost), 0 pre-existing VRs, median [95%% CI] in ms.\n"
             % meta["config"]["paper_cycles"])
    rows = []
    for iface in IFACES:
        pn = PAPER_NAME[iface]
        p = PAPER_T1.get(pn) if pn else None
        ours_p = [mean(d.vals("paper", 0, iface, op, "done_ms")) / 1000 for op in OPS3]
        ours_n = []
        for op in OPS3:
            v = d.vals("plain", 0, iface, op, "done_ms")
            lo, hi = median_ci(v)
            ours_n.append("%s [%s–%s]" % (f(median(v)), f(lo), f(hi)))
        rows.append([iface + ("" if pn == iface or not pn else " (paper: %s)" % pn)] +
                    [f(x) if p else "–" for x in (p or (None,) * 3)] + [f(x, 3) for x in ours_p] + ours_n)
    L.append(table(["interface", "paper create [s]", "paper retrieve [s]", "paper remove [s]",
                    "ours, paper lat. create [s]", "retrieve [s]", "remove [s]",
                    "ours, no lat. create [ms]", "retrieve [ms]", "remove [ms]"], rows))
    if "fig7p" in figs:
        L.append("\n![Fig. 7 with the paper's latencies](%s)\n" % figs["fig7p"])
    if "fig7" in figs:
        L.append("\n![Fig. 7: response time](%s)\n" % figs["fig7"])
    L.append("\nAll four operations, median [95% CI] in ms, by number of pre-existing running VRs "
             "(T1 to completion; the reply alone in parentheses where completion comes later):\n")
    for server in ("plain", "lean"):
        pres = d.pres(server)
        if not pres:
            continue
        rows = []
        for iface in IFACES:
            for op in ("create", "start", "retrieve", "remove"):
                cells = []
                for pre in pres:
                    v = d.vals(server, pre, iface, op, "done_ms")
                    rv = d.vals(server, pre, iface, op, "reply_ms")
                    lo, hi = median_ci(v)
                    cell = "%s [%s–%s]" % (f(median(v)), f(lo), f(hi))
                    if v and median(v) - median(rv) > 0.5:
                        cell += " (%s)" % f(median(rv))
                    cells.append(cell)
                rows.append([iface, op] + cells)
        L.append("\n**Server `%s`** (%s):\n\n" % (server, "as the README starts it, `bin/vrouter`" if server == "plain" else "lean JVM flags"))
        L.append(table(["interface", "operation"] + ["%d pre-existing" % p for p in pres], rows))

    # ---------------------------------------------------------------- Table II
    L.append("\n## Table II: server CPU time per operation\n")
    L.append("CPU time of the server process between T1 and T2 (all its threads, from `/proc/PID/task/*/schedstat`), "
             "no-latency driver, plain server, all pre-existing counts together. The paper reports the maximum; we give "
             "the maximum, the median, and the median of the application threads alone (without the JIT compiler and "
             "the JVM's GC and housekeeping threads).\n")
    rows = []
    for iface in IFACES:
        pn = PAPER_NAME[iface]
        p = PAPER_T2.get(pn) if pn else None
        cells = [f(x) for x in p] if p else ["–"] * 3
        for op in OPS3:
            v = sum((d.vals("plain", pre, iface, op, "cpu_ms") for pre in d.pres("plain")), [])
            a = sum((d.vals("plain", pre, iface, op, "cpu_app_ms") for pre in d.pres("plain")), [])
            cells.append("%s / %s / %s" % (f(max(v) if v else float("nan")), f(median(v)), f(median(a))))
        for op in OPS3:
            v = sum((d.vals("lean", pre, iface, op, "cpu_ms") for pre in d.pres("lean")), [])
            cells.append(f(median(v)))
        rows.append([iface] + cells)
    L.append(table(["interface", "paper create (max) [ms]", "paper retrieve", "paper remove",
                    "ours create: max / median / app median [ms]", "ours retrieve", "ours remove",
                    "lean server create (median)", "retrieve", "remove"], rows))
    th = [r for r in res.tables.get("threads", []) if r["server"] == "plain"]
    if th:
        pre0 = min(r["pre"] for r in th)
        L.append("\nWhere the server's CPU goes during the measured cycles (plain server, %d pre-existing VRs): the "
                 "busiest threads by name (digits replaced by N), CPU per operation and share of all the server's CPU "
                 "in those cycles:\n\n" % pre0)
        rows = []
        for iface in IFACES:
            sel = [r for r in th if r["iface"] == iface and r["pre"] == pre0][:5]
            rows.append([iface, "; ".join("`%s` %s ms (%.0f%%)" % (r["thread"], f(r["cpu_ms_per_op"]), 100 * r["share"]) for r in sel)])
        L.append(table(["interface", "threads"], rows))
    L.append(rest_floor_table(d, res))
    if "fig8" in figs:
        L.append("\n![Fig. 8: CPU time](%s)\n" % figs["fig8"])

    # ---------------------------------------------------------------- Table III
    L.append("\n## Table III: memory\n")
    L.append("The paper ran one agent per interface and measured each (`ps`). vrouter hosts all its interfaces in "
             "one JVM, so there is one figure for all of them: the resident set (RSS, `/proc/PID/status`) and the heap "
             "in use after a full GC (`jcmd GC.run`, then the JVM gauges of `/metrics`). The peers are measured the "
             "same way, in the same run.\n")
    rows = []
    for iface, pn in (("SNMPv2c", "SNMPv2c"), ("SNMPv3", "SNMPv3"), ("NETCONF", "NETCONF"), ("REST", "RWS")):
        rows.append(["paper: " + pn + " agent alone", "%s MB" % f(PAPER_T3[pn][0]), "–", "6 VRs at most"])
    for r in res.tables["memory"]:
        if r["when"] == "before cycles":
            after = [x for x in res.tables["memory"] if x["server"] == r["server"] and x["pre"] == r["pre"] and x["when"] == "after cycles"]
            rss_after = after[0]["rss_kb"] / 1024 if after else float("nan")
            rows.append(["vrouter `%s`, all interfaces" % r["server"], "%s MB (%s after the cycles)" % (f(r["rss_kb"] / 1024), f(rss_after)),
                         "%s MB" % f(r["heap_bytes"] / 2**20), "%d VRs" % r["pre"]])
    for w in res.tables["walks"]:
        if w["agent"] == "snmpd":
            rows.append(["peer: snmpd (Net-SNMP), ifTable", "%s MB" % f(w["rss_kb"] / 1024), "–", "%d interfaces" % w["rows"]])
    pc = res.tables["peer_cycles"]
    for pre in sorted({r["pre"] for r in pc}):
        sel = [r for r in pc if r["pre"] == pre]
        rows.append(["peer: netconfd (yuma123), our YANG module", "%s MB (+ %s MB sshd session and netconf-subsystem)"
                     % (f(sel[-1]["rss_kb"] / 1024), f(sel[-1]["session_rss_kb"] / 1024)), "–", "%d VRs configured" % pre])
    L.append(table(["process", "RSS", "heap in use after GC", "with"], rows))
    if "fig9" in figs:
        L.append("\n![Fig. 9: memory](%s)\n" % figs["fig9"])
    nmt = res.tables.get("nmt", [])
    if nmt:
        L.append("\nWhere the resident memory goes (JVM Native Memory Tracking, committed, 1,000 VRs after the footprint's "
                 "mixed workload, separate servers started with `-XX:NativeMemoryTracking=summary`; floor: the footprint's "
                 "floor, FootprintFloor, with the same classes, threads and live heap and no vrouter code; the largest "
                 "categories):\n\n")
        servers = []
        for r in nmt:
            if r["server"] not in servers:
                servers.append(r["server"])
        cats = []
        for r in nmt:
            if r["category"] not in cats:
                cats.append(r["category"])
        val = {(r["server"], r["category"]): r["committed_kb"] for r in nmt}
        rows = []
        for c in cats:
            vals = [val.get((s, c)) for s in servers]
            if c == "threads (count)":
                rows.append([c] + [str(v) for v in vals])
            elif max(v or 0 for v in vals) >= 2048 or c.startswith(("Total", "RSS")):
                rows.append([c] + ["%s MB" % f((v or 0) / 1024) for v in vals])
        L.append(table(["category"] + servers, rows))
        cls = [r for r in res.tables["memory"] if r.get("classes")]
        if cls:
            L.append("\nClasses loaded by the server: %d.\n" % int(cls[-1]["classes"]))
        libs = res.tables.get("classes", [])
        if libs:
            L.append("\nLoaded classes by library (`jcmd VM.class_hierarchy`, plain server, 1,000 VRs): " +
                     ", ".join("%s %d" % (r["library"], r["classes"]) for r in libs) + ".\n")

    # ---------------------------------------------------------------- Table IV
    L.append("\n## Table IV: classification\n")
    L.append("Best first. *Paper*: its Table IV (RWS = REST with XML). *Ours*: median response time to completion "
             "(no-latency driver, plain server, 0 pre-existing VRs) and median server CPU per operation (same server, "
             "every pre-existing count, as Table II); network usage at "
             "the largest number of VRs, each interface in its per-VR form (as the paper sent them) and in its batch "
             "form. Memory cannot rank our interfaces: one process serves them all.\n")
    rows = []
    for metric, key in (("Response time", "done_ms"), ("CPU time", "cpu_ms")):
        cells = []
        pres = [0] if key == "done_ms" else d.pres("plain")
        for op in OPS3:
            ranked = sorted(IFACES, key=lambda i: median(sum((d.vals("plain", p, i, op, key) for p in pres), [])))
            cells.append(" ".join(ranked))
        rows.append([metric] + list(PAPER_T4[metric]) + cells)
    rows.append(["Memory consumption"] + list(PAPER_T4["Memory consumption"]) + ["one process: n/a"] * 3)
    net = res.tables["network"]
    if net:
        nmax = max(r["vrs"] for r in net)
        for form in ("single", "batch"):
            cells = []
            for op in OPS3:
                sel = {r["iface"]: r["bytes"] for r in net if r["form"] == form and r["op"] == op and r["vrs"] == nmax}
                cells.append(" ".join(sorted(sel, key=lambda i: sel[i])))
            rows.append(["Network usage, %d VRs, %s" % (nmax, "per-VR sessions" if form == "single" else "batch form")]
                        + (list(PAPER_T4["Network usage"]) if form == "single" else ["", "", ""]) + cells)
    L.append(table(["metric", "paper create", "paper retrieve", "paper remove", "ours create", "ours retrieve", "ours remove"], rows))

    # ---------------------------------------------------------------- network
    L.append(network_section(res, figs))
    L.append(peers_section(d, res))
    L.append(footprint_section(res))
    L.append(scale_section(res))
    if res.notes:
        L.append("\n## Notes from the run\n\n" + "\n".join("- " + n for n in res.notes) + "\n")
    L.append(closing_note(d, res))
    with open(os.path.join(out, "report.md"), "w") as fh:
        fh.write("\n".join(L))


METHOD = """
## How it was measured

- **Clients.** SNMPv2c and SNMPv3 (authPriv, HMAC-SHA-96 and AES-128, user `admin`): ezsnmp, i.e. Net-SNMP's
  own library and command code in-process (the paper ran Net-SNMP's `snmpset`/`snmpgetbulk` commands); the v3
  manager holds the USM master keys and, in a kept session, the agent's engine ID, as an NMS does (ezsnmp's
  `Session` would derive both keys from the passphrases, 2 MB of SHA-1, on every request). NETCONF over SSH: ncclient
  (with `TICK = 0.001`). REST: Python's `http.client`, XML bodies (as the paper) and JSON bodies. RESTCONF (RFC 8040,
  issue 14): the same `http.client`, `application/yang-data+xml` and `+json`. All on 127.0.0.1,
  client and server on the same machine, as in the paper.
- **Cycles** (paper IV-B): create, start, retrieve, remove one VR; %(cycles)d measured cycles per interface and
  point, after %(warmup)s warm-up cycles (the JVM compiles the hot paths during the first ones: the launcher's C1-only JIT compiles
  a method after a few hundred calls, and 150 warm-up cycles still left REST's first point partly interpreted, ADR 0004;
  the paper's C agents had no such phase), at 0…N pre-existing running VRs. Each interface keeps one session open during its cycles
  (an SNMP session, an SSH connection with a NETCONF session subscribed to notifications, an HTTP keep-alive
  connection, for RESTCONF beside a second one reading the NETCONF stream as server-sent events); the network measurement below counts the session set-up and tear-down the paper's one-shot
  commands paid.
- **Response time** is T1 (first request sent) to T2 (operation complete): SNMP until the completion notification
  (vmShutdown after a creation with vmAdminState shutdown, vmRunning after a start, vmDeleted after a destroy)
  arrives at the benchmark's trap listener; NETCONF until the same notification arrives on the session's
  `create-subscription` stream; REST until the reply of the `?wait=30s` request, which the server sends when the
  VR reached its state; RESTCONF (whose writes answer once accepted) until the same notification arrives on the
  stream `/restconf/streams/NETCONF/json`. A retrieval is one request: SNMP one GET of the 27 vmConfigTable and
  vmTable columns of the VR, NETCONF one `get` with a subtree filter naming the VR's vmIndex in vmConfigTable and
  vmTable, REST `GET /api/v1/routers/{vmIndex}`; RESTCONF two, the VR's `vmConfigEntry` and its `vmEntry` (no one
  RESTCONF resource holds both tables' rows).
- **CPU time** of the server per operation is the sum over all its threads of `/proc/PID/task/TID/schedstat`
  (nanoseconds; `ps` and `/proc/PID/stat` count 10 ms ticks, too coarse for one operation) between T1 and T2,
  split by thread name into application, JIT compiler and JVM housekeeping/GC.
- **The floor of SNMP's CPU** (phase 1b): snmp4j-agent, set up as vrouter's agent is (communities and the USM user
  behind VACM, a v2c notification target, none of its optional MIBs) but answering from a fixed in-memory MIB of
  the same shape (vmConfigTable with RowStatus, a read-only vmTable of 21 columns and 1,000 rows) and sending the
  same notification for each creation, start and removal (`integration-tests/src/bench/floor/SnmpFloorAgent.java`,
  run with the server's jar and the launcher's JVM settings), driven by the same cycles and walk and measured the
  same way; and the CPU time (`time.thread_time`) of appending a 400-byte record to a file in the run's directory
  and forcing it to disk (`fsync`), as the server's journal does once for each change it accepts.
- **The floor of REST's and RESTCONF's CPU** (phase 1c): one cycle of each REST and RESTCONF client against a
  vrouter server is recorded (each request's method, path and Accept; each reply's status, headers and body; the
  notifications RESTCONF's event stream sent for each write), then the JDK HttpServer that REST runs on
  (`integration-tests/src/bench/vrbench/FloorServer.java`, started through `bin/vrouter`, so with the launcher's
  JVM settings) answers the same cycles from the same clients over a kept connection with those fixed replies (the
  request bodies read whole; RESTCONF's writes send the recorded notifications, with the request's vmIndex, to the
  subscribed stream), and its CPU per operation is measured as vrouter's. No Jersey, no checks, no journal, no
  hypervisor; the `?wait=` of REST's writes is answered at once.
- **Server**: run as the README starts it, through the launcher `bin/vrouter` (the JVM settings the product
  chooses: serial GC on a heap that grows as needed, 256 KB stacks, C1 only, two malloc arenas; "plain" below), and
  for the memory comparison as `java -jar` with the JVM's defaults (G1, a heap sized from the machine, C1 and C2).
- **Memory**: RSS of the server process (`VmRSS`), heap in use after a full GC; the footprint phase measures the
  whole server with 1,000 VRs after a mixed workload (20 creations and removals per interface, 3 SNMP walks of
  vmTable, 3 NETCONF get-configs, 3 REST lists and 3 RESTCONF GETs of NEW-VMM-MIB in JSON and XML of every VR) and
  again after 30 more walks.
- **Paper latencies**: `--sim-latency paper` (create 1.0 s, start 0.5 s, stop 1.4 s, destroy 2.0 s), %(paper_cycles)d
  cycles per interface, the interfaces running side by side (each on its own VRs): the time is simulated
  sleep, not CPU, so CPU is not reported for this setting.
- **Network**: `tcpdump -i lo` with a filter on the server's three ports; every packet between the first request
  and 100 ms after the last reply is counted (IP header and payload; the 14-byte loopback Ethernet header is not on
  any wire). Per-VR form: one session per VR as the paper's commands did (a new SNMP session, for v3 with its
  engine-ID discovery; a new SSH connection and NETCONF session; a new TCP connection). Batch form: one session and
  one request for all VRs (one SET PDU with every row, one `edit-config` with every entry, `POST /routers/batch`
  with `Prefer: return=minimal`, one YANG Patch of create or delete edits);
  retrieval of n VRs is a GETBULK walk of vmConfigTable and vmTable, one `get` of both tables, `GET /routers`, a
  GET of NEW-VMM-MIB; REST has no batch removal, so its batch form removes over one keep-alive connection. Creations here carry vmIndex
  and vmName only (Net-SNMP caps a SET at 128 varbinds: 64 rows of two).
"""


def targets_section(d, res):
    L = ["\n## Targets\n"]
    rows = []
    # 1. retrieval under 1 ms
    for iface in IFACES:
        v = d.vals("plain", 0, iface, "retrieve", "done_ms")
        pres = d.pres("plain")
        vmax = d.vals("plain", pres[-1], iface, "retrieve", "done_ms") if pres else []
        st = d.server_time("plain", 0, iface, RETRIEVE_OP[iface_proto(iface)])
        med = median(v)
        ok = med < 1.0
        rows.append(["single-VR retrieval < 1 ms median (no latency)", iface,
                     "%s ms (%s ms with %d VRs); server's own time %s ms" % (f(med), f(median(vmax)), pres[-1] if pres else 0, f(st)),
                     "met" if ok else "missed by %s ms (%.1f×)" % (f(med - 1.0), med)])
    # 2. CPU under 0.5 ms
    for iface in IFACES:
        allv = sum((d.vals("plain", pre, iface, op, "cpu_ms") for op in OPS3 for pre in d.pres("plain")), [])
        app = sum((d.vals("plain", pre, iface, op, "cpu_app_ms") for op in OPS3 for pre in d.pres("plain")), [])
        first = sum((d.vals("plain", 0, iface, op, "cpu_ms") for op in OPS3), [])
        med = median(allv)
        rows.append(["server CPU < 0.5 ms per operation", iface,
                     "%s ms median over create/retrieve/remove at every point (application threads alone %s ms; "
                     "%s ms at the first point, 0 VRs, when the JIT is busiest)" % (f(med), f(median(app)), f(median(first))),
                     "met" if med < 0.5 else "missed by %s ms (%.1f×)" % (f(med - 0.5), med / 0.5)])
    # 3. RSS with 1000 VRs
    for r in res.tables["memory"]:
        if r["pre"] == 1000 and r["when"] == "after cycles":
            mb = r["rss_kb"] / 1024
            rows.append(["whole server, 1,000 VRs, RSS < 73 MB", "all (`%s`)" % r["server"], "%s MB" % f(mb),
                         "met" if mb < TARGET_RSS_MB else "missed by %s MB (%.2f×)" % (f(mb - TARGET_RSS_MB), mb / TARGET_RSS_MB)])
    # 4. batch bytes
    net = res.tables["network"]
    if net:
        nmax = max(r["vrs"] for r in net)
        ref = {(r["form"]): r["bytes_per_vr"] for r in net if r["iface"] == "SNMPv2c" and r["op"] == "create" and r["vrs"] == nmax}
        for iface in IFACES:
            b = [r["bytes_per_vr"] for r in net if r["iface"] == iface and r["op"] == "create" and r["form"] == "batch" and r["vrs"] == nmax]
            if not b or "single" not in ref:
                continue
            b = b[0]
            verdict = "met" if b <= ref["single"] else "missed by %s B/VR (+%.0f%%)" % (f(b - ref["single"]), 100 * (b / ref["single"] - 1))
            rows.append(["batch creation ≤ SNMPv2c bytes per VR", iface,
                         "%s B/VR for %d VRs in one request; SNMPv2c: %s B/VR one SET per VR, %s B/VR in one SET"
                         % (f(b), nmax, f(ref["single"]), f(ref.get("batch"))), verdict])
    L.append(table(["target", "interface", "measured", "verdict"], rows))
    return "\n".join(L)


def network_section(res, figs):
    net = res.tables["network"]
    if not net:
        return ""
    L = ["\n## Network usage (Fig. 10)\n",
         "Bytes on the wire per operation (IP packets, both directions, session set-up and tear-down included), for n "
         "VRs created, retrieved and removed in one go. The paper gives this only as a plot (Fig. 10): SNMPv2c lowest "
         "everywhere; NETCONF highest for few VRs and growing slowest, below RWS from 16 created (20 removed) VRs and "
         "below SNMPv3 from 22 created (30 removed); NETCONF highest for retrieval.\n"]
    ns = sorted({r["vrs"] for r in net})
    for op in OPS3:
        rows = []
        for iface in IFACES + ["NETCONF-zlib"]:
            for form in ("single", "batch"):
                val = {r["vrs"]: r["bytes"] for r in net if r["iface"] == iface and r["form"] == form and r["op"] == op}
                if val:
                    rows.append([iface, "per-VR sessions" if form == "single" else "batch"] + [str(val.get(n, "–")) for n in ns]
                                + [f(val.get(ns[-1], 0) / ns[-1])])
        L.append("\n**%s** [bytes]:\n\n" % op)
        L.append(table(["interface", "form"] + ["%d VR%s" % (n, "" if n == 1 else "s") for n in ns] + ["B/VR at %d" % ns[-1]], rows))
    parts = res.tables.get("nc_bytes", [])
    if parts:
        L.append("\n**A NETCONF batch creation part by part** [bytes, both directions, median of %d]: one session, one "
                 "edit-config creating %d VRs, close-session, as above; the SSH stream taken apart message by message "
                 "as paramiko writes and reads it (length, padding and MAC included), the TCP/IP headers as what the "
                 "capture saw beyond that stream.\n\n" % (len([r for r in parts if r["iface"] == "NETCONF"]), parts[0]["vrs"]))
        rows = []
        for iface in ("NETCONF", "NETCONF-zlib"):
            p = _nc_parts(res, iface)
            if p:
                rows.append([iface] + ["%d" % p[k] for k, _ in NC_PARTS] + ["%d" % p["total"]])
        L.append(table(["client"] + [label for _, label in NC_PARTS] + ["in all"], rows))
    if "fig10" in figs:
        L.append("\n![Fig. 10: network usage](%s)\n" % figs["fig10"])
    return "\n".join(L)


NC_PARTS = (("tcp_ip", "TCP/IP headers"), ("ssh_kex", "SSH version and key exchange"), ("ssh_auth", "SSH authentication"),
            ("ssh_channel", "SSH channel and disconnect"), ("hellos", "hellos"), ("edit", "edit-config and reply"),
            ("close", "close-session and reply"))


def _nc_parts(res, iface):
    """The medians of a NETCONF batch creation's parts (nc_bytes), their sum and the VRs created; None if not measured."""
    rows = [r for r in res.tables.get("nc_bytes", []) if r["iface"] == iface]
    if not rows:
        return None
    p = {k: median([fl(r, "bytes_" + k) if not math.isnan(fl(r, "bytes_" + k)) else 0 for r in rows]) for k, _ in NC_PARTS}
    p["total"] = sum(p[k] for k, _ in NC_PARTS)
    p["vrs"] = rows[0]["vrs"]
    return p


def peers_section(d, res):
    L = ["\n## Peers in the same run\n"]
    walks = res.tables["walks"]
    if walks:
        L.append("**GETBULK walks** (max-repetitions 10, the same client library) of a table of N rows: Net-SNMP's "
                 "`snmpd` (Debian) answering ifTable (22 columns) in a network namespace with N interfaces (lo and "
                 "ifb links), and vrouter answering vmTable (its 20 accessible columns) with N VRs. Median of the "
                 "walks; CPU is the agent's.\n\n")
        rows = []
        for w in sorted(walks, key=lambda w: (w["rows"], w["agent"])):
            app = fl(w, "cpu_app_ms_median")
            rows.append([w["agent"], w["mib_table"], w["rows"], w["varbinds"], f(w["ms_median"]), f(w["cpu_ms_median"]),
                         f(w["cpu_ms_median"] / max(w["varbinds"], 1) * 1000, 1),
                         f(app / max(w["varbinds"], 1) * 1000, 1) if not math.isnan(app) else "–",
                         f(w["bytes_per_walk"] / 1024), f(w["rss_kb"] / 1024), w["repeat"]])
        L.append(table(["agent", "table", "rows", "varbinds", "walk [ms]", "agent CPU [ms]", "CPU per 1000 varbinds [ms]",
                        "without the JIT [ms]", "bytes per walk [KiB]", "agent RSS [MB]", "walks"], rows))
    pc = res.tables["peer_cycles"]
    if pc:
        L.append("\n**NETCONF**: yuma123's `netconfd` (Debian) serving our YANG module (configuration only: it has no "
                 "instrumentation, so no vmTable and no completion notifications; a reply is all it does) behind "
                 "OpenSSH's `sshd` and `netconf-subsystem`, driven by the same ncclient, beside vrouter's NETCONF "
                 "interface (whose reply comes before the simulated hypervisor is done; completion in parentheses). "
                 "Medians; CPU of netconfd alone, and of the sshd session and netconf-subsystem processes that carry "
                 "its SSH.\n\n")
        rows = []
        for pre in sorted({r["pre"] for r in pc}):
            for op in OPS3:
                sel = [r for r in pc if r["pre"] == pre and r["op"] == op]
                ours = d.vals("plain", pre, "NETCONF", op, "reply_ms")
                ours_done = d.vals("plain", pre, "NETCONF", op, "done_ms")
                ours_cpu = d.vals("plain", pre, "NETCONF", op, "cpu_ms")
                rows.append([pre, op, f(median([r["reply_ms"] for r in sel])), f(median([r["cpu_ms"] for r in sel])),
                             f(median([r["cpu_ssh_ms"] for r in sel])),
                             "%s (%s)" % (f(median(ours)), f(median(ours_done))) if ours else "–", f(median(ours_cpu)) if ours else "–"])
        L.append(table(["pre-existing", "operation", "netconfd reply [ms]", "netconfd CPU [ms]", "sshd+subsystem CPU [ms]",
                        "vrouter reply (completion) [ms]", "vrouter CPU [ms]"], rows))
    return "\n".join(L)


def scale_section(res):
    L = []
    sc = res.tables["scale"]
    if sc:
        L.append("\n## Scale: 10,000 VRs on the simulated driver\n")
        agg = defaultdict(list)
        notes = {}
        for r in sc:
            agg[(r["metric"], r["unit"])].append(r["value"])
            if r.get("note"):
                notes[r["metric"]] = r["note"]
        rows = []
        for (metric, unit), vals in agg.items():
            rows.append([metric, "%s %s" % (f(median(vals)), unit), notes.get(metric, "")])
        L.append(table(["measure", "value (median)", "note"], rows))
    tp = res.tables["throughput"]
    if tp:
        L.append("\nCreate and delete throughput with concurrent clients (each its own process and session; each "
                 "creates its VRs, then deletes them; requests are answered when accepted, the simulated hypervisor "
                 "works behind):\n\n")
        rows = [[r["iface"], r["clients"], r["per_client"], f(r["creates_per_s"]), f(r["deletes_per_s"]),
                 f(r["server_cpu_ms_per_op"]), f(fl(r, "client_cpu_ms_per_create"))] for r in tp]
        L.append(table(["interface", "clients", "VRs per client", "creates/s", "deletes/s", "server CPU per op [ms]",
                        "clients' CPU per create [ms]"], rows))
    floor = res.tables.get("nc_floor", [])
    if floor:
        L.append("\n**The NETCONF floor**: the same ncclient clients against `NetconfFloor` "
                 "(integration-tests/src/bench/floor/NetconfFloor.java), Apache MINA SSHD set up as vrouter's NETCONF server "
                 "(generated host key, password login, TCP_NODELAY, the subsystem on a thread of its own) answering "
                 "every rpc with a fixed `<ok/>` and nothing else: no XML parsing, no datastore, no journal, no events. "
                 "The server's CPU per request (all its threads), the clients' (rusage of each client process while it "
                 "creates, all its threads), and what the 2 cores allow: cores ÷ (server + clients' CPU per request).\n\n")
        rows = [[r["what"], r["requests"], f(r["per_s"]), f(r["server_cpu_ms"], 3), f(r["client_cpu_ms"], 3),
                 f(_cores(res) * 1000 / (r["server_cpu_ms"] + r["client_cpu_ms"]))] for r in floor if fl(r, "clients") > 0]
        L.append(table(["NETCONF floor", "requests", "requests/s", "server CPU per request [ms]",
                        "client CPU per request [ms]", "CPU cap on this machine [requests/s]"], rows))
        sync = [r for r in floor if fl(r, "clients") == 0]
        if sync:
            L.append("\nEvery write vrouter answers is in its journal on disk first (concurrent ones share one "
                     "fsync): an fsync of a 200-byte append on the data directory's disk took %s ms (median of %d)."
                     % (f(fl(sync[0], "fsync_ms")), sync[0]["requests"]))
    return "\n".join(L)


def closing_note(d, res):
    """The closing note: each finding with this run's numbers and its cause."""
    L = ["\n## Where we beat or trail the paper and the peers, and why\n"]
    # response time with the paper's latencies
    diffs = []
    for iface in IFACES:
        pn = PAPER_NAME[iface]
        if not pn:
            continue
        for j, op in enumerate(OPS3):
            v = d.vals("paper", 0, iface, op, "done_ms")
            if v:
                diffs.append((mean(v) / 1000 - PAPER_T1[pn][j], iface, op))
    if diffs:
        cr = [x for x in diffs if x[2] != "retrieve"]
        rt = [x for x in diffs if x[2] == "retrieve"]
        L.append("- **Response time with the paper's latencies** (Table I): creation and removal are within %s s of the "
                 "paper's means (%s to %s s), because that time is the hypervisor's (1.0 s to create, 3.4 s to stop and "
                 "destroy) and vrouter adds milliseconds to it; retrieval, which never waits for the hypervisor, takes "
                 "%s–%s ms against the paper's 30–160 ms: **we beat the paper** on every interface."
                 % (f(max(abs(x[0]) for x in cr), 3), f(min(x[0] for x in cr), 3), f(max(x[0] for x in cr), 3),
                    f(min(mean(d.vals("paper", 0, x[1], "retrieve", "done_ms")) for x in rt)),
                    f(max(mean(d.vals("paper", 0, x[1], "retrieve", "done_ms")) for x in rt))))
    # NETCONF completion
    gap = [dn - rp for dn, rp in zip(d.vals("plain", 0, "NETCONF", "create", "done_ms"),
                                     d.vals("plain", 0, "NETCONF", "create", "reply_ms"))]
    if gap and median(gap) < 20:
        L.append("- **NETCONF completion arrives %s ms (median) after the rpc-reply**: the notification is a second "
                 "small write on the SSH connection right after the reply, sent at once because vr-netconf-adapter "
                 "sets `tcp-nodelay` on the `SshServer` (with Nagle's algorithm on, as Apache MINA SSHD defaults, it "
                 "waited for the client's delayed ACK of the reply: 40 ms on Linux)." % f(median(gap)))
    elif gap:
        L.append("- **NETCONF completion arrives %s ms (median) after the rpc-reply**, where SNMP's trap and REST's "
                 "`?wait` take about a millisecond. The notification is a second small write on the SSH connection "
                 "right after the reply; with Nagle's algorithm on (Apache MINA SSHD's `tcp-nodelay` defaults to false; "
                 "vr-netconf-adapter sets it, so look for what undid that) it is held until the client's delayed ACK of the reply, 40 ms "
                 "on Linux. A capture taken while building this benchmark shows exactly that: the notification leaves "
                 "20 µs after an ACK that came 41 ms after the reply. Cause: the server's socket option; fix: "
                 "`CoreModuleProperties.TCP_NODELAY.set(sshd, true)` on the `SshServer`." % f(median(gap)))
    # REST replies held by Nagle on the JDK's HTTP server
    plain_rest = median(d.vals("plain", 0, "REST-JSON", "retrieve", "done_ms"))
    lean_pre = d.pres("lean")
    lean_rest = median(d.vals("lean", lean_pre[0], "REST-JSON", "retrieve", "done_ms")) if lean_pre else float("nan")
    if plain_rest > 20 and lean_rest < plain_rest / 4:
        L.append("- **REST requests take about 40 ms on the plain server** (%s ms to read one VR, against %s ms on the "
                 "lean server): the REST interface runs on the JDK's built-in HTTP server, which writes a reply's "
                 "headers and body separately and leaves Nagle's algorithm on, so the body waits for the client's "
                 "delayed ACK of the headers. The lean flag set carries `-Dsun.net.httpserver.nodelay=true`, which "
                 "turns TCP_NODELAY on and removes the wait. Cause: the server's socket option; fix: set that "
                 "property (in the launcher, or `System.setProperty` before the server is created)."
                 % (f(plain_rest), f(lean_rest)))
    # retrieval
    parts, missed = [], []
    for iface in IFACES:
        v = median(d.vals("plain", 0, iface, "retrieve", "done_ms"))
        st = d.server_time("plain", 0, iface, RETRIEVE_OP[iface_proto(iface)])
        parts.append("%s %s ms, of which the server's own handling %s ms" % (iface, f(v), f(st)))
        if v >= 1.0:
            missed.append((iface, v, st))
    why = {"SNMP": "Net-SNMP's client code, for v3 with USM authentication and AES on every message",
           "NETCONF": "SSH encryption and XML on the client side, and ncclient's 1 ms polling tick",
           "RWS": "the client's HTTP handling and the wait described above, if any"}

    def reason(i, v, st):
        fam = "SNMP" if i.startswith("SNMP") else ("NETCONF" if i == "NETCONF" else "RWS")
        if st >= 0.5 * v:
            return ("%s: mostly the server's own handling of the request (%s of %s ms: %s)" %
                    (i, f(st), f(v), {"SNMP": "snmp4j's request processing and the MIB view it builds",
                                     "NETCONF": "SSH decryption, XML parsing, the subtree filter and the reply",
                                     "RWS": "HTTP, the resource and the encoding"}[fam]))
        return "%s: %s ms outside the server's handling (%s)" % (i, f(v - st), why[fam])
    L.append("- **Single-VR retrieval** (0 VRs, median; the server's own time is the mean of its request timer): "
             + "; ".join(parts) + "." + (" Where the 1 ms target is missed: " + "; ".join(reason(*m) for m in missed)
                                        + "." if missed else " The target is met on every interface."))
    # CPU
    def jit_share(server):
        th = [r for r in res.tables.get("threads", []) if r["server"] == server]
        sh = [r["share"] for r in th if "Compiler" in r["thread"]]
        return "%.0f–%.0f%%" % (100 * min(sh), 100 * max(sh)) if sh else "none of the busiest threads"
    app_all = sum((d.vals("plain", p, i, op, "cpu_app_ms") for p in d.pres("plain") for i in IFACES for op in OPS3), [])
    over = [i for i in IFACES if median(sum((d.vals("plain", p, i, op, "cpu_ms") for p in d.pres("plain") for op in OPS3), [])) > 0.5]
    L.append("- **Server CPU per operation** (Table II): our medians are below the paper's figures (2–14 ms, the "
             "maximum per operation) on every interface, our maxima are not (JIT compilations and GC land in single "
             "operations), and the median is above 0.5 ms on %s. The JIT compiler still takes %s of the "
             "server's CPU in the measured cycles after the warm-up, by interface and point (the server as the README "
             "starts it, C1 only; %s among the busiest threads of a lean server, when one was measured), and what remains (%s ms median, application threads) is a whole operation to completion, not one "
             "request: the request, the journal write forced to disk, the lifecycle steps on the VR's lane, the events "
             "fanned out to every interface (an SNMP notification encoded and sent, a NETCONF notification to each "
             "subscribed session) and the metrics. The most expensive interface is %s." 
             % (", ".join(over) if over else "no interface", jit_share("plain"), jit_share("lean"), f(median(app_all)),
                max(IFACES, key=lambda i: median(sum((d.vals("plain", p, i, op, "cpu_app_ms") for p in d.pres("plain") for op in OPS3), [])))))
    # memory
    nmt = {(r["server"], r["category"]): r["committed_kb"] for r in res.tables.get("nmt", [])}
    mem = [r for r in res.tables["memory"] if r["pre"] == 1000 and r["when"] == "after cycles"]
    if nmt and mem:
        meta_mb = sum(nmt.get(("plain", c), 0) for c in ("Metaspace", "Class", "Symbol", "Shared class space")) / 1024
        cls = [r.get("classes") for r in res.tables["memory"] if r.get("classes")]
        fp = {r["server"]: r for r in res.tables.get("footprint", [])}
        readme = fp.get("bin/vrouter")
        floor_rss = res.tables.get("rss_floor", [])
        L.append("- **Memory.** The whole server as the README starts it (`bin/vrouter`) with 1,000 VRs takes %s after the "
                 "mixed workload (`java -jar` with the JVM's defaults: %s); the 73 MB target (what the paper's REST "
                 "interface alone used) is %s. The floor is not the VRs (%s bytes of heap per VR, see the scale section) "
                 "but the JVM and class metadata: %s MB (Metaspace, class space, symbols, the CDS archive) for the %s "
                 "classes loaded (%s), plus %s MB of committed heap, %s MB of compiled code and %s MB of thread stacks "
                 "(%s threads), and the JVM's own code (libjvm: about 13 MB resident); an empty Java program with the "
                 "launcher's settings is 34 MB resident on this machine (docs/adr/0004-footprint.md).%s Getting under "
                 "73 MB needs fewer and lighter libraries (Jersey and HK2 are the largest) or an ahead-of-time native "
                 "image; the peers (snmpd %s MB, netconfd %s MB) are C processes with a few MB of code each."
                 % ("%s MB" % f(readme["rss_mixed_kb"] / 1024) if readme else "?",
                    "%s MB" % f(fp["java -jar"]["rss_mixed_kb"] / 1024) if "java -jar" in fp else "?",
                    ("met" if readme and readme["rss_mixed_kb"] / 1024 < TARGET_RSS_MB else "missed") if readme else "not measured",
                    f(next((r["value"] for r in res.tables["scale"] if r["metric"] == "heap per VR"), float("nan"))),
                    f(meta_mb), int(cls[-1]) if cls else "several thousand",
                    ", ".join("%s %d" % (r["library"], r["classes"]) for r in res.tables.get("classes", [])[:8]) or "see Table III",
                    f(nmt.get(("plain", "Java Heap"), 0) / 1024),
                    f(nmt.get(("plain", "Code"), 0) / 1024), f(nmt.get(("plain", "Thread"), 0) / 1024),
                    nmt.get(("plain", "threads (count)"), "?"),
                    (" The floor measured in the same run, a JVM with the same library classes loaded, as many threads "
                     "and as much live heap and no vrouter code (phase 2c), is %s MB resident." % f(floor_rss[0]["rss_kb"] / 1024))
                    if floor_rss else "",
                    f(max((w["rss_kb"] for w in res.tables["walks"] if w["agent"] == "snmpd"), default=0) / 1024),
                    f(max((r["rss_kb"] for r in res.tables["peer_cycles"]), default=0) / 1024)))
    # walks
    walks = res.tables["walks"]
    ours = sorted((w for w in walks if w["agent"] == "vrouter"), key=lambda w: w["rows"])
    theirs = {w["rows"]: w for w in walks if w["agent"] == "snmpd"}
    if ours:
        big = ours[-1]
        peer = theirs.get(big["rows"])
        growth = ("; per 1,000 varbinds our CPU goes from %s ms (%d rows) to %s ms (%d rows)" % (f(ours[0]["cpu_ms_median"] / max(ours[0]["varbinds"], 1) * 1000), ours[0]["rows"],
                                                    f(big["cpu_ms_median"] / max(big["varbinds"], 1) * 1000), big["rows"])
                  if len(ours) > 1 else "")
        ratio = (big["cpu_ms_median"] / peer["cpu_ms_median"]) if peer else float("nan")
        L.append("- **SNMP walks.** A GETBULK walk of vmTable with %d VRs takes %s ms and %s ms of agent CPU%s%s. A "
                 "request answers from the requested OID onward and reads only the VRs it returns (it built the whole "
                 "table section, every VR inspected on the driver, for every request before issue 16: a walk cost "
                 "rows²/10 and 12 s of CPU at 1,000 rows), so the cost per varbind no longer grows with the table. What "
                 "is left against snmpd (%.1f× its CPU) is snmp4j's per-request work: BER encoding and decoding, the "
                 "VACM check of every varbind (snmp4j copies the VACM table rows for each), the agent's lookup of the "
                 "managed object, and, on the launcher's C1-only JIT, code less optimised than C2's."
                 % (big["rows"], f(big["ms_median"]), f(big["cpu_ms_median"]),
                    (" where snmpd walks ifTable of the same size in %s ms with %s ms of CPU" % (f(peer["ms_median"]), f(peer["cpu_ms_median"]))) if peer else "",
                    growth, ratio))
    pc = res.tables["peer_cycles"]
    if pc:
        L.append("- **NETCONF against netconfd:** yuma123 answers an edit-config in %s ms with %s ms of CPU; vrouter "
                 "replies in %s ms with %s ms of CPU. netconfd only stores configuration (no hypervisor, no journal, no "
                 "notifications, and OpenSSH's sshd does the SSH), while our reply includes the accepted, journaled "
                 "request and our process does the SSH itself."
                 % (f(median([r["reply_ms"] for r in pc if r["op"] == "create"])),
                    f(median([r["cpu_ms"] for r in pc if r["op"] == "create"])),
                    f(median(d.vals("plain", 0, "NETCONF", "create", "reply_ms"))),
                    f(median(d.vals("plain", 0, "NETCONF", "create", "cpu_ms")))))
    net = res.tables["network"]
    if net:
        nmax = max(r["vrs"] for r in net)

        def b(iface, form, op, n):
            return next((r["bytes"] for r in net if r["iface"] == iface and r["form"] == form and r["op"] == op and r["vrs"] == n), float("nan"))
        L.append("- **Network.** One VR at a time, SNMPv2c is the lightest (%s B to create), as in the paper; NETCONF "
                 "pays a whole SSH handshake per session (%s B to create one VR). In the batch form every interface "
                 "amortises its session: for %d VRs, %s. NETCONF stays above SNMPv2c's per-VR SET (%s B) because XML "
                 "names every element twice; REST carries HTTP headers and a Basic credential on every request and its "
                 "batch reply (with `Prefer: return=minimal`) still names each VR created; RESTCONF's YANG Patch names "
                 "every edit's target and id, and its reply is the patch's status alone."
                 % (f(b("SNMPv2c", "single", "create", 1)), f(b("NETCONF", "single", "create", 1)), nmax,
                    ", ".join("%s B/VR over %s" % (f(b(i, "batch", "create", nmax) / nmax), i) for i in IFACES),
                    f(b("SNMPv2c", "single", "create", 1))))
    tp = res.tables["throughput"]
    if tp:
        L.append("- **Throughput** with 4 concurrent clients is bounded by the clients as much as by the server: the "
                 "clients are Python processes sharing the machine's 2 cores with the server (the server's CPU per "
                 "accepted request is in the table).")
    return "\n".join(L) + "\n"


def _walk_pair(res, rows_n):
    walks = res.tables["walks"]
    ours = next((w for w in walks if w["agent"] == "vrouter" and w["rows"] == rows_n), None)
    theirs = next((w for w in walks if w["agent"] == "snmpd" and w["rows"] == rows_n), None)
    return ours, theirs


def _per_kvb(w, key="cpu_ms_median"):
    return fl(w, key) / max(w["varbinds"], 1) * 1000 if w else float("nan")


# journal records (each written and forced to disk) per operation of the cycles: a creation's; a removal's
# marking, then its row's going once the VM is destroyed
JOURNAL_RECORDS = {"create": 1, "retrieve": 0, "remove": 2}


def _snmp_floor(res, iface):
    """'; floor ...' of an SNMP interface's CPU-per-operation line, from phase 1b of the same run: snmp4j-agent
    answering the same requests from a fixed MIB (notifications included), plus the journal's write and fsync
    for each record the operation makes."""
    fl_rows = res.tables.get("snmp_floor", [])
    sync = median([r["cpu_ms"] for r in fl_rows if r["what"] == "fsync"])
    lib = {op: [r["cpu_ms"] for r in fl_rows if r["what"] == "cycle" and r["iface"] == iface and r["op"] == op] for op in OPS3}
    if not all(lib.values()) or math.isnan(sync):
        return ""
    floor = median([v + JOURNAL_RECORDS[op] * sync for op in OPS3 for v in lib[op]])
    return ("; floor %s ms: snmp4j-agent answering the same SETs and GETs from a fixed MIB of the same shape and "
            "sending the same notifications (phase 1b: create %s, retrieve %s, remove %s ms), plus the journal's "
            "write and fsync (%s ms of CPU per record; one per create, two per remove)"
            % (f(floor), f(median(lib["create"])), f(median(lib["retrieve"])), f(median(lib["remove"])), f(sync)))


def _journal_sync(res):
    """CPU of one journal record's write and fsync (phase 1b), or nan."""
    return median([r["cpu_ms"] for r in res.tables.get("snmp_floor", []) if r["what"] == "fsync"])


def _rest_floor(res, iface):
    """'; floor ...' of a REST or RESTCONF interface's CPU-per-operation line, from phase 1c of the same run: the
    JDK HttpServer answering the cycles' requests with the replies recorded from vrouter, plus the journal's
    write and fsync (phase 1b) for each record the operation makes, when that was measured."""
    rows = [r for r in res.tables.get("rest_floor", []) if r["iface"] == iface]
    lib = {op: [fl(r, "cpu_ms") for r in rows if r["op"] == op] for op in OPS3}
    if not all(lib.values()):
        return ""
    sync = _journal_sync(res)
    journal = 0.0 if math.isnan(sync) else sync
    floor = median([v + JOURNAL_RECORDS[op] * journal for op in OPS3 for v in lib[op]])
    return ("; floor %s ms: the JDK HttpServer REST runs on answering the same create/start/retrieve/remove requests "
            "with fixed replies (phase 1c: create %s, retrieve %s, remove %s ms)%s"
            % (f(floor), f(median(lib["create"])), f(median(lib["retrieve"])), f(median(lib["remove"])),
               "" if math.isnan(sync) else ", plus the journal's write and fsync (%s ms of CPU per record, phase 1b; "
               "one per create, two per remove)" % f(sync)))


def rest_floor_table(d, res):
    """The REST and RESTCONF floor (phase 1c) beside vrouter's CPU per operation in the cycles."""
    rows = []
    for iface in IFACES:
        fr = [r for r in res.tables.get("rest_floor", []) if r["iface"] == iface]
        if not fr:
            continue
        cells = [iface]
        for op in ("create", "start", "retrieve", "remove"):
            ours = sum((d.vals("plain", pre, iface, op, "cpu_ms") for pre in d.pres("plain")), [])
            cells.append("%s / %s" % (f(median(ours)), f(median([fl(r, "cpu_ms") for r in fr if r["op"] == op]), 3)))
        rows.append(cells)
    if not rows:
        return ""
    return ("\n**The floor of REST's and RESTCONF's CPU** (phase 1c): the JDK HttpServer that REST runs on "
            "(`FloorServer.java`, started through `bin/vrouter`), answering the same requests from the same clients "
            "over a kept connection with the replies recorded from vrouter (same status, headers and bodies; "
            "RESTCONF's writes also send their recorded notifications on the subscribed event stream), no Jersey and "
            "no vrouter logic. Median server CPU per operation, vrouter (all pre-existing VRs) / the floor [ms]:\n\n"
            + table(["interface", "create", "start", "retrieve", "remove"], rows))


def _snmp_walk_floor(res):
    w = next((r for r in res.tables.get("snmp_floor", []) if r["what"] == "walk"), None)
    if not w:
        return ""
    return ("; floor: snmp4j-agent walking a fixed table of %d rows %s ms per 1,000 varbinds (application threads; "
            "phase 1b)" % (int(w["rows"]), f(_per_kvb(w, "cpu_app_ms_median"))))


def _verdict(value, limit, unit, higher_is_better=False, fmt=None):
    fmt = fmt or f
    ok = value >= limit if higher_is_better else value <= limit
    if math.isnan(value):
        return "not measured"
    if ok:
        return "met"
    return "missed by %s %s (%.2f×)" % (fmt(abs(value - limit)), unit, (limit / value) if higher_is_better else value / limit)


def _cores(res):
    """The cores of the machine that ran the benchmark (recorded with the floor)."""
    rows = res.tables.get("nc_floor", [])
    return int(fl(rows[0], "cores")) if rows and not math.isnan(fl(rows[0], "cores")) else (os.cpu_count() or 1)


def _nc_floor(res):
    """The NETCONF floor measured in the run: one client's round trip, and the median of the 4-client runs."""
    rows = res.tables.get("nc_floor", [])
    one = [r for r in rows if fl(r, "clients") == 1]
    many = [r for r in rows if fl(r, "clients") > 1]
    sync = [fl(r, "fsync_ms") for r in rows if fl(r, "clients") == 0]
    if not one or not many:
        return None
    per_s = median([r["per_s"] for r in many])
    srv, cli = median([r["server_cpu_ms"] for r in many]), median([r["client_cpu_ms"] for r in many])
    return {"per_s": per_s, "server_cpu_ms": srv, "client_cpu_ms": cli, "cores": _cores(res),
            "cap": _cores(res) * 1000 / (srv + cli),
            "round_trip_cpu_ms": one[0]["server_cpu_ms"], "fsync_ms": sync[0] if sync else float("nan")}


def _nc_floor_note(floor):
    if not floor:
        return ""
    return ("; floor %s ms: MINA SSHD's own CPU per round trip answering a fixed `<ok/>` to one ncclient session"
            % f(floor["round_trip_cpu_ms"], 3))


CLASS_METADATA = ("Metaspace", "Class", "Symbol", "Shared class space")  # NMT's categories for loaded classes


def _nmt_parts(res, server):
    """Where a process's memory is by NMT (committed MB): class metadata, heap, thread stacks, compiled code."""
    nmt = {r["category"]: r["committed_kb"] / 1024 for r in res.tables.get("nmt", []) if r["server"] == server}
    if not nmt:
        return None
    return (sum(nmt.get(c, 0) for c in CLASS_METADATA), nmt.get("Java Heap", 0), nmt.get("Thread", 0), nmt.get("Code", 0))


def _rss_floor(res, readme):
    """'; floor ...' of the whole server's RSS line, from phase 2c of the same run (FootprintFloor)."""
    rf = next((r for r in res.tables.get("rss_floor", []) if r["server"] == readme["server"]), None)
    if not rf:
        return ""
    mb = rf["rss_kb"] / 1024
    floor, ours = _nmt_parts(res, "floor"), _nmt_parts(res, "plain")
    where = ""
    if floor and ours:
        where = ("; by NMT, of the floor: class metadata %s MB, heap %s, thread stacks %s, compiled code %s (the server "
                 "after the same workload: %s, %s, %s, %s)" % tuple(f(v) for v in floor + ours))
    def count(k):
        v = fl(rf, k)
        return "?" if math.isnan(v) else "{:,}".format(int(v))
    return ("; floor %s MB: a JVM started by `bin/vrouter` on the server's jar that loads and initialises the %s library "
            "and JDK classes the server had loaded after the workload (vrouter's own %s left out; %s made at run time, "
            "not loadable by name), runs %s threads and holds the server's %s MiB of live heap, and runs no vrouter code "
            "(FootprintFloor, phase 2c)%s; vrouter itself above it: %s MB"
            % (f(mb), count("loaded"), count("vrouter_classes"), count("generated"), count("threads"),
               f(rf["heap_held_bytes"] / 2**20), where, f(readme["rss_mixed_kb"] / 1024 - mb)))


def issue16_section(d, res):
    """The targets of issue 16 (footprint and scale), each with this run's figure beside its peer's."""
    L = ["\n## Targets of issue 16: footprint and scale, beside the peers in the same run\n"]
    rows = []
    # 1. SNMP walks: cost independent of table size, and beside snmpd
    walks = res.tables["walks"]
    ours_sizes = sorted(w["rows"] for w in walks if w["agent"] == "vrouter")
    if len(ours_sizes) >= 2:
        small, big = _walk_pair(res, ours_sizes[0])[0], _walk_pair(res, ours_sizes[-1])[0]
        growth = _per_kvb(big, "cpu_app_ms_median") / _per_kvb(small, "cpu_app_ms_median")
        ps, pb = _walk_pair(res, ours_sizes[0])[1], _walk_pair(res, ours_sizes[-1])[1]
        peer_growth = _per_kvb(pb) / _per_kvb(ps) if ps and pb else float("nan")
        rows.append(["SNMP GETBULK walk: CPU per varbind independent of table size", "%d → %d rows" % (ours_sizes[0], ours_sizes[-1]),
                     "vrouter %s → %s ms per 1,000 varbinds (×%s; application threads); snmpd %s → %s (×%s)"
                     % (f(_per_kvb(small, "cpu_app_ms_median")), f(_per_kvb(big, "cpu_app_ms_median")), f(growth),
                        f(_per_kvb(ps)), f(_per_kvb(pb)), f(peer_growth)),
                     "met" if growth <= max(1.5, peer_growth * 1.2) else "missed (×%s)" % f(growth)])
        ours, peer = _walk_pair(res, ours_sizes[-1])
        if ours and peer:
            ratio = _per_kvb(ours, "cpu_app_ms_median") / _per_kvb(peer)
            rows.append(["SNMP walk as cheap as Net-SNMP's (CPU per varbind)", "%d rows" % ours_sizes[-1],
                         "vrouter %s ms per 1,000 varbinds (%s with the JIT), snmpd %s; walk %s ms vs %s ms"
                         % (f(_per_kvb(ours, "cpu_app_ms_median")), f(_per_kvb(ours)), f(_per_kvb(peer)),
                            f(ours["ms_median"]), f(peer["ms_median"])),
                         "met" if ratio <= 1.0 else "missed: %.1f× snmpd's CPU (wall time %.2f× snmpd's)%s"
                         % (ratio, ours["ms_median"] / peer["ms_median"], _snmp_walk_floor(res))])
    fp = {r["server"]: r for r in res.tables.get("footprint", [])}
    readme = fp.get("bin/vrouter")
    if readme:
        growth = readme["rss_walks_kb"] / readme["rss_mixed_kb"] - 1
        rows.append(["RSS after %d walks of 1,000 VRs within 10%% of before" % readme["walks"], "SNMP",
                     "%s MB → %s MB (%+.1f%%)" % (f(readme["rss_mixed_kb"] / 1024), f(readme["rss_walks_kb"] / 1024), 100 * growth),
                     "met" if growth <= 0.10 else "missed by %.1f points" % (100 * growth - 10)])
        mb = readme["rss_mixed_kb"] / 1024
        plain = fp.get("java -jar")
        rows.append(["whole server as the README starts it, 1,000 VRs, after a mixed workload, RSS < 73 MB", "all",
                     "%s MB (`bin/vrouter`)%s" % (f(mb), "; `java -jar` with the JVM's defaults %s MB" % f(plain["rss_mixed_kb"] / 1024) if plain else ""),
                     _verdict(mb, TARGET_RSS_MB, "MB") + (_rss_floor(res, readme) or "; floor: see the footprint section")])
    tp = {r["iface"]: r for r in res.tables["throughput"]}
    floor = _nc_floor(res)
    if "NETCONF" in tp:
        r = tp["NETCONF"]
        v = r["creates_per_s"]
        srv, cli = fl(r, "server_cpu_ms_per_op"), fl(r, "client_cpu_ms_per_create")
        verdict = _verdict(v, 1000, "/s", higher_is_better=True)
        if floor and verdict != "met":
            verdict += ("; floor %s/s: the same 4 ncclient clients against MINA SSHD answering a fixed `<ok/>` "
                        "(%s ms server + %s ms client CPU per request; CPU cap of the %d cores %s/s); and each "
                        "creation waits for the journal's fsync, %s ms here (shared by concurrent ones)"
                        % (f(floor["per_s"]), f(floor["server_cpu_ms"], 3), f(floor["client_cpu_ms"], 3), floor["cores"],
                           f(floor["cap"]), f(floor["fsync_ms"])))
        rows.append(["NETCONF creates per second, 4 clients ≥ 1,000", "NETCONF",
                     "%s/s (SNMPv2c %s/s in the same run); server CPU %s ms per request, clients' %s ms per creation: "
                     "CPU cap %s/s" % (f(v), f(tp.get("SNMPv2c", {}).get("creates_per_s", float("nan"))), f(srv, 3),
                                       f(cli, 3), f(_cores(res) * 1000 / (srv + cli))),
                     verdict])
    nb = res.tables.get("nc_bulk", [])
    for op, label in (("create", "commit of 1,000 created entries"), ("get-config", "get-config of 1,000 entries")):
        o = [r for r in nb if r["agent"] == "vrouter" and r["op"] == op]
        p = [r for r in nb if r["agent"] == "netconfd" and r["op"] == op]
        if o and p:
            om, pm = median([r["ms"] for r in o]), median([r["ms"] for r in p])
            oc, pc = median([r["cpu_ms"] for r in o]), median([r["cpu_ms"] + r["cpu_ssh_ms"] for r in p])
            verdict = "met" if om <= pm else "missed by %s ms (%.2f×)" % (f(om - pm), om / pm)
            fr = [r for r in nb if r["agent"] == "floor" and r["op"] == op]
            if fr and verdict != "met":
                verdict += ("; floor %s ms, %s ms CPU: MINA SSHD sending the same %s KiB reply (NetconfFloor answering the "
                            "get-config with vrouter's bytes for it, no vrouter code; the same ncclient)"
                            % (f(median([r["ms"] for r in fr])), f(median([r["cpu_ms"] for r in fr])),
                               f(median([r["bytes"] for r in fr]) / 1024)))
            rows.append(["NETCONF %s no slower than netconfd" % label, "NETCONF",
                         "vrouter %s ms, %s ms CPU; netconfd %s ms, %s ms CPU (with its sshd)" % (f(om), f(oc), f(pm), f(pc)),
                         verdict])
    nc_cpu = sum((d.vals("plain", pre, "NETCONF", op, "cpu_ms") for op in OPS3 for pre in d.pres("plain")), [])
    nc_app = sum((d.vals("plain", pre, "NETCONF", op, "cpu_app_ms") for op in OPS3 for pre in d.pres("plain")), [])
    if nc_cpu:
        rows.append(["server CPU per NETCONF operation < 0.5 ms median", "NETCONF",
                     "%s ms (application threads %s ms)" % (f(median(nc_cpu)), f(median(nc_app))),
                     _verdict(median(nc_cpu), 0.5, "ms") + _nc_floor_note(floor)])
    net = res.tables["network"]
    if net:
        nmax = max(r["vrs"] for r in net)
        ref = next((r["bytes_per_vr"] for r in net if r["iface"] == "SNMPv2c" and r["op"] == "create" and r["form"] == "single" and r["vrs"] == nmax), float("nan"))
        for iface in ("NETCONF", "NETCONF-zlib"):
            b = next((r["bytes_per_vr"] for r in net if r["iface"] == iface and r["op"] == "create" and r["form"] == "batch" and r["vrs"] == nmax), None)
            if b is not None:
                verdict = _verdict(b, ref, "B/VR")
                p = _nc_parts(res, iface)
                if p and verdict != "met":
                    session = p["total"] - p["edit"]
                    left = ref - session / p["vrs"]
                    verdict += ("; floor: the session alone, measured part by part in the same run (TCP/IP headers %d B, "
                                "SSH version and key exchange %d B, authentication %d B, channel %d B, hellos %d B, "
                                "close-session %d B: %d B), is %s B/VR over %d VRs, which leaves %s B/VR under SNMPv2c's "
                                "for the edit-config and its reply; they take %s B/VR (%s B/VR in all in that breakdown)"
                                % (p["tcp_ip"], p["ssh_kex"], p["ssh_auth"], p["ssh_channel"], p["hellos"], p["close"],
                                   session, f(session / p["vrs"]), p["vrs"], f(max(left, 0)), f(p["edit"] / p["vrs"]),
                                   f(p["total"] / p["vrs"])))
                rows.append(["NETCONF batch creation ≤ SNMPv2c bytes per VR", iface,
                             "%s B/VR for %d VRs in one edit-config (session included); SNMPv2c %s B/VR, one SET per VR"
                             % (f(b), nmax, f(ref)), verdict])
    for iface in IFACES:
        allv = sum((d.vals("plain", pre, iface, op, "cpu_ms") for op in OPS3 for pre in d.pres("plain")), [])
        app = sum((d.vals("plain", pre, iface, op, "cpu_app_ms") for op in OPS3 for pre in d.pres("plain")), [])
        jit = sum((d.vals("plain", pre, iface, op, "cpu_jit_ms") for op in OPS3 for pre in d.pres("plain")), [])
        if allv:
            verdict = _verdict(median(allv), 0.5, "ms")
            rows.append(["CPU per operation < 0.5 ms median", iface,
                         "%s ms in all; application threads %s ms, JIT %s ms (medians)" % (f(median(allv)), f(median(app)), f(median(jit))),
                         verdict + (_snmp_floor(res, iface) if verdict.startswith("missed") else "")
                         + (_nc_floor_note(floor) if iface == "NETCONF" and verdict.startswith("missed") else "")
                         + (_rest_floor(res, iface) if verdict.startswith("missed") else "")])
    rp = res.tables.get("rest_peer", [])
    for what in sorted({r["what"] for r in rp}):
        o = next((r for r in rp if r["what"] == what and r["agent"] == "vrouter"), None)
        p = next((r for r in rp if r["what"] == what and r["agent"] == "nginx"), None)
        hs = next((r for r in rp if r["what"] == what and r["agent"] == "JDK HttpServer"), None)
        if o and p:
            ratio = o["cpu_us_per_req"] / p["cpu_us_per_req"]
            floor = ""
            if hs:
                floor = ("; floor %.1f× nginx: the JDK HttpServer REST runs on, sending the same bytes from a trivial "
                         "handler with the launcher's JVM settings; vrouter %.1f× the floor"
                         % (hs["cpu_us_per_req"] / p["cpu_us_per_req"], o["cpu_us_per_req"] / hs["cpu_us_per_req"]))
            rows.append(["REST %s within 3× of nginx serving the same bytes (CPU per request)" % what, "REST-JSON",
                         "vrouter %s µs (%s req/s), nginx %s µs (%s req/s): %.1f×%s"
                         % (f(o["cpu_us_per_req"]), f(o["req_per_s"]), f(p["cpu_us_per_req"]), f(p["req_per_s"]), ratio,
                            "; JDK HttpServer %s µs (%s req/s)" % (f(hs["cpu_us_per_req"]), f(hs["req_per_s"])) if hs else ""),
                         "met" if ratio <= 3 else "missed: %.1f× nginx (limit 3×)%s" % (ratio, floor)])
    L.append(table(["target", "interface", "measured (same run)", "verdict"], rows))
    return "\n".join(L)


# Issue 22's targets of CPU per operation (ms), each interface beside its floor from the same run.
ISSUE22_CPU_MS = {"SNMPv2c": 1.0, "NETCONF": 1.0, "REST-JSON": 1.2, "RESTCONF-JSON": 1.2}


def _floor_text(res, iface, floor_nc):
    """This run's floor of an interface's CPU per operation, as a '; floor ...' clause."""
    if iface.startswith("SNMP"):
        return _snmp_floor(res, iface)
    if iface == "NETCONF":
        return _nc_floor_note(floor_nc)
    return _rest_floor(res, iface)


def issue22_section(d, res):
    """The targets of issue 22 (a service path ten times cheaper), each beside its floor from the same run. The core
    alone (a JMH benchmark, <= 100 us per operation) is bench.sh --core's, not this run's."""
    rows = []
    floor_nc = _nc_floor(res)
    for iface, limit in ISSUE22_CPU_MS.items():
        allv = sum((d.vals("plain", pre, iface, op, "cpu_ms") for op in OPS3 for pre in d.pres("plain")), [])
        app = sum((d.vals("plain", pre, iface, op, "cpu_app_ms") for op in OPS3 for pre in d.pres("plain")), [])
        if allv:
            rows.append(["server CPU per operation ≤ %s ms" % f(limit), iface,
                         "%s ms, median over create, retrieve and remove at every point (application threads %s ms)"
                         % (f(median(allv)), f(median(app))),
                         _verdict(median(allv), limit, "ms") + _floor_text(res, iface, floor_nc)])
    tp = {r["iface"]: r for r in res.tables["throughput"]}
    if "NETCONF" in tp and "SNMPv2c" in tp:
        nc, snmp = tp["NETCONF"]["creates_per_s"], tp["SNMPv2c"]["creates_per_s"]
        rows.append(["NETCONF creations with 4 clients ≥ SNMPv2c's rate", "NETCONF",
                     "%s/s; SNMPv2c %s/s in the same run" % (f(nc), f(snmp)),
                     _verdict(nc, snmp, "/s", higher_is_better=True)
                     + ("; floor %s/s: the same 4 clients against MINA SSHD answering a fixed `<ok/>`" % f(floor_nc["per_s"])
                        if floor_nc else "")])
    nb = res.tables.get("nc_bulk", [])
    o = [r["ms"] for r in nb if r["agent"] == "vrouter" and r["op"] == "create"]
    p = [r["ms"] for r in nb if r["agent"] == "netconfd" and r["op"] == "create"]
    if o and p:
        rows.append(["NETCONF commit of 1,000 entries no slower than netconfd", "NETCONF",
                     "vrouter %s ms, netconfd %s ms" % (f(median(o)), f(median(p))), _verdict(median(o), median(p), "ms")])
    rp = res.tables.get("rest_peer", [])
    ours = next((r for r in rp if r["what"] == "one VR" and r["agent"] == "vrouter"), None)
    jdk = next((r for r in rp if r["what"] == "one VR" and r["agent"] == "JDK HttpServer"), None)
    if ours and jdk:
        ratio = ours["cpu_us_per_req"] / jdk["cpu_us_per_req"]
        rows.append(["REST GET of one VR within 1.5× the JDK HttpServer's CPU sending the same bytes", "REST-JSON",
                     "vrouter %s µs, the JDK HttpServer alone %s µs per request (wrk): %.1f×"
                     % (f(ours["cpu_us_per_req"]), f(jdk["cpu_us_per_req"]), ratio),
                     "met" if ratio <= 1.5 else "missed: %.1f× (limit 1.5×)" % ratio])
    readme = next((r for r in res.tables.get("footprint", []) if r["server"] == "bin/vrouter"), None)
    rf = readme and next((r for r in res.tables.get("rss_floor", []) if r["server"] == readme["server"]), None)
    if rf:
        above = (readme["rss_mixed_kb"] - rf["rss_kb"]) / 1024
        rows.append(["vrouter's own memory above the libraries' floor ≤ 5 MB", "all",
                     "%s MB (the server after the mixed workload %s MB, the floor %s MB)"
                     % (f(above), f(readme["rss_mixed_kb"] / 1024), f(rf["rss_kb"] / 1024)),
                     _verdict(above, 5.0, "MB")])
    if not rows:
        return ""
    return ("\n## Targets of issue 22: the service path, each beside its floor in the same run\n\n"
            "The core alone (create, change, remove and read of one VR through `apply`, ≤ 100 µs of CPU each) is "
            "measured by `bench.sh --core` (a JMH benchmark beside the fsync floor; ADR 0004), not in this run.\n\n"
            + table(["target", "interface", "measured (same run)", "verdict"], rows))


def footprint_section(res):
    L = []
    fp = res.tables.get("footprint", [])
    if fp:
        L.append("\n## Footprint: the whole server after a mixed workload\n")
        L.append("The server with 1,000 VRs, every interface listening, RSS (`VmRSS`) when the VRs are in, after the "
                 "mixed workload, and after 30 more GETBULK walks of vmTable (walk time and CPU per walk beside).\n\n")
        rows = [[r["server"], r["vrs"], f(r["rss_start_kb"] / 1024), f(r["rss_mixed_kb"] / 1024), f(r["rss_walks_kb"] / 1024),
                 f(r["walk_ms"]), f(r["walk_cpu_ms"]), r["threads"], int(fl(r, "classes")), f(r["heap_bytes"] / 2**20)] for r in fp]
        L.append(table(["started as", "VRs", "RSS with the VRs [MB]", "after the mixed workload [MB]", "after the walks [MB]",
                        "walk [ms]", "CPU per walk [ms]", "threads", "classes", "heap after GC [MiB]"], rows))
    rf = res.tables.get("rss_floor", [])
    if rf:
        L.append("\n**The floor** (phase 2c, `integration-tests/src/bench/floor/FootprintFloor.java`): a JVM started by "
                 "`bin/vrouter` on the server's jar, so with the product's JVM settings, that loads and initialises the "
                 "library and JDK classes the server above had loaded after the mixed workload (`jcmd VM.class_hierarchy`; "
                 "vrouter's own left out, and those made at run time cannot be loaded by name), starts idle threads up to "
                 "the server's count and holds as much live heap as the server had after a full GC, and runs no vrouter "
                 "code: what a JVM with these libraries in it costs. Where the MB of both are: the NMT table of the memory "
                 "section (`plain` and `floor`).\n\n")
        rows = [[r["server"], f(r["rss_kb"] / 1024), r["threads"], r.get("loaded", "?"), r.get("generated", "?"),
                 r.get("failed", "?"), r["vrouter_classes"], f(r["heap_held_bytes"] / 2**20)] for r in rf]
        L.append(table(["floor of", "RSS [MB]", "threads", "classes loaded", "made at run time (not loadable)",
                        "failed to load or initialise", "vrouter's own (left out)", "live heap held [MiB]"], rows))
    nb = res.tables.get("nc_bulk", [])
    if nb:
        L.append("\n**NETCONF, 1,000 entries at once**, vrouter beside yuma123's netconfd (started with `--target=candidate`, "
                 "behind OpenSSH's sshd), the same ncclient: 1,000 creations edited into the candidate, then the "
                 "`commit` (timed); a `get-config` of vmConfigTable from running; the removals, then their `commit`. "
                 "Medians of the repetitions after one warm-up; CPU of the server process (netconfd: plus its sshd "
                 "session and netconf-subsystem). The floor (phase 6): `NetconfFloor`, MINA SSHD as vrouter sets it "
                 "up, answering the get-config with vrouter's bytes for it, made once, in the same 16 KiB chunks.\n\n")
        rows = []
        for op in ("create", "get-config", "remove"):
            for agent in ("vrouter", "netconfd", "floor"):
                sel = [r for r in nb if r["agent"] == agent and r["op"] == op]
                if sel:
                    rows.append([op if op == "get-config" else "commit of the %ss" % ("creation" if op == "create" else "removal"),
                                 "floor: MINA SSHD, fixed reply" if agent == "floor" else agent,
                                 f(median([r["edit_ms"] for r in sel])) if op != "get-config" else "–",
                                 f(median([r["ms"] for r in sel])), f(median([r["cpu_ms"] for r in sel])),
                                 f(median([r["cpu_ssh_ms"] for r in sel])), f(median([r["bytes"] for r in sel]) / 1024) if op == "get-config" else "–"])
        L.append(table(["operation", "agent", "edit-config [ms]", "time [ms]", "CPU [ms]", "sshd+subsystem CPU [ms]", "reply [KiB]"], rows))
    cp = res.tables.get("compression", [])
    if cp:
        L.append("\n**SSH compression on NETCONF** (seed 001 measured NETCONF's bytes with and without; the paper planned "
                 "zlib): bytes on the wire (both directions, session included) and time, ncclient with and without "
                 "`Compression yes` (paramiko then negotiates zlib@openssh.com). Medians.\n\n")
        rows = []
        for what in sorted({r["what"] for r in cp}):
            for iface in ("NETCONF", "NETCONF-zlib"):
                sel = [r for r in cp if r["what"] == what and r["iface"] == iface and "bytes" in r]
                if sel:
                    b = median([r["bytes"] for r in sel])
                    rows.append([what, iface, f(median([r["ms"] for r in sel])), "%d" % b, f(b / max(sel[0]["vrs"], 1))])
        L.append(table(["operation", "client", "time [ms]", "bytes", "bytes per VR"], rows))
    rp = res.tables.get("rest_peer", [])
    if rp:
        L.append("\n**REST reads beside nginx** sending the same bytes as a static file (nginx-light, one process, no "
                 "access log), and beside the floor: the JDK HttpServer that REST runs on, sending the same bytes from "
                 "a trivial handler with a Content-Length (`FloorServer.java`, started through `bin/vrouter`, so with "
                 "the product's JVM settings); `wrk`, 1 thread, 4 connections, the same duration for each; CPU of each "
                 "server process per request (all its threads; the JIT's share apart).\n\n")
        rows = [[r["what"], r["agent"], r["bytes"], r["requests"], f(r["req_per_s"]), f(r["cpu_us_per_req"]),
                 f(r["cpu_jit_us_per_req"]) if r["agent"] != "nginx" else "–", r["errors"]] for r in rp]
        L.append(table(["read", "server", "body [bytes]", "requests", "requests/s", "CPU per request [µs]",
                        "of which JIT [µs]", "non-2xx"], rows))
    nmt = res.tables.get("nmt", [])
    return "\n".join(L)
