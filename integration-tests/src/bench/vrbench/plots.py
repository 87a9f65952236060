"""PNG plots shaped like the paper's Figs. 7-10."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .util import median, median_ci  # noqa: E402

IFACES = ["SNMPv2c", "SNMPv3", "NETCONF", "REST-XML", "REST-JSON", "RESTCONF-XML", "RESTCONF-JSON"]
COLORS = {"SNMPv2c": "tab:blue", "SNMPv3": "tab:orange", "NETCONF": "tab:green", "REST-XML": "tab:red",
          "REST-JSON": "tab:purple", "RESTCONF-XML": "tab:brown", "RESTCONF-JSON": "tab:pink"}
OPS3 = ("create", "retrieve", "remove")
TITLES = {"create": "(a) VR creation", "retrieve": "(b) VR retrieval", "remove": "(c) VR removal"}


def _save(fig, out, name, suptitle=None):
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=90)
    plt.close(fig)
    return name


def _by_pre(d, server, key, ylabel, name, out, title):
    pres = d.pres(server)
    if not pres:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for ax, op in zip(axes, OPS3):
        for k, iface in enumerate(IFACES):
            xs, ys, lo, hi = [], [], [], []
            for j, pre in enumerate(pres):
                v = d.vals(server, pre, iface, op, key)
                if not v:
                    continue
                m = median(v)
                a, b = median_ci(v)
                xs.append(j + (k - 2) * 0.06)
                ys.append(m)
                lo.append(max(m - a, 0))
                hi.append(max(b - m, 0))
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=iface, color=COLORS[iface])
        ax.set_xticks(range(len(pres)))
        ax.set_xticklabels([str(p) for p in pres])
        ax.set_xlabel("pre-existing active VRs")
        ax.set_ylabel(ylabel)
        ax.set_yscale("log")
        ax.set_title(TITLES[op])
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    return _save(fig, out, name, title)


def _paper_bars(d, out):
    from .markdown import PAPER_NAME, PAPER_T1
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    any_data = False
    for ax, (j, op) in zip(axes, enumerate(OPS3)):
        labels, paper, ours = [], [], []
        for iface in IFACES:
            v = d.vals("paper", 0, iface, op, "done_ms")
            if not v:
                continue
            any_data = True
            labels.append(iface)
            pn = PAPER_NAME[iface]
            paper.append(PAPER_T1[pn][j] if pn else 0)
            ours.append(sum(v) / len(v) / 1000)
        xs = range(len(labels))
        ax.bar([x - 0.2 for x in xs], paper, 0.4, label="paper (XenServer 5.6)", color="0.6")
        ax.bar([x + 0.2 for x in xs], ours, 0.4, label="vrouter, --sim-latency paper", color="tab:blue")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("mean response time [s]")
        ax.set_title(TITLES[op])
    axes[0].legend(fontsize=8)
    name = _save(fig, out, "fig7-paper-latency.png", "Fig. 7 (Table I): response time with the paper's hypervisor latencies")
    return name if any_data else None


def _memory(res, out):
    from .markdown import PAPER_T3
    labels, vals, colors = [], [], []
    for pn in ("SNMPv2c", "SNMPv3", "NETCONF", "RWS"):
        labels.append("paper: %s agent" % pn)
        vals.append(PAPER_T3[pn][0])
        colors.append("0.6")
    for r in res.tables["memory"]:
        if r["when"] == "after cycles":
            labels.append("vrouter %s, %d VRs" % (r["server"], r["pre"]))
            vals.append(r["rss_kb"] / 1024)
            colors.append("tab:blue" if r["server"] == "plain" else "tab:green")
    for w in res.tables["walks"]:
        if w["agent"] == "snmpd":
            labels.append("snmpd, %d ifaces" % w["rows"])
            vals.append(w["rss_kb"] / 1024)
            colors.append("tab:orange")
    pcs = res.tables["peer_cycles"]
    for pre in sorted({r["pre"] for r in pcs}):
        sel = [r for r in pcs if r["pre"] == pre]
        labels.append("netconfd, %d VRs" % pre)
        vals.append(sel[-1]["rss_kb"] / 1024)
        colors.append("tab:red")
    fig, ax = plt.subplots(figsize=(10, 0.35 * len(labels) + 1.5))
    ax.barh(range(len(labels)), vals, color=colors)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.axvline(73, color="k", linestyle="--", linewidth=1)
    ax.text(74, len(labels) - 0.5, "73 MB target", fontsize=8)
    ax.set_xlabel("resident memory [MB]")
    ax.set_title("Fig. 9: memory of the server processes (vrouter hosts all interfaces in one process)")
    return _save(fig, out, "fig9-memory.png")


def _network(res, out):
    net = res.tables["network"]
    if not net:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for ax, op in zip(axes, OPS3):
        for iface in IFACES:
            for form, style in (("single", "-"), ("batch", "--")):
                pts = sorted((r["vrs"], r["bytes"]) for r in net if r["iface"] == iface and r["form"] == form and r["op"] == op)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] / 1024 for p in pts], style, marker="o", markersize=3,
                            color=COLORS[iface], label="%s %s" % (iface, "per-VR" if form == "single" else "batch"))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("number of VRs")
        ax.set_ylabel("network usage [KiB]")
        ax.set_title(TITLES[op])
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7, ncol=2)
    return _save(fig, out, "fig10-network.png",
                 "Fig. 10: bytes on the wire (solid: a session per VR, as the paper; dashed: batch form)")


def write(out, res, d):
    figs = {}
    figs["fig7"] = _by_pre(d, "plain", "done_ms", "response time [ms]", "fig7-response-time.png", out,
                           "Fig. 7: response time, T1 to completion, simulated driver without latency (median, 95% CI)")
    p = _paper_bars(d, out)
    if p:
        figs["fig7p"] = p
    figs["fig8"] = _by_pre(d, "plain", "cpu_ms", "server CPU time [ms]", "fig8-cpu-time.png", out,
                           "Fig. 8: server CPU time per operation (median, 95% CI)")
    figs["fig9"] = _memory(res, out)
    n = _network(res, out)
    if n:
        figs["fig10"] = n
    return {k: v for k, v in figs.items() if v}
