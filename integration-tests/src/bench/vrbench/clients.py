"""The five management interfaces as a manager drives them, with real protocol clients:
SNMPv2c and SNMPv3 authPriv (ezsnmp, i.e. Net-SNMP's library), NETCONF over SSH (ncclient),
REST with XML and with JSON (http.client), RESTCONF with yang-data+xml and +json (http.client).

Every operation returns (reply_s, done_s): seconds from the first request (T1) to the last reply, and to
the moment the operation is complete (T2): the completion notification for SNMP (a trap at our listener)
and NETCONF (a notification on the session's subscription); for REST the reply itself, since ?wait=
answers when the VR is done."""
import http.client
import os
import socket
import threading
import time

import ncclient.transport.session as nc_session

nc_session.TICK = 0.001  # ncclient polls its socket every TICK seconds; the default (0.1 s) makes every rpc slow

from ncclient import manager  # noqa: E402

from .server import AUTH  # noqa: E402

CFG = "1.3.6.1.3.7666.1.12.1"  # vmConfigEntry
VM = "1.3.6.1.3.7666.1.4.1"  # vmEntry
VM_COLS = list(range(3, 24))  # vmTable's accessible columns (vmName and vmAdminState moved to vmConfigTable)
CFG_COLS = list(range(1, 8))
TRAP_KINDS = {"1": "running", "3": "shutdown", "10": "deleted"}
VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB"
NC = "urn:ietf:params:xml:ns:netconf:base:1.0"
NC_KINDS = {"vmRunning": "running", "vmShutdown": "shutdown", "vmDeleted": "deleted"}

WAIT = 60.0


class TrapListener:
    """An SNMP notification receiver on 127.0.0.1: remembers when each (vmIndex, state) notification arrived."""

    def __init__(self):
        from pysnmp.proto import api
        from pyasn1.codec.ber import decoder
        self._api, self._decoder = api, decoder
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.seen = {}
        self.cond = threading.Condition()
        self.running = True
        self.count = 0
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        self.sock.settimeout(0.5)
        while self.running:
            try:
                data, _ = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            except OSError:
                return
            t = time.perf_counter()
            try:
                key = self._decode(data)
            except Exception:
                continue
            if key:
                with self.cond:
                    self.seen[key] = t
                    self.count += 1
                    self.cond.notify_all()

    def _decode(self, data):
        api = self._api
        ver = int(api.decodeMessageVersion(data))
        p = api.PROTOCOL_MODULES[ver]
        msg, _ = self._decoder.decode(data, asn1Spec=p.Message())
        vbs = p.apiPDU.get_varbinds(p.apiMessage.get_pdu(msg))
        trap, index = None, None
        for oid, val in vbs:
            o = str(oid)
            if o == "1.3.6.1.6.3.1.1.4.1.0":
                v = str(val.prettyPrint())
                if v.startswith("1.3.6.1.3.7666.0."):
                    trap = TRAP_KINDS.get(v.rsplit(".", 1)[1])
            elif o.startswith(CFG + ".") or o.startswith(VM + "."):
                index = int(o.rsplit(".", 1)[1])
        return (index, trap) if trap and index is not None else None

    def wait(self, index, kind, since, timeout=WAIT):
        """When the (index, kind) notification arrived, at or after since (an older one is stale)."""
        end = time.perf_counter() + timeout
        with self.cond:
            while (index, kind) not in self.seen or self.seen[(index, kind)] < since:
                left = end - time.perf_counter()
                if left <= 0:
                    raise TimeoutError("no %s notification for VR %d" % (kind, index))
                self.cond.wait(left)
            return self.seen.pop((index, kind))

    def clear(self):
        with self.cond:
            self.seen.clear()

    def close(self):
        self.running = False
        self.sock.close()


class Client:
    name = "?"
    family = "?"

    def __init__(self, server, traps=None, notify=True):
        self.server, self.traps, self.notify = server, traps, notify

    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc):
        self.close()

    # a persistent session (what the cycles use)
    def open(self):
        pass

    def close(self):
        pass


# ------------------------------------------------------------------ SNMP

def usm_master_key(passphrase):
    """RFC 3414 password-to-key (SHA-1 over 1 MB of the repeated passphrase): the key an NMS derives once."""
    import hashlib
    data = (passphrase.encode() * (1048576 // len(passphrase) + 1))[:1048576]
    return hashlib.sha1(data).hexdigest()


class UsmSession:
    """SNMPv3 authPriv through Net-SNMP's command code (ezsnmp.netsnmp), given the master keys rather than the
    passphrases, and (for a kept session) the agent's engine ID: what a long-running manager does. ezsnmp's
    Session derives both keys from the passphrases on every request (2 x 1 MB of SHA-1, about 9 ms here), which
    would be measured as protocol cost; a fresh session (engine_id None) still discovers the engine ID first, as
    the paper's one-shot snmpset did."""

    def __init__(self, port, max_rep, engine_id=None):
        from ezsnmp import netsnmp
        self.n = netsnmp
        self.max_rep = max_rep
        self.args = ["-v3", "-l", "authPriv", "-u", "admin", "-a", "SHA", "-x", "AES",
                     "-3m", "0x" + usm_master_key("adminauthpass"), "-3M", "0x" + usm_master_key("adminprivpass"),
                     "-On", "-t", "10", "-r", "1"] + (["-e", engine_id] if engine_id else []) + ["127.0.0.1:%d" % port]

    def get(self, oids):
        return self.n.snmpget(self.args + list(oids))

    def set(self, vbs):
        return self.n.snmpset(self.args + [str(v) for v in vbs])

    def bulk_get(self, oids):
        return self.n.snmpbulkget(["-Cn0", "-Cr%d" % self.max_rep] + self.args + list(oids))

    def bulk_walk(self, oid):
        return self.n.snmpbulkwalk(["-Cr%d" % self.max_rep] + self.args + [oid])


class SnmpClient(Client):
    family = "SNMP"
    max_rep = 10

    def __init__(self, server, traps=None, notify=True, version="2c"):
        super().__init__(server, traps, notify)
        self.version = version
        self.name = "SNMPv2c" if version == "2c" else "SNMPv3"
        self.port = server.snmp_port if hasattr(server, "snmp_port") else server

    def session(self, max_rep=None, kept=False):
        """A new session; a kept one (v3) knows the agent's engine ID, a fresh one discovers it."""
        from ezsnmp import Session
        if self.version == "2c":
            return Session(hostname="127.0.0.1", port_number=self.port, timeout=10, retries=1,
                           print_oids_numerically=True, set_max_repeaters_to_num=max_rep or self.max_rep,
                           version=2, community=getattr(self, "community", "private"))
        engine = None
        if kept:
            r = UsmSession(self.port, 1).get(["1.3.6.1.6.3.10.2.1.1.0"])  # snmpEngineID.0
            engine = "0x" + r[0].value.replace(" ", "")
        return UsmSession(self.port, max_rep or self.max_rep, engine)

    def open(self):
        self.s = self.session(kept=True)

    def _done(self, t0, index, kind):
        reply = time.perf_counter() - t0
        if kind is None or self.traps is None:
            return reply, reply
        return reply, self.traps.wait(index, kind, t0) - t0

    @staticmethod
    def create_vbs(index, admin=4):
        vbs = [CFG + ".7.%d" % index, "i", "4", CFG + ".1.%d" % index, "s", "vr-%d" % index]
        return vbs + [CFG + ".2.%d" % index, "i", str(admin)] if admin else vbs

    @staticmethod
    def get_oids(index):
        return [CFG + ".%d.%d" % (c, index) for c in CFG_COLS] + [VM + ".%d.%d" % (c, index) for c in VM_COLS]

    def create(self, index, wait=True):
        t0 = time.perf_counter()
        self.s.set(self.create_vbs(index))
        return self._done(t0, index, "shutdown" if wait else None)

    def start(self, index, wait=True):
        t0 = time.perf_counter()
        self.s.set([CFG + ".2.%d" % index, "i", "1"])
        return self._done(t0, index, "running" if wait else None)

    def retrieve(self, index):
        t0 = time.perf_counter()
        r = self.s.get(self.get_oids(index))
        if len(r) != len(CFG_COLS) + len(VM_COLS) or r[0].type in ("NOSUCHINSTANCE", "NOSUCHOBJECT"):
            raise RuntimeError("%s retrieve of VR %d: %s" % (self.name, index, [(x.oid, x.type) for x in r][:3]))
        return self._done(t0, index, None)

    def remove(self, index, wait=True):
        t0 = time.perf_counter()
        self.s.set([CFG + ".7.%d" % index, "i", "6"])
        return self._done(t0, index, "deleted" if wait else None)

    # the network forms: every session (for v3 with its engine discovery) inside the measurement
    def single(self, op, indexes):
        for i in indexes:
            s = self.session()
            if op == "create":
                s.set(self.create_vbs(i, None))
            elif op == "retrieve":
                s.get(self.get_oids(i))
            else:
                s.set([CFG + ".7.%d" % i, "i", "6"])

    def batch(self, op, indexes):
        s = self.session()
        if op == "create":
            vbs = []
            for i in indexes:
                vbs += self.create_vbs(i, None)
            s.set(vbs)
        elif op == "retrieve":
            return len(s.bulk_walk(CFG)) + len(s.bulk_walk(VM))
        else:
            vbs = []
            for i in indexes:
                vbs += [CFG + ".7.%d" % i, "i", "6"]
            s.set(vbs)

    def list_all(self, budget_s=None, expected=None):
        """GETBULK (50 repetitions) walks of vmConfigTable and vmTable. With a time budget, each table's walk
        stops when its half of the budget is spent and its time is extrapolated from the share of the table's
        expected varbinds ({root: count}) it walked: returns (varbinds walked, seconds, complete)."""
        s = self.session(max_rep=50, kept=True)
        total, secs, complete = 0, 0.0, True
        for root in (CFG, VM):
            t0 = time.perf_counter()
            nxt, n, done = root, 0, False
            while not done:
                r = s.bulk_get([nxt])
                for x in r:
                    full = (x.oid + "." + x.index) if x.index else x.oid
                    if not full.lstrip(".").startswith(root + ".") or x.type.startswith("ENDOFMIB"):
                        done = True
                        break
                    n += 1
                    nxt = full
                if not r:
                    done = True
                if not done and budget_s is not None and time.perf_counter() - t0 > budget_s / 2:
                    break
            dt = time.perf_counter() - t0
            total += n
            if not done:
                complete = False
                dt = dt * expected[root] / max(n, 1)
            secs += dt
        return total, secs, complete

    def walk(self, oid):
        return len(self.s.bulk_walk(oid))


# ------------------------------------------------------------------ NETCONF

def nc_config(body):
    return ('<config xmlns="%s"><NEW-VMM-MIB xmlns="%s" xmlns:nc="%s">%s</NEW-VMM-MIB></config>' % (NC, VMM, NC, body))


def nc_entry(index, admin="shutdown", op="create"):
    state = "<vmAdminState>%s</vmAdminState>" % admin if admin else ""
    return ('<vmConfigEntry nc:operation="%s"><vmIndex>%d</vmIndex><vmName>vr-%d</vmName>%s</vmConfigEntry>'
            % (op, index, index, state))


def nc_delete(index):
    return '<vmConfigEntry nc:operation="delete"><vmIndex>%d</vmIndex></vmConfigEntry>' % index


SSH_COMPRESSION_CONFIG = None


def ssh_compression_config():
    """An ssh_config file asking for compression: ncclient then has paramiko offer zlib@openssh.com and zlib."""
    global SSH_COMPRESSION_CONFIG
    if SSH_COMPRESSION_CONFIG is None:
        import tempfile
        fd, SSH_COMPRESSION_CONFIG = tempfile.mkstemp(prefix="vrbench-ssh-", suffix=".config")
        with os.fdopen(fd, "w") as f:
            f.write("Host *\n    Compression yes\n")
    return SSH_COMPRESSION_CONFIG


class NetconfClient(Client):
    name = "NETCONF"
    family = "NETCONF"
    state = True  # the server has state data (vmTable); a config-only peer does not

    def __init__(self, server, traps=None, notify=True, compress=False):
        super().__init__(server, traps, notify)
        self.compress = compress
        if compress:
            self.name = "NETCONF-zlib"

    def connect(self):
        port = self.server.netconf_port if hasattr(self.server, "netconf_port") else self.server
        extra = {"ssh_config": ssh_compression_config()} if self.compress else {}
        return manager.connect(host="127.0.0.1", port=port, username="admin", password="admin", hostkey_verify=False,
                               look_for_keys=False, allow_agent=False, timeout=60, **extra)

    def open(self):
        self.m = self.connect()
        if self.notify:
            self.m.create_subscription()

    def close(self):
        try:
            self.m.close_session()
        except Exception:
            pass

    def _wait(self, t0, index, kind):
        reply = time.perf_counter() - t0
        if kind is None or not self.notify:
            return reply, reply
        end = time.perf_counter() + WAIT
        while True:
            left = end - time.perf_counter()
            if left <= 0:
                raise TimeoutError("no %s notification for VR %d" % (kind, index))
            n = self.m.take_notification(block=True, timeout=left)
            if n is None:
                continue
            ele = n.notification_ele
            got = None
            for child in ele:
                local = child.tag.rsplit("}", 1)[-1]
                if local in NC_KINDS:
                    got = NC_KINDS[local]
                    idx = child.find(".//{%s}vmIndex" % VMM)
                    if got == kind and idx is not None and int(idx.text) == index:
                        return reply, time.perf_counter() - t0

    def retrieve_filter(self, index):
        if self.state:
            return ('<NEW-VMM-MIB xmlns="%s"><vmConfigTable><vmConfigEntry><vmIndex>%d</vmIndex></vmConfigEntry>'
                    '</vmConfigTable><vmTable><vmEntry><vmIndex>%d</vmIndex></vmEntry></vmTable></NEW-VMM-MIB>' % (VMM, index, index))
        return ('<NEW-VMM-MIB xmlns="%s"><vmConfigTable><vmConfigEntry><vmIndex>%d</vmIndex></vmConfigEntry>'
                '</vmConfigTable></NEW-VMM-MIB>' % (VMM, index))

    def all_filter(self):
        if self.state:
            return '<NEW-VMM-MIB xmlns="%s"><vmConfigTable/><vmTable/></NEW-VMM-MIB>' % VMM
        return '<NEW-VMM-MIB xmlns="%s"><vmConfigTable/></NEW-VMM-MIB>' % VMM

    def _get(self, m, flt):
        if self.state:
            return m.get(filter=("subtree", flt))
        return m.get_config(source="running", filter=("subtree", flt))

    def create(self, index, wait=True):
        t0 = time.perf_counter()
        self.m.edit_config(target="running", config=nc_config("<vmConfigTable>%s</vmConfigTable>" % nc_entry(index)))
        return self._wait(t0, index, "shutdown" if wait else None)

    def start(self, index, wait=True):
        t0 = time.perf_counter()
        self.m.edit_config(target="running", config=nc_config(
            "<vmConfigTable><vmConfigEntry><vmIndex>%d</vmIndex><vmAdminState>running</vmAdminState></vmConfigEntry></vmConfigTable>" % index))
        return self._wait(t0, index, "running" if wait else None)

    def retrieve(self, index):
        t0 = time.perf_counter()
        r = self._get(self.m, self.retrieve_filter(index))
        if "vr-%d<" % index not in r.xml:
            raise RuntimeError("NETCONF retrieve of VR %d found nothing" % index)
        return self._wait(t0, index, None)

    def remove(self, index, wait=True):
        t0 = time.perf_counter()
        self.m.edit_config(target="running", config=nc_config("<vmConfigTable>%s</vmConfigTable>" % nc_delete(index)))
        return self._wait(t0, index, "deleted" if wait else None)

    def single(self, op, indexes):
        for i in indexes:
            m = self.connect()
            try:
                if op == "create":
                    m.edit_config(target="running", config=nc_config("<vmConfigTable>%s</vmConfigTable>" % nc_entry(i, None)))
                elif op == "retrieve":
                    self._get(m, self.retrieve_filter(i))
                else:
                    m.edit_config(target="running", config=nc_config("<vmConfigTable>%s</vmConfigTable>" % nc_delete(i)))
            finally:
                m.close_session()

    def batch(self, op, indexes):
        m = self.connect()
        try:
            if op == "create":
                m.edit_config(target="running", config=nc_config(
                    "<vmConfigTable>%s</vmConfigTable>" % "".join(nc_entry(i, None) for i in indexes)))
            elif op == "retrieve":
                self._get(m, self.all_filter())
            else:
                m.edit_config(target="running", config=nc_config(
                    "<vmConfigTable>%s</vmConfigTable>" % "".join(nc_delete(i) for i in indexes)))
        finally:
            m.close_session()

    def list_all(self):
        m = self.connect()
        try:
            return self._get(m, self.all_filter()).xml.count("<vmConfigEntry>")
        finally:
            m.close_session()


# ------------------------------------------------------------------ REST

class RestClient(Client):
    family = "RWS"

    def __init__(self, server, traps=None, notify=True, fmt="json"):
        super().__init__(server, traps, notify)
        self.fmt = fmt
        self.name = "REST-" + fmt.upper()
        self.mime = "application/" + fmt
        self.port = server.rest_port

    def body(self, index, admin="shutdown"):
        if self.fmt == "json":
            state = ',"vmAdminState":"%s"' % admin if admin else ""
            return '{"vmIndex":%d,"vmName":"vr-%d"%s}' % (index, index, state)
        state = "<vmAdminState>%s</vmAdminState>" % admin if admin else ""
        return '<virtualRouter><vmIndex>%d</vmIndex><vmName>vr-%d</vmName>%s</virtualRouter>' % (index, index, state)

    def batch_body(self, indexes):
        if self.fmt == "json":
            return '{"virtualRouter":[%s]}' % ",".join(self.body(i, None) for i in indexes)
        return "<virtualRouters>%s</virtualRouters>" % "".join(self.body(i, None) for i in indexes)

    def conn(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)

    def open(self):
        self.c = self.conn()

    def close(self):
        self.c.close()

    def call(self, method, path, body=None, conn=None, expect=(200, 201, 202, 204), minimal=False):
        c = conn or self.c
        headers = {"Authorization": AUTH, "Accept": self.mime}
        if minimal:
            headers["Prefer"] = "return=minimal"
        if body is not None:
            headers["Content-Type"] = self.mime
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        if r.status not in expect:
            raise RuntimeError("%s %s %s: %s %s" % (self.name, method, path, r.status, data[:300]))
        return data

    def _timed(self, method, path, body=None):
        t0 = time.perf_counter()
        self.call(method, path, body)
        t = time.perf_counter() - t0
        return t, t

    def create(self, index, wait=True):
        return self._timed("POST", "/api/v1/routers" + ("?wait=30s" if wait else ""), self.body(index))

    def start(self, index, wait=True):
        return self._timed("POST", "/api/v1/routers/%d/start%s" % (index, "?wait=30s" if wait else ""))

    def retrieve(self, index):
        return self._timed("GET", "/api/v1/routers/%d" % index)

    def remove(self, index, wait=True):
        return self._timed("DELETE", "/api/v1/routers/%d%s" % (index, "?wait=30s" if wait else ""))

    def single(self, op, indexes):
        # as curl does: a connection per request
        for i in indexes:
            c = self.conn()
            try:
                if op == "create":
                    self.call("POST", "/api/v1/routers", self.body(i, None), conn=c)
                elif op == "retrieve":
                    self.call("GET", "/api/v1/routers/%d" % i, conn=c)
                else:
                    self.call("DELETE", "/api/v1/routers/%d" % i, conn=c)
            finally:
                c.close()

    def batch(self, op, indexes):
        c = self.conn()
        try:
            if op == "create":
                self.call("POST", "/api/v1/routers/batch", self.batch_body(indexes), conn=c, minimal=True)
            elif op == "retrieve":
                self.call("GET", "/api/v1/routers?limit=%d" % max(len(indexes), 1), conn=c)
            else:  # no batch removal in the API: one keep-alive connection, a DELETE per VR
                for i in indexes:
                    self.call("DELETE", "/api/v1/routers/%d" % i, conn=c)
        finally:
            c.close()

    def list_all(self):
        c = self.conn()
        try:
            data = self.call("GET", "/api/v1/routers?limit=100000", conn=c)
            return data.count(b"<vmConfigTemplate>" if self.fmt == "xml" else b'"vmConfigTemplate"')
        finally:
            c.close()


# ------------------------------------------------------------------ RESTCONF

RC_DATA = "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB"
RC_TABLE = RC_DATA + "/vmConfigTable"


class RestconfClient(RestClient):
    """RFC 8040 over the REST port, with yang-data+json or +xml: a write answers once accepted, and the
    operation is complete when its notification comes on the NETCONF stream as a server-sent event
    (JSON, read by a thread of this client), as NETCONF's completion is its notification."""
    family = "RESTCONF"

    def __init__(self, server, traps=None, notify=True, fmt="json"):
        super().__init__(server, traps, notify, fmt)
        self.name = "RESTCONF-" + fmt.upper()
        self.mime = "application/yang-data+" + fmt

    def body(self, index, admin="shutdown"):
        if self.fmt == "json":
            state = ',"vmAdminState":"%s"' % admin if admin else ""
            return '{"NEW-VMM-MIB:vmConfigEntry":[{"vmIndex":%d,"vmName":"vr-%d"%s}]}' % (index, index, state)
        state = "<vmAdminState>%s</vmAdminState>" % admin if admin else ""
        return '<vmConfigEntry xmlns="%s"><vmIndex>%d</vmIndex><vmName>vr-%d</vmName>%s</vmConfigEntry>' % (
            VMM, index, index, state)

    def admin_body(self, admin):
        if self.fmt == "json":
            return '{"NEW-VMM-MIB:vmAdminState":"%s"}' % admin
        return '<vmAdminState xmlns="%s">%s</vmAdminState>' % (VMM, admin)

    def open(self):
        super().open()
        self.seen, self.cond = {}, threading.Condition()
        if self.notify:
            self.sse = self.conn()
            self.sse.request("GET", "/restconf/streams/NETCONF/json", headers={"Authorization": AUTH})
            self.sse_r = self.sse.getresponse()
            self.sse_thread = threading.Thread(target=self._listen, daemon=True)
            self.sse_thread.start()

    def _listen(self):
        import json
        try:
            for line in self.sse_r:
                if not line.startswith(b"data: "):
                    continue
                n = json.loads(line[6:])["ietf-restconf:notification"]
                for key, body in n.items():
                    kind = NC_KINDS.get(key.split(":")[-1])
                    if kind:
                        with self.cond:
                            self.seen[(body["vmName"]["vmIndex"], kind)] = time.perf_counter()
                            self.cond.notify_all()
        except Exception:  # noqa: BLE001 - the stream was closed under the reader (http.client fails in several ways)
            pass

    def close(self):
        super().close()
        if self.notify:
            try:
                self.sse.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sse.close()

    def _wait(self, t0, index, kind):
        reply = time.perf_counter() - t0
        if kind is None or not self.notify:
            return reply, reply
        end = time.perf_counter() + WAIT
        with self.cond:
            while (index, kind) not in self.seen or self.seen[(index, kind)] < t0:
                left = end - time.perf_counter()
                if left <= 0:
                    raise TimeoutError("no %s notification for VR %d" % (kind, index))
                self.cond.wait(left)
            return reply, self.seen.pop((index, kind)) - t0

    def _write(self, method, path, body, index, kind):
        t0 = time.perf_counter()
        self.call(method, path, body)
        return self._wait(t0, index, kind)

    def create(self, index, wait=True):
        return self._write("POST", RC_TABLE, self.body(index), index, "shutdown" if wait else None)

    def start(self, index, wait=True):
        return self._write("PUT", RC_TABLE + "/vmConfigEntry=%d/vmAdminState" % index, self.admin_body("running"),
                           index, "running" if wait else None)

    def read(self, index, conn=None):
        """A VR's configuration and state, as SNMP's GET and NETCONF's get have them: its vmConfigEntry
        and its vmEntry, two resources (RESTCONF has no one resource holding both)."""
        self.call("GET", RC_TABLE + "/vmConfigEntry=%d" % index, conn=conn)
        self.call("GET", RC_DATA + "/vmTable/vmEntry=%d" % index, conn=conn)

    def retrieve(self, index):
        t0 = time.perf_counter()
        self.read(index)
        t = time.perf_counter() - t0
        return t, t

    def remove(self, index, wait=True):
        return self._write("DELETE", RC_TABLE + "/vmConfigEntry=%d" % index, None, index, "deleted" if wait else None)

    def single(self, op, indexes):
        for i in indexes:
            c = self.conn()
            try:
                if op == "create":
                    self.call("POST", RC_TABLE, self.body(i, None), conn=c)
                elif op == "retrieve":
                    self.read(i, conn=c)
                else:
                    self.call("DELETE", RC_TABLE + "/vmConfigEntry=%d" % i, conn=c)
            finally:
                c.close()

    def batch(self, op, indexes):
        """A batch is one YANG Patch (RFC 8072) of create or delete edits; a retrieval, the module's tree
        (every VR's configuration and state, as REST's GET /routers)."""
        c = self.conn()
        try:
            if op == "retrieve":
                self.call("GET", RC_DATA, conn=c)
                return
            edits = []
            for i in indexes:
                target = "/vmConfigTable/vmConfigEntry=%d" % i
                if self.fmt == "json":
                    value = ',"value":{"NEW-VMM-MIB:vmConfigEntry":[{"vmIndex":%d,"vmName":"vr-%d"}]}' % (i, i) if op == "create" else ""
                    edits.append('{"edit-id":"%d","operation":"%s","target":"%s"%s}' % (
                        i, "create" if op == "create" else "delete", target, value))
                else:
                    value = "<value>%s</value>" % self.body(i, None) if op == "create" else ""
                    edits.append("<edit><edit-id>%d</edit-id><operation>%s</operation><target>%s</target>%s</edit>" % (
                        i, "create" if op == "create" else "delete", target, value))
            if self.fmt == "json":
                patch = '{"ietf-yang-patch:yang-patch":{"patch-id":"bench","edit":[%s]}}' % ",".join(edits)
            else:
                patch = ('<yang-patch xmlns="urn:ietf:params:xml:ns:yang:ietf-yang-patch"><patch-id>bench</patch-id>%s'
                         '</yang-patch>' % "".join(edits))
            headers = {"Authorization": AUTH, "Accept": self.mime, "Content-Type": "application/yang-patch+" + self.fmt}
            c.request("PATCH", RC_DATA, body=patch, headers=headers)
            r = c.getresponse()
            data = r.read()
            if r.status != 200:
                raise RuntimeError("%s YANG Patch: %s %s" % (self.name, r.status, data[:300]))
        finally:
            c.close()

    def list_all(self):
        c = self.conn()
        try:
            data = self.call("GET", RC_DATA, conn=c)
            return data.count(b"<vmConfigTemplate>" if self.fmt == "xml" else b'"vmConfigTemplate"')
        finally:
            c.close()


def all_clients(server, traps=None, notify=True):
    return [SnmpClient(server, traps, notify, "2c"), SnmpClient(server, traps, notify, "3"),
            NetconfClient(server, traps, notify), RestClient(server, traps, notify, "xml"),
            RestClient(server, traps, notify, "json"), RestconfClient(server, traps, notify, "xml"),
            RestconfClient(server, traps, notify, "json")]


def make_client(name, server, traps=None, notify=True):
    for c in all_clients(server, traps, notify):
        if c.name == name:
            return c
    raise KeyError(name)


class NetconfdClient(NetconfClient):
    """The same client against yuma123's netconfd: it holds our module's configuration only (no
    instrumentation, so no vmTable and no notifications), reached through sshd as root with a key."""
    name = "NETCONF (netconfd)"
    state = False

    def __init__(self, peer):
        super().__init__(peer, None, notify=False)
        self.peer = peer
        self.name = "NETCONF (netconfd)"

    def connect(self):
        return manager.connect(host="127.0.0.1", port=self.peer.port, username="root", key_filename=self.peer.key,
                               hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=60)
