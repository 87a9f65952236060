"""The netns driver's benchmark (issue 10): real VRs as Linux namespaces on this host.

    python3 -m vrbench netns [--quick] --out DIR --jar vr-server/target/vrouter.jar

Per VR, create-to-running and remove-to-gone over REST (each request waits until the host is done)
for the kernel template and the bird template (BIRD 2 started in the VR); then 1,000 VRs created in
one REST batch: the time until all run, the host memory they take (MemAvailable before and after),
vrouter's RSS, a full SNMP walk and a REST list of them, and their removal. Beside the paper's
XenServer times (seed 000: 1.02 s to create, 3.4 s to remove a VR). Needs root; every namespace,
bridge and process it makes has a prefix of its own and is removed before it exits.
"""
import json
import os
import random
import string
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from .server import LEAN_FLAGS, Server
from .util import log, median, write_results

PAPER = {"create_s": 1.02, "remove_s": 3.4}


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.99 * (len(xs) - 1))))] if xs else float("nan")


def mem_available_kb():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1])
    return 0


def vr_body(index, template, bridges, n_ifaces=2):
    ifaces = []
    for n in range(n_ifaces):
        ifaces.append({"vmNetworkConfigParent": bridges[(index + n) % len(bridges)],
                       "vmNetworkConfigAddress": "198.51.100.%d" % (1 + (index * 2 + n) % 250),
                       "vmNetworkConfigPrefixLength": 24})
    body = {"vmIndex": index, "vmName": "bench-%d" % index, "vmNetworkConfigTable": ifaces}
    if template:
        body["vmConfigTemplate"] = template
    return body


def cycles(server, template, n, bridges, first):
    """n times: create one VR (REST, waiting until it runs) and remove it (waiting until it is gone)."""
    create, remove = [], []
    for i in range(n):
        index = first + i
        t0 = time.perf_counter()
        status, body = server.request("POST", "/api/v1/routers?wait=60s", json.dumps(vr_body(index, template, bridges)))
        t1 = time.perf_counter()
        if status != 201:
            raise RuntimeError("create %d: %s %s" % (index, status, body[:300]))
        status, body = server.request("DELETE", "/api/v1/routers/%d?wait=60s" % index)
        t2 = time.perf_counter()
        if status != 204:
            raise RuntimeError("remove %d: %s %s" % (index, status, body[:300]))
        create.append((t1 - t0) * 1000)
        remove.append((t2 - t1) * 1000)
    return {"template": template or "kernel", "n": n, "create_ms": create, "remove_ms": remove,
            "create_median_ms": median(create), "create_p99_ms": p99(create),
            "remove_median_ms": median(remove), "remove_p99_ms": p99(remove)}


def batch(server, count, bridges, first):
    """count VRs with one interface each in one REST batch; the host's memory, vrouter's RSS, a walk, a list."""
    out = {"count": count}
    subprocess.run(["sync"])
    mem0 = mem_available_kb()
    rss0 = server.rss_kb()
    vrs = [vr_body(first + i, None, bridges, n_ifaces=1) for i in range(count)]
    t0 = time.perf_counter()
    status, body = server.request("POST", "/api/v1/routers/batch?wait=600s", json.dumps({"virtualRouter": vrs}),
                                  timeout=900)
    out["create_all_s"] = time.perf_counter() - t0
    if status not in (200, 201):
        raise RuntimeError("batch: %s %s" % (status, body[:300]))
    status, body = server.request("GET", "/api/v1/routers?operState=running&limit=1")
    out["running"] = json.loads(body)["total"] if status == 200 else None
    time.sleep(2)  # the namespace reads that the creation's events queued
    out["host_mem_per_vr_kb"] = (mem0 - mem_available_kb()) / count
    out["vrouter_rss_mb"] = server.rss_kb() / 1024
    out["vrouter_rss_growth_mb"] = (server.rss_kb() - rss0) / 1024
    cpu0 = cpu_s(server.pid)
    t0 = time.perf_counter()
    walk = subprocess.run(["snmpbulkwalk", "-v2c", "-c", "public", "-On", "-Cr50", "-t", "30", "-r", "0",
                           "udp:127.0.0.1:%d" % server.snmp_port, "1.3.6.1.3.7666.1"], capture_output=True, text=True)
    out["snmp_walk_s"] = time.perf_counter() - t0
    out["snmp_walk_varbinds"] = len(walk.stdout.splitlines())
    out["snmp_walk_server_cpu_s"] = cpu_s(server.pid) - cpu0
    t0 = time.perf_counter()
    status, body = server.request("GET", "/api/v1/routers?limit=%d" % count)
    out["rest_list_s"] = time.perf_counter() - t0
    out["rest_list_bytes"] = len(body)
    out["rest_list_total"] = json.loads(body)["total"] if status == 200 else None
    t0 = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(lambda i: server.request("DELETE", "/api/v1/routers/%d?wait=600s" % (first + i), timeout=900)[0],
                              range(count)))
    out["remove_all_s"] = time.perf_counter() - t0
    out["removed"] = sum(1 for c in codes if c == 204)
    return out


def cpu_s(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def leftovers(prefix, run_dir):
    left = [n for n in os.listdir("/run/netns") if n.startswith(prefix)] if os.path.isdir("/run/netns") else []
    left += [n for n in os.listdir("/sys/class/net") if n.startswith(prefix)]
    left += os.listdir(run_dir) if os.path.isdir(run_dir) else []
    return left


def run(args):
    quick = args.quick
    out = os.path.abspath(args.out)
    work = os.path.join(out, "netns-work")
    os.makedirs(work, exist_ok=True)
    prefix = "b" + "".join(random.choice(string.ascii_lowercase) for _ in range(3))
    run_dir = os.path.join(work, "run")
    conf = os.path.join(work, "netns.properties")
    with open(conf, "w") as f:
        f.write("netns.prefix = %s\nnetns.run-dir = %s\n" % (prefix, run_dir))
        # A netns VR's CPUs and memory are cgroup ceilings, not reservations: let 1,000 share this host.
        f.write("capacity.cpu-overcommit = 1000\ncapacity.memory-overcommit = 1000\n")
    bridges = [prefix + "br%d" % i for i in range(4)]
    load = open("/proc/loadavg").read().split()[:3]
    result = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "quick": quick, "prefix": prefix,
              "nproc": os.cpu_count(), "loadavg_at_start": " ".join(load), "paper": PAPER,
              "linux": open("/proc/sys/kernel/osrelease").read().strip()}
    # As the README starts it (bin/vrouter, its own JVM settings) when given the launcher.
    server = Server(args.jar, work, "netns", jvm_flags=[] if args.launcher else LEAN_FLAGS, launcher=args.launcher,
                    extra_args=["--driver", "netns", "--config", conf])
    # The host's networks exist before the VRs, as on a router: the VRs' ports come and go, the bridges stay.
    for br in bridges:
        subprocess.run(["ip", "link", "add", "name", br, "type", "bridge"], check=True)
        subprocess.run(["ip", "link", "set", "dev", br, "up"], check=True)
    try:
        server.start()
        result["server"] = " ".join(server.cmd[:2])
        n = 20 if quick else 100
        # warm-up: the JVM's first requests are slow (class loading, JIT), not the driver
        cycles(server, None, 10, bridges, 9000)
        log("netns: %d create/remove cycles, kernel template" % n)
        result["kernel"] = cycles(server, None, n, bridges, 10000)
        log("netns: %d create/remove cycles, bird template" % n)
        result["bird"] = cycles(server, "bird", n, bridges, 20000)
        count = 200 if quick else 1000
        log("netns: %d VRs in one batch" % count)
        result["batch"] = batch(server, count, bridges, 30000)
    finally:
        server.stop()
        for br in bridges:
            subprocess.run(["ip", "link", "del", "dev", br])
        result["leftovers"] = leftovers(prefix, run_dir)
        result["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        write_results(out, "netns", result, markdown(result))
    log("netns: done, %s" % os.path.join(out, "netns.md"))
    return 0 if not result["leftovers"] else 1


def markdown(r):
    lines = ["## The netns driver: real VRs on Linux (issue 10)", "",
             "Run %s on %s CPUs, kernel %s, load average %s at the start; the server started as %s."
             % (r["started"], r["nproc"], r["linux"], r["loadavg_at_start"], r.get("server", "?")), "",
             "| per VR, over REST (waiting until done) | median | p99 | XenServer in the paper |",
             "|---|---|---|---|"]
    for t in ("kernel", "bird"):
        if t in r:
            c = r[t]
            lines.append("| create-to-running, `%s` template (%d VRs) | %.1f ms | %.1f ms | %.2f s |"
                         % (t, c["n"], c["create_median_ms"], c["create_p99_ms"], r["paper"]["create_s"]))
            lines.append("| remove-to-gone, `%s` template | %.1f ms | %.1f ms | %.1f s |"
                         % (t, c["remove_median_ms"], c["remove_p99_ms"], r["paper"]["remove_s"]))
    if "batch" in r:
        b = r["batch"]
        lines += ["", "| %d VRs, one interface each, in one REST batch | |" % b["count"], "|---|---|",
                  "| created and running | %.1f s (%s running) |" % (b["create_all_s"], b["running"]),
                  "| host memory per VR (MemAvailable) | %.0f KiB |" % b["host_mem_per_vr_kb"],
                  "| vrouter RSS with them | %.0f MB (+%.0f MB) |" % (b["vrouter_rss_mb"], b["vrouter_rss_growth_mb"]),
                  "| SNMP walk of NEW-VMM-MIB (snmpbulkwalk, 50 per PDU) | %.2f s, %d varbinds, %.2f s of server CPU |"
                  % (b["snmp_walk_s"], b["snmp_walk_varbinds"], b["snmp_walk_server_cpu_s"]),
                  "| REST list of all | %.2f s, %d bytes |" % (b["rest_list_s"], b["rest_list_bytes"]),
                  "| all removed (8 clients, DELETE each) | %.1f s (%d removed) |" % (b["remove_all_s"], b["removed"])]
    lines += ["", "Left on the host afterwards: %s." % (", ".join(r["leftovers"]) or "nothing"), ""]
    return "\n".join(lines)
