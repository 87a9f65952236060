"""Every byte on the wire, as the paper counted it with tcpdump: one capture on the loopback interface
with a filter on the server's ports, packets attributed to the operation during whose window they were
seen (session set-up and tear-down included, since each operation opens and closes its own sessions)."""
import os
import struct
import subprocess
import time

from .util import log


class Capture:
    def __init__(self, path, ports, netns=None):
        self.path, self.ports, self.netns = path, ports, netns
        self.windows = []  # (label, t_start, t_end) in time.time()

    def __enter__(self):
        flt = " or ".join("port %d" % p for p in self.ports)
        cmd = ["tcpdump", "-i", "lo", "-n", "--immediate-mode", "-s", "128", "-B", "16384", "-U", "-w", self.path, flt]
        if self.netns:
            cmd = ["ip", "netns", "exec", self.netns] + cmd
        self.err_path = self.path + ".err"
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(self.err_path, "w"))
        # tcpdump says "listening on" once the capture runs
        end = time.time() + 10
        while time.time() < end:
            if "listening on" in open(self.err_path).read():
                break
            if self.proc.poll() is not None:
                raise RuntimeError("tcpdump failed: " + open(self.err_path).read())
            time.sleep(0.05)
        time.sleep(0.2)
        return self

    def window(self, label, fn, settle=0.1):
        """Runs fn and records its window; packets until the window closes (settle seconds after fn returns,
        so that late acknowledgements and FINs are counted) belong to label."""
        t0 = time.time()
        result = fn()
        time.sleep(settle)
        self.windows.append((label, t0, time.time()))
        time.sleep(0.05)
        return result

    def quiet(self, fn):
        """Runs fn outside every window (its packets are counted in no operation)."""
        r = fn()
        time.sleep(0.05)
        return r

    def __exit__(self, *exc):
        time.sleep(0.5)
        self.proc.terminate()
        self.proc.wait(10)
        err = open(self.err_path).read()
        dropped = [line for line in err.splitlines() if "dropped by kernel" in line]
        self.dropped = int(dropped[0].split()[0]) if dropped else 0
        if self.dropped:
            log("WARNING: tcpdump dropped %d packets" % self.dropped)

    def packets(self):
        """(timestamp, ip_bytes) of every captured packet. Loopback frames carry a 14-byte Ethernet header,
        which is not on any real wire and is not counted."""
        out = []
        with open(self.path, "rb") as f:
            hdr = f.read(24)
            magic = struct.unpack("<I", hdr[:4])[0]
            endian = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
            nano = magic in (0xa1b23c4d, 0x4d3cb2a1)
            linktype = struct.unpack(endian + "I", hdr[20:24])[0]
            l2 = 14 if linktype == 1 else (16 if linktype == 113 else 0)
            while True:
                rec = f.read(16)
                if len(rec) < 16:
                    break
                sec, frac, incl, orig = struct.unpack(endian + "IIII", rec)
                f.seek(incl, os.SEEK_CUR)
                out.append((sec + frac / (1e9 if nano else 1e6), orig - l2))
        return out

    def totals(self):
        """{label: (bytes, packets)} over the recorded windows."""
        pk = self.packets()
        res = {}
        for label, a, b in self.windows:
            sel = [n for t, n in pk if a <= t < b]
            res[label] = (sum(sel), len(sel))
        return res
