"""The peers the paper measured, run beside ours in the same run, on loopback only:

- Net-SNMP's snmpd (Debian) in a network namespace of our own holding N ifb links, so that its ifTable
  has N rows; walked with GETBULK by the same client library (ezsnmp) from inside the namespace.
- yuma123's netconfd (Debian; a descendant of the OpenYuma the paper used) serving our YANG module behind
  an sshd of our own (the netconf subsystem), driven by the same NETCONF client (ncclient).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time

from .util import free_port, log

YANG_DIR = "vr-yang/src/main/resources/io/vrouter/yang"
YANG = "NEW-VMM-MIB@2026-11-28.yang"


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def terminate(proc):
    """Stops a process we started: TERM, then KILL after 10 s."""
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def start_floor(cmd, log_path, ready, what, env=None):
    """Starts a floor server from its Java source (compiled first, so allow 90 s) with bin/vrouter's malloc
    arenas, and returns its process once its output says it is ready."""
    proc = subprocess.Popen(cmd, stdout=open(log_path, "w"), stderr=subprocess.STDOUT, start_new_session=True,
                            env=dict(os.environ, MALLOC_ARENA_MAX="2", **(env or {})))
    end = time.time() + 90
    while ready not in open(log_path).read():
        if proc.poll() is not None or time.time() > end:
            terminate(proc)
            raise RuntimeError("%s did not start: %s" % (what, open(log_path).read()[-2000:]))
        time.sleep(0.2)
    return proc


class JavaFloor:
    """A floor server run from its Java source in integration-tests/src/bench/floor: started by start_floor, its
    pid for CPU figures, stopped with its process group. Subclasses say what it is and how it starts."""
    proc = None

    @property
    def pid(self):
        return self.proc.pid

    def stop(self):
        terminate(self.proc)
        log("%s stopped" % self.name)


class SnmpFloorAgent(JavaFloor):
    """snmp4j-agent answering vrouter's SNMP requests from a fixed in-memory MIB of the same shape, set up as
    vrouter's agent is and sending the same notifications (integration-tests/src/bench/floor): what the library
    costs with no vrouter logic behind it. Run from source with the server's jar on the class path (the jar
    holds snmp4j-agent) and the launcher's JVM settings; not part of the product."""
    name = "snmp4j-agent floor"

    def __init__(self, jar, repo, workdir, trap_port, rows=1000):
        from .server import LEAN_FLAGS
        self.rows = rows
        self.snmp_port = free_port(socket.SOCK_DGRAM)
        self.log_path = os.path.join(workdir, "snmp-floor.log")
        src = os.path.join(repo, "integration-tests/src/bench/floor/SnmpFloorAgent.java")
        self.cmd = ["java"] + LEAN_FLAGS + ["-cp", jar, src, str(self.snmp_port), str(trap_port), str(rows)]
        self.proc = None

    def start(self):
        self.proc = start_floor(self.cmd, self.log_path, "floor on", "the snmp4j-agent floor")
        log("snmp4j-agent floor up on 127.0.0.1:%d, pid %d, %d rows" % (self.snmp_port, self.proc.pid, self.rows))
        return self


class SnmpdPeer:
    name = "snmpd (Net-SNMP)"

    def __init__(self, workdir):
        self.dir = os.path.join(workdir, "snmpd")
        os.makedirs(self.dir, exist_ok=True)
        self.ns = "vrbench%d" % os.getpid()
        self.links = 0
        self.proc = None

    def start(self):
        run(["ip", "netns", "add", self.ns])
        run(["ip", "-n", self.ns, "link", "set", "lo", "up"])
        self.port = 16100 + os.getpid() % 1000
        return self._start_agent()

    def _start_agent(self):
        conf = os.path.join(self.dir, "snmpd.conf")
        with open(conf, "w") as f:
            f.write("rocommunity public 127.0.0.1\n")
        persist = os.path.join(self.dir, "persist")
        os.makedirs(persist, exist_ok=True)
        env = dict(os.environ, SNMP_PERSISTENT_DIR=persist)
        self.proc = subprocess.Popen(["ip", "netns", "exec", self.ns, "/usr/sbin/snmpd", "-f", "-C", "-c", conf,
                                      "-Lf", os.path.join(self.dir, "snmpd.log"), "udp:127.0.0.1:%d" % self.port],
                                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
        time.sleep(1.0)
        if self.proc.poll() is not None:
            raise RuntimeError("snmpd exited: " + open(os.path.join(self.dir, "snmpd.log")).read()[-2000:])
        log("snmpd up in netns %s on 127.0.0.1:%d, pid %d" % (self.ns, self.port, self.proc.pid))
        return self

    @property
    def pid(self):
        return self.proc.pid

    def set_links(self, n):
        """ifTable rows: lo plus n-1 ifb links (created in one `ip -batch`). snmpd keeps the interface list
        it found at start, so it is restarted after the links change."""
        want = max(n - 1, 0)
        if want > self.links:
            self._stop_agent()
            path = os.path.join(self.dir, "links.batch")
            with open(path, "w") as f:
                for i in range(self.links, want):
                    f.write("link add ifb%d type ifb\n" % i)
            run(["ip", "-n", self.ns, "-batch", path])
            self.links = want
            self._start_agent()

    def walk(self, repeat, oid="1.3.6.1.2.1.2.2"):
        """GETBULK walks of ifTable from inside the namespace, by this program's own walk command."""
        src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        out = subprocess.run(["ip", "netns", "exec", self.ns, sys.executable, "-m", "vrbench", "walk",
                              "--port", str(self.port), "--community", "public", "--oid", oid,
                              "--repeat", str(repeat), "--pid", str(self.pid)],
                             capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=src), timeout=600)
        if out.returncode != 0:
            raise RuntimeError("walk in netns failed: " + out.stderr[-2000:])
        return json.loads(out.stdout.strip().splitlines()[-1])

    def _stop_agent(self):
        terminate(self.proc)

    def stop(self):
        self._stop_agent()
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
        log("snmpd stopped, netns %s removed" % self.ns)


class FilePeer:
    """A server of ours sending files from a directory of ours (what put writes), one process."""
    name = "?"

    def __init__(self, workdir, sub):
        self.dir = os.path.join(workdir, sub)
        self.root = os.path.join(self.dir, "www")
        os.makedirs(self.root, exist_ok=True)
        self.proc = None

    @property
    def pid(self):
        return self.proc.pid

    def put(self, name, body):
        with open(os.path.join(self.root, name), "wb") as f:
            f.write(body)
        return "/" + name

    def stop(self):
        terminate(self.proc)
        log("%s stopped" % self.name)


class NginxPeer(FilePeer):
    """nginx (Debian's nginx-light) serving files from a directory of ours on a free loopback port, one
    process (no master), no access log: the peer for REST's reads of the same bytes."""
    name = "nginx"

    def __init__(self, workdir):
        super().__init__(workdir, "nginx")

    def start(self):
        self.port = free_port()
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write("daemon off; master_process off; worker_processes 1; pid %s/nginx.pid; error_log %s/error.log;\n"
                    "events { worker_connections 64; }\n"
                    "http { access_log off; sendfile on; tcp_nodelay on; keepalive_requests 1000000;\n"
                    "  types { application/json json; }\n"
                    "  server { listen 127.0.0.1:%d; root %s; } }\n" % (self.dir, self.dir, self.port, self.root))
        self.proc = subprocess.Popen(["/usr/sbin/nginx", "-c", conf, "-p", self.dir], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        time.sleep(0.5)
        if self.proc.poll() is not None:
            raise RuntimeError("nginx exited: " + open(os.path.join(self.dir, "error.log")).read()[-2000:])
        log("nginx up on 127.0.0.1:%d, pid %d" % (self.port, self.proc.pid))
        return self


class FloorPeer(FilePeer):
    """The floor of REST's reads: the JDK's HTTP server, which vrouter's REST runs on, sending the same bytes
    from a trivial handler (FloorServer.java beside this file: no Jersey, no vrouter logic), built here and
    started through the launcher (bin/vrouter with VROUTER_JAR), so with the product's JVM settings. With a
    routes.txt in its directory (phases.record_rest_replies) it answers the cycles' requests with fixed replies."""
    name = "JDK HttpServer"

    def __init__(self, workdir, launcher, sub="floor"):
        super().__init__(workdir, sub)
        self.launcher = launcher

    @property
    def rest_port(self):  # what the REST and RESTCONF clients read of a server
        return self.port

    def start(self):
        classes = os.path.join(self.dir, "classes")
        jar = os.path.join(self.dir, "floor.jar")
        run(["javac", "-d", classes, os.path.join(os.path.dirname(__file__), "FloorServer.java")])
        run(["jar", "--create", "--file", jar, "--main-class", "FloorServer", "-C", classes, "."])
        self.port = free_port()
        self.proc = subprocess.Popen([self.launcher, str(self.port), self.root], env=dict(os.environ, VROUTER_JAR=jar),
                                     stdout=open(os.path.join(self.dir, "floor.log"), "w"), stderr=subprocess.STDOUT,
                                     start_new_session=True)
        end = time.time() + 30
        while "listening" not in open(os.path.join(self.dir, "floor.log")).read():
            if self.proc.poll() is not None or time.time() > end:
                raise RuntimeError("the floor server did not start: " + open(os.path.join(self.dir, "floor.log")).read()[-2000:])
            time.sleep(0.1)
        log("JDK HttpServer floor up on 127.0.0.1:%d, pid %d" % (self.port, self.proc.pid))
        return self


class NetconfdPeer:
    name = "netconfd (yuma123)"

    def __init__(self, workdir, repo, target="running"):
        """target: running (edit-config on running, as the cycles do) or candidate (edit, then commit)."""
        self.target = target
        self.dir = os.path.join(workdir, "netconfd" if target == "running" else "netconfd-" + target)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.repo = repo
        self.sshd = self.netconfd = None

    def start(self):
        d = self.dir
        self.port = free_port()
        sock = os.path.join(d, "ncxserver.sock")
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(d, "host_key")])
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(d, "client_key")])
        shutil.copy(os.path.join(d, "client_key.pub"), os.path.join(d, "authorized_keys"))
        self.key = os.path.join(d, "client_key")
        conf = os.path.join(d, "sshd_config")
        with open(conf, "w") as f:
            f.write("\n".join([
                "Port %d" % self.port, "ListenAddress 127.0.0.1", "HostKey %s/host_key" % d,
                "PidFile %s/sshd.pid" % d, "AuthorizedKeysFile %s/authorized_keys" % d,
                "PermitRootLogin prohibit-password", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
                "UsePAM no", "StrictModes no", "MaxStartups 100", "MaxSessions 100",
                'Subsystem netconf "/usr/sbin/netconf-subsystem --ncxserver-sockname=%d@%s"' % (self.port, sock), ""]))
        os.makedirs("/run/sshd", exist_ok=True)
        # Our module and the one it imports that yuma lacks, alone: the server's YANG directory also holds
        # modules of yuma's own (notifications, nc-notifications) that netconfd must take from its library.
        yang_dir = os.path.join(d, "yang")
        os.makedirs(yang_dir, exist_ok=True)
        for name in (YANG, "ietf-yang-smiv2@2012-06-22.yang"):
            shutil.copy(os.path.join(self.repo, YANG_DIR, name), yang_dir)
        self.netconfd = subprocess.Popen(
            ["/usr/sbin/netconfd", "--module=%s" % os.path.join(yang_dir, YANG),
             "--modpath=%s:/usr/share/yuma/modules" % yang_dir, "--ncxserver-sockname=%s" % sock, "--port=%d" % self.port,
             "--no-startup", "--target=%s" % self.target, "--superuser=root", "--access-control=off",
             "--log=%s/netconfd.log" % d, "--log-level=warn", "--max-sessions=200", "--home=%s" % d],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True, env=dict(os.environ, HOME=d),
            cwd=os.path.dirname(d))  # it writes backup-cfg.xml where it runs: in the run's work directory
        end = time.time() + 20
        while not os.path.exists(sock) and time.time() < end:
            if self.netconfd.poll() is not None:
                raise RuntimeError("netconfd exited: " + open(os.path.join(d, "netconfd.log")).read()[-2000:])
            time.sleep(0.1)
        if not os.path.exists(sock):
            raise RuntimeError("netconfd did not open its socket")
        self.sshd = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", conf], stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(d, "sshd.log"), "w"), start_new_session=True)
        time.sleep(0.5)
        if self.sshd.poll() is not None:
            raise RuntimeError("sshd exited: " + open(os.path.join(d, "sshd.log")).read()[-2000:])
        log("netconfd up (pid %d, target %s) behind sshd on 127.0.0.1:%d (pid %d)" % (self.netconfd.pid, self.target,
                                                                                    self.port, self.sshd.pid))
        return self

    @property
    def pid(self):
        return self.netconfd.pid

    def stop(self):
        for p in (self.sshd, self.netconfd):
            terminate(p)
        log("netconfd and its sshd stopped")


class NetconfFloor(JavaFloor):
    """The floor of a NETCONF request: integration-tests/src/bench/floor/NetconfFloor.java, Apache MINA SSHD as
    vrouter's NETCONF server sets it up, answering every rpc with a fixed <ok/> (no vrouter code), run from
    its source on the packaged server's classpath (for the same MINA SSHD) with the launcher's JVM settings."""
    name = "NETCONF floor (MINA SSHD, fixed <ok/>)"

    def __init__(self, workdir, repo, jar):
        self.dir = os.path.join(workdir, "netconf-floor")
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.source = os.path.join(repo, "integration-tests", "src", "bench", "floor", "NetconfFloor.java")
        self.jar = jar
        self.proc = None

    def start(self):
        from .server import LEAN_FLAGS
        self.port = self.netconf_port = free_port()
        self.proc = start_floor(["java"] + LEAN_FLAGS + ["-cp", self.jar, self.source, str(self.port), self.dir],
                                os.path.join(self.dir, "floor.log"), "listening", "the NETCONF floor")
        log("NETCONF floor up on 127.0.0.1:%d, pid %d" % (self.port, self.proc.pid))
        return self


class FootprintFloor(JavaFloor):
    """The floor of the whole server's RSS: integration-tests/src/bench/floor/FootprintFloor.java, a JVM that loads
    and initialises the library and JDK classes the real server had loaded (from a list, vrouter's own left out),
    runs as many threads and holds as much live heap as it did, and runs no vrouter code. Compiled to a jar whose
    manifest puts the server's jar on its class path and started through the launcher (bin/vrouter with
    VROUTER_JAR), so with the product's JVM settings and nothing more: run from source, the JVM would also load
    javac's classes. jvm_flags go in JAVA_OPTS (Native Memory Tracking)."""
    name = "footprint floor"

    def __init__(self, workdir, repo, jar, launcher, class_list, threads, heap_bytes, label="floor", jvm_flags=()):
        self.dir = os.path.join(workdir, "footprint-" + label)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.source = os.path.join(repo, "integration-tests", "src", "bench", "floor", "FootprintFloor.java")
        self.jar, self.launcher, self.jvm_flags = jar, launcher, list(jvm_flags)
        self.args = [class_list, str(int(threads)), str(int(heap_bytes))]
        self.proc = None

    def start(self):
        classes = os.path.join(self.dir, "classes")
        run(["javac", "-d", classes, self.source])
        os.symlink(os.path.abspath(self.jar), os.path.join(self.dir, "vrouter.jar"))
        with open(os.path.join(self.dir, "manifest.txt"), "w") as f:
            f.write("Class-Path: vrouter.jar\n")
        jar = os.path.join(self.dir, "floor.jar")
        run(["jar", "--create", "--file", jar, "--main-class", "FootprintFloor",
             "--manifest", os.path.join(self.dir, "manifest.txt"), "-C", classes, "."])
        env = {"VROUTER_JAR": jar}
        if self.jvm_flags:
            env["JAVA_OPTS"] = " ".join(self.jvm_flags)
        self.log_path = os.path.join(self.dir, "floor.log")
        self.proc = start_floor([self.launcher] + self.args, self.log_path, "ready", "the footprint floor", env=env)
        self.ready = next(l for l in open(self.log_path) if l.startswith("ready"))
        log("footprint floor up, pid %d: %s" % (self.proc.pid, self.ready.strip()))
        return self
