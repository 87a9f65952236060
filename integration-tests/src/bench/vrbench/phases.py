"""The measurements of issue 6, one function per part; each appends plain dict rows to Results."""
import multiprocessing
import os
import resource
import socket
import threading
import time

from . import clients as C
from .capture import Capture
from .server import Server
from .util import CpuMeter, children, log, median, rss_kb, tree_rss_kb

OPS = ("create", "start", "retrieve", "remove")


class Results:
    def __init__(self):
        self.tables = {k: [] for k in ("cycles", "server_time", "memory", "walks", "network", "peer_cycles",
                                       "scale", "throughput", "nmt", "threads", "classes", "footprint", "nc_bulk",
                                       "compression", "rest_peer", "snmp_floor", "nc_floor", "rest_floor",
                                       "rss_floor", "nc_bytes")}
        self.notes = []

    def add(self, table, **row):
        self.tables[table].append(row)


def measure_walk(client_or_session, oid, repeat, pid, warm=True):
    """GETBULK walks of one table: wall time and agent CPU per walk."""
    s = client_or_session
    if warm:
        s.bulk_walk(oid)  # warm-up (and fills snmpd's interface cache)
    cpu = CpuMeter(pid)
    ms, cpu_ms, app_ms, rows = [], [], [], 0
    for _ in range(repeat):
        cpu.sample()
        t0 = time.perf_counter()
        rows = len(s.bulk_walk(oid))
        ms.append((time.perf_counter() - t0) * 1000)
        cpu_ms.append(cpu.sample() / 1e6)
        app_ms.append(cpu.split["app"] / 1e6)
    return {"ms": ms, "cpu_ms": cpu_ms, "cpu_app_ms": app_ms, "varbinds": rows, "rss_kb": rss_kb(pid)}


def _cycle(client, idx, cpu, on_row, rss_pid=None):
    for op in OPS:
        fn = getattr(client, op)
        if cpu:
            cpu.sample()
        reply, done = fn(idx)
        cpu_ms = cpu.sample() / 1e6 if cpu else float("nan")
        split = {k: v / 1e6 for k, v in cpu.split.items()} if cpu else {}
        on_row(op, reply * 1000, done * 1000, cpu_ms, rss_kb(rss_pid) if rss_pid else 0, split)


def cycles(res, server, traps, label, pre, n_cycles, warmups, workdir, walk_ns=(), walk_repeat=0, first_index=1):
    """create -> start -> retrieve -> remove of one VR, n_cycles per interface, at each number of
    pre-existing running VRs; response time (reply and completion), server CPU and RSS per operation.
    warmups: (cycles before the first point, cycles before each later one), not measured."""
    cpu = CpuMeter(server.pid)
    idx = first_index
    for point, n in enumerate(pre):
        warmup = warmups[0] if point == 0 else warmups[1]
        server.populate(n)
        time.sleep(0.5)
        traps.clear()
        heap = server.heap_used(gc=True)
        res.add("memory", server=label, sim=server.sim, pre=n, when="before cycles", rss_kb=server.rss_kb(),
                heap_bytes=heap, nonheap_bytes=server.nonheap_used())
        for client in C.all_clients(server, traps):
            client.open()
            before = server.request_timers() if warmup == 0 else None
            for c in range(warmup + n_cycles):
                if c == warmup and warmup:
                    before = server.request_timers()
                    names0 = dict(cpu.by_name)
                def row(op, reply, done, cpu_ms, rss, split, c=c, client=client):
                    if c >= warmup:
                        res.add("cycles", server=label, sim=server.sim, pre=n, iface=client.name, cycle=c - warmup,
                                op=op, reply_ms=reply, done_ms=done, cpu_ms=cpu_ms, cpu_app_ms=split.get("app"),
                                cpu_jit_ms=split.get("jit"), cpu_vm_ms=split.get("vm"), rss_kb=rss)
                _cycle(client, idx, cpu, row, server.pid)
                idx += 1
            after = server.request_timers()
            if warmup:
                grand = sum(cpu.by_name.values()) - sum(names0.values())
                for name, v in sorted(cpu.by_name.items(), key=lambda kv: -(kv[1] - names0.get(kv[0], 0)))[:8]:
                    share = v - names0.get(name, 0)
                    if share > 0:
                        res.add("threads", server=label, pre=n, iface=client.name, thread=name,
                                cpu_ms_per_op=share / 1e6 / (n_cycles * len(OPS)), share=share / max(grand, 1))
            for key, (cnt, tot) in after.items():
                c0, t0 = before.get(key, (0, 0))
                if cnt > c0 and "/metrics" not in key[1] and "/health" not in key[1]:
                    res.add("server_time", server=label, pre=n, iface=client.name, interface=key[0], operation=key[1],
                            count=cnt - c0, mean_ms=(tot - t0) / (cnt - c0) * 1000)
            client.close()
            log("  %s pre=%d %s: %d cycles" % (label, n, client.name, n_cycles))
        res.add("memory", server=label, sim=server.sim, pre=n, when="after cycles", rss_kb=server.rss_kb(),
                heap_bytes=server.heap_used(gc=False), nonheap_bytes=server.nonheap_used(),
                classes=server.classes_loaded())
        if n in walk_ns:
            snmp = C.SnmpClient(server, version="2c")
            snmp.community = "public"
            path = os.path.join(workdir, "walk-%s-%d.pcap" % (label, n))
            reps = walk_repeat
            with Capture(path, [server.snmp_port]) as cap:
                w = cap.window("walk", lambda: measure_walk(snmp.session(), C.VM[:-2], reps, server.pid, warm=True))
            w["bytes"] = cap.totals()["walk"][0] / (reps + 1)
            os.remove(path)
            res.add("walks", agent="vrouter", mib_table="vmTable", rows=n, repeat=reps, **summ(w))
    return idx


def summ(w):
    from .util import median
    return {"ms_median": median(w["ms"]), "cpu_ms_median": median(w["cpu_ms"]),
            "cpu_app_ms_median": median(w.get("cpu_app_ms", [])), "varbinds": w["varbinds"],
            "rss_kb": w["rss_kb"], "bytes_per_walk": w.get("bytes", float("nan"))}


def paper_cycles(res, server, traps, label, n_cycles, first_index):
    """With the paper's latencies the time is the simulated hypervisor's sleep, not CPU: the five interfaces
    run their cycles side by side (each on its own VRs), which keeps the run short. No CPU per operation here."""
    errors = []

    def worker(client, base):
        try:
            client.open()
            for c in range(n_cycles):
                def row(op, reply, done, cpu_ms, rss, split, c=c):
                    res.add("cycles", server=label, sim=server.sim, pre=0, iface=client.name, cycle=c, op=op,
                            reply_ms=reply, done_ms=done, cpu_ms=float("nan"), rss_kb=rss)
                _cycle(client, base + c, None, row, server.pid)
            client.close()
        except Exception as e:  # reported, and the run goes on
            errors.append("%s: %r" % (client.name, e))

    threads = []
    for k, client in enumerate(C.all_clients(server, traps)):
        t = threading.Thread(target=worker, args=(client, first_index + k * 1000))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    for e in errors:
        res.notes.append("paper-latency cycles: " + e)
        log("ERROR " + e)


def network(res, server, ns_list, workdir, clients=None):
    """Bytes per operation for 1..64 VRs, each interface in its per-VR form (a session per VR, as the
    paper's snmpset and curl did) and its batch form (one session, one request). clients: those to
    measure (default: every interface, and NETCONF with SSH compression)."""
    path = os.path.join(workdir, "network.pcap")
    idx = 500000
    if clients is None:
        clients = C.all_clients(server, None, notify=False) + [C.NetconfClient(server, None, notify=False, compress=True)]
    with Capture(path, server.ports()) as cap:
        for client in clients:
            for form in ("single", "batch"):
                for n in ns_list:
                    ids = list(range(idx, idx + n))
                    idx += n
                    for op in ("create", "retrieve", "remove"):
                        fn = getattr(client, form)
                        cap.window((client.name, form, op, n), lambda: fn(op, ids))
                        time.sleep(0.15)  # the simulated driver completes the work before the next operation
            log("  network: %s done" % client.name)
        n = max(ns_list)
        for client in [c for c in clients if isinstance(c, C.NetconfClient)]:
            for r in range(3):
                ids = list(range(idx, idx + n))
                idx += n
                nc_batch_parts(res, cap, client, ids, r)
                cap.quiet(lambda: client.batch("remove", ids))
                time.sleep(0.15)
    tot = cap.totals()
    for row in res.tables["nc_bytes"]:
        row["bytes_tcp_ip"] = tot[row.pop("label")][0] - sum(v for k, v in row.items() if k.startswith("bytes_"))
    for (iface, form, op, n, *_), (b, p) in tot.items():
        if form == "parts":  # nc_batch_parts' windows
            continue
        res.add("network", iface=iface, form=form, op=op, vrs=n, bytes=b, packets=p, bytes_per_vr=b / n)
    if cap.dropped:
        res.notes.append("tcpdump dropped %d packets in the network phase" % cap.dropped)
    os.remove(path)


class SshBytes:
    """The SSH stream of ncclient's sessions message by message, as paramiko's packetizer writes and reads
    each (bytes on the TCP stream: length, padding and MAC included), while a recording is on. What the
    channel carries is told by the phase the client is in (connecting: the hellos; then the edit-config
    and its reply; then close-session and its reply)."""
    current = None

    def __init__(self):
        self.phase = "connect"
        self.parts = {}
        self.banner_out = 0

    def add(self, cmd, n):
        if cmd in (94, 95):  # channel data
            part = {"connect": "hellos", "edit": "edit", "close": "close"}[self.phase]
        elif cmd in (5, 6) or 50 <= cmd <= 79:
            part = "ssh_auth"
        elif cmd >= 80 or cmd == 1:  # global requests, the channel's open, requests, window, close; disconnect
            part = "ssh_channel"
        else:  # ignore, debug, ext-info, the key exchange's messages
            part = "ssh_kex"
        self.parts[part] = self.parts.get(part, 0) + n

    @classmethod
    def install(cls):
        from paramiko.packet import Packetizer
        if getattr(Packetizer, "vrbench_counted", False):
            return
        Packetizer.vrbench_counted = True
        write_all, read_all, send, read = (Packetizer.write_all, Packetizer.read_all, Packetizer.send_message,
                                           Packetizer.read_message)

        def counted_write(self, out):
            self.vrbench_out = getattr(self, "vrbench_out", 0) + len(out)
            return write_all(self, out)

        def counted_read(self, n, check_rekey=False):
            data = read_all(self, n, check_rekey)
            self.vrbench_in = getattr(self, "vrbench_in", 0) + len(data)
            return data

        def counted_send(self, data):
            rec, before = cls.current, getattr(self, "vrbench_out", 0)
            if rec is not None and before and not rec.parts:
                rec.banner_out = before  # the version line, written before the first packet
            send(self, data)
            if rec is not None:
                rec.add(data.asbytes()[0], self.vrbench_out - before)

        def counted_receive(self):
            rec, before = cls.current, getattr(self, "vrbench_in", 0)
            cmd, msg = read(self)
            if rec is not None:
                rec.add(cmd, self.vrbench_in - before)
            return cmd, msg

        Packetizer.write_all, Packetizer.read_all = counted_write, counted_read
        Packetizer.send_message, Packetizer.read_message = counted_send, counted_receive


def nc_batch_parts(res, cap, client, ids, rep):
    """One batch creation as the network phase makes it (a session, one edit-config creating the VRs,
    close-session), with its bytes on the wire taken apart: the SSH stream by message (SshBytes), the
    TCP/IP headers as what the capture saw beyond that stream."""
    SshBytes.install()
    rec = SshBytes.current = SshBytes()
    label = (client.name, "parts", "create", len(ids), rep)

    def run():
        m = client.connect()
        rec.parts["ssh_kex"] = rec.parts.get("ssh_kex", 0) + rec.banner_out + len(m._session._transport.remote_version) + 2
        rec.phase = "edit"
        m.edit_config(target="running", config=C.nc_config(
            "<vmConfigTable>%s</vmConfigTable>" % "".join(C.nc_entry(i, None) for i in ids)))
        rec.phase = "close"
        m.close_session()
    try:
        cap.window(label, run, settle=0.3)
    finally:
        SshBytes.current = None
    res.add("nc_bytes", iface=client.name, vrs=len(ids), rep=rep, label=label,
            **{"bytes_" + k: v for k, v in sorted(rec.parts.items())})


def snmp_floor(res, floor, traps, n_cycles, warmup, walk_repeat, workdir):
    """The floor of vrouter's SNMP CPU, in the same run: the cycles' SETs and GETs and the walk of 1,000 rows
    answered by snmp4j-agent from a fixed MIB (SnmpFloorAgent), and the CPU that appending a journal record and
    forcing it to disk (write and fsync) costs the thread that does it, as the server's journal does once per
    change it accepts."""
    cpu = CpuMeter(floor.pid)
    idx = 1
    for version in ("2c", "3"):
        client = C.SnmpClient(floor, traps, version=version)
        client.open()
        for c in range(warmup + n_cycles):
            def row(op, reply, done, cpu_ms, rss, split, c=c, name=client.name):
                if c >= warmup:
                    res.add("snmp_floor", what="cycle", iface=name, op=op, cpu_ms=cpu_ms, cpu_app_ms=split.get("app"))
            _cycle(client, idx, cpu, row)
            idx += 1
        client.close()
    snmp = C.SnmpClient(floor, version="2c")
    snmp.community = "public"
    w = measure_walk(snmp.session(), C.VM[:-2], walk_repeat, floor.pid)
    res.add("snmp_floor", what="walk", iface="SNMPv2c", op="walk", rows=floor.rows, **summ(w))
    path = os.path.join(workdir, "fsync-probe")
    record = b"x" * 399 + b"\n"  # about one journal record of a VR
    cpu_ms = []
    with open(path, "ab", buffering=0) as f:
        for k in range(220):
            t0 = time.thread_time_ns()
            f.write(record)
            os.fsync(f.fileno())
            if k >= 20:
                cpu_ms.append((time.thread_time_ns() - t0) / 1e6)
    os.remove(path)
    for v in cpu_ms:
        res.add("snmp_floor", what="fsync", iface="", op="journal record", cpu_ms=v)
    log("  snmp4j-agent floor: %d cycles per version, walk of %d rows, %d fsyncs" % (n_cycles, floor.rows, len(cpu_ms)))


REST_IFACES = ("REST-XML", "REST-JSON", "RESTCONF-XML", "RESTCONF-JSON")
RECORDED = 7770001  # the vmIndex of the recorded cycle: a number found nowhere else in its replies and events


class _Recording:
    """An http.client connection that keeps what was asked and answered (the client reads status and body)."""

    def __init__(self, conn, log):
        self.conn, self.log = conn, log

    def request(self, method, path, body=None, headers=None):
        self.asked = (method, path, dict(headers or {}))
        self.conn.request(method, path, body=body, headers=headers or {})

    def getresponse(self):
        r = self.conn.getresponse()
        body = r.read()
        method, path, headers = self.asked
        self.log.append({"method": method, "path": path.split("?")[0], "accept": headers.get("Accept", ""),
                         "status": r.status, "headers": r.getheaders(), "body": body, "t": time.perf_counter()})

        class Reply:
            status = r.status

            @staticmethod
            def read():
                return body
        return Reply

    def close(self):
        self.conn.close()


def record_rest_replies(server, root):
    """One cycle of each REST and RESTCONF client against vrouter, recorded for the floor (FloorServer.java):
    each request's method, path and Accept with its reply (status, headers, body), and for RESTCONF the events
    its event stream sent while each write was done; written to root as routes.txt and the files it names."""
    import http.client
    import re
    from .server import AUTH
    index = re.compile(r"(?<!\d)%d(?!\d)" % RECORDED)
    routes, n = [], 0
    for iface in REST_IFACES:
        client = C.make_client(iface, server, None, notify=True)
        client.open()
        events = []
        if client.family == "RESTCONF":  # a second subscriber, which keeps the events with their arrival
            sse = http.client.HTTPConnection("127.0.0.1", server.rest_port, timeout=120)
            sse.request("GET", "/restconf/streams/NETCONF/json", headers={"Authorization": AUTH})
            reader = sse.getresponse()

            def listen():
                block = []
                try:
                    for line in reader:
                        line = line.decode().rstrip("\n")
                        if line:
                            block.append(line)
                        elif block and not block[0].startswith(":"):
                            events.append((time.perf_counter(), "\n".join(block)))
                            block = []
                        else:
                            block = []
                except Exception:  # noqa: BLE001 - closed under the reader
                    pass
            threading.Thread(target=listen, daemon=True).start()
        for op in OPS:  # a cycle first, so the recorded one is as the measured ones are
            getattr(client, op)(RECORDED - 1)
        log_ = []
        client.c = _Recording(client.c, log_)
        starts = []
        for op in OPS:
            starts.append(time.perf_counter())
            getattr(client, op)(RECORDED)
            time.sleep(0.3)  # the operation's last events, which the second subscriber may get after the client's
        client.close()
        if client.family == "RESTCONF":
            sse.sock.shutdown(socket.SHUT_RDWR)
            sse.close()
        for r in log_:
            n += 1
            reply = "reply-%d.http" % n
            keep = [(h, v) for h, v in r["headers"] if h.lower() not in ("date", "content-length", "transfer-encoding")]
            with open(os.path.join(root, reply), "wb") as f:
                f.write(("%d\n" % r["status"] + "".join("%s: %s\n" % hv for hv in keep) + "\n").encode("latin-1") + r["body"])
            # the events of a write: those after its request and before the next operation's
            mine = []
            if r["method"] != "GET":
                begin = max(t for t in starts if t <= r["t"])
                end = min([t for t in starts if t > begin] or [float("inf")])
                mine = [e for t, e in events if begin <= t < end and index.search(e)]
            ev = "-"
            if mine:
                ev = "events-%d.txt" % n
                with open(os.path.join(root, ev), "w") as f:
                    f.write("\n\n".join(index.sub("{i}", e) for e in mine) + "\n")
            routes.append("\t".join([r["method"], index.sub("{i}", r["path"]), r["accept"], reply, ev]))
        log("  recorded a %s cycle: %d requests, %d events" % (iface, len(log_), len(events)))
    with open(os.path.join(root, "routes.txt"), "w") as f:
        f.write("\n".join(routes) + "\n")
    return len(routes)


def rest_floor(res, floor, n_cycles, warmup):
    """The floor of vrouter's REST and RESTCONF CPU per operation, in the same run: the cycles' requests, by the
    same clients over a kept connection, answered by the JDK HTTP server with the replies recorded from vrouter
    (FloorServer.java; RESTCONF's writes also send their recorded events on the subscribed stream)."""
    cpu = CpuMeter(floor.pid)
    idx = 1
    # every interface's warm-up first (they share the server's code), then each one's measured cycles
    for iface, warm, measured in [(i, warmup, 0) for i in REST_IFACES] + [(i, 5, n_cycles) for i in REST_IFACES]:
        client = C.make_client(iface, floor, None, notify=True)
        client.open()
        for c in range(warm + measured):
            def row(op, reply, done, cpu_ms, rss, split, c=c):
                if c >= warm:
                    res.add("rest_floor", iface=iface, op=op, reply_ms=reply, done_ms=done, cpu_ms=cpu_ms,
                            cpu_app_ms=split.get("app"), cpu_jit_ms=split.get("jit"))
            _cycle(client, idx, cpu, row)
            idx += 1
        client.close()
        if not measured:
            continue
        v = [r["cpu_ms"] for r in res.tables["rest_floor"] if r["iface"] == iface and r["op"] != "start"]
        log("  JDK HttpServer floor, %s: %.3f ms CPU per operation (median of create, retrieve, remove)"
            % (iface, median(v)))


def peers(res, snmpd, netconfd, walk_ns, walk_repeat, pre, n_cycles, warmup, workdir):
    if snmpd:
        for n in walk_ns:
            snmpd.set_links(n)
            path = os.path.join(workdir, "snmpd-%d.pcap" % n)
            with Capture(path, [snmpd.port], netns=snmpd.ns) as cap:
                w = cap.window("walk", lambda: snmpd.walk(walk_repeat))
            w["bytes"] = cap.totals()["walk"][0] / (walk_repeat + 1)
            os.remove(path)
            res.add("walks", agent="snmpd", mib_table="ifTable", rows=n, repeat=walk_repeat, **summ(w))
            log("  snmpd ifTable with %d rows: %.2f ms per walk" % (n, summ(w)["ms_median"]))
    if netconfd:
        client = C.NetconfdClient(netconfd)
        have = 0
        idx = 1
        for n in pre:
            if n > have:
                client.batch("create", list(range(100000 + have, 100000 + n)))
                have = n
            client.open()
            sessions = children(netconfd.sshd.pid)
            cpu = CpuMeter(netconfd.pid)
            cpu_ssh = [CpuMeter(p) for p in sessions]
            for c in range(warmup + n_cycles):
                for op in ("create", "retrieve", "remove"):
                    cpu.sample()
                    for m in cpu_ssh:
                        m.sample()
                    reply, done = getattr(client, op)(idx)
                    d = cpu.sample() / 1e6
                    d_ssh = sum(m.sample() for m in cpu_ssh) / 1e6
                    if c >= warmup:
                        res.add("peer_cycles", peer="netconfd", pre=n, cycle=c - warmup, op=op, reply_ms=reply * 1000,
                                cpu_ms=d, cpu_ssh_ms=d_ssh, rss_kb=rss_kb(netconfd.pid),
                                session_rss_kb=tree_rss_kb(sessions))
                idx += 1
            client.close()
            log("  netconfd pre=%d: %d cycles" % (n, n_cycles))


def _default_signals():
    """A pool's worker forgets the run's SIGTERM and SIGHUP handlers (__main__: exit with a status), inherited by
    fork: Pool.terminate stops its workers with SIGTERM, and a worker that raised SystemExit holding the pool's
    queue lock left another waiting for it forever (a full run hung 6 minutes there)."""
    import signal
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def _throughput_worker(args):
    name, ports, base, k, barrier_time = args

    class S:  # what the clients read of a server
        pass
    s = S()
    s.rest_port, s.snmp_port, s.netconf_port = ports
    client = C.make_client(name, s, None, notify=False)
    client.open()
    while time.time() < barrier_time:
        time.sleep(0.001)
    r0 = resource.getrusage(resource.RUSAGE_SELF)  # the client's CPU while it creates (all its threads)
    t0 = time.time()
    for i in range(k):
        client.create(base + i, wait=False)
    t1 = time.time()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    for i in range(k):
        client.remove(base + i, wait=False)
    t2 = time.time()
    client.close()
    return t0, t1, t2, (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)


def scale(res, server, total, workers, k, listall_reps, snmp_budget_s=20):
    """10,000 VRs on the simulated driver: memory per VR, list-all latency, create/delete throughput."""
    heap0 = server.heap_used(gc=True)
    rss0 = server.rss_kb()
    t0 = time.perf_counter()
    server.populate(total, chunk=1000)
    t_pop = time.perf_counter() - t0
    time.sleep(1)
    heap1 = server.heap_used(gc=True)
    rss1 = server.rss_kb()
    res.add("scale", metric="REST batch creation of %d VRs (1000 per call, until running)" % total, value=t_pop, unit="s")
    res.add("scale", metric="heap in use after GC, 0 VRs", value=heap0 / 2**20, unit="MiB")
    res.add("scale", metric="heap in use after GC, %d VRs" % total, value=heap1 / 2**20, unit="MiB")
    res.add("scale", metric="RSS, 0 VRs", value=rss0 / 1024, unit="MiB")
    res.add("scale", metric="RSS, %d VRs" % total, value=rss1 / 1024, unit="MiB")
    res.add("scale", metric="heap per VR", value=(heap1 - heap0) / total, unit="bytes")
    res.add("scale", metric="RSS per VR", value=(rss1 - rss0) * 1024 / total, unit="bytes")
    log("  scale: %d VRs, heap %.1f -> %.1f MiB, RSS %.1f -> %.1f MiB" % (total, heap0 / 2**20, heap1 / 2**20, rss0 / 1024, rss1 / 1024))
    # how many instances each table has: the columns one VR answers, times the VRs
    probe = C.SnmpClient(server, version="2c")
    probe.open()
    first = 100000
    got = probe.s.get(probe.get_oids(first))
    present = [x for x in got if not x.type.startswith("NOSUCH")]
    cfg_cols = sum(1 for x in present if x.oid.lstrip(".").startswith(C.CFG + "."))
    expected = {C.CFG: total * cfg_cols, C.VM: total * (len(present) - cfg_cols)}
    full_varbinds = sum(expected.values())
    for client in C.all_clients(server, None, notify=False):
        for r in range(listall_reps if client.family != "SNMP" else 1):
            cpu = CpuMeter(server.pid)
            note = ""
            if client.family == "SNMP":
                t0 = time.perf_counter()
                n, dt, complete = client.list_all(budget_s=snmp_budget_s, expected=expected)
                if not complete:  # extrapolated, table by table, from the part walked within the budget
                    note = "extrapolated from %d of %d varbinds walked in %.1f s" % (n, full_varbinds, time.perf_counter() - t0)
            else:
                t0 = time.perf_counter()
                n = client.list_all()
                dt = time.perf_counter() - t0
            res.add("scale", metric="list all (%s), %d VRs" % (client.name, total), value=dt * 1000, unit="ms",
                    rep=r, rows=n, cpu_ms=cpu.sample() / 1e6, note=note)
        log("  scale: list all over %s: %.0f ms (%s rows/varbinds) %s" % (client.name, dt * 1000, n, note))
    ports = (server.rest_port, server.snmp_port, server.netconf_port)
    ctx = multiprocessing.get_context("fork")
    base = 700000
    for name in [c.name for c in C.all_clients(server)]:
        before = server.count()  # more than total when an interface before failed half-way
        start_at = time.time() + 1.5
        jobs = [(name, ports, base + w * 10000, k, start_at) for w in range(workers)]
        base += 100000
        cpu = CpuMeter(server.pid)
        try:
            with ctx.Pool(workers, initializer=_default_signals) as pool:
                spans = pool.map(_throughput_worker, jobs)
        except Exception as e:  # reported, and the next interface is measured all the same (its VRs may stay)
            res.notes.append("throughput over %s failed: %r" % (name, e))
            log("ERROR throughput %s: %r" % (name, e))
            continue
        cpu_ms = cpu.sample() / 1e6
        t0 = min(s[0] for s in spans)
        t1 = max(s[1] for s in spans)
        t2 = max(s[2] for s in spans)
        t1a = min(s[1] for s in spans)
        res.add("throughput", iface=name, clients=workers, per_client=k, creates_per_s=workers * k / (t1 - t0),
                deletes_per_s=workers * k / (t2 - t1a), server_cpu_ms_per_op=cpu_ms / (2 * workers * k),
                client_cpu_ms_per_create=sum(s[3] for s in spans) * 1000 / (workers * k))
        log("  throughput %s: %.0f creates/s, %.0f deletes/s with %d clients" % (
            name, workers * k / (t1 - t0), workers * k / (t2 - t1a), workers))
        end = time.time() + 120
        while server.count() > before and time.time() < end:
            time.sleep(0.2)


def netconf_floor(res, floor, workers, k, single=1000, reps=3):
    """The floor of a NETCONF request on this machine: the same ncclient clients against NetconfFloor (Apache
    MINA SSHD set up as vrouter's NETCONF server, answering every rpc with a fixed <ok/>, no vrouter code).
    One client's round trips (the floor server's CPU and the client's per request), then the 4-client
    creations of the throughput measurement, as often as asked (medians in the report); then the
    get-config of 1,000 entries of the netconf-bulk phase, answered with vrouter's bytes for it."""
    client = C.NetconfClient(floor, None, notify=False)
    client.open()
    for i in range(single):  # warm-up: the JIT compiles the round trip's code
        client.create(i, wait=False)
    cpu = CpuMeter(floor.pid)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    for i in range(single):
        client.create(i, wait=False)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    server_ms = cpu.sample() / 1e6 / single
    client.close()
    res.add("nc_floor", what="one client, round trips", clients=1, cores=os.cpu_count(), requests=single, per_s=single / wall,
            server_cpu_ms=server_ms, client_cpu_ms=((r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)) * 1000 / single)
    ports = (0, 0, floor.port)
    ctx = multiprocessing.get_context("fork")
    for rep in range(reps):
        start_at = time.time() + 1.0
        cpu = CpuMeter(floor.pid)
        with ctx.Pool(workers, initializer=_default_signals) as pool:
            spans = pool.map(_throughput_worker, [("NETCONF", ports, w * 10000, k, start_at) for w in range(workers)])
        t0, t1 = min(s[0] for s in spans), max(s[1] for s in spans)
        res.add("nc_floor", what="%d clients, creations" % workers, clients=workers, cores=os.cpu_count(), requests=workers * k,
                per_s=workers * k / (t1 - t0), server_cpu_ms=cpu.sample() / 1e6 / (2 * workers * k),
                client_cpu_ms=sum(s[3] for s in spans) * 1000 / (workers * k))
    # A get-config of 1,000 entries as the netconf-bulk phase makes it, answered with vrouter's bytes for it.
    for row in nc_thousand(C.NetconfClient(floor, None, notify=False), floor.pid, 1000, max(reps, 5), candidate=False):
        if row["op"] == "get-config":
            res.add("nc_bulk", agent="floor", entries=1000, **row)
    # What every durable write waits for besides: the journal's fsync on the data directory's disk.
    path = os.path.join(floor.dir, "fsync-probe")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        took = []
        for _ in range(200):
            os.write(fd, b"x" * 200)
            t0 = time.perf_counter()
            os.fsync(fd)
            took.append((time.perf_counter() - t0) * 1000)
    finally:
        os.close(fd)
        os.remove(path)
    res.add("nc_floor", what="fsync of a 200-byte append, the data directory's disk", clients=0, cores=os.cpu_count(),
            requests=len(took), fsync_ms=median(took))
    log("  NETCONF floor (MINA SSHD, fixed <ok/>): %.0f requests/s with %d clients, %.3f ms server CPU per round trip; "
        "fsync %.2f ms" % (res.tables["nc_floor"][-2]["per_s"], workers, server_ms, median(took)))


def nmt_summary(pid):
    """The JVM's Native Memory Tracking summary of a process started with -XX:NativeMemoryTracking=summary:
    committed KiB by category, with the JVM's total, the kernel's RSS and the number of threads beside."""
    import re
    import subprocess
    out = subprocess.run(["jcmd", str(pid), "VM.native_memory", "summary"], capture_output=True, text=True,
                         timeout=60).stdout
    got = {}
    threads = len(os.listdir("/proc/%d/task" % pid))
    rss = rss_kb(pid)
    for m in re.finditer(r"^-\s+(.+?) \(reserved=(\d+)KB, committed=(\d+)KB\)", out, re.M):
        got[m.group(1).strip()] = int(m.group(3))
    t = re.search(r"Total: reserved=(\d+)KB, committed=(\d+)KB", out)
    if t:
        got["Total (JVM's view)"] = int(t.group(2))
    got["RSS (kernel's view)"] = rss
    got["threads (count)"] = threads
    return got


def loaded_class_names(pid):
    """The classes a JVM has loaded (`jcmd VM.class_hierarchy`), by binary name; a class made at run time (a
    lambda's, a proxy) keeps the name it was given, which no class loader can find."""
    import re
    import subprocess
    hier = subprocess.run(["jcmd", str(pid), "VM.class_hierarchy"], capture_output=True, text=True, timeout=60).stdout
    return [m.group(1) for m in re.finditer(r"^[|\s-]*([\w.$]+)/", hier, re.M)]


def native_memory(res, jar, workdir, label, flags, n, launcher=None):
    """Where the resident memory goes: the JVM's Native Memory Tracking summary (committed KiB by
    category) of a server with n VRs, after the footprint phase's mixed workload. A separate server, since
    tracking itself costs a little memory."""
    srv = Server(jar, workdir, label + "-nmt", jvm_flags=list(flags) + ["-XX:NativeMemoryTracking=summary"], sim="none",
                 launcher=launcher)
    srv.start()
    try:
        srv.populate(n)
        mixed_workload(srv)
        time.sleep(1)
        srv.heap_used(gc=True)
        for category, kb in nmt_summary(srv.pid).items():
            res.add("nmt", server=label, vrs=n, category=category, committed_kb=kb)
        if label == "plain":
            counts = {}
            for name in loaded_class_names(srv.pid):
                lib = library_of(name)
                counts[lib] = counts.get(lib, 0) + 1
            for lib, c in sorted(counts.items(), key=lambda kv: -kv[1]):
                res.add("classes", library=lib, classes=c)
    finally:
        srv.stop()


LIBRARIES = [("org.glassfish.jersey", "Jersey"), ("com.fasterxml.jackson", "Jackson"), ("org.apache.sshd", "Apache MINA SSHD"),
             ("org.apache.mina", "Apache MINA SSHD"), ("org.snmp4j", "snmp4j"), ("org.glassfish.jaxb", "JAXB"),
             ("com.sun.xml.bind", "JAXB"), ("jakarta.xml.bind", "JAXB"), ("org.glassfish.hk2", "HK2"),
             ("org.jvnet.hk2", "HK2"), ("io.micrometer", "Micrometer"), ("io.prometheus", "Prometheus client"),
             ("io.swagger", "Swagger (OpenAPI)"), ("io.github.classgraph", "ClassGraph"), ("org.yaml", "SnakeYAML"),
             ("ch.qos.logback", "logging"), ("org.slf4j", "logging"), ("jakarta.", "Jakarta APIs"),
             ("io.vrouter", "vrouter itself"), ("org.bouncycastle", "BouncyCastle"), ("java.", "JDK"), ("javax.", "JDK"),
             ("jdk.", "JDK"), ("sun.", "JDK"), ("com.sun.", "JDK")]


def library_of(cls):
    for prefix, lib in LIBRARIES:
        if cls.startswith(prefix):
            return lib
    return "other"


def mixed_workload(server, per_iface=20):
    """The footprint's mixed workload: creations and removals over every interface, SNMP walks of vmTable,
    NETCONF get-configs of every entry, REST lists and RESTCONF GETs of every VR."""
    idx = 900000
    for client in C.all_clients(server, None, notify=False):
        client.open()
        for i in range(per_iface):
            client.create(idx + i, wait=False)
        for i in range(per_iface):
            client.remove(idx + i, wait=False)
        client.close()
        idx += 1000
    snmp = C.SnmpClient(server, version="2c")
    snmp.community = "public"
    session = snmp.session()
    nc = C.NetconfClient(server, None, notify=False)
    nc.open()
    for _ in range(3):
        session.bulk_walk(C.VM)
        nc.m.get_config(source="running")
        for fmt in ("json", "xml"):
            C.RestClient(server, fmt=fmt).list_all()
            C.RestconfClient(server, notify=False, fmt=fmt).list_all()
    nc.close()
    return session


def footprint(res, server, label, n=1000, walks=30, per_iface=20, class_list=None):
    """The whole server's resident memory as it is started: with n VRs, then after a mixed workload
    (creations and removals over every interface, SNMP walks of vmTable, NETCONF get-configs of every
    entry, REST lists and RESTCONF GETs of every VR), then after `walks` more GETBULK walks of vmTable, which must leave
    no memory behind. class_list: a file to write the classes it then has loaded to, one a line (for the floor)."""
    server.populate(n)
    time.sleep(1)
    rss_start = server.rss_kb()
    session = mixed_workload(server, per_iface)
    time.sleep(1)
    rss_mixed = server.rss_kb()
    threads_mixed = len(os.listdir("/proc/%d/task" % server.pid))  # the workload's threads end when idle a while
    cpu = CpuMeter(server.pid)
    t0 = time.perf_counter()
    for _ in range(walks):
        session.bulk_walk(C.VM)
    dt = time.perf_counter() - t0
    cpu_ns = cpu.sample()
    time.sleep(1)
    rss_walks = server.rss_kb()
    threads = len(os.listdir("/proc/%d/task" % server.pid))
    heap = server.heap_used(gc=True)
    res.add("footprint", server=label, cmd=" ".join(server.cmd[:3]), vrs=n, rss_start_kb=rss_start,
            rss_mixed_kb=rss_mixed, rss_walks_kb=rss_walks, walks=walks, walk_ms=dt * 1000 / walks,
            walk_cpu_ms=cpu_ns / 1e6 / walks, threads=threads, classes=server.classes_loaded(), heap_bytes=heap,
            threads_mixed=threads_mixed)
    if class_list:
        with open(class_list, "w") as f:
            f.write("\n".join(loaded_class_names(server.pid)) + "\n")
    log("  footprint %s: RSS %.1f MB with %d VRs, %.1f MB after the mixed workload, %.1f MB after %d walks "
        "(%d threads)" % (label, rss_start / 1024, n, rss_mixed / 1024, rss_walks / 1024, walks, threads))


def footprint_floor(res, make_floor, stop, server_row, class_list):
    """The floor of the whole server's RSS, in the same run: FootprintFloor (peers.py) loading and initialising
    the classes the server had loaded after the mixed workload (vrouter's own left out), running as many threads
    as the server had when its RSS was read after the workload and holding as much live heap as it had after a
    full GC, with no vrouter code. Once as it is, for its RSS, and once
    with Native Memory Tracking, for where the MB are (nmt rows of server "floor").
    make_floor(list, threads, heap, label, flags) returns a started floor, stop(floor) stops it."""
    import re
    names = [n for n in open(class_list).read().split() if library_of(n) != "vrouter itself"]
    own = os.path.join(os.path.dirname(class_list), "floor-classes.txt")
    with open(own, "w") as f:
        f.write("\n".join(names) + "\n")
    threads = server_row.get("threads_mixed", server_row["threads"])
    floor = make_floor(own, threads, server_row["heap_bytes"], "floor", ())
    time.sleep(1)
    rss = rss_kb(floor.pid)
    floor_threads = len(os.listdir("/proc/%d/task" % floor.pid))
    got = dict(zip(("loaded", "generated", "failed"), map(int, re.findall(r"(\d+) (?:classes loaded|generated|failed)", floor.ready))))
    stop(floor)
    nmt = make_floor(own, threads, server_row["heap_bytes"], "floor-nmt", ["-XX:NativeMemoryTracking=summary"])
    time.sleep(1)
    for category, kb in nmt_summary(nmt.pid).items():
        res.add("nmt", server="floor", vrs=server_row["vrs"], category=category, committed_kb=kb)
    stop(nmt)
    res.add("rss_floor", server=server_row["server"], rss_kb=rss, threads=floor_threads, classes_listed=len(names),
            vrouter_classes=len(open(class_list).read().split()) - len(names), heap_held_bytes=server_row["heap_bytes"],
            **got)
    log("  footprint floor: RSS %.1f MB (%d threads; %s)" % (rss / 1024, floor_threads, floor.ready.strip()))


def nc_thousand(client, pid, n, reps, candidate=True, base=800000, pids=lambda: (), settle=lambda op: None):
    """edit-config of n new entries (on the candidate, then commit; or on running), get-config of them,
    then their removal the same way: reply time, CPU of the server (and of pids, the peer's sshd
    processes) and reply bytes. Returns rows, one per operation and repetition. settle(op) is called,
    unmeasured, after each creation and removal: a server that answers when it accepted the change
    (vrouter) makes or destroys the entries' VMs afterwards, work that would otherwise be counted in
    the next operation's CPU (and the next round creates the removed entries again)."""
    from ncclient.xml_ import to_ele
    rows = []
    m = client.connect()
    session_pids = list(pids())  # the peer's sshd session and netconf-subsystem exist once connected
    target = "candidate" if candidate else "running"
    flt = ("subtree", '<NEW-VMM-MIB xmlns="%s"><vmConfigTable/></NEW-VMM-MIB>' % C.VMM)
    try:
        for r in range(reps + 1):
            ids = range(base, base + n)
            for op, body in (("create", "".join(C.nc_entry(i, None) for i in ids)),
                             ("get-config", None), ("remove", "".join(C.nc_delete(i) for i in ids))):
                meters = [CpuMeter(pid)] + [CpuMeter(p) for p in session_pids]
                t0 = time.perf_counter()
                if body is None:
                    reply = m.get_config(source="running", filter=flt)
                    size = len(reply.xml)
                    if reply.xml.count("<vmConfigEntry>") + reply.xml.count("<vmConfigEntry ") < n:
                        raise RuntimeError("get-config found fewer than %d entries" % n)
                    edit_ms = 0.0
                else:
                    m.edit_config(target=target, config=C.nc_config("<vmConfigTable>%s</vmConfigTable>" % body))
                    edit_ms = (time.perf_counter() - t0) * 1000
                    if candidate:
                        t0 = time.perf_counter()
                        m.commit()
                    size = 0
                ms = (time.perf_counter() - t0) * 1000
                cpu = [mm.sample() / 1e6 for mm in meters]
                if r > 0:  # the first round warms up
                    rows.append({"op": op, "rep": r, "ms": ms, "edit_ms": edit_ms, "cpu_ms": cpu[0],
                                 "cpu_ssh_ms": sum(cpu[1:]), "bytes": size})
                if op != "get-config":
                    settle(op)
    finally:
        m.close_session()
    return rows


def netconf_bulk(res, server, netconfd, n=1000, reps=5):
    """NETCONF with n entries at once, vrouter beside netconfd: the commit of n creations made on the
    candidate, a get-config of the n entries of running, the commit of their removal."""
    import json
    before = server.count()

    def preparing():
        return json.loads(server.request("GET", "/api/v1/routers?operState=preparing&limit=1")[1])["total"]

    def settled(op):  # until the created entries' VMs are made, the removed ones' destroyed and forgotten
        end = time.time() + 120
        while time.time() < end and (server.count() > before if op == "remove" else preparing() > 0):
            time.sleep(0.05)
    for agent, client, pid, pids, settle in (
            ("vrouter", C.NetconfClient(server, None, notify=False), server.pid, lambda: (), settled),
            ("netconfd", C.NetconfdClient(netconfd) if netconfd else None, netconfd.pid if netconfd else 0,
             lambda: children(netconfd.sshd.pid), lambda op: None)):
        if client is None:
            continue
        for row in nc_thousand(client, pid, n, reps, candidate=True, pids=pids, settle=settle):
            res.add("nc_bulk", agent=agent, entries=n, **row)
        log("  NETCONF %d entries: %s done" % (n, agent))


def compression(res, server, workdir, n_batch=64, reps=3):
    """SSH compression on NETCONF, beside seed 001's measurements: bytes on the wire and time of a batch
    edit-config creating n_batch VRs (with its session), and of a get of every VR, with and without."""
    path = os.path.join(workdir, "compression.pcap")
    idx = 600000
    with Capture(path, [server.netconf_port]) as cap:
        for client in (C.NetconfClient(server, None, notify=False), C.NetconfClient(server, None, notify=False, compress=True)):
            for r in range(reps):
                ids = list(range(idx, idx + n_batch))
                idx += n_batch
                for op in ("create", "remove"):
                    t = cap.window((client.name, "batch-" + op, r), lambda: _timed(lambda: client.batch(op, ids)))
                    res.add("compression", iface=client.name, what="batch %s of %d VRs" % (op, n_batch), rep=r,
                            ms=t * 1000, vrs=n_batch)
                    time.sleep(0.3)
                m = client.connect()
                try:
                    def get_all():
                        return len(m.get(filter=("subtree", client.all_filter())).xml)
                    t = cap.window((client.name, "get", r), lambda: _timed(get_all))
                finally:
                    m.close_session()
                res.add("compression", iface=client.name, what="get of every VR", rep=r, ms=t * 1000, vrs=server.count())
    tot = cap.totals()
    for row in res.tables["compression"]:
        if "bytes" in row:
            continue
        key = (row["iface"], "get" if row["what"].startswith("get") else "batch-" + row["what"].split()[1], row["rep"])
        if key in tot:
            row["bytes"], row["packets"] = tot[key]
    os.remove(path)


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def rest_peer(res, server, nginx, floor=None, seconds=8, connections=4):
    """REST reads beside nginx sending the same bytes from a file, and beside the floor (the JDK's HTTP
    server sending them from a trivial handler, with the launcher's JVM settings): wrk with the same
    connections and duration against each, CPU of each server process per request (all its threads,
    schedstat)."""
    import re
    import subprocess
    from .server import AUTH
    first = int(__import__("json").loads(server.request("GET", "/api/v1/routers?limit=1")[1])["virtualRouter"][0]["vmIndex"])
    for what, path in (("list of %d VRs" % server.count(), "/api/v1/routers?limit=100000"),
                       ("one VR", "/api/v1/routers/%d" % first)):
        status, body = server.request("GET", path)
        if status != 200:
            raise RuntimeError("GET %s: %s" % (path, status))
        static = nginx.put("body-%d.json" % len(body), body)
        agents = [("vrouter", server.rest_port, server.pid, path), ("nginx", nginx.port, nginx.pid, static)]
        if floor:
            agents.append((floor.name, floor.port, floor.pid, floor.put("body-%d.json" % len(body), body)))
        for agent, port, pid, p in agents:
            wrk = ["wrk", "-t1", "-c%d" % connections, "-H", "Authorization: " + AUTH, "-H", "Accept: application/json",
                   "http://127.0.0.1:%d%s" % (port, p)]
            subprocess.run(wrk[:1] + ["-d%ds" % seconds] + wrk[1:], capture_output=True, timeout=seconds + 60)  # warm-up
            cpu = CpuMeter(pid)
            out = subprocess.run(wrk[:1] + ["-d%ds" % seconds] + wrk[1:], capture_output=True, text=True,
                                 timeout=seconds + 60).stdout
            cpu_ns = cpu.sample()
            split = dict(cpu.split)
            m = re.search(r"(\d+) requests in ([\d.]+)(\w+)", out)
            n = int(m.group(1)) if m else 0
            errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
            res.add("rest_peer", what=what, agent=agent, bytes=len(body), requests=n, seconds=seconds,
                    req_per_s=n / seconds, cpu_us_per_req=cpu_ns / 1e3 / max(n, 1),
                    cpu_app_us_per_req=split.get("app", cpu_ns) / 1e3 / max(n, 1),
                    cpu_jit_us_per_req=split.get("jit", 0) / 1e3 / max(n, 1), errors=int(errors.group(1)) if errors else 0)
            log("  %s %s: %d requests in %d s, %.0f us CPU each" % (agent, what, n, seconds, cpu_ns / 1e3 / max(n, 1)))
