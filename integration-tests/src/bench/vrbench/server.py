"""The packaged vrouter server, run as its own process on free loopback ports."""
import base64
import http.client
import os
import re
import signal
import subprocess
import time

from .util import free_port, log, rss_kb

LEAN_FLAGS = ["-XX:+UseSerialGC", "-Xms8m", "-Xmx64m", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=20",
              "-XX:NewRatio=4", "-Xss256k", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1", "-XX:ReservedCodeCacheSize=32m",
              "-XX:MaxMetaspaceSize=96m", "-XX:MaxDirectMemorySize=8m",
              # not memory: TCP_NODELAY on the JDK's HTTP server, which REST runs on; without it every reply
              # written in two parts waits for the client's delayed ACK (about 40 ms)
              "-Dsun.net.httpserver.nodelay=true"]

AUTH = "Basic " + base64.b64encode(b"admin:admin").decode()


class Server:
    """launcher: a start script (bin/vrouter, as the README runs the server) instead of `java -jar`;
    jvm_flags then go in JAVA_OPTS, after the script's own settings."""

    def __init__(self, jar, workdir, name, jvm_flags=(), sim="none", trap_port=None, launcher=None, env=None,
                 extra_args=(), wrapper=(), host="127.0.0.1", off=()):
        self.jar, self.name, self.jvm_flags, self.sim, self.trap_port = jar, name, list(jvm_flags), sim, trap_port
        self.launcher, self.env = launcher, dict(env or {})
        self.extra_args = list(extra_args)
        # off: the interfaces started with their port off (rest, snmp, netconf); without REST the server is
        # ready when it logs that it started
        self.off = set(off)
        # wrapper: a command the server runs under (a router's namespace); host: where it is reached then.
        self.wrapper, self.host = list(wrapper), host
        self.dir = os.path.join(workdir, "server-" + name)
        os.makedirs(self.dir, exist_ok=True)
        self.rest_port = free_port()
        self.snmp_port = free_port(2)
        self.netconf_port = free_port()
        self.proc = None

    @property
    def pid(self):
        return self.proc.pid

    def ports(self):
        return [self.rest_port, self.snmp_port, self.netconf_port]

    def start(self):
        args = ["--data-dir", os.path.join(self.dir, "data"), "--sim-latency", self.sim]
        for name, port in (("rest", self.rest_port), ("snmp", self.snmp_port), ("netconf", self.netconf_port)):
            args += ["--%s-port" % name, "off" if name in self.off else str(port)]
        env = dict(os.environ, **self.env)
        if self.launcher:
            cmd = [self.launcher] + args
            env["VROUTER_JAR"] = self.jar
            if self.jvm_flags:
                env["JAVA_OPTS"] = " ".join(self.jvm_flags)
        else:
            cmd = ["java"] + self.jvm_flags + ["-jar", self.jar] + args
        if self.trap_port:
            cmd += ["--snmp-trap-target", "udp:127.0.0.1:%d" % self.trap_port]
        cmd = self.wrapper + cmd + self.extra_args
        self.log_path = os.path.join(self.dir, "server.log")
        self.proc = subprocess.Popen(cmd, stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT,
                                     start_new_session=True, env=env)
        self.cmd = ([("JAVA_OPTS='%s'" % env["JAVA_OPTS"])] if self.launcher and self.jvm_flags else []) + cmd
        end = time.time() + 90
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("server %s exited %s:\n%s" % (self.name, self.proc.returncode, open(self.log_path).read()[-3000:]))
            try:
                if "rest" in self.off:
                    if "vrouter started in" in open(self.log_path).read():
                        break
                elif self.request("GET", "/health/ready")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        else:
            raise RuntimeError("server %s not ready in 90 s" % self.name)
        time.sleep(1.0)  # the SNMP agent and NETCONF listener come up beside REST
        log("server %s up: pid %d, REST %d, SNMP %d, NETCONF %d, %s" % (self.name, self.pid, self.rest_port,
                                                                        self.snmp_port, self.netconf_port, " ".join(self.cmd[:2]) if self.launcher else (" ".join(self.jvm_flags) or "no JVM flags")))
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
            log("server %s stopped" % self.name)

    def request(self, method, path, body=None, ctype="application/json", accept="application/json", timeout=120):
        c = http.client.HTTPConnection(self.host, self.rest_port, timeout=timeout)
        try:
            headers = {"Authorization": AUTH, "Accept": accept}
            if body is not None:
                headers["Content-Type"] = ctype
            c.request(method, path, body=body, headers=headers)
            r = c.getresponse()
            return r.status, r.read()
        finally:
            c.close()

    def metrics(self):
        """Prometheus text of /metrics as {name{labels}: value}."""
        status, body = self.request("GET", "/metrics", accept="text/plain")
        out = {}
        for line in body.decode().splitlines():
            if not line or line.startswith("#"):
                continue
            k, _, v = line.rpartition(" ")
            try:
                out[k] = float(v)
            except ValueError:
                pass
        return out

    def heap_used(self, gc=True):
        """Heap in use in bytes, after a full GC when asked (jcmd GC.run), from the JVM gauges of /metrics."""
        if gc:
            subprocess.run(["jcmd", str(self.pid), "GC.run"], capture_output=True, timeout=60)
            time.sleep(0.5)
        m = self.metrics()
        return sum(v for k, v in m.items() if k.startswith("jvm_memory_used_bytes{") and 'area="heap"' in k)

    def classes_loaded(self):
        m = self.metrics()
        return sum(v for k, v in m.items() if k.startswith("jvm_classes_loaded_classes"))

    def nonheap_used(self):
        m = self.metrics()
        return sum(v for k, v in m.items() if k.startswith("jvm_memory_used_bytes{") and 'area="nonheap"' in k)

    def request_timers(self):
        """Server-side time per (interface, operation): {key: (count, sum_seconds)} from vrouter_requests_seconds."""
        m = self.metrics()
        out = {}
        for k, v in m.items():
            mm = re.match(r'vrouter_requests_seconds_(count|sum)\{(.*)\}$', k)
            if not mm:
                continue
            labels = dict(re.findall(r'(\w+)="([^"]*)"', mm.group(2)))
            key = (labels.get("interface"), labels.get("operation"))
            c, s = out.get(key, (0.0, 0.0))
            out[key] = (c + v, s) if mm.group(1) == "count" else (c, s + v)
        return out

    def rss_kb(self):
        return rss_kb(self.pid)

    def count(self):
        import json
        return json.loads(self.request("GET", "/health")[1])["routers"]

    def populate(self, target, running=True, chunk=500, first=None):
        """Brings the number of VRs up to target with REST batch calls (each waits until its VRs are up)."""
        import json
        have = self.count()
        idx = first or 100000 + have
        while have < target:
            n = min(chunk, target - have)
            vrs = [{"vmIndex": idx + i, "vmName": "pre-%d" % (idx + i),
                    "vmAdminState": "running" if running else "shutdown"} for i in range(n)]
            status, body = self.request("POST", "/api/v1/routers/batch?wait=120s", json.dumps({"virtualRouter": vrs}))
            if status not in (200, 201, 202):
                raise RuntimeError("batch create failed: %s %s" % (status, body[:300]))
            idx += n
            have += n
        return have
