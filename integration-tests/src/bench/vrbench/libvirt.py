"""The libvirt driver's benchmark (issue 26): VRs as QEMU virtual machines booting vrouter's appliance.

    python3 -m vrbench libvirt [--quick] --out DIR --jar vr-server/target/vrouter.jar --repo .

The server runs with --driver libvirt and libvirt.accel auto: the driver tries KVM and falls back to TCG,
and the figures are of what it chose (when it chose KVM, the server is started again with TCG and both are
measured, reported apart). Each VR (template bird, 256 MiB, one vCPU) has two interfaces on two bridges of
its own, with a host namespace on each; every bridge and host exists before the VRs, as a router's networks
do. From the request that creates the VRs (REST, answered at once):

- create-to-running: until REST shows the VR running (operState polled every 50 ms): libvirt has
  started the domain, QEMU runs, the guest is booting;
- create-to-forwarding: until the first ping from the left host answers from the right host, through
  the VR (pings every 50 ms from the moment the request is sent; the hosts' ARP retries every 100 ms).

One VR at a time (a few cycles after a warm-up one), then 20 VRs in one REST batch (one change set).
Host memory per VR: the resident set (VmRSS) of each VR's QEMU process once all forward. Beside the
paper's XenServer figures (seed 000: 1.02 to 1.12 s to create a VR). Needs root, libvirtd with QEMU
(.ci/install-test-deps starts it) and what appliance/build.sh needs; every bridge, namespace, domain and
file it makes has a prefix of its own and is removed before it exits.
"""
import json
import os
import random
import re
import shutil
import string
import subprocess
import tempfile
import threading
import time

from . import netns
from .server import Server
from .util import log, median, rss_kb, write_results

PAPER = {"create_s_min": 1.02, "create_s_max": 1.12, "remove_s": 3.4}
BATCH = 20
POLL_S = 0.05
DEADLINE_S = 600


def sh(*argv, check=True):
    return subprocess.run(list(argv), check=check, capture_output=True, text=True)


class Slot:
    """VR slot s: bridges PREFIXl<s> and PREFIXr<s>, a host on each, the /29s 192.0.2.8s and 198.51.100.8s."""

    def __init__(self, prefix, s):
        self.s = s
        self.left, self.right = "%sl%d" % (prefix, s), "%sr%d" % (prefix, s)
        self.left_ns, self.right_ns = "%shl%d" % (prefix, s), "%shr%d" % (prefix, s)
        self.vr_left, self.vr_right = "192.0.2.%d" % (8 * s + 1), "198.51.100.%d" % (8 * s + 1)
        self.host_left, self.host_right = "192.0.2.%d" % (8 * s + 2), "198.51.100.%d" % (8 * s + 2)

    def make(self, firewall):
        for br, ns, addr, gw in ((self.left, self.left_ns, self.host_left, self.vr_left),
                                 (self.right, self.right_ns, self.host_right, self.vr_right)):
            sh("ip", "link", "add", "name", br, "type", "bridge")
            sh("ip", "link", "set", "dev", br, "up")
            firewall.allow(br)
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "add", ns + "x", "type", "veth", "peer", "name", "eth0", "netns", ns)
            sh("ip", "link", "set", "dev", ns + "x", "master", br, "up")
            sh("ip", "-n", ns, "addr", "add", addr + "/29", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "dev", "eth0", "up")
            sh("ip", "-n", ns, "link", "set", "dev", "lo", "up")
            sh("ip", "-n", ns, "route", "add", "default", "via", gw)
            # The gateway's address asked again every 100 ms (not every second) while it does not answer.
            sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.neigh.eth0.retrans_time_ms=100")

    def remove(self):
        for br, ns in ((self.left, self.left_ns), (self.right, self.right_ns)):
            sh("ip", "link", "del", "dev", ns + "x", check=False)
            sh("ip", "netns", "del", ns, check=False)
            sh("ip", "link", "del", "dev", br, check=False)

    def forget_neighbours(self):
        """The last VR's MAC, which the hosts may still hold for their gateway, forgotten."""
        for ns in (self.left_ns, self.right_ns):
            sh("ip", "-n", ns, "neigh", "flush", "all")

    def body(self, index):
        return {"vmIndex": index, "vmName": "bench-%d" % index, "vmConfigTemplate": "bird", "vmConfigMemory": 256,
                "vmNetworkConfigTable": [
                    {"vmNetworkConfigParent": self.left, "vmNetworkConfigAddress": self.vr_left, "vmNetworkConfigPrefixLength": 29},
                    {"vmNetworkConfigParent": self.right, "vmNetworkConfigAddress": self.vr_right, "vmNetworkConfigPrefixLength": 29}]}

    def forwards_at(self, t_end, stop):
        """When (perf_counter) a ping from the left host first came back from the right host, or None."""
        while time.perf_counter() < t_end and not stop.is_set():
            # Up to 20 echo requests in a second; ping ends at the first reply or error (an unanswered ARP).
            r = subprocess.run(["ip", "netns", "exec", self.left_ns, "ping", "-n", "-q", "-c", "1", "-i", str(POLL_S),
                                "-w", "1", self.host_right], capture_output=True)
            if r.returncode == 0:
                return time.perf_counter()
            time.sleep(POLL_S)
        return None


class Firewall:
    """Where br_netfilter hands bridged traffic to iptables and Docker's FORWARD policy drops it, one rule per bridge."""

    def __init__(self):
        self.rules = []
        try:
            self.on = open("/proc/sys/net/bridge/bridge-nf-call-iptables").read().strip() == "1"
        except OSError:
            self.on = False
        self.chain = "DOCKER-USER" if sh("iptables", "-n", "-L", "DOCKER-USER", check=False).returncode == 0 else "FORWARD"

    def allow(self, br):
        if self.on:
            rule = [self.chain, "-i", br, "-o", br, "-j", "ACCEPT"]
            sh("iptables", "-I", *rule)
            self.rules.append(rule)

    def close(self):
        for rule in self.rules:
            sh("iptables", "-D", *rule, check=False)


def qemu_rss_kb(prefix, index):
    """VmRSS of a VR's QEMU process, from libvirt's pid file of its domain."""
    try:
        return rss_kb(int(open("/run/libvirt/qemu/%s%d.pid" % (prefix, index)).read().strip()))
    except (OSError, ValueError):
        return None


def trial(server, prefix, slots, first, batch):
    """Creates a VR on each slot (one request: a batch, or one POST) and times each to running and to forwarding."""
    indexes = [first + i for i in range(len(slots))]
    bodies = [slot.body(i) for slot, i in zip(slots, indexes)]
    forwarding, stop = {}, threading.Event()
    for slot in slots:
        slot.forget_neighbours()
    t0 = time.perf_counter()
    t_end = t0 + DEADLINE_S

    def ping(slot, index):
        forwarding[index] = slot.forwards_at(t_end, stop)
    threads = [threading.Thread(target=ping, args=(s, i), daemon=True) for s, i in zip(slots, indexes)]
    for t in threads:
        t.start()
    if batch:
        status, body = server.request("POST", "/api/v1/routers/batch", json.dumps({"virtualRouter": bodies}))
    else:
        status, body = server.request("POST", "/api/v1/routers", json.dumps(bodies[0]))
    t_answer = time.perf_counter() - t0
    if status not in (201, 202):
        stop.set()
        raise RuntimeError("create %s: %s %s" % (indexes, status, body[:300]))
    running = {}
    while len(running) < len(indexes) and time.perf_counter() < t_end:
        status, body = server.request("GET", "/api/v1/routers?limit=1000")
        now = time.perf_counter()
        for vr in json.loads(body).get("virtualRouter", []):
            i = vr["vmIndex"]
            state = vr.get("vmEntry", {}).get("vmOperState")
            if i in indexes and i not in running and state == "running":
                running[i] = now - t0
            if i in indexes and state in ("crashed", "failed"):
                stop.set()
                raise RuntimeError("VR %d %s: %s" % (i, state, vr.get("vmEntry", {}).get("vmOperStateReason")))
        time.sleep(POLL_S)
    for t in threads:
        t.join()
    if len(running) < len(indexes) or any(forwarding[i] is None for i in indexes):
        raise RuntimeError("not all running and forwarding within %d s: running %s, forwarding %s"
                           % (DEADLINE_S, sorted(running), sorted(i for i in indexes if forwarding[i])))
    to_forwarding = {i: forwarding[i] - t0 for i in indexes}
    rss = [qemu_rss_kb(prefix, i) for i in indexes]
    return {"vrs": len(indexes), "answer_s": t_answer, "running_s": [running[i] for i in indexes],
            "forwarding_s": [to_forwarding[i] for i in indexes], "all_running_s": max(running.values()),
            "all_forwarding_s": max(to_forwarding.values()), "qemu_rss_kb": rss}


def remove(server, indexes):
    """Removes the VRs (a DELETE each, waiting), in parallel; the time until all are gone."""
    t0 = time.perf_counter()
    codes = []

    def delete(i):
        codes.append(server.request("DELETE", "/api/v1/routers/%d?wait=110s" % i, timeout=180)[0])
    threads = [threading.Thread(target=delete, args=(i,)) for i in indexes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if any(c != 204 for c in codes):
        raise RuntimeError("remove %s: %s" % (indexes, codes))
    return time.perf_counter() - t0


def remove_left(server):
    """After a failure: the VRs the run left, removed through the server while it runs."""
    if not server.proc or server.proc.poll() is not None:
        return
    try:
        status, body = server.request("GET", "/api/v1/routers?limit=1000")
        for vr in json.loads(body).get("virtualRouter", []) if status == 200 else []:
            server.request("DELETE", "/api/v1/routers/%d?wait=110s" % vr["vmIndex"], timeout=180)
    except (OSError, ValueError) as e:
        log("libvirt: could not remove what the run left: %s" % e)


def measure(server, prefix, slots, cycles, accel, first):
    """One VR at a time (a warm-up cycle first, not counted), then BATCH in one REST batch."""
    out = {"accel": accel}
    singles, removals = [], []
    for c in range(cycles + 1):
        index = first + c
        log("libvirt (%s): one VR, cycle %d of %d" % (accel, c, cycles))
        t = trial(server, prefix, slots[:1], index, batch=False)
        gone = remove(server, [index])
        if c > 0:
            singles.append(t)
            removals.append(gone)
    out["single"] = singles
    out["single_remove_s"] = removals
    log("libvirt (%s): %d VRs in one batch" % (accel, BATCH))
    mem0 = netns.mem_available_kb()
    b = trial(server, prefix, slots[:BATCH], first + 100, batch=True)
    b["host_mem_per_vr_kb"] = (mem0 - netns.mem_available_kb()) / BATCH
    b["remove_all_s"] = remove(server, [first + 100 + i for i in range(BATCH)])
    out["batch"] = b
    return out


def hypervisor(server):
    status, body = server.request("GET", "/api/v1/hypervisor")
    return json.loads(body).get("vmHvSoftware", "?") if status == 200 else "?"


def accel_line(server):
    """The driver's log line that says which accelerator it chose, and why."""
    for line in open(server.log_path, errors="replace"):
        if "libvirt driver:" in line and ("KVM" in line or "TCG" in line):
            return line.strip().split(" - ", 1)[-1]
    return "?"


def leftovers(prefix, run_dir):
    """The netns benchmark's (namespaces, links, files of the run directory), and domains."""
    return netns.leftovers(prefix, run_dir) + [n for n in sh("virsh", "-c", "qemu:///system", "list", "--all", "--name",
                                                            check=False).stdout.split() if n.startswith(prefix)]


def run(args):
    quick = args.quick
    out = os.path.abspath(args.out)
    work = os.path.join(out, "libvirt-work")
    os.makedirs(work, exist_ok=True)
    if sh("virsh", "-c", "qemu:///system", "version", check=False).returncode != 0:
        raise SystemExit("libvirtd does not answer at qemu:///system (.ci/install-test-deps starts it)")
    prefix = "b" + "".join(random.choice(string.ascii_lowercase) for _ in range(3))
    # QEMU runs as libvirt's user: every directory on the path to the appliance and the disks must let it through.
    host_dir = tempfile.mkdtemp(prefix="vrouter-bench-libvirt-", dir="/var/tmp")
    os.chmod(host_dir, 0o755)
    images, run_dir = os.path.join(host_dir, "images"), os.path.join(host_dir, "run")
    log("libvirt: building the appliance into %s" % images)
    subprocess.run([os.path.join(args.repo, "vr-libvirt-driver", "appliance", "build.sh"), images], check=True,
                   stdout=subprocess.DEVNULL)
    cycles = 2 if quick else 5
    result = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "quick": quick, "prefix": prefix,
              "nproc": os.cpu_count(), "loadavg_at_start": " ".join(open("/proc/loadavg").read().split()[:3]),
              "paper": PAPER, "linux": open("/proc/sys/kernel/osrelease").read().strip(), "cycles": cycles, "batch": BATCH,
              "qemu": sh("qemu-system-x86_64", "--version").stdout.splitlines()[0],
              "libvirt": sh("virsh", "-c", "qemu:///system", "version", "--daemon").stdout.strip().replace("\n", "; "),
              "runs": []}
    firewall = Firewall()
    slots = [Slot(prefix, s) for s in range(BATCH)]
    servers = []

    def server_with(accel):
        conf = os.path.join(work, "libvirt-%s.properties" % accel)
        with open(conf, "w") as f:
            f.write("libvirt.prefix = %s-\nlibvirt.image-dir = %s\nlibvirt.run-dir = %s\nlibvirt.accel = %s\n"
                    % (prefix, images, run_dir, accel))
            # 20 VMs of one vCPU on a small host: more vCPUs than its CPUs times the default overcommit of 4
            f.write("capacity.cpu-overcommit = 16\n")
        s = Server(args.jar, work, "libvirt-" + accel, launcher=args.launcher, extra_args=["--driver", "libvirt", "--config", conf])
        servers.append(s)
        return s.start()
    try:
        for slot in slots:
            slot.make(firewall)
        server = server_with("auto")
        result["server"] = " ".join(server.cmd[:2])
        result["auto"] = {"vmHvSoftware": hypervisor(server), "why": accel_line(server)}
        chosen = "kvm" if "KVM" in result["auto"]["vmHvSoftware"] else "tcg"
        log("libvirt: the driver chose %s: %s" % (chosen, result["auto"]["why"]))
        result["runs"].append(measure(server, prefix + "-", slots, cycles, chosen, 10000))
        if chosen == "kvm":
            server.stop()
            result["runs"].append(measure(server_with("tcg"), prefix + "-", slots, cycles, "tcg", 20000))
    finally:
        for s in servers:
            remove_left(s)
            s.stop()
        for slot in slots:
            slot.remove()
        firewall.close()
        result["leftovers"] = leftovers(prefix, run_dir)
        shutil.rmtree(host_dir, ignore_errors=True)
        result["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        result["loadavg_at_end"] = " ".join(open("/proc/loadavg").read().split()[:3])
        write_results(out, "libvirt", result, markdown(result))
    log("libvirt: done, %s" % os.path.join(out, "libvirt.md"))
    return 0 if not result["leftovers"] else 1


def markdown(r):
    paper = "%.2f to %.2f s" % (r["paper"]["create_s_min"], r["paper"]["create_s_max"])
    lines = ["## The libvirt driver: VRs as QEMU virtual machines (issue 26)", "",
             "Run %s to %s on %s CPUs, kernel %s, %s, libvirt %s; load average %s at the start, %s at the end; "
             "the server started as %s with `--driver libvirt`. The driver's choice of accelerator (`libvirt.accel = auto`): "
             "%s (`%s`)." % (r["started"], r.get("finished", "?"), r["nproc"], r["linux"], r["qemu"], r["libvirt"],
                             r["loadavg_at_start"], r.get("loadavg_at_end", "?"), r.get("server", "?"),
                             r.get("auto", {}).get("vmHvSoftware", "?"), re.sub(r"\s+", " ", r.get("auto", {}).get("why", "?"))), ""]
    for run in r["runs"]:
        s = run["single"]
        running = [t["running_s"][0] for t in s]
        forwarding = [t["forwarding_s"][0] for t in s]
        b = run["batch"]
        rss = [k for k in b["qemu_rss_kb"] if k]
        single_rss = [t["qemu_rss_kb"][0] for t in s if t["qemu_rss_kb"][0]]
        lines += ["### %s" % run["accel"].upper(), "",
                  "| one VR at a time (%d cycles after a warm-up one) | median | max | XenServer in the paper |" % len(s),
                  "|---|---|---|---|",
                  "| create-to-running (REST shows it running: the domain started) | %.2f s | %.2f s | %s |"
                  % (median(running), max(running), paper),
                  "| create-to-forwarding (first ping through it) | %.2f s | %.2f s | |" % (median(forwarding), max(forwarding)),
                  "| remove-to-gone (REST, waiting) | %.2f s | %.2f s | %.1f s |"
                  % (median(run["single_remove_s"]), max(run["single_remove_s"]), r["paper"]["remove_s"]),
                  "| QEMU resident set per VR, once forwarding | %.0f MiB | %.0f MiB | |"
                  % (median(single_rss) / 1024, max(single_rss) / 1024),
                  "",
                  "| %d VRs in one REST batch (one change set) | |" % b["vrs"], "|---|---|",
                  "| the batch answered (202) | %.2f s |" % b["answer_s"],
                  "| all running | %.1f s (each: median %.1f s, first %.1f s) |"
                  % (b["all_running_s"], median(b["running_s"]), min(b["running_s"])),
                  "| all forwarding | %.1f s (each: median %.1f s, first %.1f s) |"
                  % (b["all_forwarding_s"], median(b["forwarding_s"]), min(b["forwarding_s"])),
                  "| QEMU resident set per VR | median %.0f MiB, max %.0f MiB, %.0f MiB for the %d |"
                  % (median(rss) / 1024, max(rss) / 1024, sum(rss) / 1024, len(rss)),
                  "| host memory per VR (MemAvailable before and after) | %.0f MiB |" % (b["host_mem_per_vr_kb"] / 1024),
                  "| all removed (a DELETE each, in parallel) | %.1f s |" % b["remove_all_s"], ""]
    if not any(run["accel"] == "kvm" for run in r["runs"]):
        lines += ["No KVM figures: KVM does not run guests on this machine (the driver's own test at start-up, quoted above), so every figure is TCG's.", ""]
    lines += ["Left on the host afterwards: %s." % (", ".join(r["leftovers"]) or "nothing"), ""]
    return "\n".join(lines)
