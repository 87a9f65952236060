"""RESTCONF beside REST (issue 14), in one short run of its own:

    python3 -m vrbench restconf [--quick] --out DIR --jar vr-server/target/vrouter.jar --launcher bin/vrouter

One server (simulated driver, no latency) as the README starts it. For REST-JSON (the baseline),
RESTCONF-JSON and RESTCONF-XML: create -> start -> retrieve -> remove cycles of one VR (reply and
completion times, server CPU per operation), bytes on the wire of one VR's creation, retrieval and
removal (a connection each, as curl) and of a batch of 64 (REST's batch, RESTCONF's YANG Patch), and a
list of 10,000 VRs. Medians, and ratios against REST-JSON of the same run (restconf.md, restconf.json).
The full report (bench.sh without options) runs the RESTCONF clients in every phase too.
"""
import json
import os
import shutil
import time

from . import clients as C
from . import phases
from .phases import OPS, _cycle
from .server import Server
from .util import CpuMeter, log, median, write_results

BASELINE = "REST-JSON"


def _clients(server, notify=True):
    return [C.RestClient(server, None, notify, "json"), C.RestconfClient(server, None, notify, "json"),
            C.RestconfClient(server, None, notify, "xml")]


def cycles(server, n, warmup, rows):
    cpu = CpuMeter(server.pid)
    idx = 1
    for client in _clients(server):
        client.open()
        try:
            for c in range(warmup + n):
                def row(op, reply, done, cpu_ms, rss, split, c=c, client=client):
                    if c >= warmup:
                        rows.append(dict(iface=client.name, op=op, reply_ms=reply, done_ms=done, cpu_ms=cpu_ms))
                _cycle(client, idx, cpu, row)
                idx += 1
        finally:
            client.close()
        log("  restconf cycles: %s, %d cycles" % (client.name, n))


def network(server, workdir, rows, batch=64):
    res = phases.Results()
    phases.network(res, server, [1, batch], workdir, clients=_clients(server, notify=False))
    rows.extend(res.tables["network"])


def list_all(server, total, reps, rows):
    server.populate(total, chunk=1000)
    for client in _clients(server, notify=False):
        for r in range(reps):
            cpu = CpuMeter(server.pid)
            t0 = time.perf_counter()
            n = client.list_all()
            rows.append(dict(iface=client.name, rep=r, ms=(time.perf_counter() - t0) * 1000, rows=n,
                             cpu_ms=cpu.sample() / 1e6))
        log("  restconf list all over %s: %.0f ms, %d VRs" % (client.name, rows[-1]["ms"], rows[-1]["rows"]))


def _load():
    """The load average (1, 5, 15 min): the machine is shared, so every figure is read against it."""
    return " ".join(open("/proc/loadavg").read().split()[:3])


def _ratio(x, base):
    return "%.2f" % (x / base) if base else "-"


def markdown(meta, cyc, net, lst):
    ifaces = [BASELINE, "RESTCONF-JSON", "RESTCONF-XML"]
    out = ["# RESTCONF beside REST (issue 14)", "",
           "%s, %d cycles after %d warm-up, commit %s, %s. Medians; ratio = RESTCONF / %s of the same run." % (
               meta["started"], meta["cycles"], meta["warmup"], meta["commit"], meta["machine"], BASELINE), "",
           "Load average (1, 5, 15 min) %s. The machine may be shared (other builds and tests beside the run): "
           "absolute times are the machine's as much as the server's; the ratios, within one run, less so." % (
               "; ".join("%s %s" % kv for kv in meta["load"])), "",
           "## Cycles: one VR created, started, retrieved, removed", "",
           "A REST write answers when the VR is done (`?wait=`); a RESTCONF write answers once the change set is"
           " accepted, and is complete when its notification comes on the stream (SSE). A retrieval is REST's"
           " GET /api/v1/routers/{vmIndex}; RESTCONF's GETs of the VR's vmConfigEntry and vmEntry (two resources,"
           " as SNMP's GET and NETCONF's get read both tables).", "",
           "| op | interface | reply ms | done ms | server CPU ms/op | done ratio | CPU ratio |", "|---|---|---|---|---|---|---|"]
    for op in OPS:
        base = [r for r in cyc if r["iface"] == BASELINE and r["op"] == op]
        bd, bc = median([r["done_ms"] for r in base]), median([r["cpu_ms"] for r in base])
        for iface in ifaces:
            rs = [r for r in cyc if r["iface"] == iface and r["op"] == op]
            if not rs:
                continue
            d, c = median([r["done_ms"] for r in rs]), median([r["cpu_ms"] for r in rs])
            out.append("| %s | %s | %.2f | %.2f | %.3f | %s | %s |" % (
                op, iface, median([r["reply_ms"] for r in rs]), d, c, _ratio(d, bd), _ratio(c, bc)))
    out += ["", "## Bytes on the wire (TCP on lo, both directions)", "",
            "Per VR: a connection per VR (as curl), one or 64 VRs. Batch: one connection; REST's POST /routers/batch"
            " (REST has no batch removal: a DELETE per VR on the one connection), RESTCONF's YANG Patch of create or"
            " delete edits; the batch retrieval is REST's GET /routers, RESTCONF's GET of NEW-VMM-MIB (every VR's"
            " configuration and state).", "",
            "| form | op | VRs | interface | bytes | packets | ratio |", "|---|---|---|---|---|---|---|"]
    for form in ("single", "batch"):
        for op in ("create", "retrieve", "remove"):
            for r in sorted((r for r in net if r["form"] == form and r["op"] == op), key=lambda r: r["vrs"]):
                if r["iface"] not in ifaces:
                    continue
                base = [b["bytes"] for b in net if b["iface"] == BASELINE and b["form"] == form and b["op"] == op
                        and b["vrs"] == r["vrs"]]
                out.append("| %s | %s | %d | %s | %d | %d | %s |" % (form, op, r["vrs"], r["iface"], r["bytes"], r["packets"],
                                                                  _ratio(r["bytes"], base[0] if base else 0)))
    out += ["", "## List of %d VRs" % meta["total"], "",
            "REST: GET /api/v1/routers?limit=100000 (config and state). RESTCONF: GET of NEW-VMM-MIB (every table).", "",
            "| interface | ms | server CPU ms | VRs | ratio |", "|---|---|---|---|---|"]
    bms = median([r["ms"] for r in lst if r["iface"] == BASELINE])
    for iface in ifaces:
        rs = [r for r in lst if r["iface"] == iface]
        if rs:
            ms = median([r["ms"] for r in rs])
            out.append("| %s | %.0f | %.0f | %d | %s |" % (iface, ms, median([r["cpu_ms"] for r in rs]), rs[-1]["rows"],
                                                       _ratio(ms, bms)))
    return "\n".join(out) + "\n"


def run(args):
    quick = args.quick
    n, warmup, total, reps = (10, 20, 10000, 1) if quick else (30, 100, 10000, 3)
    out = os.path.abspath(args.out)
    work = os.path.join(out, "restconf-work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    import subprocess
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    meta = dict(started=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), cycles=n, warmup=warmup, total=total,
                commit=commit, machine="%d CPUs" % os.cpu_count())
    meta["load"] = [("at the start", _load())]
    cyc, net, lst = [], [], []
    server = Server(args.jar, work, "restconf", sim="none", launcher=args.launcher).start()
    try:
        cycles(server, n, warmup, cyc)
        meta["load"].append(("after the cycles", _load()))
        network(server, work, net)
        meta["load"].append(("after the bytes", _load()))
        list_all(server, total, reps, lst)
        meta["load"].append(("at the end", _load()))
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    log("done: %s" % write_results(out, "restconf", dict(meta=meta, cycles=cyc, network=net, list_all=lst),
                                   markdown(meta, cyc, net, lst)))
    return 0
