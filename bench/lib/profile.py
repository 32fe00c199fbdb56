#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Summarises async-profiler's collapsed stacks (bench/profile.sh) per thread: where the samples sit.

A collapsed file has one line per distinct stack, "frame;frame;...;leaf COUNT", the root first; with the
profiler's `threads` option the root is the thread ("[dat-perf-client tid=123]"). For each thread whose name
starts with one of the given prefixes this prints, as Markdown:
- the share of each category (CATEGORIES, by the leaf frame: where the CPU really was), and
- the frames with the most self samples, and the jDAT frames (dat.provider, dat.api, dat.spi) with the most
  inclusive samples: what each data-path call costs with everything it calls.

Usage: profile.py [--threads PREFIX,...] [--top N] [--title TEXT] [--focus FRAME] FILE
  --threads  thread name prefixes to report (default: every thread, the busiest first)
  --focus    only stacks that pass through a frame containing FRAME (a JMH benchmark method, say)
Exit status: 0, or 2 when an argument is wrong or the file holds no sample of the chosen threads.
"""
import collections
import sys

# (category, test on the leaf frame), first match wins. The leaf decides because a sampled CPU is in its leaf:
# a provider method that is on the stack while the thread yields is not where the time went.
CATEGORIES = [
    ("kernel (yield, futex, scheduler)", lambda f: f.endswith("_[k]") or f.startswith(("__GI___sched_yield",
                                                                                       "___pthread_cond",
                                                                                       "__lll_lock", "futex"))),
    ("waiting for a completion (poll loop)", lambda f: f.startswith(("dat/cli/PerfEngine$Poller",
                                                                    "dat/bench/Spin"))
     or f in ("java/lang/Thread.yield", "java/lang/Thread.yield0", "java/lang/Thread.onSpinWait")),
    ("locks (ReentrantLock, AQS)", lambda f: f.startswith("java/util/concurrent/locks/")),
    ("atomics and fences (VarHandle)", lambda f: f.startswith(("java/lang/invoke/VarHandle",
                                                               "jdk/internal/misc/Unsafe.compareAndSet",
                                                               "jdk/internal/misc/Unsafe.getAndAdd"))),
    ("memory copy", lambda f: "arraycopy" in f or "copyMemory" in f or f.startswith(
        ("java/lang/foreign/MemorySegment.copy", "jdk/internal/foreign/SegmentBulkOperations"))),
    ("provider (dat.provider.*)", lambda f: f.startswith("dat/provider/")),
    ("DAT API and SPI (dat.api, dat.spi)", lambda f: f.startswith(("dat/api/", "dat/spi/"))),
    ("measuring tool (dat perf, JMH)", lambda f: f.startswith(("dat/cli/", "dat/bench/", "org/openjdk/jmh/"))),
    ("other JDK", lambda f: f.startswith(("java/", "jdk/", "sun/"))),
]
OTHER = "other (JVM runtime, JIT, unknown)"
# The frames whose inclusive samples the report lists.
JDAT_FRAMES = ("dat/provider/", "dat/api/", "dat/spi/")


def category(leaf):
    """The category of a leaf frame."""
    for name, test in CATEGORIES:
        if test(leaf):
            return name
    return OTHER


def thread_name(root):
    """The thread of a root frame "[name tid=N]", or the frame itself when it is not a thread frame."""
    if root.startswith("[") and root.endswith("]"):
        return root[1:-1].rsplit(" tid=", 1)[0]
    return root


def read(lines, focus=None):
    """Parses collapsed lines into {thread: [(frames, count)]}; lines without a count are skipped."""
    threads = collections.defaultdict(list)
    for line in lines:
        line = line.rstrip("\n")
        stack, sep, count = line.rpartition(" ")
        if not sep or not count.isdigit() or not stack:
            continue
        frames = stack.split(";")
        if focus is not None and not any(focus in f for f in frames[1:]):
            continue
        threads[thread_name(frames[0])].append((frames[1:], int(count)))
    return threads


def summarise(stacks, top):
    """(total, [(category, samples)], [(frame, self)], [(jDAT frame, inclusive)]) of one thread's stacks."""
    total = 0
    categories = collections.Counter()
    self_samples = collections.Counter()
    inclusive = collections.Counter()
    for frames, count in stacks:
        total += count
        leaf = frames[-1] if frames else "(no frame)"
        categories[category(leaf)] += count
        self_samples[leaf] += count
        for frame in dict.fromkeys(frames):  # once per stack, in stack order (ties list the caller first)
            if frame.startswith(JDAT_FRAMES):
                inclusive[frame] += count
    return total, categories.most_common(), self_samples.most_common(top), inclusive.most_common(top)


def pct(part, whole):
    return f"{100.0 * part / whole:.1f}%"


def report(threads, prefixes, top, title):
    """The Markdown report; raises ValueError when no chosen thread has a sample."""
    chosen = [t for t in threads if not prefixes or any(t.startswith(p) for p in prefixes)]
    chosen.sort(key=lambda t: -sum(c for _, c in threads[t]))
    if not chosen:
        raise ValueError("no samples of the threads " + (", ".join(prefixes) if prefixes else "(any)"))
    out = [f"## {title}", ""]
    for t in chosen:
        total, categories, self_top, incl_top = summarise(threads[t], top)
        out += [f"### {t}: {total} samples", "", "| where the CPU was (leaf frame) | share |", "|---|---|"]
        out += [f"| {name} | {pct(n, total)} |" for name, n in categories]
        out += ["", "| self | frame |", "|---|---|"]
        out += [f"| {pct(n, total)} | `{f}` |" for f, n in self_top]
        out += ["", "| inclusive | jDAT frame |", "|---|---|"]
        out += [f"| {pct(n, total)} | `{f}` |" for f, n in incl_top]
        out.append("")
    return "\n".join(out)


def main(argv):
    prefixes = []
    top = 15
    title = None
    focus = None
    args = list(argv)
    try:
        while args and args[0].startswith("--"):
            option = args.pop(0)
            if option == "--threads":
                prefixes = [p for p in args.pop(0).split(",") if p]
            elif option == "--top":
                top = int(args.pop(0))
                if top < 1:
                    raise ValueError("--top takes a positive number")
            elif option == "--title":
                title = args.pop(0)
            elif option == "--focus":
                focus = args.pop(0)
            else:
                raise ValueError(f"unknown option {option}")
        if len(args) != 1:
            raise ValueError("expected one collapsed-stacks FILE")
        with open(args[0], encoding="utf-8") as f:
            threads = read(f, focus)
        print(report(threads, prefixes, top, title or args[0]))
        return 0
    except (ValueError, IndexError, OSError) as e:
        print(f"profile.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
