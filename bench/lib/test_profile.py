# SPDX-License-Identifier: Apache-2.0
"""Tests of bench/profile.sh's summariser (profile.py).

Run: python3 -m unittest discover -s bench/lib -v
The stacks below are cut from a real async-profiler 4.6 run of `dat perf rate --op send` (collapsed, threads).
"""
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile as prof  # noqa: E402

CLIENT = "[dat-perf-client tid=18216];java/lang/Thread.run;dat/cli/PerfClient.streamPhase"
RESPONDER = "[dat-perf-responder tid=18215];java/lang/Thread.run;dat/cli/PerfResponder.sinkPhase"
POST_RECV = RESPONDER + ";dat/provider/loopback/internal/LoopbackEp.postRecv"
COLLAPSED = f"""{CLIENT};dat/cli/PerfEngine$Poller.idle 30
{CLIENT};dat/cli/PerfEngine$Poller.idle;java/lang/Thread.yield;java/lang/Thread.yield0;__GI___sched_yield;__schedule_[k] 20
{CLIENT};dat/provider/loopback/internal/LoopbackEp.postSend;dat/provider/loopback/internal/EventRing.fillDto 10
{POST_RECV};java/util/concurrent/locks/ReentrantLock.unlock;java/util/concurrent/locks/AbstractQueuedSynchronizer.setState 19
{POST_RECV};dat/provider/loopback/internal/RecvRing.publish;java/lang/invoke/VarHandleLongs$FieldInstanceReadWrite.setVolatile 7
{RESPONDER};dat/provider/loopback/internal/LoopbackEvd.dequeue;dat/api/DatEvent.clear 4
[C2 CompilerThre tid=18209];CompileBroker::invoke_compiler_on_method 50
not a stack line
"""


class ProfileTest(unittest.TestCase):

    def threads(self, focus=None):
        return prof.read(io.StringIO(COLLAPSED), focus)

    def test_reads_threads_and_skips_lines_without_a_count(self):
        threads = self.threads()
        self.assertEqual({"dat-perf-client", "dat-perf-responder", "C2 CompilerThre"}, set(threads))
        self.assertEqual(60, sum(c for _, c in threads["dat-perf-client"]))

    def test_the_leaf_decides_the_category(self):
        total, categories, self_top, inclusive = prof.summarise(self.threads()["dat-perf-client"], 10)
        self.assertEqual(60, total)
        shares = dict(categories)
        self.assertEqual(30, shares["waiting for a completion (poll loop)"])
        self.assertEqual(20, shares["kernel (yield, futex, scheduler)"])
        self.assertEqual(10, shares["provider (dat.provider.*)"])
        self.assertEqual(("dat/cli/PerfEngine$Poller.idle", 30), self_top[0])
        # Inclusive lists jDAT frames only: the poll loop and the thread's root are not the provider's cost.
        self.assertEqual([("dat/provider/loopback/internal/LoopbackEp.postSend", 10),
                          ("dat/provider/loopback/internal/EventRing.fillDto", 10)], inclusive)

    def test_locks_and_atomics_are_told_apart(self):
        _, categories, _, inclusive = prof.summarise(self.threads()["dat-perf-responder"], 10)
        shares = dict(categories)
        self.assertEqual(19, shares["locks (ReentrantLock, AQS)"])
        self.assertEqual(7, shares["atomics and fences (VarHandle)"])
        self.assertEqual(4, shares["DAT API and SPI (dat.api, dat.spi)"])
        self.assertEqual(("dat/provider/loopback/internal/LoopbackEp.postRecv", 26), inclusive[0])

    def test_focus_keeps_only_stacks_through_the_frame(self):
        threads = self.threads(focus="postRecv")
        self.assertEqual(["dat-perf-responder"], list(threads))
        self.assertEqual(26, sum(c for _, c in threads["dat-perf-responder"]))

    def test_report_orders_threads_by_samples_and_filters_by_prefix(self):
        text = prof.report(self.threads(), ["dat-perf"], 5, "rate")
        self.assertTrue(text.startswith("## rate"))
        self.assertLess(text.index("### dat-perf-client: 60 samples"), text.index("### dat-perf-responder: 30"))
        self.assertNotIn("C2", text)
        self.assertIn("| 50.0% | `dat/cli/PerfEngine$Poller.idle` |", text)

    def test_no_matching_thread_is_an_error(self):
        with self.assertRaises(ValueError):
            prof.report(self.threads(), ["nobody"], 5, "x")
        with tempfile.NamedTemporaryFile("w", suffix=".collapsed", delete=False) as f:
            f.write(COLLAPSED)
        try:
            err = io.StringIO()
            with redirect_stderr(err), redirect_stdout(io.StringIO()):
                self.assertEqual(2, prof.main(["--threads", "nobody", f.name]))
                self.assertEqual(2, prof.main(["--top", "0", f.name]))
                self.assertEqual(2, prof.main(["--bogus", f.name]))
                self.assertEqual(2, prof.main([]))
            self.assertIn("no samples of the threads nobody", err.getvalue())
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(0, prof.main(["--threads", "dat-perf-resp", "--title", "t", f.name]))
            self.assertIn("### dat-perf-responder: 30 samples", out.getvalue())
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
