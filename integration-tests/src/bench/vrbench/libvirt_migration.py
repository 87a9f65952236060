"""Migration's benchmark, libvirt under TCG (issue 34): a VM VR moved live between two libvirt daemons.

Part of `python3 -m vrbench migration` (migration.md, migration.json: "libvirt"). Two vrouter servers on the
libvirt driver, peers: A on this host's libvirtd (qemu:///system), B on a second libvirtd started here as
vr-libvirt-driver's SecondLibvirtd does (a mount namespace of its own whose /etc/libvirt, /run/libvirt,
/var/lib/libvirt, /var/log/libvirt and /var/cache/libvirt are directories of the run, TCP on 127.0.0.1
without authentication, a host_uuid of its own). Per round: a bird VR (256 MiB, one vCPU, one interface) is
made on A and booted (its console says so), then moved to B with `POST /routers/{i}/migrate` (answered when
it runs on B and is gone from A), timed, and removed on B. The floor, in the same round: a domain of the same
kind alone (the XML of A's VR under a name no vrouter owns, a fresh overlay on the same template, booted)
moved between the same daemons by `virsh migrate` with the driver's flags (--live --p2p --persistent
--undefinesource --copy-storage-inc, its files under a directory of the destination's), timed, then removed.
Needs root, libvirtd with QEMU, unshare, and what appliance/build.sh needs.
"""
import json
import os
import random
import re
import shutil
import socket
import string
import subprocess
import tempfile
import time
import uuid

from .server import Server
from .util import log, median

BOOT_S = 300
HERE = "qemu:///system"
MOUNTED = ("/etc/libvirt", "/run/libvirt", "/var/lib/libvirt", "/var/log/libvirt", "/var/cache/libvirt")


def sh(*argv, check=True):
    return subprocess.run(list(argv), check=check, capture_output=True, text=True)


class SecondLibvirtd:
    """vr-libvirt-driver's SecondLibvirtd (its test sources), the same steps from Python."""

    def __init__(self, d):
        self.dir = d
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.uri = "qemu+tcp://127.0.0.1:%d/system" % port
        etc = os.path.join(d, "etc")
        os.makedirs(etc)
        sh("cp", "-a", "/etc/libvirt/.", etc)
        with open(os.path.join(etc, "libvirtd.conf"), "w") as f:
            f.write('listen_tls = 0\nlisten_tcp = 1\ntcp_port = "%d"\nlisten_addr = "127.0.0.1"\nauth_tcp = "none"\n'
                    'host_uuid = "%s"\n' % (port, uuid.uuid4()))
        with open(os.path.join(etc, "qemu.conf"), "w") as f:
            f.write('stdio_handler = "file"\nmigration_port_min = %d\nmigration_port_max = %d\n'
                    % (port % 1000 + 51000, port % 1000 + 51063))
        script = ["set -e"]
        for m in MOUNTED:
            mine = etc if m == "/etc/libvirt" else os.path.join(d, m[1:].replace("/", "-"))
            os.makedirs(mine, exist_ok=True)
            script.append("mount --bind %s %s" % (mine, m))
        qemu = os.path.join(d, "var-lib-libvirt", "qemu")
        for sub in ("channel/target", "checkpoint", "dump", "nvram", "ram", "save", "snapshot"):
            os.makedirs(os.path.join(qemu, sub), exist_ok=True)
        sh("chown", "-R", "libvirt-qemu:libvirt-qemu", qemu)
        os.makedirs(os.path.join(d, "var-cache-libvirt", "qemu"), exist_ok=True)
        os.chmod(d, 0o755)
        script.append("exec libvirtd --listen -p %s -f /etc/libvirt/libvirtd.conf" % os.path.join(d, "libvirtd.pid"))
        start = os.path.join(d, "start.sh")
        with open(start, "w") as f:
            f.write("\n".join(script) + "\n")
        self.log = open(os.path.join(d, "libvirtd.log"), "w")
        self.proc = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", start], stdout=self.log,
                                     stderr=subprocess.STDOUT)
        end = time.time() + 60
        while time.time() < end:
            if self.proc.poll() is None and sh("virsh", "-c", self.uri, "version", check=False).returncode == 0:
                return
            time.sleep(0.2)
        self.close()
        raise RuntimeError("the second libvirtd did not come up at %s: %s" % (self.uri, open(self.log.name).read()[-2000:]))

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        self.log.close()


def await_console(path, text):
    end = time.time() + BOOT_S
    while time.time() < end:
        if os.path.exists(path) and text in open(path, errors="replace").read():
            return
        time.sleep(0.2)
    raise RuntimeError("no %r on %s in %d s" % (text, path, BOOT_S))


def call(server, method, path, body=None, expect=(200, 201, 204), timeout=300):
    status, answer = server.request(method, path, None if body is None else json.dumps(body), timeout=timeout)
    if status not in expect:
        raise RuntimeError("%s %s on %s: %s %s" % (method, path, server.name, status, answer[:400]))
    return json.loads(answer) if answer else None


def remove_domains(uri, prefix):
    for name in sh("virsh", "-c", uri, "list", "--all", "--name", check=False).stdout.split():
        if name.startswith(prefix):
            sh("virsh", "-c", uri, "destroy", name, check=False)
            sh("virsh", "-c", uri, "undefine", name, check=False)


def floor_xml(xml, name, here_dir, there_dir):
    """A's VR's domain as a domain of its own: another name, no UUID (libvirt gives one), no vrouter metadata
    (no driver takes it for its own), its files elsewhere."""
    xml = re.sub(r"<metadata>.*?</metadata>", "", xml, count=1, flags=re.S)
    xml = re.sub(r"<name>[^<]*</name>", "<name>%s</name>" % name, xml, count=1)
    xml = re.sub(r"<uuid>[^<]*</uuid>", "", xml, count=1)
    return xml.replace(here_dir + "/", there_dir + "/")


def run(args, rounds):
    """The figures, or {"skipped": why} when this host cannot run them."""
    if sh("virsh", "-c", HERE, "version", check=False).returncode != 0:
        return {"skipped": "libvirtd does not answer at qemu:///system"}
    prefix = "m" + "".join(random.choice(string.ascii_lowercase) for _ in range(3))
    work = os.path.join(os.path.abspath(args.out), "migration-libvirt-work")
    os.makedirs(work, exist_ok=True)
    # QEMU runs as libvirt's user: every directory on the path to the appliance and the disks lets it through.
    host_dir = tempfile.mkdtemp(prefix="vrouter-bench-libvirt-move-", dir="/var/tmp")
    os.chmod(host_dir, 0o755)
    images = os.path.join(host_dir, "images")
    log("migration (libvirt): building the appliance into %s" % images)
    subprocess.run([os.path.join(args.repo, "vr-libvirt-driver", "appliance", "build.sh"), images], check=True,
                   stdout=subprocess.DEVNULL)
    bridge = prefix + "m"
    result = {"rounds": rounds, "accel": "tcg", "vr": "bird, 256 MiB, 1 vCPU, one interface",
              "qemu": sh("qemu-system-x86_64", "--version").stdout.splitlines()[0]}
    second = None
    servers = []
    try:
        try:
            second = SecondLibvirtd(os.path.join(host_dir, "second-libvirtd"))
        except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
            return dict(result, skipped="the second libvirtd could not be started: %s" % e)
        run_a, run_b = os.path.join(host_dir, "run-a"), os.path.join(host_dir, "run-b")

        def server(name, settings):
            conf = os.path.join(work, name + ".properties")
            with open(conf, "w") as f:
                f.write("\n".join(["user.admin = operator:admin", "libvirt.accel = tcg", "libvirt.image-dir = " + images]
                                  + settings) + "\n")
            s = Server(args.jar, work, name, launcher=args.launcher, extra_args=["--driver", "libvirt", "--config", conf,
                                                                                 "--gnmi-port", "off"])
            servers.append(s)
            return s.start()
        b = server("libvirt-b", ["libvirt.prefix = %sb-" % prefix, "libvirt.run-dir = " + run_b, "libvirt.uri = " + second.uri,
                                 "libvirt.migration-uri = " + second.uri])
        # A is only a source: its migration-uri just turns live migration on (B never moves a VR to it)
        a = server("libvirt-a", ["libvirt.prefix = %sa-" % prefix, "libvirt.run-dir = " + run_a,
                                 "libvirt.migration-uri = qemu+tcp://127.0.0.1/system",
                                 "peer.b = http://127.0.0.1:%d" % b.rest_port, "peer.b.user = admin", "peer.b.password = admin"])
        vr = {"vmIndex": 1, "vmName": "mover", "vmConfigTemplate": "bird", "vmConfigMemory": 256,
              "vmNetworkConfigTable": [{"vmNetworkConfigParent": bridge, "vmNetworkConfigAddress": "192.0.2.1",
                                        "vmNetworkConfigPrefixLength": 24}]}
        moves, floors = [], []
        for r in range(rounds):
            log("migration (libvirt): round %d of %d" % (r + 1, rounds))
            call(a, "POST", "/api/v1/routers?wait=120s", vr)
            dir_a = os.path.join(run_a, "%sa-1" % prefix)
            await_console(os.path.join(dir_a, "console.log"), "vrouter appliance: VR 1 up")
            xml = sh("virsh", "-c", HERE, "dumpxml", "--migratable", "%sa-1" % prefix).stdout
            t0 = time.time()
            there = call(a, "POST", "/api/v1/routers/1/migrate?wait=5m", {"peer": "b"})["peerIndex"]
            moves.append(time.time() - t0)
            call(b, "DELETE", "/api/v1/routers/%d?wait=120s" % there)

            # the floor: the same kind of domain, no vrouter around it
            name = "%sf-%d" % (prefix, r)
            floor_a, floor_b = os.path.join(host_dir, "floor-a-%d" % r), os.path.join(host_dir, "floor-b-%d" % r)
            for d in (floor_a, floor_b):
                os.makedirs(d)
                os.chmod(d, 0o755)
                sh("qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", os.path.join(images, "bird", "disk.qcow2"),
                   os.path.join(d, "disk.qcow2"))
            source_xml = floor_xml(xml, name, dir_a, floor_a)
            with open(os.path.join(floor_a, "domain.xml"), "w") as f:
                f.write(source_xml)
            sh("virsh", "-c", HERE, "define", os.path.join(floor_a, "domain.xml"))
            sh("virsh", "-c", HERE, "start", name)
            await_console(os.path.join(floor_a, "console.log"), "vrouter appliance: VR 1 up")
            dest = os.path.join(floor_b, "domain.xml")
            with open(dest, "w") as f:
                f.write(sh("virsh", "-c", HERE, "dumpxml", "--migratable", name).stdout.replace(floor_a + "/", floor_b + "/"))
            t0 = time.time()
            sh("virsh", "-c", HERE, "migrate", "--live", "--p2p", "--persistent", "--undefinesource", "--copy-storage-inc",
               "--xml", dest, name, second.uri)
            floors.append(time.time() - t0)
            if sh("virsh", "-c", second.uri, "domstate", name).stdout.strip() != "running":
                raise RuntimeError("the floor's domain %s does not run on the second libvirtd" % name)
            remove_domains(second.uri, name)
        result.update({"migrate_s": moves, "floor_s": floors, "migrate_s_median": median(moves),
                       "floor_s_median": median(floors), "ratio_median": median([m / f for m, f in zip(moves, floors)])})
        return result
    finally:
        for s in servers:
            try:
                for v in call(s, "GET", "/api/v1/routers").get("virtualRouter", []):
                    s.request("DELETE", "/api/v1/routers/%d?wait=120s" % v["vmIndex"], timeout=150)
            except Exception as e:  # noqa: BLE001 - a server that died is stopped all the same
                log("migration (libvirt): cleaning %s: %s" % (s.name, e))
            s.stop()
        remove_domains(HERE, prefix)
        if second:
            remove_domains(second.uri, prefix)
            second.close()
        sh("ip", "link", "del", bridge, check=False)
        shutil.rmtree(host_dir, ignore_errors=True)


def markdown(x):
    lines = ["", "## libvirt under TCG: a VM VR moved live between two libvirt daemons", ""]
    if x.get("skipped"):
        return lines + ["Not measured: %s." % x["skipped"]]
    lines += ["Two vrouter servers on the libvirt driver, peers: A on this host's libvirtd, B on a second libvirtd started "
              "by the bench (a mount namespace of its own, TCP on 127.0.0.1, a host UUID of its own), QEMU under TCG "
              "(%s); the VR: %s, booted before each move. The floor, in the same rounds: a domain of the same kind alone "
              "(the VR's XML under another name, a fresh overlay), moved between the same daemons by `virsh migrate --live "
              "--p2p --persistent --undefinesource --copy-storage-inc`, the driver's flags. Medians of %d rounds."
              % (x["qemu"], x["vr"], x["rounds"]), "",
              "| one VM VR, live | time (s) | each round (s) |", "|---|---:|---|"]
    for key, label in (("migrate_s", "moved A to B through vrouter (`POST /routers/{i}/migrate`)"),
                       ("floor_s", "floor: `virsh migrate --live` of the domain alone")):
        lines.append("| %s | %.2f | %s |" % (label, x[key + "_median"], ", ".join("%.2f" % s for s in x[key])))
    lines += ["", "The move through vrouter takes %.2fx the floor's time." % x["ratio_median"]]
    return lines
