"""Small helpers: free ports, what /proc says about a process, statistics."""
import json
import math
import os
import re
import socket
import statistics
import subprocess
import time


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


def thread_kind(comm):
    """What a JVM thread does, by its name: the JIT compilers, the garbage collector and the VM's own
    housekeeping, or the application."""
    if comm.startswith(("C1 CompilerThre", "C2 CompilerThre", "Compiler")):
        return "jit"
    if comm.startswith(("GC Thread", "G1 ", "VM Thread", "VM Periodic", "Service Thread", "Monitor Deflati",
                        "Sweeper", "Common-Cleaner", "Notification Th")):
        return "vm"
    return "app"


class CpuMeter:
    """CPU time of a process in nanoseconds, from /proc/PID/task/*/schedstat (ns resolution; /proc/PID/stat
    counts in 10 ms ticks, too coarse for one operation). A thread that appears is counted from zero; one that
    ends takes its last interval with it, which undercounts slightly and never overcounts."""

    def __init__(self, pid):
        self.pid = pid
        self.last = {}
        self.kinds = {}
        self.names = {}
        self.by_name = {}  # CPU ns by thread name (digits dropped), summed over every sample
        self.split = {}
        self.sample()

    def _read(self):
        out = {}
        base = "/proc/%d/task" % self.pid
        for tid in os.listdir(base):
            try:
                with open("%s/%s/schedstat" % (base, tid)) as f:
                    out[tid] = int(f.read().split()[0])
                if tid not in self.kinds:
                    with open("%s/%s/comm" % (base, tid)) as f:
                        comm = f.read().strip()
                    self.kinds[tid] = thread_kind(comm)
                    self.names[tid] = re.sub(r"[0-9]+", "N", comm)
            except (FileNotFoundError, ProcessLookupError, ValueError):
                out.pop(tid, None)
        return out

    def sample(self):
        """CPU ns used since the previous sample."""
        now = self._read()
        split = {"app": 0, "jit": 0, "vm": 0}
        for t, v in now.items():
            d = v - self.last.get(t, 0)
            if d > 0:
                split[self.kinds.get(t, "app")] += d
                name = self.names.get(t, "?")
                self.by_name[name] = self.by_name.get(name, 0) + d
        self.last = now
        self.split = split  # the last interval by kind of thread
        return sum(split.values())


def rss_kb(pid):
    """Resident set size of a process (VmRSS) in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def tree_rss_kb(pids):
    return sum(rss_kb(p) for p in pids if os.path.exists("/proc/%d" % p))


def children(pid):
    """Direct and indirect children of a process."""
    out = []
    try:
        kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    except FileNotFoundError:
        return out
    for k in kids:
        out.append(int(k))
        out.extend(children(int(k)))
    return out


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def mean(xs):
    return statistics.fmean(xs) if xs else float("nan")


def median_ci(xs, z=1.96):
    """Distribution-free 95% confidence interval of the median (order statistics of the binomial)."""
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return (float("nan"), float("nan"))
    if n < 6:
        return (xs[0], xs[-1])
    lo = int(math.floor(n / 2 - z * math.sqrt(n) / 2))
    hi = int(math.ceil(1 + n / 2 + z * math.sqrt(n) / 2))
    return (xs[max(lo - 1, 0)], xs[min(hi - 1, n - 1)])


def mean_ci(xs, z=1.96):
    """Mean and the half-width of its normal 95% confidence interval, as the paper reported."""
    if len(xs) < 2:
        return (mean(xs), float("nan"))
    return (statistics.fmean(xs), z * statistics.stdev(xs) / math.sqrt(len(xs)))


def write_results(out, name, data, text):
    """A mode's results: NAME.json (the figures) and NAME.md (its report section); returns the .md's path."""
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(data, f, indent=1)
    md = os.path.join(out, name + ".md")
    with open(md, "w") as f:
        f.write(text)
    return md
