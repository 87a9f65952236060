"""Migration's benchmark (issue 34): a VR moved between two routers, the time and the forwarding gap.

    python3 -m vrbench migration [--quick] --out DIR --jar vr-server/target/vrouter.jar --launcher bin/vrouter --repo .

Two routers as the integration tests make them (TwoRouterHosts: each a network namespace with a vrouter
server on the netns driver, the two joined by an underlay, each knowing the other as a peer through a
forwarder to its REST port on the underlay address, as MigrationIT does). Both routers have bridges L and R,
each stretched to a switch namespace (bridges in hub mode: every frame goes to both routers, so that no
switch's learning stands between a VR and its copy) with a host on each: H1 10.35.1.2 and H2 10.35.2.2.
The VR (kernel template) routes between them with 10.35.1.1 on L and 10.35.2.1 on R, its MACs fixed.

Per round: H1 pings H2 through the VR every INTERVAL; the VR is moved from A to B (POST
/routers/{i}/migrate, answered when B's copy runs and A's is gone); the forwarding gap is the longest time
between two replies from the move's request until replies come again (the last reply via A to the first via
B). The floor, in the same round: on B, the same VR deleted and created again by hand (DELETE and POST,
each waiting for the host), timed, with its gap. Then it moves back (B to A, also timed). After the rounds:
a drain of 20 VRs from A to B (POST /api/v1/drain, one move after another), beside the floor of deleting and
creating the same 20 by hand on B. Then libvirt under TCG (libvirt_migration): a VM VR moved live between two
libvirt daemons through vrouter, beside `virsh migrate --live` of the same kind of domain alone. Needs root;
every namespace, domain and process is removed before it exits.
"""
import json
import os
import subprocess
import threading
import time

from . import libvirt_migration
from .links import Bench, sh
from .util import log, median

INTERVAL = 0.01
PEER_PORT = 8443
MANY = 20


class Pinger:
    """ping -D from a host namespace: the receive time of every reply (root may ping every 10 ms)."""

    def __init__(self, ns, to):
        self.replies = []
        self.proc = subprocess.Popen(["ip", "netns", "exec", ns, "ping", "-D", "-n", "-i", str(INTERVAL), to],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.proc.stdout:
            if "bytes from" in line and line.startswith("["):
                self.replies.append(float(line[1:line.index("]")]))

    def wait_reply(self, after, timeout):
        """Until a reply comes later than `after` (time.time()), or timeout; whether one did."""
        end = time.time() + timeout
        while time.time() < end:
            if self.replies and self.replies[-1] > after:
                return True
            time.sleep(INTERVAL)
        return False

    def gap_ms(self, since):
        """The longest time between two replies from `since` on (including from the last reply before it)."""
        times = sorted(self.replies)
        before = [t for t in times if t <= since]
        window = before[-1:] + [t for t in times if t > since]
        return max((b - a for a, b in zip(window, window[1:])), default=float("nan")) * 1000

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.reader.join(5)


class Move(Bench):
    def __init__(self, args):
        super().__init__(args, "migration")
        self.forwarders = []

    def segments(self, routers):
        """Bridges L and R on both routers, each stretched to a hub in a switch namespace with a host on it."""
        p = self.prefix
        sw = self.add_ns(p + "sw")
        self.bridges_in_routers = (p + "L", p + "R")
        hosts = []
        for side, host, cidr, gw in (("L", p + "h1", "10.35.1.2/24", "10.35.1.1"), ("R", p + "h2", "10.35.2.2/24", "10.35.2.1")):
            hub = "hub" + side
            # ageing 0: no learning, every frame flooded, as a hub
            sh("ip", "-n", sw, "link", "add", hub, "type", "bridge", "ageing_time", "0")
            sh("ip", "-n", sw, "link", "set", "dev", hub, "up")
            for i, r in enumerate(routers):
                br = p + side
                sh("ip", "-n", r, "link", "add", br, "type", "bridge")
                sh("ip", "-n", r, "link", "set", "dev", br, "up")
                self.veth(sw, side + "ab"[i], r, p + "up" + side)
                sh("ip", "-n", sw, "link", "set", "dev", side + "ab"[i], "master", hub)
                sh("ip", "-n", r, "link", "set", "dev", p + "up" + side, "master", br)
            self.add_ns(host)
            self.veth(host, "eth0", sw, "h" + side)
            sh("ip", "-n", sw, "link", "set", "dev", "h" + side, "master", hub)
            self.addr(host, "eth0", cidr)
            self.route(host, "default", "via", gw)
            hosts.append(host)
        return hosts

    def forward(self, router, listen, to, port):
        """B's REST as A reaches it (and A's as B does): the underlay address, forwarded to the management one."""
        script = os.path.join(self.args.repo, "integration-tests", "src", "test", "python", "tcp_forward.py")
        f = subprocess.Popen(["ip", "netns", "exec", router, "python3", script, listen, str(PEER_PORT), to, str(port)],
                             stdout=subprocess.PIPE, text=True)
        self.forwarders.append(f)
        if f.stdout.readline().strip() != "listening":
            raise RuntimeError("the forwarder to %s:%d did not start" % (to, port))

    def row(self, index, name, k=0):
        """A VR routing L and R; k > 0: one of the many, on L only, with an address and MAC of its own."""
        def iface(n, br, address, mac):
            return {"vmNetworkConfigIndex": n, "vmNetworkConfigParent": br, "vmNetworkConfigAddress": address,
                    "vmNetworkConfigPrefixLength": 24, "vmNetworkConfigPhysAddress": mac}
        L, R = self.bridges_in_routers
        if k:
            ifaces = [iface(1, L, "10.35.1.%d" % (100 + k), "02:00:5e:00:36:%02x" % k)]
        else:
            ifaces = [iface(1, L, "10.35.1.1", "02:00:5e:00:35:01"), iface(2, R, "10.35.2.1", "02:00:5e:00:35:02")]
        return {"vmIndex": index, "vmName": name, "vmConfigTemplate": "kernel", "vmNetworkConfigTable": ifaces}

    @staticmethod
    def call(server, method, path, body=None, expect=(200, 201, 204)):
        status, answer = server.request(method, path, None if body is None else json.dumps(body))
        if status not in expect:
            raise RuntimeError("%s %s on %s: %s %s" % (method, path, server.name, status, answer[:400]))
        return answer

    def migrate(self, source, index, peer):
        return json.loads(self.call(source, "POST", "/api/v1/routers/%d/migrate?wait=2m" % index, {"peer": peer}))["peerIndex"]

    def by_hand(self, server, index, row):
        """The floor: the VR deleted and created again on the same router, each call waiting for the host."""
        self.call(server, "DELETE", "/api/v1/routers/%d?wait=60s" % index)
        self.call(server, "POST", "/api/v1/routers?wait=60s", row)

    def timed_with_gap(self, pinger, what):
        """Runs what() while H1 pings H2 through the VR: its time (s), and the forwarding gap (ms)."""
        if not pinger.wait_reply(time.time(), 30):
            raise RuntimeError("no ping reply through the VR before the operation")
        t0 = time.time()
        what()
        seconds = time.time() - t0
        if not pinger.wait_reply(time.time(), 30):
            raise RuntimeError("no ping reply through the VR after the operation")
        time.sleep(0.2)
        return seconds, pinger.gap_ms(t0)


def run(args):
    quick = args.quick
    out = os.path.abspath(args.out)
    b = Move(args)
    script = b.in_router()
    rounds, many_rounds = (2, 1) if quick else (5, 2)
    result = b.started(interval_ms=INTERVAL * 1000, rounds=rounds, many=MANY, many_rounds=many_rounds, drain=True)
    pinger = None
    try:
        # Management from a range of its own, so that the integration tests' two routers may run beside it.
        routers, mgmt = b.two_routers(net="100.64.35.248")
        h1, _ = b.segments(routers)
        p = b.prefix
        srv = []
        for i in range(2):
            other = "ab"[1 - i]
            srv.append(b.server("router-" + "ab"[i], wrapper=[script, routers[i]], host=mgmt[i], prefix=p + "v" + "ab"[i],
                                settings=["peer.%s = http://203.0.113.%d:%d" % (other, 2 - i, PEER_PORT),
                                          "peer.%s.user = admin" % other, "peer.%s.password = admin" % other,
                                          "netns.refresh-delay = 50ms"]))
        for i in range(2):
            b.forward(routers[i], "203.0.113.%d" % (i + 1), mgmt[i], srv[i].rest_port)
        a, bb = srv
        row = b.row(1, "mover")
        b.call(a, "POST", "/api/v1/routers?wait=60s", row)
        pinger = Pinger(h1, "10.35.2.2")
        samples = {"migrate": [], "floor": [], "back": []}
        for r in range(rounds):
            log("migration: round %d of %d" % (r + 1, rounds))
            samples["migrate"].append(b.timed_with_gap(pinger, lambda: b.migrate(a, 1, "b")))
            samples["floor"].append(b.timed_with_gap(pinger, lambda: b.by_hand(bb, 1, row)))
            samples["back"].append(b.timed_with_gap(pinger, lambda: b.migrate(bb, 1, "a")))
        pinger.stop()
        pinger = None
        result["one"] = {k: {"seconds": [s for s, _ in v], "gap_ms": [g for _, g in v],
                             "seconds_median": median([s for s, _ in v]), "gap_ms_median": median([g for _, g in v])}
                         for k, v in samples.items()}
        result["one"]["ratio_median"] = median([m[0] / f[0] for m, f in zip(samples["migrate"], samples["floor"])])
        # Many: a drain of A to B (one request, one move each), beside the floor of making the same 20 by hand on
        # B, then a drain of B back to A. The one VR leaves first, so that a drain moves exactly the 20.
        b.call(a, "DELETE", "/api/v1/routers/1?wait=60s")
        many = [b.row(100 + k, "many-%d" % k, k) for k in range(1, MANY + 1)]
        b.call(a, "POST", "/api/v1/routers/batch?wait=120s", {"virtualRouter": many})
        m = {"migrate": [], "floor": [], "back": []}
        for r in range(many_rounds):
            log("migration: a drain of %d VRs, round %d of %d" % (MANY, r + 1, many_rounds))
            for key, source, peer in (("migrate", a, "b"), ("floor", bb, None), ("back", bb, "a")):
                t0 = time.time()
                if peer is None:
                    for vr in many:
                        b.by_hand(bb, vr["vmIndex"], vr)
                else:
                    report = json.loads(b.call(source, "POST", "/api/v1/drain?wait=10m", {"peers": [peer]}))
                    if report.get("moved") != MANY:
                        raise RuntimeError("the drain moved %s of %d: %s" % (report.get("moved"), MANY, report))
                m[key].append(time.time() - t0)
                if peer is not None:
                    b.call(source, "POST", "/api/v1/open")
        result["many_vrs"] = {k: {"seconds": v, "seconds_median": median(v)} for k, v in m.items()}
        result["many_vrs"]["ratio_median"] = median([x / f for x, f in zip(m["migrate"], m["floor"])])
        log("migration: libvirt under TCG")
        result["libvirt"] = libvirt_migration.run(args, 2 if quick else 3)
    finally:
        if pinger:
            pinger.stop()
        for f in b.forwarders:
            f.terminate()
            f.wait(10)
        b.finish(out, "migration", result, markdown, servers=("router-a", "router-b"))
    log("migration: done, %s" % os.path.join(out, "migration.md"))
    return 0 if not result["leftovers"] else 1


def markdown(r):
    lines = ["# Migration: a VR moved between two routers (issue 34)", "",
             "%s, Linux %s, %d CPUs, load %s at the start; medians of %d rounds (one VR) and %d (%d VRs)."
             % (r["started"], r["linux"], r["nproc"], r["loadavg_at_start"], r["rounds"], r["many_rounds"], r["many"]), "",
             "Two routers, each a vrouter server on the netns driver in a namespace of its own, peers of each other; the "
             "VR (kernel template) routes between two hosts on segments stretched to both routers. The gap: the longest "
             "time between two ping replies through the VR (one every %.0f ms) from the request on, the last reply via "
             "the source to the first via the destination. The floor, in the same rounds: the same VR deleted and "
             "created again by hand on the destination (DELETE and POST, each waiting for the host)." % r["interval_ms"], ""]
    one = r.get("one")
    if one:
        lines += ["| one VR | time (s) | forwarding gap (ms) | each round: time (s) / gap (ms) |", "|---|---:|---:|---|"]
        for key, label in (("migrate", "moved A to B (`POST /routers/{i}/migrate`)"),
                           ("floor", "floor: deleted and created again by hand on B"),
                           ("back", "moved back B to A")):
            x = one[key]
            each = ", ".join("%.2f / %.0f" % (s, g) for s, g in zip(x["seconds"], x["gap_ms"]))
            lines.append("| %s | %.2f | %.0f | %s |" % (label, x["seconds_median"], x["gap_ms_median"], each))
        lines += ["", "The move takes %.2fx the floor's time (median of the rounds' ratios)." % one["ratio_median"]]
    many = r.get("many_vrs")
    if many:
        lines += ["", "| a drain of %d VRs | time (s) | per VR (s) | each round (s) |" % r["many"], "|---|---:|---:|---|"]
        for key, label in (("migrate", "A drained to B (`POST /drain`, answered at its end)"),
                           ("floor", "floor: each deleted and created again by hand on B"),
                           ("back", "B drained back to A")):
            x = many[key]
            lines.append("| %s | %.1f | %.2f | %s |" % (label, x["seconds_median"], x["seconds_median"] / r["many"],
                                                       ", ".join("%.1f" % s for s in x["seconds"])))
        lines += ["", "The drain of %d takes %.2fx the floor's time." % (r["many"], many["ratio_median"])]
    if r.get("libvirt"):
        lines += libvirt_migration.markdown(r["libvirt"])
    if r.get("leftovers"):
        lines += ["", "Left on the host: " + ", ".join(r["leftovers"])]
    return "\n".join(lines) + "\n"
