#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/bench-report.py DIR
#
# Turn the raw results of one "make bench" run (DIR/runs.tsv, written by
# tests/vm/bench/bench-guest.sh, plus DIR/info.txt and DIR/host.txt) into
# DIR/results.md (medians, min-max spread, repeat counts, ratios of siw2 to
# siw, rxe and TCP) and the gnuplot inputs DIR/plot/*.dat + DIR/plots.gp
# (tools/bench.sh runs gnuplot on them).  Only the Python standard library.
import csv
import math
import os
import re
import statistics
import sys

DRIVERS = ["siw2", "siw", "rxe"]
BW_TESTS = ["ib_write_bw", "ib_read_bw", "ib_send_bw"]
LAT_TESTS = ["ib_write_lat", "ib_read_lat", "ib_send_lat"]
PATHS = {
    "nspair": "veth between namespaces bench_a (server) and bench_b (client)",
    "initns": "veth brx-a/brx-b, both ends in the initial namespace, policy-routed",
}


def fmt(v):
    """3 significant digits, no exponent for the ranges we see."""
    if v is None:
        return "?"
    if v == 0:
        return "0"
    digits = max(0, 2 - int(math.floor(math.log10(abs(v)))))
    return f"{v:.{digits}f}"


def size_label(s):
    s = int(s)
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if s >= div and s % div == 0:
            return f"{s // div} {unit}"
    return f"{s} B"


class Cell:
    """The runs of one (driver, test, size): ok values and failures."""

    def __init__(self):
        self.values = []
        self.cpu = []        # guest CPU seconds per GiB carried (bw runs)
        self.rates = []      # perftest MsgRate, Mmsg/s (bw runs)
        self.failed = []     # (status, note)

    @property
    def median(self):
        return statistics.median(self.values) if self.values else None

    def text(self):
        if self.values:
            lo, hi = min(self.values), max(self.values)
            n = len(self.values)
            extra = ""
            if self.failed:
                extra = f", {len(self.failed)} failed"
            if n == 1:
                return f"{fmt(self.median)} (n=1{extra})"
            return f"{fmt(self.median)} ({fmt(lo)}-{fmt(hi)}, n={n}{extra})"
        if self.failed:
            return "n/a (failed)"
        return "-"


def load(path):
    cells = {}
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            rows.append(r)
            key = (r["driver"], r["test"], r["size"])
            c = cells.setdefault(key, Cell())
            if r["status"] == "ok" and r["value"]:
                c.values.append(float(r["value"]))
                for i, kv in enumerate((r.get("extra") or "").split(",")):
                    if kv.startswith("cpu="):
                        c.cpu.append(float(kv[4:]))
                    elif i == 0 and r["test"].endswith(("_bw", "_bw-fa", "_bw-cs")):
                        try:
                            c.rates.append(float(kv))
                        except ValueError:
                            pass
            else:
                c.failed.append((r["status"], r.get("note") or ""))
    return cells, rows


def variant(test):
    """("ib_write_bw", "q", 4) for "ib_write_bw-q4", None for a plain test."""
    tool, _, v = test.partition("-")
    if v[:1] in ("q", "p", "P") and v[1:].isdigit():
        return tool, v[0], int(v[1:])
    return None


def median_or_none(v):
    return statistics.median(v) if v else None


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    r = a / b
    return f"{r:.2f}" if r >= 0.995 else fmt(r)


def read_kv(path):
    try:
        with open(path) as f:
            return f.read().rstrip("\n")
    except OSError:
        return ""


def ab_section(L, variants, cell, rows):
    """siw2 builds side by side (tools/bench-ab.sh), ratios to the first."""
    base = variants[0]
    tests = []
    for r in rows:
        k = (r["test"], r["size"])
        if r["driver"] in variants and k not in tests:
            tests.append(k)
    L.append("## A/B: siw2 builds, interleaved in one guest")
    L.append("")
    L.append(f"Gbit/s (bw) or microseconds (lat); ratios are each build's median over "
             f"{base}'s (bw: above 1 is faster; lat: below 1 is faster).")
    L.append("")
    L.append("| Test | Size | " + " | ".join(variants) + " | " +
             " | ".join(f"{v}/{base}" for v in variants[1:]) + " |")
    L.append("|---|---|" + "---|" * len(variants) + "---:|" * (len(variants) - 1))
    for test, size in tests:
        cs = [cell(v, test, size) for v in variants]
        L.append(f"| {test} | {size_label(size)} | " +
                 " | ".join(c.text() for c in cs) + " | " +
                 " | ".join(ratio(c.median, cs[0].median) for c in cs[1:]) + " |")
    L.append("")


def mqp_configs(rows):
    """The many-QP configurations run: [(tool, kind, n, size)], sorted."""
    out = set()
    for r in rows:
        v = variant(r["test"])
        if v and v[1] in ("q", "p") and r["size"].isdigit():
            out.add((v[0], v[1], v[2], int(r["size"])))
    return sorted(out, key=lambda c: (c[0], c[3], c[1], c[2]))


def tcp_streams(cell, n):
    return cell("tcp", "iperf3" if n == 1 else f"iperf3-P{n}", "stream")


def mqp_section(L, cell, rows, tcp_bw):
    cfgs = mqp_configs(rows)
    if not cfgs:
        return
    L.append("## Many QPs: aggregate bandwidth, Gbit/s (higher is better)")
    L.append("")
    L.append("`-qN`: one perftest process pair with N QPs (`-q N`); `-pN`: N process "
             "pairs at once, their sum. TCP: iperf3 with as many streams (`-P N`). "
             "x1: the same driver's one-QP figure of the first table, for how the "
             "aggregate grows.")
    L.append("")
    L.append("| Test | Size | siw2 | siw | rxe | TCP | siw2/siw | siw2/TCP | siw2 x1 | siw x1 |")
    L.append("|---|---:|---|---|---|---|---:|---:|---:|---:|")
    for tool, kind, n, size in cfgs:
        test = f"{tool}-{kind}{n}"
        c = {d: cell(d, test, size) for d in DRIVERS}
        m2 = c["siw2"].median
        tcp = tcp_streams(cell, n) if size >= 65536 else Cell()
        one = {d: cell(d, tool, size).median for d in ("siw2", "siw")}
        L.append(f"| {test} | {size_label(size)} | {c['siw2'].text()} | {c['siw'].text()} | "
                 f"{c['rxe'].text()} | {tcp.text()} | {ratio(m2, c['siw'].median)} | "
                 f"{ratio(m2, tcp.median)} | {ratio(m2, one['siw2'])} | "
                 f"{ratio(c['siw'].median, one['siw'])} |")
    L.append("")


class RateCell(Cell):
    """A bandwidth cell's message rates (perftest MsgRate, Mmsg/s) in k/s."""

    def __init__(self, c, rows_extra):
        super().__init__()
        self.values = rows_extra
        self.failed = c.failed


def rates(cells, drv, test, size):
    """The k/s message rates of a bandwidth configuration's ok runs."""
    c = cells.get((drv, test, str(size)), Cell())
    return RateCell(c, [v * 1000 for v in c.rates])


def atomic_section(L, cells, cell):
    ops = [("FetchAdd", "ib_atomic_lat-fa", "ib_atomic_bw-fa"),
           ("CmpSwap", "ib_atomic_lat-cs", "ib_atomic_bw-cs"),
           ("RDMA Read, 8 B", "ib_read_lat", "ib_read_bw")]
    if not any(k[1].startswith("ib_atomic_") for k in cells):
        return
    L.append("## Atomics (RFC 7306 on siw2, InfiniBand atomics on rxe), 8 octets")
    L.append("")
    L.append("Rate: perftest's message rate (`ib_atomic_bw`, `ib_read_bw -s 8`), "
             "thousands per second, higher is better; latency: `t_typical` "
             "(`ib_atomic_lat`, `ib_read_lat -s 8`), microseconds, a whole round trip. "
             "Linux siw has no atomics. rxe runs on the initial-namespace path.")
    L.append("")
    L.append("| Operation | siw2 rate | rxe rate | siw2/rxe | siw2 latency | rxe latency | "
             "siw2/rxe | siw2 vs its 8 B Read (rate, latency) |")
    L.append("|---|---|---|---:|---|---|---:|---|")
    rd_rate = rates(cells, "siw2", "ib_read_bw", 8).median
    rd_lat = cell("siw2", "ib_read_lat", 8).median
    for name, lat, bw in ops:
        r2, rx = rates(cells, "siw2", bw, 8), rates(cells, "rxe", bw, 8)
        l2, lx = cell("siw2", lat, 8), cell("rxe", lat, 8)
        vs = "-" if bw == "ib_read_bw" else \
            f"{ratio(r2.median, rd_rate)}, {ratio(l2.median, rd_lat)}"
        L.append(f"| {name} | {r2.text()} | {rx.text()} | {ratio(r2.median, rx.median)} | "
                 f"{l2.text()} | {lx.text()} | {ratio(l2.median, lx.median)} | {vs} |")
    L.append("")


def nfs_section(L, cells):
    runs = {}
    for (drv, test, size), c in cells.items():
        if drv.startswith("nfs-"):
            runs[(drv[4:], test)] = c
    if not runs:
        return
    mib = {int(k[2]) >> 20 for k in cells if k[0].startswith("nfs-") and k[1] == "nfs-write"}
    L.append("## NFSv4.2: siw2 and Linux siw against NFS over TCP on the same veth")
    L.append("")
    L.append(f"Sequential `dd` of {', '.join(str(m) for m in sorted(mib)) or '?'} MiB: "
             "write with `conv=fsync`, then a cold read after the client's caches "
             "are dropped, MB/s (10^6 B/s), higher is better. Mount: seconds for "
             "`mount -t nfs`, lower is better; cold: with the neighbour entry "
             "flushed first. Ratios: the RDMA transport over NFS/TCP.")
    L.append("")
    L.append("| Row | TCP | siw2 | siw | siw2/TCP | siw/TCP |")
    L.append("|---|---|---|---|---:|---:|")
    for test, name in (("nfs-write", "write, MB/s"), ("nfs-read", "read (cold), MB/s"),
                       ("nfs-mount", "mount, s"), ("nfs-mount-cold", "mount, neighbour unknown, s")):
        c = {t: runs.get((t, test), Cell()) for t in ("tcp", "siw2", "siw")}
        L.append(f"| {name} | {c['tcp'].text()} | {c['siw2'].text()} | {c['siw'].text()} | "
                 f"{ratio(c['siw2'].median, c['tcp'].median)} | "
                 f"{ratio(c['siw'].median, c['tcp'].median)} |")
    L.append("")


def nvme_section(L, cells):
    runs = {(drv[5:], test): c for (drv, test, size), c in cells.items()
            if drv.startswith("nvme-")}
    if not runs:
        return
    L.append("## NVMe over Fabrics: siw2 and Linux siw against NVMe/TCP on the same veth")
    L.append("")
    L.append("The kernel's target (nvmet, a brd RAM disk) and host, both in the initial "
             "namespace, on the policy-routed veth pair rxe uses; `fio` with libaio and "
             "direct I/O. IOPS and MB/s (10^6 B/s), higher is better. Ratios: the RDMA "
             "transport over NVMe/TCP, and siw2 over siw.")
    L.append("")
    L.append("| Row | TCP | siw2 | siw | siw2/TCP | siw/TCP | siw2/siw |")
    L.append("|---|---|---|---|---:|---:|---:|")
    for test, name in (("nvme-randread", "4 KiB random read, QD 32, IOPS"),
                       ("nvme-randwrite", "4 KiB random write, QD 32, IOPS"),
                       ("nvme-read", "128 KiB sequential read, QD 16, MB/s"),
                       ("nvme-write", "128 KiB sequential write, QD 16, MB/s")):
        c = {t: runs.get((t, test), Cell()) for t in ("tcp", "siw2", "siw")}
        L.append(f"| {name} | {c['tcp'].text()} | {c['siw2'].text()} | {c['siw'].text()} | "
                 f"{ratio(c['siw2'].median, c['tcp'].median)} | "
                 f"{ratio(c['siw'].median, c['tcp'].median)} | "
                 f"{ratio(c['siw2'].median, c['siw'].median)} |")
    L.append("")


def manyqp_section(L, cells, rows):
    ns = sorted({int(r["size"]) for r in rows if r["test"] == "manyqp"})
    if not ns:
        return
    L.append("## Connected QPs: kernel memory per QP, kB (lower is better)")
    L.append("")
    L.append("`siw2_manyqp` holds N connected RC QPs on each of the two devices (one PD "
             "and one CQ per side, 64 send and 64 receive entries, nothing posted); the "
             "growth of unreclaimable slab, vmalloc and per-CPU memory (`/proc/meminfo`) "
             "over the 2N QPs, each with its rdma_cm ID and kernel TCP socket. "
             "Connect: the client's time for its N connections, one after the other.")
    L.append("")
    L.append("| QPs per device | siw2 | siw | siw2/siw | siw2 connect | siw connect |")
    L.append("|---:|---|---|---:|---|---|")
    for n in ns:
        c2 = cells.get(("siw2", "manyqp", str(n)), Cell())
        c1 = cells.get(("siw", "manyqp", str(n)), Cell())
        conn = {}
        for r in rows:
            if r["test"] == "manyqp" and r["size"] == str(n) and r["status"] == "ok":
                conn.setdefault(r["driver"], []).append(
                    (r.get("extra") or "").replace("connect=", ""))
        L.append(f"| {n} | {c2.text()} | {c1.text()} | {ratio(c2.median, c1.median)} | "
                 f"{', '.join(conn.get('siw2', [])) or '-'} | "
                 f"{', '.join(conn.get('siw', [])) or '-'} |")
    L.append("")


def cpu_section(L, cell, rows):
    keys = sorted({(r["test"], int(r["size"])) for r in rows
                   if r["test"].startswith("ib_") and r["size"].isdigit() and
                   "cpu=" in (r.get("extra") or "") and int(r["size"]) >= 65536})
    if not keys:
        return
    L.append("## CPU time per GiB carried, seconds (lower is better)")
    L.append("")
    L.append("Guest CPU time (user, system, irq, softirq; both vCPUs) over each client "
             "run, divided by the octets the client's veth end carried both ways. Both "
             "ends run in one guest and a veth delivers in the sender's softirq, so "
             "this is sender and receiver together: neither side's share can be told "
             "apart on this path. TCP: iperf3 with as many streams.")
    L.append("")
    L.append("| Test | Size | siw2 | siw | rxe | TCP | siw2/siw | siw2/TCP |")
    L.append("|---|---:|---|---|---|---|---:|---:|")
    for test, size in keys:
        v = variant(test)
        n = v[2] if v else 1
        med = {d: median_or_none(cell(d, test, size).cpu) for d in DRIVERS}
        tcp = median_or_none(tcp_streams(cell, n).cpu)
        L.append(f"| {test} | {size_label(size)} | {fmt(med['siw2'])} | {fmt(med['siw'])} | "
                 f"{fmt(med['rxe'])} | {fmt(tcp)} | {ratio(med['siw2'], med['siw'])} | "
                 f"{ratio(med['siw2'], tcp)} |")
    L.append("")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench-report.py DIR")
    out = sys.argv[1]
    tsv = os.path.join(out, "runs.tsv")
    if not os.path.exists(tsv):
        sys.exit(f"bench-report: no {tsv}")
    cells, rows = load(tsv)
    info = read_kv(os.path.join(out, "info.txt"))
    host = read_kv(os.path.join(out, "host.txt"))

    def cell(drv, test, size):
        return cells.get((drv, test, str(size)), Cell())

    # The configured sizes: the atomic rows' 8-octet Reads use the same
    # tools and must not add a column to the main tables.
    m = re.search(r"sizes=([0-9 ]*?) lat_size=(\d+)", info)
    if m:
        sizes = sorted({int(s) for s in m.group(1).split()})
        lat_size = int(m.group(2))
    else:
        sizes = sorted({int(r["size"]) for r in rows if r["test"] in BW_TESTS})
        lat_sizes = sorted({int(r["size"]) for r in rows if r["test"] in LAT_TESTS})
        lat_size = lat_sizes[0] if lat_sizes else 64
    # Only the tools the run was given (BENCH_TESTS): no rows of "-".
    m = re.search(r"^config: .*\btests=(.*)$", info, re.M)
    run = set(m.group(1).split()) if m else set(BW_TESTS) | set(LAT_TESTS)
    bw_tests = [t for t in BW_TESTS if t in run]
    lat_tests = [t for t in LAT_TESTS if t in run]
    tcp_bw = cell("tcp", "iperf3", "stream")
    tcp_lat = cell("tcp", "sockperf", lat_size)
    paths = {}
    for r in rows:
        paths.setdefault(r["driver"], r["path"])

    L = []
    L.append("# siw2 benchmark results")
    L.append("")
    L.append("Produced by `make bench` (tools/bench.sh); how to read it: "
             "Documentation/performance.md.")
    L.append("")
    L.append("Cells: median (min-max, n = successful repeats). "
             "`n/a (failed)`: attempted, no run produced a number; `-`: not run.")
    L.append("")
    variants = []
    for r in rows:
        if r["driver"].startswith("siw2@") and r["driver"] not in variants:
            variants.append(r["driver"])
    if variants:
        ab_section(L, variants, cell, rows)
    L.append("## Bandwidth, one QP, Gbit/s (higher is better)")
    L.append("")
    L.append("perftest over rdma_cm (`-R`), duration mode, client-side average. "
             "TCP: iperf3, one stream (independent of the message size column).")
    L.append("")
    L.append("| Test | Size | siw2 | siw | rxe | TCP | siw2/siw | siw2/rxe | siw2/TCP |")
    L.append("|---|---:|---|---|---|---|---:|---:|---:|")
    for test in bw_tests:
        for s in sizes:
            c = {d: cell(d, test, s) for d in DRIVERS}
            m2 = c["siw2"].median
            L.append(f"| {test} | {size_label(s)} | {c['siw2'].text()} | {c['siw'].text()} | "
                     f"{c['rxe'].text()} | {tcp_bw.text()} | {ratio(m2, c['siw'].median)} | "
                     f"{ratio(m2, c['rxe'].median)} | {ratio(m2, tcp_bw.median)} |")
    L.append("")
    L.append(f"## Latency, {lat_size} B, microseconds (lower is better; ratios below 1 favour siw2)")
    L.append("")
    L.append("perftest `t_typical` (the median of the run's iterations). "
             "write/send: half the round trip, as perftest reports it; read: one whole "
             "RDMA Read round trip. TCP: sockperf ping-pong median (both ends busy-poll, "
             "as perftest does); half the round trip "
             "in the write/send rows, the whole round trip (2x) in the read row.")
    L.append("")
    L.append("| Test | siw2 | siw | rxe | TCP | siw2/siw | siw2/rxe | siw2/TCP |")
    L.append("|---|---|---|---|---|---:|---:|---:|")
    for test in lat_tests:
        c = {d: cell(d, test, lat_size) for d in DRIVERS}
        m2 = c["siw2"].median
        tcp = tcp_lat
        if test == "ib_read_lat":
            tcp = Cell()
            tcp.values = [2 * v for v in tcp_lat.values]
            tcp.failed = tcp_lat.failed
        L.append(f"| {test} | {c['siw2'].text()} | {c['siw'].text()} | {c['rxe'].text()} | "
                 f"{tcp.text()} | {ratio(m2, c['siw'].median)} | {ratio(m2, c['rxe'].median)} | "
                 f"{ratio(m2, tcp.median)} |")
    L.append("")
    if any(k[0] == "siw2-syscalls" for k in cells):
        L.append("## siw2 fast path: rings against system calls")
        L.append("")
        L.append("siw2 (rings: posts and polls in user space) against siw2-syscalls "
                 "(module parameter user_rings=0: every post and poll a system call), "
                 "Linux siw beside them. Bandwidth Gbit/s, latency microseconds.")
        L.append("")
        L.append("| Test | Size | siw2 | siw2-syscalls | siw | siw2/siw2-syscalls | siw2/siw |")
        L.append("|---|---:|---|---|---|---:|---:|")
        for test in bw_tests + lat_tests:
            for s in (sizes if test in BW_TESTS else [lat_size]):
                c = {d: cell(d, test, s) for d in ("siw2", "siw2-syscalls", "siw")}
                m2 = c["siw2"].median
                L.append(f"| {test} | {size_label(s)} | {c['siw2'].text()} | "
                         f"{c['siw2-syscalls'].text()} | {c['siw'].text()} | "
                         f"{ratio(m2, c['siw2-syscalls'].median)} | {ratio(m2, c['siw'].median)} |")
        L.append("")
    mqp_section(L, cell, rows, tcp_bw)
    atomic_section(L, cells, cell)
    nfs_section(L, cells)
    nvme_section(L, cells)
    manyqp_section(L, cells, rows)
    cpu_section(L, cell, rows)
    L.append("## Paths")
    L.append("")
    L.append("| Driver | Path | |")
    L.append("|---|---|---|")
    for d in ["siw2", "siw2-syscalls", "siw", "rxe", "tcp", "tcp-initns"]:
        if d in paths:
            L.append(f"| {d} | {paths[d]} | {PATHS.get(paths[d], '')} |")
    L.append("")
    ti_bw = cell("tcp-initns", "iperf3", "stream")
    ti_lat = cell("tcp-initns", "sockperf", lat_size)
    if ti_bw.values or ti_bw.failed:
        L.append("TCP on both paths (the rxe path is only usable if it carries TCP like "
                 "the namespace pair does):")
        L.append("")
        L.append("| Path | iperf3 Gbit/s | sockperf half round trip, us |")
        L.append("|---|---|---|")
        L.append(f"| nspair | {tcp_bw.text()} | {tcp_lat.text()} |")
        L.append(f"| initns | {ti_bw.text()} | {ti_lat.text()} |")
        L.append("")
    bad = [r for r in rows if r["status"] != "ok"]
    if bad:
        L.append("## Runs without a number")
        L.append("")
        by = {}
        for r in bad:
            k = (r["driver"], r["status"], r.get("note") or "")
            by.setdefault(k, []).append(f"{r['test']}/{r['size']}/r{r['rep']}")
        L.append("| Driver | Status | Note | Runs |")
        L.append("|---|---|---|---|")
        for (d, st, note), runs in sorted(by.items()):
            shown = ", ".join(runs[:6]) + (f", ... ({len(runs)} in all)" if len(runs) > 6 else "")
            L.append(f"| {d} | {st} | {note} | {shown} |")
        L.append("")
        L.append("Statuses: `timeout` (killed), `rcN` (exit status N), `nolisten` (the server "
                 "never listened), `noresult` (no result line), `skipped` (an earlier repeat "
                 "of the configuration, or too many configurations in a row, failed), "
                 "`setup-failed` (module or devices could not be set up), "
                 "`calibration` (perftest could not measure the CPU clock rate on the busy "
                 "host: its times are untrustworthy), `zero` (a result of 0). "
                 "A run that failed fast is tried once more; the note then names "
                 "the first attempt's status. "
                 "Raw output: `raw/`.")
        L.append("")
    L.append("## Run")
    L.append("")
    L.append("```")
    if host:
        L.append(host)
    if info:
        L.append(info)
    L.append("```")
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(L) + "\n")

    # An A/B run of siw2 builds alone has nothing the plots show.
    gp = os.path.join(out, "plots.gp")
    if os.path.exists(gp):
        os.remove(gp)
    if any(r["driver"] in DRIVERS or r["driver"] == "tcp" for r in rows):
        write_plots(out, cell, sizes, lat_size, tcp_bw, tcp_lat, runs=rows)
    extras_plot(out, cells, cell)


def write_plots(out, cell, sizes, lat_size, tcp_bw, tcp_lat, runs):
    pdir = os.path.join(out, "plot")
    os.makedirs(pdir, exist_ok=True)
    colors = {"siw2": "#d62728", "siw": "#1f77b4", "rxe": "#2ca02c", "TCP": "#7f7f7f"}
    gp = ["# generated by tools/bench-report.py; run in the results directory",
          "set terminal pngcairo size 1500,520 font 'sans,10' noenhanced",
          "set output 'bandwidth.png'",
          "set multiplot layout 1,3 title 'Bandwidth vs message size (one QP; median, "
          "bars: min-max)'",
          "set logscale x 2", "set logscale y", "set grid", "set format y '%g'",
          "set xlabel 'message size'", "set ylabel 'Gbit/s'",
          "set key top left",
          "set xtics (" + ", ".join(f"'{size_label(s).replace(' ', '')}' {s}" for s in sizes) + ")"]
    if sizes:
        gp.append(f"set xrange [{sizes[0] / 2}:{sizes[-1] * 2}]")
    for test in BW_TESTS:
        plots = []
        for d in DRIVERS:
            rows = []
            for s in sizes:
                c = cell(d, test, s)
                if c.values and min(c.values) > 0:
                    rows.append(f"{s} {c.median} {min(c.values)} {max(c.values)}")
            if rows:
                fn = f"plot/bw-{d}-{test}.dat"
                with open(os.path.join(out, fn), "w") as f:
                    f.write("# size median min max (Gbit/s)\n" + "\n".join(rows) + "\n")
                plots.append(f"'{fn}' using 1:2:3:4 with yerrorlines lw 2 pt 7 "
                             f"lc rgb '{colors[d]}' title '{d}'")
        if tcp_bw.values and sizes:
            plots.append(f"{tcp_bw.median} with lines dt 2 lw 2 lc rgb '{colors['TCP']}' "
                         "title 'TCP (iperf3)'")
        gp.append(f"set title '{test}'")
        if plots:
            gp.append("plot " + ", \\\n     ".join(plots))
        else:
            gp.append("set label 1 'no data' at graph 0.4, 0.5")
            gp.append("plot 1/0 notitle")
            gp.append("unset label 1")
    gp.append("unset multiplot")

    # Latency: one group per test, one bar per driver.
    names = DRIVERS + ["TCP"]
    vals = []
    lines = []
    for test in LAT_TESTS:
        row = [test.replace("ib_", "").replace("_lat", "")]
        for d in names:
            if d == "TCP":
                c = tcp_lat
                k = 2 if test == "ib_read_lat" else 1
            else:
                c = cell(d, test, lat_size)
                k = 1
            if c.values:
                v = [k * x for x in c.values]
                row += [str(statistics.median(v)), str(min(v)), str(max(v))]
                vals += v
            else:
                row += ["NaN", "NaN", "NaN"]
        lines.append(" ".join(row))
    with open(os.path.join(pdir, "latency.dat"), "w") as f:
        f.write("# test " + " ".join(f"{n}_median {n}_min {n}_max" for n in names) + "\n")
        f.write("\n".join(lines) + "\n")
    gp += ["reset",
           "set terminal pngcairo size 900,520 font 'sans,10' noenhanced",
           "set output 'latency.png'",
           f"set title 'Latency, {lat_size} B (median, bars: min-max; write/send: half round "
           "trip, read: round trip)'",
           "set style data histograms",
           "set style histogram errorbars gap 1 lw 1",
           "set style fill solid 0.8 border -1",
           "set boxwidth 0.9", "set grid ytics",
           "set ylabel 'microseconds'", "set key top left", "set format y '%g'",
           "set datafile missing 'NaN'"]
    if vals and min(vals) > 0 and max(vals) / min(vals) > 30:
        gp.append("set logscale y")
        gp.append(f"set yrange [{min(vals) / 2}:{max(vals) * 2}]")
    else:
        gp.append("set yrange [0:*]")
    parts = []
    for i, n in enumerate(names):
        col = 2 + 3 * i
        src = "'plot/latency.dat'" if i == 0 else "''"
        xt = ":xtic(1)" if i == 0 else ""
        parts.append(f"{src} using {col}:{col + 1}:{col + 2}{xt} lc rgb '{colors[n]}' title '{n}'")
    gp.append("plot " + ", \\\n     ".join(parts))
    gp += mqp_plot(out, cell, runs, colors)
    with open(os.path.join(out, "plots.gp"), "w") as f:
        f.write("\n".join(gp) + "\n")


def mqp_plot(out, cell, rows, colors):
    """mqp.png: aggregate bandwidth against the number of QPs (-qN) per
    driver and message size, TCP against as many iperf3 streams."""
    cfgs = [c for c in mqp_configs(rows) if c[1] == "q"]
    if not cfgs:
        return []
    gp = ["reset",
          "set terminal pngcairo size 1000,520 font 'sans,10' noenhanced",
          "set output 'mqp.png'",
          "set multiplot layout 1,2 title 'Many QPs: aggregate bandwidth (median, "
          "bars: min-max)'",
          "set logscale x 2", "set logscale y", "set grid", "set format y '%g'",
          "set xlabel 'QPs (TCP: streams)'", "set ylabel 'Gbit/s'", "set key top left"]
    for size in sorted({c[3] for c in cfgs}):
        plots = []
        for tool in sorted({c[0] for c in cfgs if c[3] == size}):
            ns = [1] + sorted({c[2] for c in cfgs if c[0] == tool and c[3] == size})
            series = [(d, lambda n, d=d: cell(d, tool if n == 1 else f"{tool}-q{n}", size))
                      for d in DRIVERS]
            if size >= 65536:
                series.append(("TCP", lambda n: tcp_streams(cell, n)))
            for d, get in series:
                pts = []
                for n in ns:
                    c = get(n)
                    if c.values and min(c.values) > 0:
                        pts.append(f"{n} {c.median} {min(c.values)} {max(c.values)}")
                if not pts:
                    continue
                fn = f"plot/mqp-{d}-{tool}-{size}.dat"
                with open(os.path.join(out, fn), "w") as f:
                    f.write("# qps median min max (Gbit/s)\n" + "\n".join(pts) + "\n")
                plots.append(f"'{fn}' using 1:2:3:4 with yerrorlines lw 2 pt 7 "
                             f"lc rgb '{colors[d]}' title '{d}'")
        gp.append(f"set title '{size_label(size)} messages'")
        gp.append("plot " + ", \\\n     ".join(plots) if plots else "plot 1/0 notitle")
    gp.append("unset multiplot")
    return gp


def bars(out, name, title, ylabel, groups, series):
    """gnuplot lines for one histogram panel with min-max error bars:
    groups (no spaces) along x, one bar per (label, color, [Cell per
    group]) series; its data in plot/NAME.dat. [] when no series has a
    value."""
    if not any(c.values for _, _, cs in series for c in cs):
        return []
    rows = []
    for i, g in enumerate(groups):
        row = [g]
        for _, _, cs in series:
            v = cs[i].values
            row += [str(statistics.median(v)), str(min(v)), str(max(v))] if v else ["NaN"] * 3
        rows.append(" ".join(row))
    with open(os.path.join(out, "plot", f"{name}.dat"), "w") as f:
        f.write("# group " + " ".join(f"{n}_median {n}_min {n}_max" for n, _, _ in series) + "\n")
        f.write("\n".join(rows) + "\n")
    parts = []
    for i, (label, color, _) in enumerate(series):
        col = 2 + 3 * i
        src = f"'plot/{name}.dat'" if i == 0 else "''"
        xt = ":xtic(1)" if i == 0 else ""
        parts.append(f"{src} using {col}:{col + 1}:{col + 2}{xt} lc rgb '{color}' title '{label}'")
    return [f"set title '{title}'", f"set ylabel '{ylabel}'", "plot " + ", \\\n     ".join(parts)]


def extras_plot(out, cells, cell):
    """extras.png: atomics beside rxe, CPU per GiB, NFS against NFS/TCP."""
    colors = {"siw2": "#d62728", "siw": "#1f77b4", "rxe": "#2ca02c", "TCP": "#7f7f7f"}
    os.makedirs(os.path.join(out, "plot"), exist_ok=True)
    panels = []
    ops = [("FetchAdd", "ib_atomic_bw-fa"), ("CmpSwap", "ib_atomic_bw-cs"), ("Read-8B", "ib_read_bw")]
    panels.append(bars(out, "atomics", "Atomics and 8-octet Read: rate", "thousands/s",
                       [o for o, _ in ops],
                       [(d, colors[d], [rates(cells, d, t, 8) for _, t in ops])
                        for d in ("siw2", "rxe")]))

    def cpu(d, test):
        c = Cell()
        c.values = (cells.get((d, test, "65536"), Cell()).cpu if d != "TCP" else
                    cells.get(("tcp", "iperf3", "stream"), Cell()).cpu)
        return c
    panels.append(bars(out, "cpu", "CPU per GiB, ib_write_bw 64 KiB (TCP: iperf3)",
                       "CPU seconds per GiB", ["one-QP"],
                       [(d, colors[d], [cpu(d, "ib_write_bw")]) for d in ("siw2", "siw", "rxe", "TCP")]))

    def nfs(t, test):
        for (d, tt, _), c in cells.items():
            if d == f"nfs-{t}" and tt == test:
                return c
        return Cell()
    nfs_series = [(lbl, colors[lbl], None) for lbl in ("TCP", "siw2", "siw")]
    panels.append(bars(out, "nfs", "NFSv4.2, sequential dd", "MB/s", ["write", "read-cold"],
                       [(lbl, col, [nfs(lbl.lower(), "nfs-write"), nfs(lbl.lower(), "nfs-read")])
                        for lbl, col, _ in nfs_series]))
    panels.append(bars(out, "mount", "NFSv4.2 mount", "seconds", ["neighbour-known", "neighbour-unknown"],
                       [(lbl, col, [nfs(lbl.lower(), "nfs-mount"), nfs(lbl.lower(), "nfs-mount-cold")])
                        for lbl, col, _ in nfs_series]))
    panels = [p for p in panels if p]
    if not panels:
        return
    gp = ["# generated by tools/bench-report.py; run in the results directory",
          f"set terminal pngcairo size {500 * len(panels)},520 font 'sans,10' noenhanced",
          "set output 'extras.png'",
          f"set multiplot layout 1,{len(panels)} title 'Atomics, CPU and NFS (median, bars: min-max)'",
          "set style data histograms", "set style histogram errorbars gap 1 lw 1",
          "set style fill solid 0.8 border -1", "set boxwidth 0.9", "set grid ytics",
          "set key top left", "set format y '%g'", "set datafile missing 'NaN'",
          "set yrange [0:*]", "set offsets 0, 0, graph 0.1, 0"]
    for p in panels:
        gp += p
    gp.append("unset multiplot")
    with open(os.path.join(out, "plots.gp"), "a") as f:
        f.write("reset\n" + "\n".join(gp[1:]) + "\n")


if __name__ == "__main__":
    main()
