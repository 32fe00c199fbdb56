#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs a command and pins named threads of it (and of its descendants) to CPUs.

Java has no thread affinity API, and `dat perf` names its two workers (dat-perf-client, dat-perf-responder), so
bench/compare.sh pins them from outside: this helper starts the command, watches the process tree's threads
(/proc/PID/task/TID/comm, which the JVM sets from Thread names, cut to 15 characters) and calls
sched_setaffinity on each thread whose name starts with a given prefix, once, as soon as it appears. A thread
that appears after its size's warm-up has begun still runs pinned for every timed iteration: dat perf starts its
workers before the first warm-up iteration and this helper polls every millisecond.

Usage: pinthreads.py [--pin PREFIX=CPU ...] [--report FILE] -- COMMAND [ARG...]
Exit status: the command's; 2 when the helper's own arguments are wrong. The report file lists what was pinned
(or that a named thread never appeared), so a run says whether it really ran pinned.
"""
import os
import subprocess
import sys
import time


def parse_pins(specs):
    """Parses PREFIX=CPU specs into a list of (prefix, cpu); raises ValueError naming the bad spec."""
    pins = []
    for spec in specs:
        prefix, sep, cpu = spec.partition("=")
        if not sep or not prefix or not cpu.isdigit():
            raise ValueError(f"--pin takes PREFIX=CPU (e.g. dat-perf-client=0), not '{spec}'")
        pins.append((prefix, int(cpu)))
    return pins


def descendants(root):
    """The pids of root and of every process below it, from the parent pid field of /proc/PID/stat."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces: the fields after the last ')' are fixed.
        fields = stat[stat.rfind(")") + 2:].split()
        children.setdefault(int(fields[1]), []).append(int(entry))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def threads(pid):
    """(tid, name) of each thread of pid; empty when the process is gone."""
    result = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return result
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                result.append((int(tid), f.read().strip()))
        except OSError:
            continue
    return result


def main(argv):
    pins_spec, report, command = [], None, None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            command = argv[i + 1:]
            break
        if arg == "--pin" and i + 1 < len(argv):
            pins_spec.append(argv[i + 1])
            i += 2
            continue
        if arg == "--report" and i + 1 < len(argv):
            report = argv[i + 1]
            i += 2
            continue
        print(f"pinthreads: unknown argument '{arg}'", file=sys.stderr)
        return 2
    if not command:
        print("usage: pinthreads.py [--pin PREFIX=CPU ...] [--report FILE] -- COMMAND [ARG...]", file=sys.stderr)
        return 2
    try:
        pins = parse_pins(pins_spec)
    except ValueError as e:
        print(f"pinthreads: {e}", file=sys.stderr)
        return 2

    proc = subprocess.Popen(command)
    pinned = {}
    lines = []
    while proc.poll() is None:
        if len(pinned) < len(pins):
            for pid in descendants(proc.pid):
                for tid, name in threads(pid):
                    for prefix, cpu in pins:
                        if prefix not in pinned and name.startswith(prefix):
                            try:
                                os.sched_setaffinity(tid, {cpu})
                                pinned[prefix] = tid
                                lines.append(f"pinned {name} (tid {tid}) to CPU {cpu}")
                            except OSError as e:
                                lines.append(f"could not pin {name} (tid {tid}) to CPU {cpu}: {e}")
                                pinned[prefix] = None
        time.sleep(0.001)
    for prefix, cpu in pins:
        if prefix not in pinned:
            lines.append(f"no thread named {prefix}* appeared: not pinned")
    if report:
        with open(report, "w") as f:
            f.write("\n".join(lines) + "\n")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
