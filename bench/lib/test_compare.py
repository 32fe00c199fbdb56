# SPDX-License-Identifier: Apache-2.0
"""Tests of bench/compare.sh's report (compare.py) and thread pinner (pinthreads.py).

Run: python3 -m unittest discover -s bench/lib -v
The tool outputs below are real ones, captured from ucx_perftest 1.13.1, fi_pingpong 1.17.0, dat perf and JMH 1.37
on the development machine.
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import pinthreads  # noqa: E402

UCX_LAT = """iterations,50.0_percentile_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr
100000,0.118,0.223,0.223,273.92,273.92,4487831,4487831
"""
UCX_BW_INF = """iterations,50.0_percentile_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr
  50,15598.650,inf,20527.258,0.00,3117.81,65,50
"""
UCX_FAILED = """iterations,50.0_percentile_lat,avg_lat,overall_lat,avg_bw,overall_bw,avg_mr,overall_mr
[1795292237.777551] [vm:17594:0]         libperf.c:519  UCX  ERROR posix/memory does not support operation put zcopy
"""
FI_PINGPONG = """bytes   #sent   #ack     total       time     MB/sec    usec/xfer   Mxfers/sec
1m      500     =500     1000m      10.70s     98.01   10698.21       0.00
"""
FI_PINGPONG_64 = """bytes   #sent   #ack     total       time     MB/sec    usec/xfer   Mxfers/sec
64      10k     =10k     1.2m        0.29s      4.45      14.38       0.07
"""
DATPERF_PINGPONG = """{
  "provider": "loopback",
  "ia": "loopback0",
  "test": "pingpong",
  "op": "send",
  "results": [
    {"bytes": 64, "iters": 20000, "total_bytes": 2560000, "seconds": 0.904351, "mb_per_sec": 2.83076, \
"usec_per_xfer": 22.6088, "mxfers_per_sec": 0.0442306, "p50_usec": 19.622, "p99_usec": 27.661}
  ]
}"""
DATPERF_RATE = """{
  "provider": "loopback",
  "ia": "loopback0",
  "test": "rate",
  "op": "send",
  "results": [
    {"bytes": 64, "iters": 1000000, "total_bytes": 64000000, "seconds": 0.684579, "mb_per_sec": 93.4881, \
"usec_per_xfer": 0.684579, "mxfers_per_sec": 1.46075, "p50_usec": null, "p99_usec": null}
  ]
}"""
JSONL = """{"bytes": 8, "iters": 200000, "warmup": 50000, "seconds": 0.178597, "mean_oneway_usec": 0.4465, \
"p50_oneway_usec": 0.1365, "p99_oneway_usec": 0.1830}
{"bytes": 64, "iters": 200000, "warmup": 50000, "seconds": 0.172872, "mean_oneway_usec": 0.4322, \
"p50_oneway_usec": 0.1280, "p99_oneway_usec": 0.1680}
"""

# JMH 1.37 -rf json for SingleThreadLatencyBenchmark in sample mode (-p size=64), written by hand in its shape: one
# object per benchmark and parameter set, the percentiles keyed by their string, the histogram per fork and
# iteration. Shortened to one method here; the report reads "50.0" of scorePercentiles.
JMH_SAMPLE = """[
    {
        "jmhVersion" : "1.37",
        "benchmark" : "dat.bench.SingleThreadLatencyBenchmark.rdmaWrite",
        "mode" : "sample",
        "threads" : 1,
        "forks" : 1,
        "jvm" : "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java",
        "jvmArgs" : [
            "-Xms256m",
            "-Xmx256m"
        ],
        "jdkVersion" : "25",
        "vmName" : "OpenJDK 64-Bit Server VM",
        "vmVersion" : "25+36-LTS",
        "warmupIterations" : 3,
        "warmupTime" : "1 s",
        "warmupBatchSize" : 1,
        "measurementIterations" : 5,
        "measurementTime" : "1 s",
        "measurementBatchSize" : 1,
        "params" : {
            "size" : "64"
        },
        "primaryMetric" : {
            "score" : 61.83476225913924,
            "scoreError" : 0.7163312946402387,
            "scoreConfidence" : [
                61.1184309644990,
                62.55109355377948
            ],
            "scorePercentiles" : {
                "0.0" : 30.0,
                "50.0" : 48.0,
                "90.0" : 60.0,
                "95.0" : 70.0,
                "99.0" : 110.0,
                "99.9" : 1018.0,
                "99.99" : 12960.0,
                "99.999" : 31578.65,
                "99.9999" : 41472.0,
                "100.0" : 41472.0
            },
            "scoreUnit" : "ns/op",
            "rawDataHistogram" : [
                [
                    [
                        [
                            30.0,
                            7
                        ],
                        [
                            40.0,
                            91530
                        ],
                        [
                            50.0,
                            50211
                        ]
                    ]
                ]
            ]
        },
        "secondaryMetrics" : {
        }
    }
]
"""


def jmh_entry(benchmark, score, unit, params=None, norm=None):
    entry = {"benchmark": f"dat.bench.{benchmark}", "mode": "thrpt", "params": params or {},
             "primaryMetric": {"score": score, "scoreUnit": unit}, "secondaryMetrics": {}}
    if norm is not None:
        entry["secondaryMetrics"]["gc.alloc.rate.norm"] = {"score": norm, "scoreUnit": "B/op"}
    return entry


class ParseTest(unittest.TestCase):

    def test_ucx_latency_is_taken_as_printed_because_libperf_already_halves_it(self):
        rows = compare.parse_ucx(UCX_LAT, "ucx_put_lat", compare.LATENCY, 64)
        self.assertEqual(rows, [("ucx_put_lat", 64, "p50", 0.118), ("ucx_put_lat", 64, "mean", 0.223)])

    def test_ucx_bandwidth_converts_mib_per_second_to_gb_per_second(self):
        (row,) = compare.parse_ucx(UCX_BW_INF, "ucx_put_bw", compare.BANDWIDTH, 67108864)
        self.assertAlmostEqual(row[3], 3117.81 * 1048576 / 1e9)

    def test_ucx_message_rate_in_millions(self):
        (row,) = compare.parse_ucx(UCX_LAT, "ucx_tag_bw", compare.RATE, 64)
        self.assertAlmostEqual(row[3], 4.487831)

    def test_ucx_without_a_result_line_is_an_error(self):
        with self.assertRaisesRegex(compare.ParseError, "no ucx_perftest CSV result line"):
            compare.parse_ucx_csv(UCX_FAILED)

    def test_fi_pingpong_usec_per_xfer_is_the_mean_one_way_latency(self):
        self.assertEqual(compare.parse_fi_pingpong(FI_PINGPONG, "fi_tcp"), [("fi_tcp", 1048576, "mean", 10698.21)])
        self.assertEqual(compare.parse_fi_pingpong(FI_PINGPONG_64, "fi_shm"), [("fi_shm", 64, "mean", 14.38)])

    def test_a_fabric_row_gets_its_ping_pong_rate_as_the_reciprocal_of_its_mean(self):
        directory = tempfile.mkdtemp(prefix="compare-fabric-test-")
        try:
            raw = os.path.join(directory, "fi.txt")
            with open(raw, "w") as f:
                f.write(FI_PINGPONG_64)
            self.assertEqual(compare.parse_run(compare.FABRIC, "fi_tcp_msg", "64", raw),
                             [("fi_tcp_msg", 64, "mean", 14.38), ("fi_tcp_msg", 64, "rate", 1.0 / 14.38)])
            self.assertEqual(compare.parse_run(compare.LATENCY, "fi_tcp", "64", raw),
                             [("fi_tcp", 64, "mean", 14.38)])
        finally:
            shutil.rmtree(directory)

    def test_fi_sizes(self):
        self.assertEqual([compare.parse_fi_size(s) for s in ("8", "1k", "64k", "1m", "1.5k")],
                         [8, 1024, 65536, 1048576, 1536])

    def test_fi_pingpong_without_rows_is_an_error(self):
        with self.assertRaises(compare.ParseError):
            compare.parse_fi_pingpong("[error] util/pingpong.c:1119: cq_readerr\n", "fi_tcp")

    def test_datperf_pingpong_gives_p50_and_mean(self):
        self.assertEqual(compare.parse_datperf(DATPERF_PINGPONG, "jdat_send"),
                         [("jdat_send", 64, "p50", 19.622), ("jdat_send", 64, "mean", 22.6088)])

    def test_datperf_rate_gives_millions_per_second(self):
        self.assertEqual(compare.parse_datperf(DATPERF_RATE, "jdat_send_rate"),
                         [("jdat_send_rate", 64, "rate", 1.46075)])

    def test_datperf_garbage_is_an_error(self):
        with self.assertRaises(compare.ParseError):
            compare.parse_datperf("dat perf: unknown provider 'x'", "jdat_send")

    def test_jsonl(self):
        rows = compare.parse_jsonl(JSONL, "c_floor")
        self.assertIn(("c_floor", 64, "p50", 0.128), rows)
        self.assertIn(("c_floor", 8, "mean", 0.4465), rows)

    def test_jmh_bandwidth_is_score_times_size(self):
        text = json.dumps([jmh_entry("BandwidthBenchmark.rdmaWrite", 250000.0, "ops/s", {"size": "65536"})])
        self.assertEqual(compare.parse_jmh(text, compare.BANDWIDTH),
                         [("jmh_rdmaWrite", 65536, "bw", 250000.0 * 65536 / 1e9)])

    def test_jmh_bandwidth_in_another_unit_is_refused(self):
        text = json.dumps([jmh_entry("BandwidthBenchmark.rdmaWrite", 4.0, "us/op", {"size": "65536"})])
        with self.assertRaisesRegex(compare.ParseError, "us/op"):
            compare.parse_jmh(text, compare.BANDWIDTH)

    def test_jmh_path_reads_the_median_of_the_samples_not_the_mean(self):
        self.assertEqual(compare.parse_jmh(JMH_SAMPLE, compare.PATH), [("path_rdmaWrite", 64, "p50", 48.0)])

    def test_jmh_path_in_another_mode_or_unit_is_refused(self):
        for old, new in (('"mode" : "sample"', '"mode" : "avgt"'), ('"ns/op"', '"us/op"')):
            with self.assertRaisesRegex(compare.ParseError, "expected sample in ns/op"):
                compare.parse_jmh(JMH_SAMPLE.replace(old, new), compare.PATH)

    def test_jmh_path_without_percentiles_is_an_error(self):
        entry = json.loads(JMH_SAMPLE)
        del entry[0]["primaryMetric"]["scorePercentiles"]
        with self.assertRaisesRegex(compare.ParseError, "no 50th percentile"):
            compare.parse_jmh(json.dumps(entry), compare.PATH)

    def test_jmh_allocation_reads_the_normalised_rate(self):
        text = json.dumps([jmh_entry("AllocationBenchmark.postSend", 120.0, "ns/op", norm=0.0266)])
        self.assertIn(("alloc_postSend", None, "norm", 0.0266), compare.parse_jmh(text, compare.ALLOC))

    def test_jmh_allocation_without_the_gc_profiler_is_an_error(self):
        text = json.dumps([jmh_entry("AllocationBenchmark.postSend", 120.0, "ns/op")])
        with self.assertRaisesRegex(compare.ParseError, "-prof gc"):
            compare.parse_jmh(text, compare.ALLOC)


class StatisticsAndGoalsTest(unittest.TestCase):

    def test_summary_is_median_min_max_and_spread(self):
        s = compare.summarize([3.0, 1.0, 2.0, 10.0, 2.5])
        self.assertEqual((s["n"], s["median"], s["min"], s["max"]), (5, 2.5, 1.0, 10.0))
        self.assertAlmostEqual(s["spread"], 9.0 / 2.5)

    def test_even_run_count_takes_the_middle_mean(self):
        self.assertEqual(compare.summarize([1.0, 4.0])["median"], 2.5)

    def summaries(self, entries):
        return {k: compare.summarize(v) for k, v in entries.items()}

    def row(self, rows, jdat, peer, size, stat):
        (row,) = [r for r in rows if r["jdat_series"] == jdat and r["peer_series"] == peer and r["size"] == size
                  and r["stat"] == stat]
        return row

    def test_latency_goal_against_aeron_holds_at_equal_p50_and_fails_just_above(self):
        lat = compare.LATENCY
        rows = compare.compare(self.summaries({
            (lat, "jdat_send", 64, "p50"): [0.30], (lat, "jdat_write", 64, "p50"): [0.3001],
            (lat, "aeron_ipc", 64, "p50"): [0.30],
            (lat, "jdat_send", 64, "mean"): [0.30], (lat, "aeron_ipc", 64, "mean"): [0.30],
            (lat, "jdat_send", 8, "p50"): [0.30], (lat, "aeron_ipc", 8, "p50"): [0.30]}))
        send = self.row(rows, "jdat_send", "aeron_ipc", 64, "p50")
        self.assertEqual((send["goal"], send["met"]), (compare.GOAL_LAT_AERON, True))
        write = self.row(rows, "jdat_write", "aeron_ipc", 64, "p50")
        self.assertEqual((write["goal"], write["met"]), (compare.GOAL_LAT_AERON, False))
        # The goal is the median at 64 B: the mean and other sizes are shown, not judged.
        self.assertIsNone(self.row(rows, "jdat_send", "aeron_ipc", 64, "mean")["goal"])
        self.assertIsNone(self.row(rows, "jdat_send", "aeron_ipc", 8, "p50")["goal"])

    def test_floor_goal_is_twice_the_floor_inclusive(self):
        lat = compare.LATENCY
        rows = compare.compare(self.summaries({
            (lat, "jdat_send", 64, "p50"): [0.25], (lat, "jdat_write", 64, "p50"): [0.2501],
            (lat, "c_floor", 64, "p50"): [0.125],
            (lat, "jdat_send", 64, "mean"): [0.25], (lat, "c_floor", 64, "mean"): [0.125]}))
        send = self.row(rows, "jdat_send", "c_floor", 64, "p50")
        self.assertEqual((send["goal"], send["met"], send["ratio"]), (compare.GOAL_LAT_FLOOR, True, 2.0))
        self.assertFalse(self.row(rows, "jdat_write", "c_floor", 64, "p50")["met"])
        self.assertIsNone(self.row(rows, "jdat_send", "c_floor", 64, "mean")["goal"])

    def test_ucx_latency_is_shown_but_no_longer_a_goal(self):
        lat = compare.LATENCY
        rows = compare.compare(self.summaries({
            (lat, "jdat_send", 64, "p50"): [0.30], (lat, "ucx_tag_lat", 64, "p50"): [0.30]}))
        self.assertIsNone(self.row(rows, "jdat_send", "ucx_tag_lat", 64, "p50")["goal"])

    def absolute(self, rows, series, size):
        (row,) = [r for r in rows if r["jdat_series"] == series and r["peer_series"] is None and r["size"] == size]
        return row

    def test_path_goal_is_at_most_50_ns_at_64_bytes_without_a_peer(self):
        path = compare.PATH
        rows = compare.compare(self.summaries({
            (path, "path_sendRecv", 64, "p50"): [49.0, 50.0, 51.0], (path, "path_rdmaWrite", 64, "p50"): [50.01],
            (path, "path_sendRecv", 8, "p50"): [500.0]}))
        send = self.absolute(rows, "path_sendRecv", 64)
        self.assertEqual((send["goal"], send["met"], send["peer"], send["ratio"]),
                         (compare.GOAL_PATH, True, 50.0, 1.0))
        self.assertFalse(self.absolute(rows, "path_rdmaWrite", 64)["met"])
        eight = self.absolute(rows, "path_sendRecv", 8)
        self.assertEqual((eight["goal"], eight["met"], eight["peer"], eight["ratio"]), (None, None, None, None))
        self.assertIn("| 50.0 (goal) |", compare.comparison_table([send]))

    def test_send_rate_goal_is_at_least_ucx_tag_bw(self):
        rate = compare.RATE
        rows = compare.compare(self.summaries({
            (rate, "jdat_send_rate", 64, "rate"): [5.0], (rate, "ucx_tag_bw", 64, "rate"): [5.0]}))
        self.assertTrue(self.row(rows, "jdat_send_rate", "ucx_tag_bw", 64, "rate")["met"])
        rows = compare.compare(self.summaries({
            (rate, "jdat_send_rate", 64, "rate"): [4.99], (rate, "ucx_tag_bw", 64, "rate"): [5.0]}))
        below = self.row(rows, "jdat_send_rate", "ucx_tag_bw", 64, "rate")
        self.assertEqual((below["goal"], below["met"]), (compare.GOAL_RATE_UCX, False))

    def test_pair_rate_goal_is_absolute_and_needs_no_ucx(self):
        rate = compare.RATE
        rows = compare.compare(self.summaries({(rate, "jmh_pair", 64, "rate"): [20.0]}))
        pair = self.absolute(rows, "jmh_pair", 64)
        self.assertEqual((pair["goal"], pair["met"], pair["peer"]), (compare.GOAL_RATE_PAIR, True, 20.0))
        rows = compare.compare(self.summaries({(rate, "jmh_pair", 64, "rate"): [19.99],
                                               (rate, "ucx_tag_bw", 64, "rate"): [1.0]}))
        self.assertFalse(self.absolute(rows, "jmh_pair", 64)["met"])
        self.assertEqual([r for r in rows if r["peer_series"] == "ucx_tag_bw"], [])

    def test_bandwidth_goal_is_95_percent_for_write_and_read_from_64_kib(self):
        bw = compare.BANDWIDTH
        rows = compare.compare(self.summaries({
            (bw, "jmh_rdmaWrite", 4096, "bw"): [1.0], (bw, "jmh_memorySegmentCopy", 4096, "bw"): [10.0],
            (bw, "jmh_rdmaWrite", 65536, "bw"): [9.5], (bw, "jmh_rdmaRead", 65536, "bw"): [9.5],
            (bw, "jmh_memorySegmentCopy", 65536, "bw"): [10.0],
            (bw, "jmh_rdmaWrite", 1048576, "bw"): [9.49], (bw, "jmh_rdmaRead", 1048576, "bw"): [9.49],
            (bw, "jmh_memorySegmentCopy", 1048576, "bw"): [10.0], (bw, "ucx_put_bw", 1048576, "bw"): [100.0]}))
        self.assertIsNone(self.row(rows, "jmh_rdmaWrite", "jmh_memorySegmentCopy", 4096, "bw")["goal"])
        for series in ("jmh_rdmaWrite", "jmh_rdmaRead"):
            at = self.row(rows, series, "jmh_memorySegmentCopy", 65536, "bw")
            self.assertEqual((at["goal"], at["met"]), (compare.GOAL_BW, True), series)
            self.assertFalse(self.row(rows, series, "jmh_memorySegmentCopy", 1048576, "bw")["met"], series)
        self.assertIsNone(self.row(rows, "jmh_rdmaWrite", "ucx_put_bw", 1048576, "bw")["goal"])

    def test_allocation_goal_judges_the_worst_run(self):
        alloc = compare.ALLOC
        rows = compare.compare(self.summaries({
            (alloc, "alloc_postSend", None, "norm"): [0.01, 0.999, 0.01],
            (alloc, "alloc_postRecv", None, "norm"): [0.01, 1.0, 0.01]}))
        by = {r["jdat_series"]: r for r in rows}
        self.assertEqual((by["alloc_postSend"]["goal"], by["alloc_postSend"]["met"]), (compare.GOAL_ALLOC, True))
        self.assertFalse(by["alloc_postRecv"]["met"])
        (folded,) = [r for r in compare.headline_rows(rows) if r["measure"] == alloc]
        self.assertFalse(folded["met"])

    def test_the_headline_lists_the_goals_of_the_issues(self):
        self.assertEqual([g.split(":")[0] for g, _ in compare.GOALS],
                         ["Latency", "Provider path", "Message rate", "Bandwidth", "Allocation", "Fabric"])
        verdicts = compare.goal_verdicts([])
        self.assertEqual([v for _, v, _ in verdicts], ["not measured"] * 6)

    def test_fabric_goals_are_1_2x_the_mean_and_0_8x_the_rate_of_fi_pingpong_at_64_bytes(self):
        fab = compare.FABRIC
        rows = compare.compare(self.summaries({
            (fab, "jdat_ofi_tcp", 64, "mean"): [12.0], (fab, "fi_tcp_msg", 64, "mean"): [10.0],
            (fab, "jdat_ofi_tcp", 64, "rate"): [0.079], (fab, "fi_tcp_msg", 64, "rate"): [0.1],
            (fab, "jdat_ofi_tcp", 8, "mean"): [50.0], (fab, "fi_tcp_msg", 8, "mean"): [10.0],
            (fab, "jdat_ofi_shm", 64, "mean"): [0.5], (fab, "fi_shm", 64, "mean"): [0.3],
            (fab, "jdat_ofi_shm", 64, "rate"): [2.0], (fab, "fi_shm", 64, "rate"): [3.3]}))
        shm_mean = self.row(rows, "jdat_ofi_shm", "fi_shm", 64, "mean")
        self.assertEqual((shm_mean["goal"], shm_mean["met"]), (compare.GOAL_OFI_SHM_LAT, False))
        shm_rate = self.row(rows, "jdat_ofi_shm", "fi_shm", 64, "rate")
        self.assertEqual((shm_rate["goal"], shm_rate["met"]), (compare.GOAL_OFI_SHM_RATE, False))
        mean = self.row(rows, "jdat_ofi_tcp", "fi_tcp_msg", 64, "mean")
        self.assertEqual((mean["goal"], mean["met"], mean["unit"]), (compare.GOAL_OFI_LAT, True,
                                                                     compare.UNITS[fab]))
        rate = self.row(rows, "jdat_ofi_tcp", "fi_tcp_msg", 64, "rate")
        self.assertEqual((rate["goal"], rate["met"], rate["unit"]), (compare.GOAL_OFI_RATE, False,
                                                                     compare.UNITS[compare.RATE]))
        self.assertIsNone(self.row(rows, "jdat_ofi_tcp", "fi_tcp_msg", 8, "mean")["goal"])
        (verdict,) = [v for g, v, _ in compare.goal_verdicts([r for r in rows if r["goal"]])
                      if g.startswith("Fabric")]
        self.assertEqual(verdict, "partly met")

    def test_goal_verdicts(self):
        lat, rate = compare.LATENCY, compare.RATE
        rows = [r for r in compare.compare(self.summaries({
            (lat, "jdat_send", 64, "p50"): [0.2], (lat, "jdat_write", 64, "p50"): [0.2],
            (lat, "aeron_ipc", 64, "p50"): [0.3], (lat, "c_floor", 64, "p50"): [0.1],
            (rate, "jdat_send_rate", 64, "rate"): [6.0], (rate, "ucx_tag_bw", 64, "rate"): [5.0],
            (rate, "jmh_pair", 64, "rate"): [19.0],
            (compare.PATH, "path_sendRecv", 64, "p50"): [40.0]})) if r["goal"]]
        verdicts = {g.split(":")[0]: (v, d) for g, v, d in compare.goal_verdicts(rows)}
        self.assertEqual(verdicts["Latency"][0], "met")
        self.assertIn("jDAT rdma_write 64 B p50 vs Aeron IPC yes", verdicts["Latency"][1])
        self.assertEqual(verdicts["Message rate"][0], "partly met")
        self.assertIn("jDAT JMH MessageRate.pair 64 B rate no", verdicts["Message rate"][1])
        # Every row measured met, but rdma_write's path was not measured: not the whole goal.
        self.assertEqual(verdicts["Provider path"][0], "partly met")
        self.assertIn("not measured: jDAT rdma_write, one thread", verdicts["Provider path"][1])
        self.assertEqual(verdicts["Bandwidth"], ("not measured", "—"))
        self.assertEqual(verdicts["Allocation"], ("not measured", "—"))
        failed = [{**r, "met": False} for r in rows if r["goal"] == compare.GOAL_LAT_FLOOR]
        self.assertEqual(compare.goal_verdicts(failed)[0][1], "not met")


class ReportTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="compare-test-")
        self.manifest = []

    def tearDown(self):
        shutil.rmtree(self.dir)

    def raw(self, measure, series, size, run, text, rc=0, name=None):
        rel = f"raw/{measure}/{series}/{name or f'{size}-r{run}.txt'}"
        os.makedirs(os.path.dirname(os.path.join(self.dir, rel)), exist_ok=True)
        with open(os.path.join(self.dir, rel), "w") as f:
            f.write(text)
        self.manifest.append("\t".join([measure, series, str(size), str(run), str(rc), "1.0", "0.5", rel]))

    def write_common(self):
        with open(os.path.join(self.dir, "manifest.tsv"), "w") as f:
            f.write("\n".join(self.manifest) + "\n")
        for name, load, cpu in (("machine-before.txt", "0.50 0.40 0.30 1/100 1", "cpu  100 0 50 800 10 0 0 40"),
                                ("machine-after.txt", "3.00 1.00 0.50 1/100 2", "cpu  300 0 70 900 10 0 0 60")):
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(f"nproc 2\nloadavg {load}\n{cpu}\nepoch {'10.0' if 'before' in name else '70.0'}\n")
        with open(os.path.join(self.dir, "setup.txt"), "w") as f:
            f.write("quick 1\nruns 2\npinned 1\ncpus 0,1\ncommand bench/compare.sh --quick\n")

    def test_a_timed_out_and_an_unreadable_run_are_failures_not_figures(self):
        self.raw("latency", "fi_shm", 64, 1, FI_PINGPONG_64)
        self.raw("latency", "fi_shm", 64, 2, "", rc=124)
        self.raw("latency", "ucx_tag_lat", 64, 1, UCX_FAILED)
        self.write_common()
        samples, failures, _ = compare.collect(self.dir)
        self.assertEqual(samples[("latency", "fi_shm", 64, "mean")], [(1, 14.38)])
        self.assertEqual([(f["series"], f["run"], f["why"][:13]) for f in failures],
                         [("fi_shm", 2, "timed out"), ("ucx_tag_lat", 1, "unreadable ou")])

    def test_report_writes_strict_json_markdown_and_well_formed_charts(self):
        for run, (p50, mean) in enumerate([(0.9, 2.0), (0.8, 3.0)], 1):
            self.raw("latency", "jdat_send", 64, run, DATPERF_PINGPONG.replace("19.622", str(p50))
                     .replace("22.6088", str(mean)), name=f"64-r{run}.json")
            self.raw("latency", "ucx_tag_lat", 64, run, UCX_LAT)
            self.raw("latency", "c_floor", "all", run, JSONL, name=f"all-r{run}.jsonl")
        self.raw("latency", "jdat_send", 8, 1, DATPERF_PINGPONG.replace('"bytes": 64', '"bytes": 8'),
                 name="8-r1.json")
        # The path's JMH run: the manifest names the console log, the figures are in the JSON beside it.
        for run, p50 in ((1, "48.0"), (2, "52.0")):
            self.raw("path", "jmh_path", "all", run, "# Run complete.\n", name=f"all-r{run}.log")
            with open(os.path.join(self.dir, "raw", "path", "jmh_path", f"all-r{run}.json"), "w") as f:
                f.write(JMH_SAMPLE.replace('"50.0" : 48.0', f'"50.0" : {p50}'))
        self.write_common()
        result = compare.report(self.dir)
        with open(os.path.join(self.dir, "results.json")) as f:
            json.loads(f.read(), parse_constant=lambda c: self.fail(f"non-strict JSON constant {c}"))
        row = [r for r in result["comparisons"] if r["peer_series"] == "ucx_tag_lat" and r["stat"] == "p50"][0]
        self.assertAlmostEqual(row["jdat"], 0.85)
        self.assertAlmostEqual(row["ratio"], 0.85 / 0.118)
        self.assertFalse(row["met"])
        # /proc/stat deltas: user 200, system 20, idle 100, steal 20 of 340 ticks.
        self.assertEqual(result["machine"]["cpu_busy_pct"], round(100 * 240 / 340, 1))
        self.assertEqual(result["machine"]["steal_pct"], round(100 * 20 / 340, 1))
        with open(os.path.join(self.dir, "results.md")) as f:
            md = f.read()
        self.assertIn("## Headline", md)
        self.assertIn("| 1 | Latency: 64 B one-way p50 of send and rdma_write at or below Aeron IPC and within 2x of "
                      "the C handoff floor | not met | 0 of 1: jDAT send/recv 64 B p50 vs C handoff floor no; not "
                      "measured: ", md)
        # The median of 48 and 52 ns is 50 ns: the goal holds for rdma_write, send/recv was not measured.
        self.assertIn("| 2 | Provider path: post plus completion on one thread at most 50 ns at the median (JMH, "
                      "64 B), for send/recv and rdma_write | partly met | 1 of 1: jDAT rdma_write, one thread 64 B "
                      "p50 yes; not measured: jDAT send/recv, one thread ", md)
        self.assertIn("| path | 64 B | p50 | jDAT rdma_write, one thread | 50.0 | — | 50.0 (goal) | ns per post + "
                      "completion (lower is better) | 1.00 | post plus completion on one thread at most 50 ns at the "
                      "median | yes |", md)
        self.assertEqual([g["verdict"] for g in result["goals"]],
                         ["not met", "partly met", "not measured", "not measured", "not measured",
                          "not measured"])
        self.assertIn("Quick mode", md)
        for chart in ("latency.svg", "latency-mean.svg", "bandwidth.svg"):
            ET.parse(os.path.join(self.dir, chart))
        svg = ET.parse(os.path.join(self.dir, "latency.svg")).getroot()
        ns = "{http://www.w3.org/2000/svg}"
        # A series is a line once it has two sizes: jDAT send (8 and 64 B) and the C floor (8 and 64 B); UCX has
        # only 64 B, a dot.
        self.assertEqual(len(svg.findall(f"{ns}polyline")), 2)
        labels = [t.text for t in svg.findall(f"{ns}text")]
        self.assertIn("jDAT send/recv", labels)
        self.assertIn("UCX tag_lat (sm)", labels)

    def test_chart_without_data_says_so(self):
        text = compare.svg_chart("t", "s", "y", [])
        self.assertIn("no data", text)
        ET.fromstring(text)

    def test_numbers(self):
        self.assertEqual([compare.num(v) for v in (0.000278, 0.118, 2.5, 13.8, 306.4, 10698.21, 0)],
                         ["0.000278", "0.118", "2.50", "13.8", "306", "10698", "0"])
        self.assertEqual(compare.num(float("nan")), "—")
        self.assertEqual(compare.size_name(1048576), "1 MiB")
        self.assertEqual(compare.size_name(256), "256 B")


class PinThreadsTest(unittest.TestCase):

    def test_pin_specs(self):
        self.assertEqual(pinthreads.parse_pins(["dat-perf-client=0", "dat-perf-respon=1"]),
                         [("dat-perf-client", 0), ("dat-perf-respon", 1)])
        for bad in ("dat-perf-client", "=1", "x=one"):
            with self.assertRaisesRegex(ValueError, "PREFIX=CPU"):
                pinthreads.parse_pins([bad])

    def test_pins_a_named_thread_of_a_child_and_reports_a_missing_one(self):
        cpu = min(os.sched_getaffinity(0))
        with tempfile.TemporaryDirectory() as d:
            report = os.path.join(d, "pin.txt")
            out = os.path.join(d, "affinity.txt")
            # The child names its main thread, waits for the pinner, then writes the affinity it ended up with.
            child = ("import ctypes,os,time\n"
                     "ctypes.CDLL(None).prctl(15, b'pin-me-please', 0, 0, 0)\n"
                     "time.sleep(0.5)\n"
                     f"open({out!r}, 'w').write(','.join(map(str, sorted(os.sched_getaffinity(0)))))\n")
            rc = pinthreads.main(["--pin", f"pin-me={cpu}", "--pin", "absent=0", "--report", report, "--",
                                  sys.executable, "-c", child])
            self.assertEqual(rc, 0)
            with open(out) as f:
                self.assertEqual(f.read(), str(cpu))
            with open(report) as f:
                text = f.read()
            self.assertIn(f"to CPU {cpu}", text)
            self.assertIn("no thread named absent* appeared", text)

    def test_the_commands_exit_status_is_passed_on(self):
        self.assertEqual(pinthreads.main(["--", sys.executable, "-c", "raise SystemExit(3)"]), 3)


class CompareScriptTest(unittest.TestCase):
    """bench/compare.sh --dry-run in a copy of the checkout's layout, so nothing is written into the real one."""

    def setUp(self):
        here = os.path.dirname(os.path.abspath(__file__))
        self.tree = tempfile.mkdtemp(prefix="compare-sh-test-")
        shutil.copytree(os.path.join(here, ".."), os.path.join(self.tree, "bench"),
                        ignore=shutil.ignore_patterns("results", "target", "__pycache__"))
        os.makedirs(os.path.join(self.tree, "tools"))
        shutil.copy(os.path.join(here, "..", "..", "tools", "jdk25.sh"), os.path.join(self.tree, "tools"))

    def tearDown(self):
        shutil.rmtree(self.tree)

    def dry_run(self, *args):
        return subprocess.run([os.path.join(self.tree, "bench", "compare.sh"), "--dry-run", "--runs", "1", *args],
                              capture_output=True, text=True, timeout=120)

    def test_full_mode_with_the_default_output_directory(self):
        # Regression: the default directory name was built with $([ quick ] && echo -quick), whose failure status
        # made `set -e` end a full run silently with exit status 1 before it measured anything.
        done = self.dry_run("--only", "alloc")
        self.assertEqual(done.returncode, 0, done.stderr)
        (made,) = os.listdir(os.path.join(self.tree, "bench", "results"))
        self.assertFalse(made.endswith("-quick"))
        self.assertIn("AllocationBenchmark -prof gc -f 1 -wi 2", done.stdout)
        with open(os.path.join(self.tree, "bench", "results", made, "setup.txt")) as f:
            self.assertIn("command bench/compare.sh --dry-run --runs 1 --only alloc\n", f.read())

    def test_quick_mode_gets_its_own_directory(self):
        done = self.dry_run("--quick", "--only", "rate", "--skip", "ucx")
        self.assertEqual(done.returncode, 0, done.stderr)
        (made,) = os.listdir(os.path.join(self.tree, "bench", "results"))
        self.assertTrue(made.endswith("-quick"))
        self.assertIn("rate --op send --sizes 64 --iters 200000", done.stdout)
        self.assertNotIn("ucx_perftest", done.stdout)

    def test_the_provider_path_is_a_group_in_the_default_list(self):
        alone = self.dry_run("--only", "path")
        self.assertEqual(alone.returncode, 0, alone.stderr)
        self.assertIn("benchmarks.jar SingleThreadLatencyBenchmark -p size=8\\,64 -f 1 -wi 3 -w 1s -i 5 -r 1s "
                      "-foe true -rf json -rff ", alone.stdout)
        self.assertIn("raw/path/jmh_path/all-r1.json", alone.stdout)
        self.assertNotIn("dat perf", alone.stdout)
        every = self.dry_run("--quick", "--skip", "ucx,fabric,aeron,cfloor")
        self.assertEqual(every.returncode, 0, every.stderr)
        self.assertIn("SingleThreadLatencyBenchmark -p size=8\\,64 -f 1 -wi 1 -w 300ms -i 1 -r 500ms", every.stdout)

    def test_the_fabric_group_runs_jdat_on_ofi_and_fi_pingpong_over_msg_endpoints_in_two_processes(self):
        done = self.dry_run("--quick", "--only", "fabric")
        self.assertEqual(done.returncode, 0, done.stderr)
        for size in ("8", "64", "4096"):
            self.assertRegex(done.stdout, r"dat perf serve --ia ofi-tcp-lo --conn-qual ([0-9]+) --timeout 60  & "
                             r".*dat perf pingpong --ia ofi-tcp-lo --peer 127\.0\.0\.1:\1 --op send --sizes "
                             + size + " ")
            self.assertRegex(done.stdout, r"fi_pingpong -p tcp -e msg -B ([0-9]+) -I [0-9]+ -S " + size
                             + r"  & .*fi_pingpong -p tcp -e msg -P \1 ")
        skipped = self.dry_run("--quick", "--only", "fabric", "--skip", "fabric")
        self.assertEqual(skipped.returncode, 0, skipped.stderr)
        self.assertNotIn("dat perf", skipped.stdout)
        self.assertIn("skipping ofi", skipped.stderr)

    def test_every_run_is_bounded_and_gets_its_own_control_port(self):
        out = os.path.join(self.tree, "out")
        done = self.dry_run("--quick", "--only", "latency", "--out", out)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(out, "commands.txt")) as f:
            commands = f.read()
        ports = [line.split(" -p ")[1].split()[0] for line in commands.splitlines()
                 if "client: timeout -k 10 60 env UCX_TLS" in line]
        self.assertEqual(len(ports), len(set(ports)), ports)
        for line in commands.splitlines():
            self.assertRegex(line, r"\] (server: |client: )?timeout -k 10 [0-9]+ ", line)

    def test_bad_arguments_are_named(self):
        for args, message in ((["--runs", "0"], "--runs '0'"), (["--cpus", "0"], "--cpus '0'"),
                              (["--only", "speed"], "unknown group 'speed'"), (["--skip", "mpi"], "unknown peer"),
                              (["--bogus"], "unknown option '--bogus'")):
            done = self.dry_run(*args)
            self.assertEqual(done.returncode, 2, args)
            self.assertIn(message, done.stderr)


@unittest.skipUnless(shutil.which("gcc"), "needs gcc")
class CFloorTest(unittest.TestCase):
    """bench/cfloor/handoff.c, compiled to a temporary directory."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="handoff-test-")
        cls.bin = os.path.join(cls.dir, "handoff")
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cfloor", "handoff.c")
        subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread", "-o", cls.bin, src], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def run_handoff(self, *args):
        return subprocess.run([self.bin, *args], capture_output=True, text=True, timeout=60)

    def test_reports_each_size_of_the_plan(self):
        cpus = sorted(os.sched_getaffinity(0))
        pair = f"{cpus[0]},{cpus[-1]}"
        done = self.run_handoff("--plan", "8:2000:100,64:2000:100,4096:500:10", "--cpus", pair)
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = compare.parse_jsonl(done.stdout, "c_floor")
        self.assertEqual(sorted({r[1] for r in rows}), [8, 64, 4096])
        for _, _, stat, value in rows:
            self.assertTrue(0 < value < 10000 and math.isfinite(value), (stat, value))

    def test_refuses_sizes_below_the_sequence_word_and_bad_cpus(self):
        small = self.run_handoff("--plan", "4:10:1")
        self.assertEqual(small.returncode, 2)
        self.assertIn("below 8 bytes", small.stderr)
        cpus = self.run_handoff("--plan", "8:10:1", "--cpus", "0")
        self.assertEqual(cpus.returncode, 2)
        self.assertIn("--cpus takes PING,PONG", cpus.stderr)


if __name__ == "__main__":
    unittest.main()
