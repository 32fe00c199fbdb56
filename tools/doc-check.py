#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the commands the docs show, as written, on this checkout: the docs as a contract.

A fenced block in a Markdown file is checked when the line before its fence is a marker:

    <!-- check: NAME [cwd=root] [exits=0,1] -->

A block whose lines start with "$ " is a transcript: each such line is a command (a line ending in a backslash goes
on with the next), the other lines are its sample output and are not compared. Any other block is a script, run
whole. Either way bash runs it line by line, the way a reader pastes it into a fresh shell on a fresh machine:
JAVA_HOME unset and the default java whatever the machine has (older than 25 here), HOME a scratch directory in which
~/jdat is this checkout and ~/.m2 the user's Maven repository, the working directory an empty scratch directory
(cwd=root: the checkout). Each command must exit with a code from exits= (default 0; e.g. 1 for `dat`'s "the
answer is no"); the block stops at the first that does not. A pipeline's status is its last command's, as in an
interactive shell.

    tools/doc-check.py [--list] [--only NAME[,NAME...]] [FILE.md ...]      (default: docs/tck.md, README.md, docs/*.md)

Prints DOC PASS|FAIL per block and a closing "N passed, M failed"; exits 1 when a block failed, 2 on bad usage.
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^\s*<!--\s*check:\s*(\S+)((?:\s+\w+=\S+)*)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)")


class Block:
    def __init__(self, doc, line, name, options, text):
        self.doc = doc
        self.line = line
        self.name = name
        self.options = options
        self.text = text

    def script(self):
        lines = self.text.splitlines()
        if not any(line.startswith("$ ") for line in lines):
            return self.text
        commands, current = [], None
        for line in lines:
            if current is not None:
                current.append(line)
            elif line.startswith("$ "):
                current = [line[2:]]
            if current is not None and not line.endswith("\\"):
                commands.append("\n".join(current))
                current = None
        return "\n".join(commands) + "\n"

    def exits(self):
        return {int(code) for code in self.options.get("exits", "0").split(",")}


def blocks(doc):
    """{@return the marked blocks of doc} Raises ValueError for a marker without a block."""
    found = []
    with open(doc, encoding="utf-8") as f:
        lines = f.read().splitlines()
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        name = m.group(1)
        options = dict(opt.split("=", 1) for opt in m.group(2).split())
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if not fence:
            raise ValueError(f"{doc}:{i + 1}: marker '{name}' is not followed by a fenced block")
        end = i + 2
        while end < len(lines) and not lines[end].strip().startswith(fence.group(2)):
            end += 1
        if end == len(lines):
            raise ValueError(f"{doc}:{i + 2}: the block of '{name}' is not closed")
        indent = len(fence.group(1))
        text = "\n".join(line[indent:] for line in lines[i + 2:end]) + "\n"
        found.append(Block(doc, i + 1, name, options, text))
        i = end + 1
    return found


def scratch_home(base):
    home = os.path.join(base, "home")
    os.makedirs(home)
    os.symlink(ROOT, os.path.join(home, "jdat"))
    m2 = os.path.join(os.path.expanduser("~"), ".m2")
    if os.path.isdir(m2):
        os.symlink(m2, os.path.join(home, ".m2"))
    return home


def run(block, timeout):
    base = tempfile.mkdtemp(prefix="doc-check-")
    try:
        env = dict(os.environ)
        env.pop("JAVA_HOME", None)
        env["HOME"] = scratch_home(base)
        work = os.path.join(base, "work")
        os.makedirs(work)
        cwd = ROOT if block.options.get("cwd") == "root" else work
        allowed = block.exits()
        # Each command's status is checked against exits=; set -e would stop at a documented exit 1.
        wrapped = ["set -u"]
        for command in split_commands(block.script()):
            wrapped.append(command)
            wrapped.append(f"s=$?; case $s in {'|'.join(str(c) for c in sorted(allowed))}) ;; *) "
                           f"echo \"doc-check: exit $s from: \"{shlex.quote(first_line(command))} >&2; exit 1;; esac")
        started = time.monotonic()
        p = subprocess.run(["bash", "-c", "\n".join(wrapped)], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout,
                           errors="replace")
        return p.returncode, p.stdout, time.monotonic() - started
    except subprocess.TimeoutExpired as e:
        out = e.stdout if isinstance(e.stdout, str) else (e.stdout or b"").decode("utf-8", "replace")
        return -1, out + f"\ndoc-check: did not finish within {timeout} s\n", timeout
    finally:
        shutil.rmtree(base, ignore_errors=True)


def first_line(command):
    return command.splitlines()[0] if command else command


def split_commands(script):
    """The script's commands, one per logical line: continuation lines and comments kept with their command."""
    commands, current = [], []
    for line in script.splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current.append(line)
        if not line.rstrip().endswith("\\"):
            commands.append("\n".join(current))
            current = []
    if current:
        commands.append("\n".join(current))
    return commands


def main(argv):
    parser = argparse.ArgumentParser(description="Run the commands the docs show, as written.")
    parser.add_argument("files", nargs="*")
    parser.add_argument("--list", action="store_true", help="list the checked blocks and exit")
    parser.add_argument("--only", help="comma-separated block names")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per block (default 1800)")
    args = parser.parse_args(argv)
    # The vendor's manual first: its steps install jDAT into ~/.m2, which the README's application build needs.
    first = [os.path.join(ROOT, "docs", "tck.md"), os.path.join(ROOT, "README.md")]
    files = args.files or first + [f for f in sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) if f not in first]
    try:
        found = [b for f in files for b in blocks(f)]
    except (OSError, ValueError) as e:
        print(f"doc-check: {e}", file=sys.stderr)
        return 2
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - {b.name for b in found})
        if unknown:
            print(f"doc-check: no checked block named {', '.join(unknown)}; there are "
                  f"{', '.join(b.name for b in found)}", file=sys.stderr)
            return 2
        found = [b for b in found if b.name in wanted]
    if args.list:
        for b in found:
            print(f"{b.name}\t{os.path.relpath(b.doc, ROOT)}:{b.line}")
        return 0
    passed = failed = 0
    for b in found:
        where = f"{os.path.relpath(b.doc, ROOT)}:{b.line}"
        code, out, seconds = run(b, args.timeout)
        if code == 0:
            passed += 1
            print(f"DOC PASS {b.name} ({where}, {seconds:.0f} s)", flush=True)
        else:
            failed += 1
            tail = "\n".join(out.splitlines()[-40:])
            print(f"DOC FAIL {b.name} ({where}, exit {code})\n{tail}", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
