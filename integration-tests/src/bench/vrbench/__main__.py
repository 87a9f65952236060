"""vrbench: the evaluation of issue 6 (the paper's Section IV, for every interface, beside its peers).

    python3 -m vrbench run [--quick] --out DIR --jar vr-server/target/vrouter.jar --repo .
    python3 -m vrbench report --out DIR     (the report and plots again, from a run's CSV files)
    python3 -m vrbench walk --port N --oid OID --repeat R --pid PID     (used inside the snmpd namespace)
    python3 -m vrbench telemetry [--quick] --out DIR --jar ... --launcher bin/vrouter     (gNMI beside SNMP, issue 24)
    python3 -m vrbench interfaces --out DIR --jar ... --launcher bin/vrouter --repo .     (RSS of each interface alone, issue 37)

bench.sh at the top of integration-tests installs what this needs and calls `run`.
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import traceback

from . import phases, report
from .server import LEAN_FLAGS, Server
from .util import log

MODES = {
    "quick": dict(cycles=10, warmup=(40, 5), pre=[0, 100, 1000], paper_cycles=2,
                  net_n=[1, 8, 64], walk_ns=[100, 1000], walk_repeat=3, peer_pre=[0], peer_cycles=8,
                  scale=10000, workers=4, scale_k=25, listall_reps=1, snmp_budget=8, footprint_walks=5,
                  wrk_seconds=3, bulk_reps=2, compression_reps=1, floor_reps=1),
    "full": dict(cycles=30, warmup=(400, 20), pre=[0, 10, 100, 1000], paper_cycles=30,
                 net_n=[1, 2, 4, 8, 16, 32, 64], walk_ns=[10, 100, 1000], walk_repeat=30, peer_pre=[0, 100],
                 peer_cycles=30, scale=10000, workers=4, scale_k=250, listall_reps=3, snmp_budget=20, footprint_walks=30,
                 wrk_seconds=10, bulk_reps=5, compression_reps=3, floor_reps=3),
}


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = subprocess.run(["free", "-h"], capture_output=True, text=True).stdout.strip()
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.strip().splitlines()
    load = open("/proc/loadavg").read().split()[:3]
    return {"nproc": os.cpu_count(), "cpu": cpu, "free": mem, "kernel": platform.release(), "java": java[0] if java else "?",
            "python": platform.python_version(), "loadavg_at_start": " ".join(load)}


def versions():
    out = {}
    for pkg in ("snmpd", "netconfd", "tcpdump", "openssh-server", "nginx-light", "wrk"):
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
        out[pkg] = r.stdout.strip() or "?"
    for mod in ("ncclient", "ezsnmp", "pysnmp", "matplotlib"):
        try:
            from importlib.metadata import version
            out[mod] = version(mod)
        except Exception:
            out[mod] = "?"
    return out


def run(args):
    mode = "quick" if args.quick else "full"
    cfg = MODES[mode]
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    work = os.path.join(out, "work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    res = phases.Results()
    meta = {"mode": mode, "config": cfg, "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "machine": machine(), "versions": versions(), "lean_flags": LEAN_FLAGS,
            "launcher": open(args.launcher).read() if args.launcher else None}
    git = subprocess.run(["git", "-C", args.repo, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    meta["commit"] = git.stdout.strip()
    dirty = subprocess.run(["git", "-C", args.repo, "status", "--porcelain", "--", "pom.xml", "vr-core", "vr-api", "vr-server",
                            "vr-snmp-adapter", "vr-netconf-adapter", "vr-xen-driver"], capture_output=True, text=True)
    meta["server_tree"] = ("clean" if not dirty.stdout.strip() else
                           "with uncommitted changes in " + ", ".join(sorted({l[3:].split("/")[0] for l in dirty.stdout.splitlines()})))
    meta["jar_built"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(args.jar)))
    t_start = time.time()
    running = []  # everything we started, stopped in the finally whatever happens

    def start(thing):
        running.append(thing)
        return thing.start()

    def stop(thing):
        thing.stop()
        if thing in running:
            running.remove(thing)

    # a TERM (or HUP) ends the run through the finally below, which stops every server started
    import signal
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_, s=sig: sys.exit(128 + s))
    from .clients import TrapListener
    traps = TrapListener()
    try:
        def phase(title, fn):
            """One part of the evaluation: a failure is reported and the run goes on with the next part;
            whatever the part started is stopped."""
            log(title)
            try:
                fn()
            except Exception:
                res.notes.append("%s failed: %s" % (title, traceback.format_exc().strip().splitlines()[-1]))
                traceback.print_exc()
            finally:
                for thing in reversed(list(running)):
                    try:
                        stop(thing)
                    except Exception as e:
                        log("could not stop %r: %r" % (thing, e))

        launcher = args.launcher

        def server(name, **kw):
            """The server as the README starts it (bin/vrouter); `java -jar` with the JVM's defaults when asked."""
            if kw.pop("defaults", False):
                return Server(args.jar, work, name, **kw)
            return Server(args.jar, work, name, launcher=launcher, **kw)

        def plain_cycles():
            plain = start(server("plain", sim="none", trap_port=traps.port))
            meta["server_cmd"] = " ".join(plain.cmd)
            phases.cycles(res, plain, traps, "plain", cfg["pre"], cfg["cycles"], cfg["warmup"], work,
                          walk_ns=cfg["walk_ns"], walk_repeat=cfg["walk_repeat"])

        def snmp_floor():
            from .peers import SnmpFloorAgent
            floor = start(SnmpFloorAgent(args.jar, args.repo, work, traps.port, rows=max(cfg["walk_ns"])))
            phases.snmp_floor(res, floor, traps, cfg["cycles"], cfg["warmup"][0], cfg["walk_repeat"], work)

        def rest_floor():
            from .peers import FloorPeer
            recorder = start(server("rest-record", sim="none"))
            floor = FloorPeer(work, launcher, sub="rest-floor")
            phases.record_rest_replies(recorder, floor.root)
            stop(recorder)
            start(floor)
            phases.rest_floor(res, floor, cfg["cycles"], cfg["warmup"][0])

        def native():
            for label, defaults in (("plain", False), ("defaults", True)):
                phases.native_memory(res, args.jar, work, label, [], 1000,
                                     launcher=None if defaults else launcher)

        def footprint():
            from .peers import FloorPeer, NginxPeer
            readme = start(server("footprint", sim="none"))
            phases.footprint(res, readme, "bin/vrouter", walks=cfg["footprint_walks"], class_list=class_list)
            nginx = start(NginxPeer(work))
            floor = None
            try:
                floor = start(FloorPeer(work, launcher)) if launcher else None
            except Exception as e:
                res.notes.append("the JDK HttpServer floor could not run: %r" % e)
                log("ERROR floor: %r" % e)
            phases.rest_peer(res, readme, nginx, floor, seconds=cfg["wrk_seconds"])
            if floor:
                stop(floor)
            stop(nginx)
            stop(readme)
            plain_jvm = start(server("footprint-defaults", sim="none", defaults=True))
            phases.footprint(res, plain_jvm, "java -jar", walks=cfg["footprint_walks"])

        class_list = os.path.join(work, "footprint-classes.txt")

        def footprint_floor():
            from .peers import FootprintFloor
            row = next(r for r in res.tables["footprint"] if r["server"] == "bin/vrouter")
            phases.footprint_floor(res, lambda *a: start(FootprintFloor(work, args.repo, args.jar, launcher, *a)), stop,
                                   row, class_list)

        def network():
            phases.network(res, start(server("network", sim="none")), cfg["net_n"], work)

        def paper():
            paper = start(server("paper", sim="paper", trap_port=traps.port))
            phases.paper_cycles(res, paper, traps, "paper", cfg["paper_cycles"], 1)

        def peers():
            from .peers import NetconfdPeer, SnmpdPeer
            got = []
            for make in (lambda: SnmpdPeer(work), lambda: NetconfdPeer(work, args.repo)):
                try:
                    got.append(start(make()))
                except Exception as e:
                    res.notes.append("a peer could not run: %r" % e)
                    log("ERROR peer: %r" % e)
                    got.append(None)
            phases.peers(res, got[0], got[1], cfg["walk_ns"], cfg["walk_repeat"], cfg["peer_pre"], cfg["peer_cycles"],
                         cfg["warmup"][1], work)
            for thing in got:
                if thing:
                    stop(thing)
            candidate = start(NetconfdPeer(work, args.repo, target="candidate"))
            ours = start(server("netconf-bulk", sim="none"))
            phases.netconf_bulk(res, ours, candidate, n=1000, reps=cfg["bulk_reps"])

        def scale():
            big = start(server("scale", sim="none"))
            phases.scale(res, big, cfg["scale"], cfg["workers"], cfg["scale_k"], cfg["listall_reps"],
                         snmp_budget_s=cfg["snmp_budget"])
            phases.compression(res, big, work, reps=cfg["compression_reps"])
            stop(big)
            from .peers import NetconfFloor
            floor = start(NetconfFloor(work, args.repo, args.jar))
            phases.netconf_floor(res, floor, cfg["workers"], cfg["scale_k"], reps=cfg["floor_reps"])

        phase("phase 1: cycles, simulated driver without latency, the server as the README starts it", plain_cycles)
        phase("phase 1b: the floor of SNMP's CPU: snmp4j-agent from a fixed MIB; a journal record's fsync", snmp_floor)
        phase("phase 1c: the floor of REST's and RESTCONF's CPU: the JDK HttpServer answering the cycles with fixed "
              "replies", rest_floor)
        phase("phase 2: native memory breakdown, 1000 VRs, bin/vrouter and java -jar", native)
        phase("phase 2b: footprint after a mixed workload and walks; REST beside nginx", footprint)
        if launcher:
            phase("phase 2c: the footprint's floor: the server's library classes, threads and heap, no vrouter code",
                  footprint_floor)
        phase("phase 3: network usage (tcpdump on lo)", network)
        phase("phase 4: cycles with the paper's XenServer latencies", paper)
        phase("phase 5: peers (snmpd, netconfd)", peers)
        phase("phase 6: scale, %d VRs; SSH compression; the NETCONF floor" % cfg["scale"], scale)
    except Exception:
        res.notes.append("the run stopped early: " + traceback.format_exc().strip().splitlines()[-1])
        traceback.print_exc()
    finally:
        for thing in reversed(running):
            try:
                thing.stop()
            except Exception as e:
                log("could not stop %r: %r" % (thing, e))
        traps.close()
    meta["seconds"] = time.time() - t_start
    meta["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    report.write(out, res, meta)
    if not args.keep_work:
        shutil.rmtree(work, ignore_errors=True)
    log("done in %.0f s: %s" % (meta["seconds"], os.path.join(out, "report.md")))
    return 1 if any(n.startswith("the run stopped early") or " failed: " in n for n in res.notes) else 0


def walk(args):
    from ezsnmp import Session
    from .phases import measure_walk
    s = Session(hostname="127.0.0.1", port_number=args.port, version=2, community=args.community, timeout=10,
                retries=1, print_oids_numerically=True, set_max_repeaters_to_num=10)
    print(json.dumps(measure_walk(s, args.oid, args.repeat, args.pid)))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="vrbench")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--quick", action="store_true")
    r.add_argument("--out", required=True)
    r.add_argument("--jar", required=True)
    r.add_argument("--repo", required=True)
    r.add_argument("--launcher", help="start script (bin/vrouter); without it the server runs as java -jar")
    r.add_argument("--keep-work", action="store_true")
    rp = sub.add_parser("report")
    rp.add_argument("--out", required=True)
    fp = sub.add_parser("footprint", help="RSS of one server with 1,000 VRs after a mixed workload (for trying a lever)")
    fp.add_argument("--jar", required=True)
    fp.add_argument("--launcher")
    fp.add_argument("--label", default="server")
    fp.add_argument("--walks", type=int, default=30)
    fp.add_argument("--env", action="append", default=[], help="NAME=VALUE for the server's environment")
    fp.add_argument("--floor", action="store_true", help="then the floor: its classes, threads and heap, no vrouter code")
    fp.add_argument("flags", nargs="*", help="JVM flags (after --)")
    n = sub.add_parser("netns", help="the netns driver's figures (issue 10): real VRs on this host")
    n.add_argument("--quick", action="store_true")
    n.add_argument("--out", required=True)
    n.add_argument("--jar", required=True)
    n.add_argument("--launcher")
    lk = sub.add_parser("links", help="links (issue 33): forwarding on native, peer, bridge and vxlan paths")
    lk.add_argument("--quick", action="store_true")
    lk.add_argument("--out", required=True)
    lk.add_argument("--jar", required=True)
    lk.add_argument("--launcher")
    lk.add_argument("--repo", required=True)
    mg = sub.add_parser("migration", help="migration (issue 34): one VR and 20 moved between two netns routers, the gap")
    mg.add_argument("--quick", action="store_true")
    mg.add_argument("--out", required=True)
    mg.add_argument("--jar", required=True)
    mg.add_argument("--launcher")
    mg.add_argument("--repo", required=True)
    lv = sub.add_parser("libvirt", help="the libvirt driver's figures (issue 26): VRs as QEMU VMs on this host")
    lv.add_argument("--quick", action="store_true")
    lv.add_argument("--out", required=True)
    lv.add_argument("--jar", required=True)
    lv.add_argument("--launcher")
    lv.add_argument("--repo", required=True)
    rc = sub.add_parser("restconf", help="RESTCONF beside REST (issue 14): cycles, bytes, a list of 10,000")
    rc.add_argument("--quick", action="store_true")
    rc.add_argument("--out", required=True)
    rc.add_argument("--jar", required=True)
    rc.add_argument("--launcher")
    fi = sub.add_parser("interfaces", help="RSS of each interface alone, 1,000 VRs after the mixed workload (issue 37)")
    fi.add_argument("--out", required=True)
    fi.add_argument("--jar", required=True)
    fi.add_argument("--launcher", required=True)
    fi.add_argument("--repo", required=True)
    tm = sub.add_parser("telemetry", help="gNMI beside SNMP GETBULK (issue 24): bytes, time, CPU, ON_CHANGE, RSS")
    tm.add_argument("--quick", action="store_true")
    tm.add_argument("--out", required=True)
    tm.add_argument("--jar", required=True)
    tm.add_argument("--launcher")
    w = sub.add_parser("walk")
    w.add_argument("--port", type=int, required=True)
    w.add_argument("--community", default="public")
    w.add_argument("--oid", required=True)
    w.add_argument("--repeat", type=int, default=10)
    w.add_argument("--pid", type=int, required=True)
    a = p.parse_args(argv)
    if a.cmd == "report":
        report.rewrite(a.out)
        return 0
    if a.cmd == "restconf":
        from . import restconf
        return restconf.run(a)
    if a.cmd == "interfaces":
        from . import interfaces
        return interfaces.run(a)
    if a.cmd == "telemetry":
        from . import telemetry
        return telemetry.run(a)
    if a.cmd == "netns":
        from . import netns
        return netns.run(a)
    if a.cmd == "migration":
        from . import migration
        return migration.run(a)
    if a.cmd == "links":
        from . import links
        return links.run(a)
    if a.cmd == "libvirt":
        from . import libvirt
        return libvirt.run(a)
    if a.cmd == "footprint":
        import tempfile
        res = phases.Results()
        with tempfile.TemporaryDirectory() as work:
            srv = Server(a.jar, work, a.label, jvm_flags=a.flags, launcher=a.launcher,
                         env=dict(e.split("=", 1) for e in a.env)).start()
            class_list = os.path.join(work, "classes.txt") if a.floor else None
            try:
                phases.footprint(res, srv, a.label, walks=a.walks, class_list=class_list)
            finally:
                srv.stop()
            if a.floor:
                from .peers import FootprintFloor
                repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
                floors = []

                def make(*args):
                    floors.append(FootprintFloor(work, repo, a.jar, a.launcher, *args))
                    return floors[-1].start()
                try:
                    phases.footprint_floor(res, make, lambda fl: fl.stop(), res.tables["footprint"][0], class_list)
                finally:
                    for fl in floors:
                        fl.stop()
        print(json.dumps(res.tables["footprint"][0]))
        for table in ("rss_floor", "nmt"):
            for row in res.tables[table]:
                print(json.dumps(row))
        return 0
    return run(a) if a.cmd == "run" else walk(a)


if __name__ == "__main__":
    sys.exit(main())
