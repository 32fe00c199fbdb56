#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The report half of bench/compare.sh: reads a results directory (manifest.tsv, raw/, setup.txt, the machine
snapshots), takes the median of the runs of every measure, pairs jDAT with each peer and writes results.json,
results.md and the charts (latency.svg, latency-mean.svg, bandwidth.svg). Standard library only.

Usage: compare.py report DIR

Every figure is converted to one unit per measure before anything is compared:
  latency    microseconds, one way (half a round trip); "p50" is the median of a run's samples, "mean" the
             run's wall time over its transfers
  path       nanoseconds per post plus completion on one thread, the median (p50) of JMH's samples
  rate       millions of messages per second
  bandwidth  GB/s, 10^9 bytes per second
  alloc      bytes allocated per operation
  fabric     microseconds, one way, as latency ("mean" for both sides: fi_pingpong times only its whole loop);
             "rate", millions of ping-pong transfers per second, is the reciprocal of the mean on both sides
"""
import html
import json
import math
import os
import statistics
import sys

LATENCY, PATH, RATE, BANDWIDTH, ALLOC, FABRIC = "latency", "path", "rate", "bandwidth", "alloc", "fabric"

UNITS = {
    LATENCY: "µs one-way (lower is better)",
    PATH: "ns per post + completion (lower is better)",
    RATE: "M msg/s (higher is better)",
    BANDWIDTH: "GB/s (higher is better)",
    ALLOC: "B/op (0 is the goal)",
    FABRIC: "µs one-way (lower is better)",
}

# Units of the stats whose unit is not their measure's.
STAT_UNITS = {(FABRIC, "rate"): UNITS[RATE]}

# series id -> (label, how the number was obtained)
SERIES = {
    "jdat_send": ("jDAT send/recv", "dat perf pingpong --op send: client and responder threads of one JVM"),
    "jdat_write": ("jDAT rdma_write", "dat perf pingpong --op write: RDMA write echo, the flag in the last byte"),
    "ucx_tag_lat": ("UCX tag_lat (sm)", "ucx_perftest -t tag_lat, UCP tag matching, UCX_TLS=sm, two processes"),
    "ucx_put_lat": ("UCX put_lat (posix)", "ucx_perftest -t put_lat -x posix -d memory, UCT put, two processes"),
    "fi_shm": ("fi_pingpong shm", "fi_pingpong -p shm -e rdm, two processes"),
    "fi_tcp": ("fi_pingpong tcp", "fi_pingpong -p tcp -e rdm over loopback TCP, two processes"),
    "aeron_ipc": ("Aeron IPC", "bench/aeron AeronIpcPingPong: embedded driver, aeron:ipc, two threads"),
    "c_floor": ("C handoff floor", "bench/cfloor/handoff.c: memcpy + release store, two pinned threads"),
    "path_sendRecv": ("jDAT send/recv, one thread", "JMH SingleThreadLatencyBenchmark.sendRecv: post send, dequeue "
                      "the receive, re-post it, dequeue the send; sampled"),
    "path_rdmaWrite": ("jDAT rdma_write, one thread", "JMH SingleThreadLatencyBenchmark.rdmaWrite: post an RDMA "
                       "write, dequeue its completion; sampled"),
    "jdat_send_rate": ("jDAT send stream", "dat perf rate --op send: window of 64 sends, receiver thread counts"),
    "jdat_write_rate": ("jDAT rdma_write stream", "dat perf rate --op write: window of 64 writes, one thread"),
    "jmh_pair": ("jDAT JMH MessageRate.pair", "JMH MessageRateBenchmark.pair: send and receive on one thread"),
    "ucx_tag_bw": ("UCX tag_bw (sm)", "ucx_perftest -t tag_bw -s 64, UCX_TLS=sm, two processes"),
    "ucx_put_bw_rate": ("UCX put_bw (posix)", "ucx_perftest -t put_bw -x posix -d memory -s 64, two processes"),
    "jmh_rdmaWrite": ("jDAT rdma_write (JMH)", "JMH BandwidthBenchmark.rdmaWrite: post + completion, one thread"),
    "jmh_rdmaRead": ("jDAT rdma_read (JMH)", "JMH BandwidthBenchmark.rdmaRead: post + completion, one thread"),
    "jmh_memorySegmentCopy": ("MemorySegment.copy (JMH)", "JMH BandwidthBenchmark.memorySegmentCopy, same buffers"),
    "ucx_put_bw": ("UCX put_bw (posix)", "ucx_perftest -t put_bw -x posix -d memory, two processes"),
    "jdat_ofi_tcp": ("jDAT ofi-tcp-lo", "dat perf serve and dat perf pingpong --peer on the ofi IA ofi-tcp-lo "
                     "(FI_EP_MSG, loopback TCP), two processes"),
    "fi_tcp_msg": ("fi_pingpong tcp msg", "fi_pingpong -p tcp -e msg over loopback TCP, two processes"),
    "jdat_ofi_shm": ("jDAT ofi-shm-shm-rdm", "dat perf serve and dat perf pingpong --peer on the ofi IA "
                     "ofi-shm-shm-rdm (FI_EP_RDM over shm, jDAT's association protocol), two processes"),
}

# The goals of the speed issue, each judged in one run of this script on an idle machine. A row's goal is one of
# these texts; GOALS below gathers them into the goals of the headline.
GOAL_LAT_AERON = "64 B one-way p50 at or below Aeron IPC"
GOAL_LAT_FLOOR = "64 B one-way p50 within 2x of the C handoff floor"
GOAL_PATH = "post plus completion on one thread at most 50 ns at the median"
GOAL_RATE_UCX = "64 B send stream at or above UCX tag_bw"
GOAL_RATE_PAIR = "JMH pair at 20 M messages/s or more"
GOAL_BW = "rdma_write and rdma_read at 95% or more of MemorySegment.copy from 64 KiB up"
GOAL_ALLOC = "0 B/op on every data-path call"
GOAL_OFI_LAT = "64 B one-way mean on ofi/tcp within 1.2x of fi_pingpong's"
GOAL_OFI_RATE = "64 B ping-pong rate on ofi/tcp at 0.8x or more of fi_pingpong's"
GOAL_OFI_SHM_LAT = "64 B one-way mean on ofi/shm within 1.2x of fi_pingpong's"
GOAL_OFI_SHM_RATE = "64 B ping-pong rate on ofi/shm at 0.8x or more of fi_pingpong's"
# The fabric peer of each ofi series, and the goals of its 64 B mean and rate.
OFI_GOALS = {"fi_tcp_msg": (GOAL_OFI_LAT, GOAL_OFI_RATE), "fi_shm": (GOAL_OFI_SHM_LAT, GOAL_OFI_SHM_RATE)}

LAT_AERON_RATIO = 1.0
LAT_FLOOR_RATIO = 2.0
PATH_NS = 50.0
RATE_UCX_RATIO = 1.0
PAIR_MMSGS = 20.0
BW_SHARE = 0.95
BW_FROM = 65536
OFI_LAT_RATIO = 1.2
OFI_RATE_RATIO = 0.8

# (headline text, [(row goal, jDAT series)]): a goal is met when every one of its parts was measured and every row
# of every part met its goal. A part with no jDAT series (allocation) is any row with that goal.
GOALS = [
    ("Latency: 64 B one-way p50 of send and rdma_write at or below Aeron IPC and within 2x of the C handoff floor",
     [(GOAL_LAT_AERON, "jdat_send"), (GOAL_LAT_AERON, "jdat_write"),
      (GOAL_LAT_FLOOR, "jdat_send"), (GOAL_LAT_FLOOR, "jdat_write")]),
    ("Provider path: post plus completion on one thread at most 50 ns at the median (JMH, 64 B), for send/recv and "
     "rdma_write",
     [(GOAL_PATH, "path_sendRecv"), (GOAL_PATH, "path_rdmaWrite")]),
    ("Message rate: 64 B send stream at or above UCX tag_bw, and the JMH pair at 20 M messages/s or more",
     [(GOAL_RATE_UCX, "jdat_send_rate"), (GOAL_RATE_PAIR, "jmh_pair")]),
    ("Bandwidth: rdma_write and rdma_read at 95% or more of MemorySegment.copy from 64 KiB up",
     [(GOAL_BW, "jmh_rdmaWrite"), (GOAL_BW, "jmh_rdmaRead")]),
    ("Allocation: 0 B/op on every data-path call (JMH -prof gc)", [(GOAL_ALLOC, None)]),
    ("Fabric: on ofi/tcp and ofi/shm, 64 B one-way within 1.2x of libfabric's own fi_pingpong on the same fabric and "
     "its ping-pong rate at 0.8x or more (means: fi_pingpong reports no median)",
     [(GOAL_OFI_LAT, "jdat_ofi_tcp"), (GOAL_OFI_RATE, "jdat_ofi_tcp"),
      (GOAL_OFI_SHM_LAT, "jdat_ofi_shm"), (GOAL_OFI_SHM_RATE, "jdat_ofi_shm")]),
]

# An object is at least 16 bytes, so a data path allocating on every call reads >= 16 B/op; JMH's own
# per-iteration bookkeeping spread over an iteration's operations reads far below 1 B/op.
ALLOC_ZERO_BELOW = 1.0


def goal_for(measure, jdat, peer, size, stat):
    """(goal text, predicate on (jdat value, peer value, ratio)) for a comparison row, or None when no goal applies.
    A row without a peer (peer None) is judged against a fixed figure, passed as the peer value."""
    if measure == LATENCY and size == 64 and stat == "p50" and jdat in ("jdat_send", "jdat_write"):
        if peer == "aeron_ipc":
            return GOAL_LAT_AERON, lambda j, p, r: r <= LAT_AERON_RATIO
        if peer == "c_floor":
            return GOAL_LAT_FLOOR, lambda j, p, r: r <= LAT_FLOOR_RATIO
    if measure == PATH and size == 64 and stat == "p50" and peer is None:
        return GOAL_PATH, lambda j, p, r: j <= PATH_NS
    if measure == RATE and jdat == "jdat_send_rate" and peer == "ucx_tag_bw":
        return GOAL_RATE_UCX, lambda j, p, r: r >= RATE_UCX_RATIO
    if measure == RATE and jdat == "jmh_pair" and peer is None:
        return GOAL_RATE_PAIR, lambda j, p, r: j >= PAIR_MMSGS
    if measure == FABRIC and size == 64 and peer in OFI_GOALS:
        lat, rate = OFI_GOALS[peer]
        if stat == "mean":
            return lat, lambda j, p, r: r <= OFI_LAT_RATIO
        if stat == "rate":
            return rate, lambda j, p, r: r >= OFI_RATE_RATIO
    if (measure == BANDWIDTH and jdat in ("jmh_rdmaWrite", "jmh_rdmaRead") and peer == "jmh_memorySegmentCopy"
            and size >= BW_FROM):
        return GOAL_BW, lambda j, p, r: r >= BW_SHARE
    return None


# (measure, jDAT series, peer series, stats compared)
COMPARISONS = [
    (LATENCY, "jdat_send", "ucx_tag_lat", ("p50", "mean")),
    (LATENCY, "jdat_write", "ucx_put_lat", ("p50", "mean")),
    (LATENCY, "jdat_send", "fi_shm", ("mean",)),
    (LATENCY, "jdat_send", "fi_tcp", ("mean",)),
    (LATENCY, "jdat_send", "aeron_ipc", ("p50", "mean")),
    (LATENCY, "jdat_write", "aeron_ipc", ("p50", "mean")),
    (LATENCY, "jdat_send", "c_floor", ("p50", "mean")),
    (LATENCY, "jdat_write", "c_floor", ("p50", "mean")),
    (RATE, "jdat_send_rate", "ucx_tag_bw", ("rate",)),
    (RATE, "jdat_write_rate", "ucx_put_bw_rate", ("rate",)),
    (BANDWIDTH, "jmh_rdmaWrite", "jmh_memorySegmentCopy", ("bw",)),
    (BANDWIDTH, "jmh_rdmaRead", "jmh_memorySegmentCopy", ("bw",)),
    (BANDWIDTH, "jmh_rdmaWrite", "ucx_put_bw", ("bw",)),
    (FABRIC, "jdat_ofi_tcp", "fi_tcp_msg", ("mean", "rate")),
    (FABRIC, "jdat_ofi_shm", "fi_shm", ("mean", "rate")),
]

# (measure, jDAT series, stat, the figure its goal names): rows with no peer, judged against that figure where
# goal_for gives them a goal (the path at 64 B, not at 8 B). The JMH pair has no fair peer: sender and receiver
# share one thread, where every peer hands off between two.
ABSOLUTE = [
    (PATH, "path_sendRecv", "p50", PATH_NS),
    (PATH, "path_rdmaWrite", "p50", PATH_NS),
    (RATE, "jmh_pair", "rate", PAIR_MMSGS),
]

HEADLINE_SIZES = {LATENCY: {64}, PATH: {64}, RATE: {64}, BANDWIDTH: {65536, 1048576, 67108864}, FABRIC: {64}}


# ------------------------------------------------------------------------------------------------------------
# Parsers: each takes one run's raw output and returns [(series, size, stat, value)] in the report's units.

class ParseError(Exception):
    pass


def parse_datperf(text, series):
    """dat perf --json: pingpong rows give p50 (median RTT/2) and mean (usec_per_xfer = time / (2 iters)); rate
    rows give Mxfers/s."""
    try:
        report = json.loads(text)
        rows = report["results"]
    except (ValueError, KeyError, TypeError) as e:
        raise ParseError(f"not dat perf JSON: {e}")
    out = []
    for row in rows:
        size = int(row["bytes"])
        if report.get("test") == "pingpong":
            out.append((series, size, "p50", float(row["p50_usec"])))
            out.append((series, size, "mean", float(row["usec_per_xfer"])))
        elif report.get("test") in ("rate", "bw"):
            out.append((series, size, "rate", float(row["mxfers_per_sec"])))
        else:
            raise ParseError(f"unexpected dat perf test {report.get('test')!r}")
    if not out:
        raise ParseError("dat perf reported no rows")
    return out


UCX_COLUMNS = ("iterations", "p50_lat", "avg_lat", "overall_lat", "avg_bw", "overall_bw", "avg_mr", "overall_mr")


def parse_ucx_csv(text):
    """ucx_perftest -f -v: the final CSV line. Latencies are already one-way (libperf divides ping-pong times by
    2); bandwidth is MiB/s; message rate msg/s. Returns a dict keyed by UCX_COLUMNS."""
    header_seen = False
    last = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("iterations,"):
            header_seen = True
            continue
        if header_seen and line and line[0].isdigit():
            last = line
    if last is None:
        raise ParseError("no ucx_perftest CSV result line")
    parts = last.split(",")
    if len(parts) != len(UCX_COLUMNS):
        raise ParseError(f"ucx_perftest CSV line has {len(parts)} fields, expected {len(UCX_COLUMNS)}: {last}")
    return {k: float(v) for k, v in zip(UCX_COLUMNS, parts)}


def parse_ucx(text, series, measure, size):
    row = parse_ucx_csv(text)
    if measure == LATENCY:
        return [(series, size, "p50", row["p50_lat"]), (series, size, "mean", row["overall_lat"])]
    if measure == RATE:
        return [(series, size, "rate", row["overall_mr"] / 1e6)]
    if measure == BANDWIDTH:
        return [(series, size, "bw", row["overall_bw"] * 1048576 / 1e9)]
    raise ParseError(f"no UCX figure for measure {measure}")


def parse_fi_size(text):
    """fi_pingpong's size_str: 64, 1k, 4k, 1m, or 1.5k for a fraction."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    if text and text[-1] in units:
        return int(round(float(text[:-1]) * units[text[-1]]))
    return int(text)


def parse_fi_pingpong(text, series):
    """fi_pingpong's table: usec/xfer is elapsed / (iterations * 2), the mean one-way latency (total counts both
    directions). Only the mean exists: fi_pingpong times the whole loop, not each round trip."""
    out = []
    header = False
    for line in text.splitlines():
        fields = line.split()
        if fields[:1] == ["bytes"]:
            header = fields
            continue
        if header and len(fields) == len(header):
            row = dict(zip(header, fields))
            out.append((series, parse_fi_size(row["bytes"]), "mean", float(row["usec/xfer"])))
    if not out:
        raise ParseError("no fi_pingpong result row")
    return out


def parse_jsonl(text, series):
    """bench/aeron and bench/cfloor: one JSON object per size, one-way figures already halved."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            row = json.loads(line)
            size = int(row["bytes"])
            out.append((series, size, "p50", float(row["p50_oneway_usec"])))
            out.append((series, size, "mean", float(row["mean_oneway_usec"])))
        except (ValueError, KeyError) as e:
            raise ParseError(f"bad result line {line!r}: {e}")
    if not out:
        raise ParseError("no result lines")
    return out


def parse_jmh(text, measure):
    """JMH -rf json. Path: SingleThreadLatencyBenchmark in sample mode, the 50th percentile of its samples in ns/op;
    bandwidth: ops/s x size = bytes/s; MessageRate.pair: ops/s are messages/s (@OperationsPerInvocation);
    allocation: gc.alloc.rate.norm in B/op."""
    try:
        entries = json.loads(text)
    except ValueError as e:
        raise ParseError(f"not JMH JSON: {e}")
    out = []
    for e in entries:
        method = e["benchmark"].rsplit(".", 1)[1]
        score = float(e["primaryMetric"]["score"])
        unit = e["primaryMetric"]["scoreUnit"]
        if measure == PATH:
            if e.get("mode") != "sample" or unit != "ns/op":
                raise ParseError(f"{method}: mode {e.get('mode')!r} in {unit}, expected sample in ns/op")
            p50 = e["primaryMetric"].get("scorePercentiles", {}).get("50.0")
            if p50 is None:
                raise ParseError(f"{method}: no 50th percentile in scorePercentiles")
            out.append((f"path_{method}", int(e["params"]["size"]), "p50", float(p50)))
        elif measure == BANDWIDTH:
            if unit != "ops/s":
                raise ParseError(f"bandwidth score in {unit}, expected ops/s")
            size = int(e["params"]["size"])
            out.append((f"jmh_{method}", size, "bw", score * size / 1e9))
        elif measure == RATE:
            if unit != "ops/s":
                raise ParseError(f"message rate score in {unit}, expected ops/s")
            out.append((f"jmh_{method}", 64, "rate", score / 1e6))
        elif measure == ALLOC:
            norm = e.get("secondaryMetrics", {}).get("gc.alloc.rate.norm")
            if norm is None:
                raise ParseError(f"{method}: no gc.alloc.rate.norm (was -prof gc given?)")
            out.append((f"alloc_{method}", None, "norm", float(norm["score"])))
            out.append((f"alloc_{method}", None, "ns_per_op", score))
    if not out:
        raise ParseError("JMH reported no benchmarks")
    return out


def parse_run(measure, series, size, raw_path):
    """Dispatches one manifest row to its parser; a fabric row also gets its ping-pong rate, 1 / mean."""
    parsed = parse_raw(measure, series, size, raw_path)
    if measure == FABRIC:
        parsed += [(s, sz, "rate", 1.0 / value) for s, sz, stat, value in parsed if stat == "mean" and value > 0]
    return parsed


def parse_raw(measure, series, size, raw_path):
    """One manifest row's figures as its program printed them."""
    if series.startswith("jmh_"):
        json_path = raw_path[:-len(".log")] + ".json" if raw_path.endswith(".log") else raw_path
        with open(json_path) as f:
            return parse_jmh(f.read(), measure)
    with open(raw_path) as f:
        text = f.read()
    if series.startswith("jdat_"):
        return parse_datperf(text, series)
    if series.startswith("ucx_"):
        return parse_ucx(text, series, measure, int(size))
    if series.startswith("fi_"):
        return parse_fi_pingpong(text, series)
    if series in ("aeron_ipc", "c_floor"):
        return parse_jsonl(text, series)
    raise ParseError(f"no parser for series {series}")


# ------------------------------------------------------------------------------------------------------------
# Statistics

def summarize(values):
    """Median, min, max and spread ((max - min) / median) of one series' per-run values."""
    med = statistics.median(values)
    lo, hi = min(values), max(values)
    return {
        "n": len(values),
        "median": med,
        "min": lo,
        "max": hi,
        "spread": (hi - lo) / med if med else float("nan"),
    }


def collect(directory):
    """Reads the manifest and every raw output. Returns (samples, failures): samples maps (measure, series, size,
    stat) to a list of (run, value); failures lists the runs that produced no figure, with why."""
    samples, failures = {}, []
    manifest = os.path.join(directory, "manifest.tsv")
    with open(manifest) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for row in rows:
        measure, series, size, run, rc, seconds, load, raw = row
        raw_path = os.path.join(directory, raw)
        if rc != "0":
            why = "timed out" if rc == "124" else f"exit status {rc}"
            failures.append({"measure": measure, "series": series, "size": size, "run": int(run), "why": why,
                             "raw": raw})
            continue
        try:
            parsed = parse_run(measure, series, size, raw_path)
        except (ParseError, OSError, KeyError, ValueError) as e:
            failures.append({"measure": measure, "series": series, "size": size, "run": int(run),
                             "why": f"unreadable output: {e}", "raw": raw})
            continue
        for s, sz, stat, value in parsed:
            samples.setdefault((measure, s, sz, stat), []).append((int(run), value))
    return samples, failures, rows


def finite(value):
    """The value with every NaN or infinity replaced by None, so that the JSON stays strict."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def read_kv(path):
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition(" ")
                out[key] = value
    return out


def machine_noise(directory, manifest_rows):
    """Load average and CPU count before and after, CPU busy and steal shares over the run, and the 1-minute load
    average at the start of every run."""
    before = read_kv(os.path.join(directory, "machine-before.txt"))
    after = read_kv(os.path.join(directory, "machine-after.txt"))
    noise = {
        "cpus": int(before.get("nproc", "0") or 0),
        "model": before.get("model", ""),
        "kernel": before.get("kernel", ""),
        "loadavg_before": before.get("loadavg", "").split()[:3],
        "loadavg_after": after.get("loadavg", "").split()[:3],
        "cpus_after": int(after.get("nproc", "0") or 0),
        "started": before.get("date", ""),
        "ended": after.get("date", ""),
    }
    try:
        noise["duration_s"] = round(float(after["epoch"]) - float(before["epoch"]), 1)
    except (KeyError, ValueError):
        noise["duration_s"] = None
    if "cpu" in before and "cpu" in after:
        b = [int(x) for x in before["cpu"].split()]
        a = [int(x) for x in after["cpu"].split()]
        d = [y - x for x, y in zip(b, a)]
        total = sum(d[:8]) or 1  # user nice system idle iowait irq softirq steal
        noise["cpu_busy_pct"] = round(100.0 * (total - d[3] - d[4]) / total, 1)
        noise["steal_pct"] = round(100.0 * d[7] / total, 1) if len(d) > 7 else None
    loads = [float(r[6]) for r in manifest_rows if len(r) > 6]
    if loads:
        noise["load1_at_run_start"] = {"min": min(loads), "median": statistics.median(loads), "max": max(loads)}
    return noise


def compare(summaries):
    """The comparison rows: every (jDAT series, peer series, stat) pair at every size both have, every size of a
    series judged against a fixed figure, and every allocation figure."""
    rows = []
    for measure, jdat, peer, stats in COMPARISONS:
        for stat in stats:
            sizes = sorted({k[2] for k in summaries if k[0] == measure and k[1] == jdat and k[3] == stat}
                           & {k[2] for k in summaries if k[0] == measure and k[1] == peer and k[3] == stat})
            for size in sizes:
                j = summaries[(measure, jdat, size, stat)]["median"]
                p = summaries[(measure, peer, size, stat)]["median"]
                ratio = j / p if p else float("nan")
                goal = goal_for(measure, jdat, peer, size, stat)
                rows.append({
                    "measure": measure, "size": size, "stat": stat, "jdat_series": jdat, "jdat": j,
                    "peer_series": peer, "peer": p, "unit": STAT_UNITS.get((measure, stat), UNITS[measure]),
                    "ratio": ratio,
                    "goal": goal[0] if goal else None, "met": goal[1](j, p, ratio) if goal else None,
                })
    for measure, jdat, stat, bound in ABSOLUTE:
        sizes = sorted(k[2] for k in summaries if k[0] == measure and k[1] == jdat and k[3] == stat)
        for size in sizes:
            j = summaries[(measure, jdat, size, stat)]["median"]
            goal = goal_for(measure, jdat, None, size, stat)
            p = bound if goal else None
            ratio = j / p if p else None
            rows.append({
                "measure": measure, "size": size, "stat": stat, "jdat_series": jdat, "jdat": j,
                "peer_series": None, "peer": p, "unit": UNITS[measure], "ratio": ratio,
                "goal": goal[0] if goal else None, "met": goal[1](j, p, ratio) if goal else None,
            })
    for key, summary in sorted(summaries.items(), key=lambda kv: kv[0][1]):
        measure, series, size, stat = key
        if measure == ALLOC and stat == "norm":
            rows.append({
                "measure": ALLOC, "size": None, "stat": "norm", "jdat_series": series, "jdat": summary["median"],
                "peer_series": None, "peer": 0.0, "unit": UNITS[ALLOC], "ratio": None, "goal": GOAL_ALLOC,
                "met": summary["max"] < ALLOC_ZERO_BELOW,
            })
    return rows


def goal_verdicts(goal_rows):
    """[(goal, verdict, detail)] for the GOALS: not measured when none of its parts has a row, met when every
    part has rows and every row met its goal, not met when no row did, else partly met (a part not measured
    included). The detail says which rows met and which parts were not measured."""
    verdicts = []
    for goal, parts in GOALS:
        per_part = [(text, series, [r for r in goal_rows if r["goal"] == text
                                    and (series is None or r["jdat_series"] == series)]) for text, series in parts]
        rows = [r for _, _, part_rows in per_part for r in part_rows]
        missing = [(text, series) for text, series, part_rows in per_part if not part_rows]
        if not rows:
            verdicts.append((goal, "not measured", "—"))
            continue
        met = [r for r in rows if r["met"]]
        if len(met) == len(rows) and not missing:
            verdict = "met"
        elif not met:
            verdict = "not met"
        else:
            verdict = "partly met"
        detail = f"{len(met)} of {len(rows)}"
        if parts[0][0] != GOAL_ALLOC:
            detail += ": " + "; ".join(
                f"{r.get('label') or label(r['jdat_series'])} {size_name(r['size'])} {r['stat']}"
                f"{' vs ' + label(r['peer_series']) if r['peer_series'] else ''} {'yes' if r['met'] else 'no'}"
                for r in rows)
        if missing:
            detail += "; not measured: " + ", ".join(f"{label(series)} ({text})" for text, series in missing)
        verdicts.append((goal, verdict, detail))
    return verdicts


def headline_rows(rows):
    """The rows with a goal or at a headline size; the allocation rows folded into one: the highest of them."""
    head = [r for r in rows if r["measure"] != ALLOC
            and (r["goal"] or r["size"] in HEADLINE_SIZES.get(r["measure"], set()))]
    alloc = [r for r in rows if r["measure"] == ALLOC]
    if alloc:
        worst = max(alloc, key=lambda r: r["jdat"])
        head.append({**worst, "jdat_series": "alloc_highest", "met": all(r["met"] for r in alloc),
                     "label": f"highest of {len(alloc)} AllocationBenchmark calls ({label(worst['jdat_series'])})"})
    return head


# ------------------------------------------------------------------------------------------------------------
# Formatting

def size_name(size):
    if size is None:
        return "—"
    for shift, suffix in ((30, " GiB"), (20, " MiB"), (10, " KiB")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift}{suffix}"
    return f"{size} B"


def short_size(size):
    for shift, suffix in ((30, "G"), (20, "M"), (10, "K")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift}{suffix}"
    return str(size)


def num(value):
    """Three significant digits, no exponent for the ranges in this report."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if value == 0:
        return "0"
    digits = max(0, 2 - int(math.floor(math.log10(abs(value)))))
    return f"{value:.{digits}f}"


def label(series):
    if series is None:
        return "—"
    if series.startswith("alloc_"):
        return f"AllocationBenchmark.{series[len('alloc_'):]}"
    return SERIES.get(series, (series, ""))[0]


def yes_no(met):
    return "—" if met is None else ("yes" if met else "**no**")


def comparison_table(rows):
    lines = ["| measure | size | stat | jDAT | value | peer | value | unit | ratio jDAT/peer | goal | met |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["measure"] == ALLOC:
            peer_value = "0 (goal)"
        elif r["peer_series"] is None and r["goal"]:
            peer_value = f"{num(r['peer'])} (goal)"
        else:
            peer_value = num(r["peer"])
        lines.append(f"| {r['measure']} | {size_name(r['size'])} | {r['stat']} | {r.get('label') or label(r['jdat_series'])} | "
                     f"{num(r['jdat'])} | {label(r['peer_series']) if r['peer_series'] else '—'} | {peer_value} | "
                     f"{r['unit']} | {num(r['ratio'])} | {r['goal'] or '—'} | {yes_no(r['met'])} |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------------------
# SVG charts, drawn by hand: log2 sizes across, log10 values up, one polyline per series with min-max whiskers.

PALETTE = {
    "jdat_send": ("#d62728", ""), "jdat_write": ("#ff7f0e", ""),
    "ucx_tag_lat": ("#1f77b4", ""), "ucx_put_lat": ("#17becf", ""),
    "fi_shm": ("#2ca02c", "6,4"), "fi_tcp": ("#8c564b", "6,4"),
    "aeron_ipc": ("#9467bd", ""), "c_floor": ("#000000", "2,3"),
    "jmh_rdmaWrite": ("#d62728", ""), "jmh_rdmaRead": ("#ff7f0e", ""),
    "jmh_memorySegmentCopy": ("#000000", "2,3"), "ucx_put_bw": ("#1f77b4", ""),
}


def nice_ticks(lo, hi):
    """1-2-5 ticks covering [lo, hi] on a log axis."""
    ticks = []
    e = math.floor(math.log10(lo))
    while 10 ** e <= hi * 1.0001:
        for m in (1, 2, 5):
            v = m * 10 ** e
            if lo / 1.0001 <= v <= hi * 1.0001:
                ticks.append(v)
        e += 1
    return ticks


def svg_chart(title, subtitle, y_label, series, x_label="message size (bytes)", note=None, width=960, height=540):
    """series: [(label, colour, dash, [(size, median, min, max)])]; note: a line under the legend. Returns the SVG
    text."""
    left, right, top, bottom = 80, 250, 64, 56
    pw, ph = width - left - right, height - top - bottom
    points = [p for _, _, _, pts in series for p in pts]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="24" font-size="16" font-weight="bold">{html.escape(title)}</text>',
           f'<text x="{left}" y="44" fill="#555555">{html.escape(subtitle)}</text>']
    if not points:
        out.append(f'<text x="{left}" y="{top + 40}">no data</text></svg>')
        return "\n".join(out) + "\n"
    sizes = sorted({p[0] for p in points})
    xlo, xhi = math.log2(sizes[0]), math.log2(sizes[-1])
    if xhi == xlo:
        xlo, xhi = xlo - 1, xhi + 1
    ylo = min(min(p[2], p[1]) for p in points)
    yhi = max(max(p[3], p[1]) for p in points)
    ylo = 10 ** math.floor(math.log10(ylo))
    yhi = 10 ** math.ceil(math.log10(yhi))

    def x(size):
        return left + (math.log2(size) - xlo) / (xhi - xlo) * pw

    def y(v):
        return top + ph - (math.log10(v) - math.log10(ylo)) / (math.log10(yhi) - math.log10(ylo)) * ph

    for t in nice_ticks(ylo, yhi):
        major = abs(math.log10(t) - round(math.log10(t))) < 1e-9
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(t):.1f}" y2="{y(t):.1f}" '
                   f'stroke="{"#cccccc" if major else "#eeeeee"}"/>')
        out.append(f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{num(t)}</text>')
    for s in sizes:
        out.append(f'<line x1="{x(s):.1f}" x2="{x(s):.1f}" y1="{top}" y2="{top + ph}" stroke="#eeeeee"/>')
        out.append(f'<text x="{x(s):.1f}" y="{top + ph + 18}" text-anchor="middle">{short_size(s)}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333333"/>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 12}" text-anchor="middle">{html.escape(x_label)}</text>')
    out.append(f'<text transform="translate(18,{top + ph / 2}) rotate(-90)" text-anchor="middle">'
               f'{html.escape(y_label)}</text>')
    for i, (name, colour, dash, pts) in enumerate(series):
        pts = sorted(pts)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        if len(pts) > 1:
            path = " ".join(f"{x(s):.1f},{y(m):.1f}" for s, m, _, _ in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash_attr}/>')
        for s, m, lo, hi in pts:
            if hi > lo:
                out.append(f'<line x1="{x(s):.1f}" x2="{x(s):.1f}" y1="{y(lo):.1f}" y2="{y(hi):.1f}" '
                           f'stroke="{colour}" stroke-width="1" opacity="0.6"/>')
            out.append(f'<circle cx="{x(s):.1f}" cy="{y(m):.1f}" r="3" fill="{colour}"/>')
        ly = top + 10 + i * 20
        out.append(f'<line x1="{left + pw + 16}" x2="{left + pw + 44}" y1="{ly}" y2="{ly}" stroke="{colour}" '
                   f'stroke-width="2"{dash_attr}/>')
        out.append(f'<text x="{left + pw + 50}" y="{ly + 4}">{html.escape(name)}</text>')
    note_y = top + 10 + len(series) * 20 + 10
    out.append(f'<text x="{left + pw + 16}" y="{note_y}" fill="#555555">dot: median of runs</text>')
    out.append(f'<text x="{left + pw + 16}" y="{note_y + 16}" fill="#555555">bar: min to max of runs</text>')
    if note:
        out.append(f'<text x="{left + pw + 16}" y="{note_y + 32}" fill="#555555">{html.escape(note)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def chart_series(summaries, measure, wanted):
    """[(label, colour, dash, points)] for the (series, stat, label suffix) in wanted that have data."""
    result = []
    for series, stat, suffix in wanted:
        pts = [(k[2], v["median"], v["min"], v["max"]) for k, v in summaries.items()
               if k[0] == measure and k[1] == series and k[3] == stat and k[2]]
        if pts:
            colour, dash = PALETTE.get(series, ("#7f7f7f", ""))
            result.append((label(series) + suffix, colour, dash, pts))
    return result


# ------------------------------------------------------------------------------------------------------------

CONVERSIONS = [
    "**dat perf pingpong** (`--json`): `p50_usec` is the median round trip / 2; `usec_per_xfer` is the timed "
    "loop's wall time / (2 x iterations), the mean one-way latency. Used as printed.",
    "**ucx_perftest** (`-f -v`, CSV): its latency columns are already one-way: libperf divides ping-pong times by "
    "2. `50.0_percentile_lat` (p50) is the median of the last 2048 iterations' times / 2 (UCX keeps only those); "
    "`overall_lat` (mean) is the whole run's time / iterations / 2. Bandwidth `overall_bw` is MiB/s: "
    "GB/s = MiB/s x 1048576 / 10^9. Message rate `overall_mr` is msg/s: M msg/s = msg/s / 10^6.",
    "**fi_pingpong**: `usec/xfer` = elapsed / (iterations x 2): each iteration is a round trip of two transfers "
    "(its `total` column counts both directions), so it is the mean one-way latency and RTT = 2 x usec/xfer. "
    "fi_pingpong times the whole loop, never one round trip, so it has no p50: it is compared on the mean only.",
    "**Aeron IPC and the C floor** (bench/aeron, bench/cfloor): each round trip is timed on the pinging thread; "
    "p50 is the median round trip / 2, mean the timed loop's wall time / (2 x iterations), as dat perf.",
    "**JMH SingleThreadLatencyBenchmark** (`sendRecv`, `rdmaWrite`; Mode.SampleTime, ns/op): the figure is "
    "`scorePercentiles` `50.0` of JMH's JSON, the median of the sampled calls. JMH times each sampled call alone "
    "between two System.nanoTime() reads, so the figure includes part of the timer's own cost and is rounded to "
    "its granularity; the 50 ns goal is judged on the figure as JMH prints it.",
    "**JMH BandwidthBenchmark**: score in ops/s, one op = one transfer of `size` bytes, so "
    "GB/s = score x size / 10^9.",
    "**JMH MessageRateBenchmark.pair**: @OperationsPerInvocation(64), so ops/s are messages/s; "
    "M msg/s = score / 10^6. Sender and receiver share one thread: the provider's cost per message, no hand-off.",
    "**dat perf rate**: `mxfers_per_sec` = messages / wall time of the timed stream, in millions.",
    f"**JMH AllocationBenchmark -prof gc**: `gc.alloc.rate.norm` in B/op. An object takes at least 16 bytes, so "
    f"allocating on every call would read 16 B/op or more; JMH's own per-iteration bookkeeping, spread over "
    f"the iteration's operations, reads far below 1 B/op. The goal counts as met when the highest run is below "
    f"{ALLOC_ZERO_BELOW:g} B/op; the figure itself is shown. (An allocation every 16th call or rarer would hide "
    f"under that line: AllocationBenchmark's Javadoc gives the JFR recipe that finds any.)",
    "**Medians**: every series is run N times; the table shows the median of the N per-run figures, the spread "
    "table their min, max and (max - min) / median. Ratio = jDAT median / peer median: below 1 is better for "
    "latency and the provider path, above 1 for rates and bandwidth. A row with no peer is judged against the "
    "figure its goal names (50 ns, 20 M msg/s), shown as the peer value, and its ratio is jDAT / that figure.",
]


def report(directory):
    samples, failures, manifest_rows = collect(directory)
    summaries = {k: summarize([v for _, v in runs]) for k, runs in samples.items()}
    for k, runs in samples.items():
        summaries[k]["runs"] = [v for _, v in sorted(runs)]
    setup = read_kv(os.path.join(directory, "setup.txt"))
    noise = machine_noise(directory, manifest_rows)
    rows = compare(summaries)
    verdicts = goal_verdicts([r for r in rows if r["goal"]])
    skipped = []
    skipped_path = os.path.join(directory, "skipped.tsv")
    if os.path.exists(skipped_path):
        with open(skipped_path) as f:
            skipped = [dict(zip(("peer", "why"), line.rstrip("\n").split("\t", 1))) for line in f if line.strip()]
    runs = setup.get("runs", "?")

    result = {
        "setup": setup,
        "machine": noise,
        "series": [{"measure": k[0], "series": k[1], "label": label(k[1]), "size": k[2], "stat": k[3],
                    "unit": STAT_UNITS.get((k[0], k[3]), UNITS[k[0]]), **v}
                   for k, v in sorted(summaries.items(), key=lambda kv: str(kv[0]))],
        "goals": [{"goal": g, "verdict": v, "detail": d} for g, v, d in verdicts],
        "comparisons": rows,
        "failures": failures,
        "skipped": skipped,
        "conversions": CONVERSIONS,
    }
    with open(os.path.join(directory, "results.json"), "w") as f:
        json.dump(finite(result), f, indent=1, allow_nan=False)
        f.write("\n")

    load_before = (noise["loadavg_before"] or ["?"])[0]
    load_after = (noise["loadavg_after"] or ["?"])[0]
    subtitle = (f"median of {runs} run{'' if runs == '1' else 's'}; {noise['cpus']} CPUs, 1-min load {load_before} "
                f"before, {load_after} after; {noise['started'][:10]}"
                f"{'; quick mode' if setup.get('quick') == '1' else ''}")
    lat = [("jdat_send", "p50", ""), ("jdat_write", "p50", ""), ("ucx_tag_lat", "p50", ""),
           ("ucx_put_lat", "p50", ""), ("aeron_ipc", "p50", ""), ("c_floor", "p50", ""),
           ("fi_shm", "mean", " (mean)"), ("fi_tcp", "mean", " (mean)")]
    charts = {
        "latency.svg": svg_chart("One-way latency vs message size: median (p50) of each run", subtitle,
                                 "µs one-way (log)", chart_series(summaries, LATENCY, lat),
                                 note="fi_pingpong prints only a mean"),
        "latency-mean.svg": svg_chart("One-way latency vs message size: mean of each run (RTT / 2)", subtitle,
                                      "µs one-way (log)",
                                      chart_series(summaries, LATENCY, [(s, "mean", "") for s, _, _ in lat])),
        "bandwidth.svg": svg_chart("Bandwidth vs transfer size", subtitle, "GB/s = 10^9 B/s (log)",
                                   chart_series(summaries, BANDWIDTH,
                                                [("jmh_rdmaWrite", "bw", ""), ("jmh_rdmaRead", "bw", ""),
                                                 ("jmh_memorySegmentCopy", "bw", ""), ("ucx_put_bw", "bw", "")]),
                                   x_label="transfer size (bytes)"),
    }
    for name, text in charts.items():
        with open(os.path.join(directory, name), "w") as f:
            f.write(text)

    headline = headline_rows(rows)
    md = [f"# jDAT loopback beside UCX, libfabric, Aeron and a C floor", ""]
    md.append(f"Run {os.path.basename(os.path.normpath(directory))}: {'quick' if setup.get('quick') == '1' else 'full'} "
              f"mode, {runs} run{'' if runs == '1' else 's'} per measure, jDAT commit {setup.get('jdat_commit', '?')}, "
              f"{setup.get('java', '')}; UCX {setup.get('ucx', '—')}, libfabric {setup.get('libfabric', '—')}, "
              f"Aeron {setup.get('aeron', '—')}, gcc {setup.get('gcc', '—')}. Threads pinned: "
              f"{'yes, client on CPU ' + setup.get('cpus', '?').replace(',', ', server on CPU ') if setup.get('pinned') == '1' else 'no'}.")
    md.append("")
    if setup.get("quick") == "1":
        md.append("**Quick mode**: few runs, few sizes, short warm-ups. A smoke test of the script, not figures to "
                  "judge the goals by.")
        md.append("")
    md.append(f"Command: `{setup.get('command', 'bench/compare.sh')}` (every command it ran: commands.txt).")
    md.append("")
    md.append("## Headline")
    md.append("")
    md.append("| # | goal | verdict | rows met |")
    md.append("|---|---|---|---|")
    for number, (goal, verdict, detail) in enumerate(verdicts, 1):
        md.append(f"| {number} | {goal} | {verdict} | {detail} |")
    md.append("")
    md.append("Ratio = jDAT / peer (or / the goal's figure where there is no peer): for latency and the provider "
              "path below 1 is better, for rates and bandwidth above 1.")
    md.append("")
    md.append(comparison_table(headline))
    md.append("")
    md.append("## Noise")
    md.append("")
    l1 = noise.get("load1_at_run_start", {})
    md.append(f"- {noise['cpus']} CPUs ({noise['model']}, kernel {noise['kernel']}); {noise['cpus_after']} after.")
    md.append(f"- Load average (1, 5, 15 min): {' '.join(noise['loadavg_before'])} before, "
              f"{' '.join(noise['loadavg_after'])} after; 1-minute load when each run started: min "
              f"{num(l1.get('min'))}, median {num(l1.get('median'))}, max {num(l1.get('max'))}.")
    md.append(f"- CPU busy over the whole run (this script included): {noise.get('cpu_busy_pct', '—')}%; "
              f"stolen by the hypervisor: {noise.get('steal_pct', '—')}%. Duration {noise.get('duration_s')} s.")
    if l1 and noise["cpus"] and l1.get("max", 0) > noise["cpus"]:
        md.append(f"- The load average went above the CPU count ({num(l1['max'])} > {noise['cpus']}): other "
                  f"processes competed for the cores, and busy-polling peers lose whole time slices when that "
                  f"happens. Means suffer most; medians (p50) less. Read differences smaller than a series' "
                  f"spread (below) as noise.")
    md.append("")
    md.append("## Charts")
    md.append("")
    md.append("![one-way latency, p50](latency.svg)")
    md.append("")
    md.append("![one-way latency, mean](latency-mean.svg)")
    md.append("")
    md.append("![bandwidth](bandwidth.svg)")
    md.append("")
    md.append("## Every comparison")
    md.append("")
    md.append(comparison_table(rows))
    md.append("")
    md.append("## Spread of every series")
    md.append("")
    md.append("| measure | series | size | stat | runs | median | min | max | spread | per run |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    for k, v in sorted(summaries.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or 0, kv[0][3])):
        md.append(f"| {k[0]} | {label(k[1])} | {size_name(k[2])} | {k[3]} | {v['n']} | {num(v['median'])} | "
                  f"{num(v['min'])} | {num(v['max'])} | {num(100 * v['spread'])}% | "
                  f"{', '.join(num(x) for x in v['runs'])} |")
    md.append("")
    md.append("## What each series is")
    md.append("")
    for key, (name, how) in SERIES.items():
        md.append(f"- **{name}**: {how}.")
    md.append("- **AllocationBenchmark.\\***: JMH `-prof gc`, one data-path call (or pair) per operation.")
    md.append("")
    md.append("## How each number was read")
    md.append("")
    for c in CONVERSIONS:
        md.append(f"- {c}")
    md.append("")
    md.append("## Failed and skipped runs")
    md.append("")
    if not failures and not skipped:
        md.append("None: every run produced its figures.")
    for fl in failures:
        md.append(f"- {fl['measure']} {fl['series']} size {fl['size']} run {fl['run']}: {fl['why']} ({fl['raw']})")
    for sk in skipped:
        md.append(f"- skipped {sk['peer']}: {sk.get('why', '')}")
    md.append("")
    with open(os.path.join(directory, "results.md"), "w") as f:
        f.write("\n".join(md))
    return result


def main(argv):
    if len(argv) != 2 or argv[0] != "report" or not os.path.isdir(argv[1]):
        print("usage: compare.py report DIR (a bench/compare.sh results directory)", file=sys.stderr)
        return 2
    report(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
