"""Links' benchmark (issue 33): seed 004's forwarding method on this host's kernel.

    python3 -m vrbench links [--quick] --out DIR --jar vr-server/target/vrouter.jar --launcher bin/vrouter --repo .

Four paths of two routers each between a generator (TG) and a receiver (TR), built once and measured
in interleaved rounds, so that each round compares them under the same load:

- native: four namespaces on veths, made by hand, two of them routing (the limit, seed 004's Native Linux);
- peer: four netns VRs (kernel template) of one vrouter on peer links, TG and TR being VRs too;
- bridge: two VRs on host bridges with TG and TR host namespaces on the outer bridges (the path before links);
- vxlan: two vrouter servers, each in a namespace of its own as if on its own router (the integration tests'
  src/test/sh/in-router-netns.sh), joined by an underlay veth; on each a VR on a peer link to TG or TR and
  a VXLAN link to the other router's.

Per path and round: 64-byte frames (UDP, as fast as trafgen sends them from one process) counted by
TR's interface, and one TCP stream's rate (iperf3). Then the time to create a link (both ends added to two running VRs until
both read up) and the CPU the delay probe takes per link end. Needs root, iperf3 and BIRD-free VRs only;
every namespace, bridge and process is removed before it exits, and traffic stays in the namespaces.
"""
import json
import os
import random
import signal
import string
import subprocess
import time

from . import netns
from .server import Server
from .util import log, median, write_results

FRAME = 64
UDP_PAYLOAD = FRAME - 14 - 20 - 8 - 4  # Ethernet header, IPv4, UDP, FCS
PATHS = ["native", "peer", "bridge", "vxlan"]
TARGET = 0.95


def sh(*argv, check=True):
    return subprocess.run(list(argv), check=check, capture_output=True, text=True)


def on_cpu_ns(pid):
    return int(open("/proc/%d/schedstat" % pid).read().split()[0])


class Bench:
    def __init__(self, args, mode="links"):
        self.args = args
        self.prefix = mode[0] + "".join(random.choice(string.ascii_lowercase) for _ in range(3))
        self.work = os.path.join(os.path.abspath(args.out), mode + "-work")
        os.makedirs(self.work, exist_ok=True)
        self.netns, self.links, self.bridges, self.servers = [], [], [], []
        self.firewall = []
        # TG and TR of each path: namespace, and TR's address.
        self.ends = {}

    # ------------------------------------------------------------ the host

    def add_ns(self, name):
        sh("ip", "netns", "add", name)
        self.netns.append(name)
        sh("ip", "-n", name, "link", "set", "dev", "lo", "up")
        return name

    def veth(self, a, a_dev, b, b_dev):
        sh("ip", "link", "add", a_dev, "netns", a, "type", "veth", "peer", "name", b_dev, "netns", b)
        sh("ip", "-n", a, "link", "set", "dev", a_dev, "up")
        sh("ip", "-n", b, "link", "set", "dev", b_dev, "up")

    def addr(self, ns, dev, cidr):
        sh("ip", "-n", ns, "addr", "add", cidr, "dev", dev)

    def route(self, ns, *spec):
        sh("ip", "-n", ns, "route", "add", *spec)

    def allow_bridged(self, br):
        # Docker's FORWARD policy is DROP with br_netfilter on: let this bridge's own traffic through.
        if sh("iptables", "-n", "-L", "DOCKER-USER", check=False).returncode == 0:
            rule = ["DOCKER-USER", "-i", br, "-o", br, "-j", "ACCEPT"]
            sh("iptables", "-I", *rule)
            self.firewall.append(rule)

    def server(self, name, wrapper=(), host="127.0.0.1", prefix=None, settings=()):
        conf = os.path.join(self.work, name + ".properties")
        with open(conf, "w") as f:
            f.write("netns.prefix = %s\nnetns.run-dir = %s\n" % (prefix, os.path.join(self.work, "run-" + name)))
            for line in settings:
                f.write(line + "\n")
            # A netns VR's CPUs are a cgroup ceiling, not a reservation: the paths' eight VRs share two CPUs.
            f.write("capacity.cpu-overcommit = 100\n")
            if host != "127.0.0.1":
                f.write("user.admin = operator:admin\nsnmp.community.read = public\nsnmp.community.write = private\n")
        extra = ["--driver", "netns", "--config", conf]
        if host != "127.0.0.1":
            extra += ["--bind", host]
        s = Server(self.args.jar, self.work, name, launcher=self.args.launcher, wrapper=list(wrapper), host=host,
                   extra_args=extra + ["--gnmi-port", "off"])
        self.servers.append(s)
        return s.start()

    def create(self, server, vrs):
        status, body = server.request("POST", "/api/v1/routers/batch?wait=60s", json.dumps({"virtualRouter": vrs}))
        if status not in (200, 201):
            raise RuntimeError("batch on %s: %s %s" % (server.name, status, body[:400]))

    @staticmethod
    def vr(index, *ifaces):
        return {"vmIndex": index, "vmName": "links-%d" % index, "vmConfigCpuNumber": 2,
                "vmNetworkConfigTable": [dict(i, vmNetworkConfigIndex=n + 1) for n, i in enumerate(ifaces)]}

    @staticmethod
    def peer(far_vm, far_if, cidr):
        a, p = cidr.split("/")
        return {"vmNetworkConfigLinkType": "peer", "vmNetworkConfigPeerRouter": far_vm, "vmNetworkConfigPeerInterface": far_if,
                "vmNetworkConfigAddress": a, "vmNetworkConfigPrefixLength": int(p)}

    @staticmethod
    def bridged(br, cidr):
        a, p = cidr.split("/")
        return {"vmNetworkConfigParent": br, "vmNetworkConfigAddress": a, "vmNetworkConfigPrefixLength": int(p)}

    def routes(self, tg, r1, r2, tr):
        """The same addressing on every path: TG 192.0.2.2, R1-R2 203.0.113.0/30, TR 198.51.100.2."""
        self.route(tg, "default", "via", "192.0.2.1")
        self.route(tr, "default", "via", "198.51.100.1")
        self.route(r1, "198.51.100.0/30", "via", "203.0.113.2")
        self.route(r2, "192.0.2.0/30", "via", "203.0.113.1")

    # ------------------------------------------------------------ the paths

    def build_native(self):
        p = self.prefix
        tg, r1, r2, tr = (self.add_ns(p + "n" + x) for x in ("tg", "r1", "r2", "tr"))
        for r in (r1, r2):
            sh("ip", "netns", "exec", r, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
        self.veth(tg, "eth1", r1, "eth1")
        self.veth(r1, "eth2", r2, "eth1")
        self.veth(r2, "eth2", tr, "eth1")
        self.addr(tg, "eth1", "192.0.2.2/30")
        self.addr(r1, "eth1", "192.0.2.1/30")
        self.addr(r1, "eth2", "203.0.113.1/30")
        self.addr(r2, "eth1", "203.0.113.2/30")
        self.addr(r2, "eth2", "198.51.100.1/30")
        self.addr(tr, "eth1", "198.51.100.2/30")
        self.routes(tg, r1, r2, tr)
        self.ends["native"] = (tg, tr)

    def build_peer(self, server, pre):
        # VRs 1 (TG) - 2 - 3 - 4 (TR), every hop a peer link.
        self.create(server, [
            self.vr(1, self.peer(2, 1, "192.0.2.2/30")),
            self.vr(2, self.peer(1, 1, "192.0.2.1/30"), self.peer(3, 1, "203.0.113.1/30")),
            self.vr(3, self.peer(2, 2, "203.0.113.2/30"), self.peer(4, 1, "198.51.100.1/30")),
            self.vr(4, self.peer(3, 2, "198.51.100.2/30"))])
        self.routes(pre + "1", pre + "2", pre + "3", pre + "4")
        self.ends["peer"] = (pre + "1", pre + "4")

    def build_bridge(self, server, pre):
        # TG on bridge a - VR 5 - bridge m - VR 6 - bridge b - TR, as before links.
        a, m, b = (self.prefix + "b" + x for x in ("a", "m", "b"))
        self.create(server, [
            self.vr(5, self.bridged(a, "192.0.2.1/30"), self.bridged(m, "203.0.113.1/30")),
            self.vr(6, self.bridged(m, "203.0.113.2/30"), self.bridged(b, "198.51.100.1/30"))])
        for br in (a, m, b):
            self.bridges.append(br)
            self.allow_bridged(br)
        tg, tr = self.add_ns(self.prefix + "btg"), self.add_ns(self.prefix + "btr")
        for ns, br, cidr in ((tg, a, "192.0.2.2/30"), (tr, b, "198.51.100.2/30")):
            sh("ip", "link", "add", ns + "x", "type", "veth", "peer", "name", "eth1", "netns", ns)
            sh("ip", "link", "set", "dev", ns + "x", "master", br, "up")
            self.links.append(ns + "x")
            self.addr(ns, "eth1", cidr)
            sh("ip", "-n", ns, "link", "set", "dev", "eth1", "up")
        self.route(pre + "5", "198.51.100.0/30", "via", "203.0.113.2")
        self.route(pre + "6", "192.0.2.0/30", "via", "203.0.113.1")
        self.route(tg, "default", "via", "192.0.2.1")
        self.route(tr, "default", "via", "198.51.100.1")
        self.ends["bridge"] = (tg, tr)

    def two_routers(self, net="198.51.100.248"):
        """Two namespaces as two routers (the integration tests' TwoRouterHosts): each reached from this host over a
        management veth (the two /30s from net: .250/.254 here, .249/.253 there with the default), the two joined by
        an underlay veth (203.0.113.1 and .2). Returns the namespaces and the routers' management addresses."""
        p = self.prefix
        routers = [self.add_ns(p + "ra"), self.add_ns(p + "rb")]
        *first, last = net.split(".")
        at = lambda k: ".".join(first + [str(int(last) + k)])  # noqa: E731 - one address of the two /30s
        mgmt = [at(1), at(5)]
        for i, r in enumerate(routers):
            here = p + "m" + "ab"[i]
            sh("ip", "link", "add", here, "type", "veth", "peer", "name", "mgmt0", "netns", r)
            self.links.append(here)
            sh("ip", "addr", "add", at(2 + 4 * i) + "/30", "dev", here)
            sh("ip", "link", "set", "dev", here, "up")
            self.addr(r, "mgmt0", mgmt[i] + "/30")
            sh("ip", "-n", r, "link", "set", "dev", "mgmt0", "up")
        sh("ip", "link", "add", "underlay0", "netns", routers[0], "type", "veth", "peer", "name", "underlay0", "netns", routers[1])
        for i, r in enumerate(routers):
            self.addr(r, "underlay0", "203.0.113.%d/30" % (i + 1))
            sh("ip", "-n", r, "link", "set", "dev", "underlay0", "up")
        return routers, mgmt

    def build_vxlan(self, script):
        p = self.prefix
        routers, mgmt = self.two_routers()
        pres = [p + "xa", p + "xb"]
        srv = [self.server("router-" + "ab"[i], wrapper=[script, routers[i]], host=mgmt[i], prefix=pres[i]) for i in range(2)]
        # On A: VR 1 (TG) - peer - VR 2 - vxlan; on B: VR 2 - vxlan, peer - VR 1 (TR).
        for i in range(2):
            self.create(srv[i], [
                self.vr(1, self.peer(2, 1, ("192.0.2.2/30" if i == 0 else "198.51.100.2/30"))),
                self.vr(2, self.peer(1, 1, ("192.0.2.1/30" if i == 0 else "198.51.100.1/30")),
                        {"vmNetworkConfigLinkType": "vxlan", "vmNetworkConfigParent": "underlay0", "vmNetworkConfigVni": 4242,
                         "vmNetworkConfigRemote": "203.0.113.%d" % (2 - i),
                         "vmNetworkConfigAddress": "203.0.113.%d" % (5 + i), "vmNetworkConfigPrefixLength": 30})])
        tg, tr = pres[0] + "1", pres[1] + "1"
        self.route(tg, "default", "via", "192.0.2.1")
        self.route(tr, "default", "via", "198.51.100.1")
        self.route(pres[0] + "2", "198.51.100.0/30", "via", "203.0.113.6")
        self.route(pres[1] + "2", "192.0.2.0/30", "via", "203.0.113.5")
        self.ends["vxlan"] = (tg, tr)
        return srv

    # ------------------------------------------------------------ measures

    def reaches(self, path):
        tg, _ = self.ends[path]
        end = time.time() + 30
        while time.time() < end:
            if sh("ip", "netns", "exec", tg, "ping", "-c", "1", "-W", "1", "198.51.100.2", check=False).returncode == 0:
                return True
        return False

    def rx_packets(self, ns):
        return json.loads(sh("ip", "-n", ns, "-s", "-j", "link", "show", "dev", "eth1").stdout)[0]["stats64"]["rx"]["packets"]

    def frames_pps(self, path, seconds):
        """64-byte frames from TG as fast as trafgen sends them (packet mmap, one process), counted by TR's
        interface over a window that leaves the first second out: the two routers' forwarding is the limit."""
        tg, tr = self.ends[path]
        gw = json.loads(sh("ip", "-n", tg, "-j", "neigh", "show", "192.0.2.1").stdout)[0]["lladdr"]
        own = json.loads(sh("ip", "-n", tg, "-j", "link", "show", "dev", "eth1").stdout)[0]["address"]
        conf = os.path.join(self.work, "frame-%s.cfg" % path)
        with open(conf, "w") as f:
            f.write("{ eth(da=%s, sa=%s, type=0x0800), ipv4(saddr=192.0.2.2, daddr=198.51.100.2, ttl=64), "
                    "udp(sport=9, dport=9), fill(0x00, %d) }\n" % (gw, own, UDP_PAYLOAD))
        gen = subprocess.Popen(["ip", "netns", "exec", tg, "trafgen", "-o", "eth1", "-i", conf, "-P", "1", "-q"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(1)  # the first second left out, as for iperf3
            n0, t0 = self.rx_packets(tr), time.perf_counter()
            time.sleep(seconds)  # the measurement window
            n1, t1 = self.rx_packets(tr), time.perf_counter()
        finally:
            gen.send_signal(signal.SIGINT)  # trafgen stops on SIGINT, as at a terminal
            try:
                gen.wait(15)
            except subprocess.TimeoutExpired:
                gen.kill()
                gen.wait(15)
        return (n1 - n0) / (t1 - t0)

    def iperf(self, path, udp, seconds):
        tg, tr = self.ends[path]
        srv = subprocess.Popen(["ip", "netns", "exec", tr, "iperf3", "-s", "-1", "-B", "198.51.100.2"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            end = time.time() + 10
            while "198.51.100.2:5201" not in sh("ip", "netns", "exec", tr, "ss", "-ltn").stdout and time.time() < end:
                time.sleep(0.05)
            argv = ["ip", "netns", "exec", tg, "iperf3", "-c", "198.51.100.2", "-t", str(seconds), "-O", "1", "-J"]
            if udp:
                argv += ["-u", "-l", str(UDP_PAYLOAD), "-b", "0"]
            out = json.loads(sh(*argv).stdout)
        finally:
            srv.wait(15)
        s = out["end"]["sum"] if udp else out["end"]["sum_received"]
        if udp:
            return (s["packets"] - s["lost_packets"]) / s["seconds"]
        return s["bits_per_second"]

    def link_create_ms(self, server, pre, n):
        """Two running VRs; both ends of a peer link added (each POST waits for the host), until both read up."""
        self.create(server, [self.vr(7, self.bridged(self.prefix + "bm", "192.0.2.9/30")),
                             self.vr(8, self.bridged(self.prefix + "bm", "192.0.2.10/30"))])
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            for here, far in ((7, 8), (8, 7)):
                status, body = server.request("POST", "/api/v1/routers/%d/interfaces?wait=30s" % here,
                                              json.dumps(dict(self.peer(far, 2, "203.0.113.%d/30" % (here - 6)), vmNetworkConfigIndex=2)))
                if status not in (200, 201):
                    raise RuntimeError("add link end: %s %s" % (status, body[:300]))
            while True:
                up = [json.loads(server.request("GET", "/api/v1/routers/%d" % i)[1])["vmNetworkTable"] for i in (7, 8)]
                if all(any(n.get("vmNetworkIndex") == 2 and n.get("vmNetworkLinkStatus") == "up" for n in t) for t in up):
                    break
                if time.perf_counter() - t0 > 30:
                    raise RuntimeError("the link never came up: %s" % up)
                time.sleep(0.01)
            times.append((time.perf_counter() - t0) * 1000)
            for i in (7, 8):
                server.request("DELETE", "/api/v1/routers/%d/interfaces/2?wait=30s" % i)
        return times

    def probe_cpu(self, server, seconds):
        """The CPU of the server's probe processes (ping, one per running link end) over a window, per link end
        (/proc/PID/schedstat: nanoseconds on a CPU, finer than the clock ticks of stat)."""
        pings = [int(p) for p in sh("pgrep", "-P", str(server.pid), "-x", "ping", check=False).stdout.split()]
        if not pings:
            return None
        t0 = {p: on_cpu_ns(p) for p in pings}
        time.sleep(seconds)
        used = sum(on_cpu_ns(p) - t0[p] for p in pings) / 1e9
        return {"link_ends": len(pings), "seconds": seconds, "cpu_ms_per_second_per_end": used * 1000 / seconds / len(pings)}

    # ------------------------------------------------------------ run

    def cleanup(self):
        for s in self.servers:
            try:
                for vr in json.loads(s.request("GET", "/api/v1/routers")[1]).get("virtualRouter", []):
                    s.request("DELETE", "/api/v1/routers/%d?wait=30s" % vr["vmIndex"])
            except Exception as e:  # noqa: BLE001 - a server that died is stopped below all the same
                log("links: cleaning %s: %s" % (s.name, e))
            s.stop()
        for ns in self.netns:
            sh("ip", "netns", "del", ns, check=False)
        for dev in self.links + self.bridges:
            sh("ip", "link", "del", "dev", dev, check=False)
        for rule in self.firewall:
            sh("iptables", "-D", *rule, check=False)

    def started(self, **figures):
        """A run's results as they begin: when, on what, at which load, with the run's own settings."""
        return dict({"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "quick": self.args.quick,
                     "nproc": os.cpu_count(), "loadavg_at_start": " ".join(open("/proc/loadavg").read().split()[:3]),
                     "linux": open("/proc/sys/kernel/osrelease").read().strip()}, **figures)

    def in_router(self):
        """The integration tests' script that runs a command as if on another router (in its namespace)."""
        return os.path.join(self.args.repo, "integration-tests", "src", "test", "sh", "in-router-netns.sh")

    def finish(self, out, mode, result, markdown, servers=("local",)):
        """Removes what the run made, then writes its results with what it left on the host, if anything."""
        self.cleanup()
        result["leftovers"] = [x for name in servers for x in netns.leftovers(self.prefix, os.path.join(self.work, "run-" + name))]
        result["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        write_results(out, mode, result, markdown(result))


def run(args):
    quick = args.quick
    out = os.path.abspath(args.out)
    b = Bench(args)
    script = b.in_router()
    rounds, seconds = (2, 3) if quick else (5, 5)
    result = b.started(frame=FRAME, rounds=rounds, seconds=seconds, target=TARGET)
    try:
        local = b.server("local", prefix=b.prefix + "v")
        b.build_native()
        b.build_peer(local, b.prefix + "v")
        b.build_bridge(local, b.prefix + "v")
        b.build_vxlan(script)
        for path in PATHS:
            if not b.reaches(path):
                raise RuntimeError("path %s does not forward" % path)
        samples = {p: {"udp_pps": [], "tcp_bps": []} for p in PATHS}
        for r in range(rounds):
            # Each round in another order, so that no path always follows the same one.
            order = PATHS[r % len(PATHS):] + PATHS[:r % len(PATHS)]
            log("links: round %d of %d: %s" % (r + 1, rounds, " ".join(order)))
            for path in order:
                samples[path]["udp_pps"].append(b.frames_pps(path, seconds))
                samples[path]["tcp_bps"].append(b.iperf(path, False, seconds))
        result["paths"] = {}
        for path in PATHS:
            s = samples[path]
            result["paths"][path] = dict(s, udp_pps_median=median(s["udp_pps"]), tcp_bps_median=median(s["tcp_bps"]))
        for path in PATHS:
            # Ratios per round (same load), then their median.
            for key in ("udp_pps", "tcp_bps"):
                ratios = [x / n for x, n in zip(samples[path][key], samples["native"][key])]
                result["paths"][path][key + "_ratio_median"] = median(ratios)
        log("links: time to create a link")
        times = b.link_create_ms(local, b.prefix + "v", 3 if quick else 10)
        result["link_create_ms"] = times
        result["link_create_median_ms"] = median(times)
        result["probe"] = b.probe_cpu(local, 5 if quick else 20)
    finally:
        b.finish(out, "links", result, markdown)
    log("links: done, %s" % os.path.join(out, "links.md"))
    return 0 if not result["leftovers"] else 1


def markdown(r):
    lines = ["# Links: forwarding through VRs, seed 004's method (issue 33)", "",
             "%s, Linux %s, %d CPUs, load %s at the start; %d interleaved rounds of %d s per path and measure "
             "(iperf3, the first second left out), medians; ratios are per round against native, then their median."
             % (r["started"], r["linux"], r["nproc"], r["loadavg_at_start"], r["rounds"], r["seconds"]), "",
             "Every path is two routers between a generator and a receiver: native is four namespaces on veths made by "
             "hand; peer is four netns VRs on peer links; bridge is two VRs on host bridges with the hosts on bridges "
             "(the path before links; br_netfilter on, as Docker sets it); vxlan is two VRs on two routers (two vrouter "
             "servers, each in a namespace of its own) across an underlay veth.", ""]
    paths = r.get("paths")
    if paths:
        lines += ["| path | 64-byte frames forwarded (kpps) | ratio to native | TCP, one stream (Gbit/s) | ratio to native |",
                  "|---|---|---|---|---|"]
        for p in PATHS:
            x = paths[p]
            lines.append("| %s | %.0f | %.2f | %.2f | %.2f |" % (p, x["udp_pps_median"] / 1000, x["udp_pps_ratio_median"],
                                                            x["tcp_bps_median"] / 1e9, x["tcp_bps_ratio_median"]))
        peer = paths["peer"]
        met = peer["udp_pps_ratio_median"] >= TARGET and peer["tcp_bps_ratio_median"] >= TARGET
        lines += ["", "Target: the peer path at %.2fx native or more for 64-byte frames and TCP: %s (%.2fx, %.2fx). "
                  "The vxlan path costs %.0f %% of the native packet rate and %.0f %% of its TCP rate (encapsulation, "
                  "a second namespace hop per router, 50 bytes more per frame)."
                  % (TARGET, "met" if met else "NOT met", peer["udp_pps_ratio_median"], peer["tcp_bps_ratio_median"],
                     100 * (1 - paths["vxlan"]["udp_pps_ratio_median"]), 100 * (1 - paths["vxlan"]["tcp_bps_ratio_median"]))]
    if "link_create_median_ms" in r:
        lines += ["", "Time to create a link (both ends added to two running VRs over REST, each request waiting for the host, "
                  "until both ends read up): median %.0f ms of %d." % (r["link_create_median_ms"], len(r["link_create_ms"]))]
    if r.get("probe"):
        p = r["probe"]
        lines += ["", "The delay probe's CPU: %.3f ms per second per link end (%.3f %% of a core), over %d s and %d probed ends."
                  % (p["cpu_ms_per_second_per_end"], p["cpu_ms_per_second_per_end"] / 10, p["seconds"], p["link_ends"])]
    if r.get("leftovers"):
        lines += ["", "Left on the host: " + ", ".join(r["leftovers"])]
    return "\n".join(lines) + "\n"
