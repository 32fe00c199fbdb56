#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Replays the mutants of dat.tck/src/test/resources/mutants.md against the kit and prints which it kills.

Each entry of the list is a small mistake planted in loopback (or in the dat.spi shell loopback runs) as exact text
to find, once, and what to put in its place. For each mutant this script copies the files the entry changes to a
scratch directory (the working tree is never written), applies the pairs there, compiles only those files against
the built modules (javac --patch-module) and runs the whole kit strict against loopback0 with the patched classes in
front (`dat tck` from the module path, with a short campaign and a 2 s event timeout). A
mutant is KILLED when a rule fails (the rules are printed) or the run hangs past --timeout, SURVIVED when every
rule passes. First it runs the kit once without a mutant: a kit that fails on loopback as it is measures nothing.

    tools/mutants.py                 # all of them (about 24 s each on 2 cores)
    tools/mutants.py --only 8,M23    # some (M08, M23)
    tools/mutants.py --list          # what the list holds, and whether each entry still applies
    tools/mutants.py --check         # only that every entry applies and has its row in the Results table

The build (./mvnw -pl dat.tck -am compile, and the module path) comes first unless --no-build. Exit codes: 0 when
every mutant ran and each one the Results table marks killed was killed; 1 when one of those survived, or an entry
no longer applies (its text is gone, occurs twice, or no longer compiles: update the list), or a run ended in
neither a verdict nor a hang; 2 when the kit fails without a mutant, the build fails, or the arguments are wrong.
A mutant the table marks survived that is now killed is reported (update the table) but fails nothing.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join("dat.tck", "src", "test", "resources", "mutants.md")
# Where a file named without a directory lives (the list's own convention).
LOOPBACK = "dat.provider.loopback/src/main/java/dat/provider/loopback/internal/"
MAIN = "/src/main/java/"
CLASSPATH_FILE = "target/mutants.classpath"


class NotApplicable(Exception):
    """An entry whose text no longer occurs exactly once in its file."""


@dataclass
class Mutant:
    """One entry of the list: its id (M01), title, and (file, find, replace) triples in order."""

    id: str
    title: str
    pairs: list = field(default_factory=list)
    expected: str = None  # "killed" or "survived", from the Results table's "kit after" column

    def files(self):
        return sorted({f for f, _, _ in self.pairs})


def source_path(name):
    """The repository-relative path of a file as an entry names it."""
    return name if "/" in name else LOOPBACK + name


def module_of(path):
    """(module name, module source root) of a repository-relative main source path: folder = JPMS module."""
    if MAIN not in path:
        raise ValueError("not a main source file: " + path)
    module_dir = path.split(MAIN, 1)[0]
    return os.path.basename(module_dir), module_dir + MAIN


def parse(text):
    """The mutants of the list, in order, with their expected verdicts; ValueError for a malformed entry."""
    mutants = []
    current = None
    file_name = None
    lines = text.split("\n")
    i = 0
    pending_find = None
    while i < len(lines):
        line = lines[i]
        heading = re.match(r"^### (M\d+) (.*)$", line)
        if heading:
            if pending_find is not None:
                raise ValueError(current.id + ": a find block without its replace block")
            current = Mutant(heading.group(1), heading.group(2).strip())
            mutants.append(current)
            file_name = None
        elif line.startswith("## "):
            if pending_find is not None:
                raise ValueError(current.id + ": a find block without its replace block")
            current = None
        elif current is not None and re.match(r"^- file: `[^`]+`$", line):
            file_name = source_path(line.split("`")[1])
        elif current is not None and line in ("```find", "```replace"):
            end = lines.index("```", i + 1) if "```" in lines[i + 1:] else -1
            if end < 0:
                raise ValueError(current.id + ": unterminated " + line[3:] + " block")
            block = "\n".join(lines[i + 1:end]) + "\n"
            if file_name is None:
                raise ValueError(current.id + ": a " + line[3:] + " block before its - file: line")
            if line == "```find":
                if pending_find is not None:
                    raise ValueError(current.id + ": two find blocks in a row")
                pending_find = block
            else:
                if pending_find is None:
                    raise ValueError(current.id + ": a replace block without its find block")
                current.pairs.append((file_name, pending_find, block))
                pending_find = None
            i = end
        i += 1
    if pending_find is not None:
        raise ValueError(current.id + ": a find block without its replace block")
    for m in mutants:
        if not m.pairs:
            raise ValueError(m.id + ": no find/replace pair")
    seen = set()
    for m in mutants:
        if m.id in seen:
            raise ValueError(m.id + ": listed twice")
        seen.add(m.id)
    expected = results(text)
    for m in mutants:
        m.expected = expected.get(m.id)
    return mutants


def results(text):
    """{id: "killed" or "survived"} from the Results table's "kit after" column."""
    column = None
    verdicts = {}
    for line in text.split("\n"):
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == "mutant":
            column = next((k for k, c in enumerate(cells) if c.startswith("kit after")), None)
        elif column is not None and re.match(r"^M\d+$", cells[0]) and column < len(cells):
            verdicts[cells[0]] = cells[column]
    return verdicts


def apply(mutant, read):
    """{path: mutated text} for the files the mutant changes; read(path) gives a file's current text.

    Raises NotApplicable when a find text does not occur exactly once (counted after the pairs before it)."""
    texts = {}
    for path, find, replace in mutant.pairs:
        if path not in texts:
            try:
                texts[path] = read(path)
            except FileNotFoundError:
                raise NotApplicable(f"{mutant.id}: {path} does not exist") from None
        count = texts[path].count(find)
        if count != 1:
            first = find.strip().split("\n")[0].strip()
            where = "is gone from" if count == 0 else f"occurs {count} times in"
            raise NotApplicable(f"{mutant.id}: the text to find ({first} ...) {where} {path}")
        texts[path] = texts[path].replace(find, replace)
    return texts


def reader(root):
    def read(path):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            return f.read()
    return read


def check(mutants):
    """Problems of the list that need no build: entries without a verdict in the Results table, and vice versa."""
    problems = [f"{m.id}: no row in the Results table" for m in mutants if m.expected is None]
    problems += [f"{m.id}: the Results table says {m.expected!r}, not killed or survived" for m in mutants
                 if m.expected not in (None, "killed", "survived")]
    return problems


def rule_name(test):
    """A rule as the Results table writes it: no required_ prefix, opt: for optional_."""
    if test.startswith("required_"):
        return test[len("required_"):]
    if test.startswith("optional_"):
        return "opt:" + test[len("optional_"):]
    return test


@dataclass
class Verdict:
    """What one run of the kit found: killed or not, the failed rules, hung, seconds, and the output's tail."""

    killed: bool
    rules: list
    hung: bool
    seconds: float
    error: str = None


def verdict(exit_code, output, seconds, hung=False):
    """A run's verdict: exit 0 survived, exit 1 with FAILED lines killed, a hang killed, anything else an error."""
    rules = sorted({rule_name(m.group(1))
                    for m in re.finditer(r"^FAILED (?:\(optional\) )?(\S+?):", output, re.MULTILINE)})
    if hung:
        return Verdict(True, rules, True, seconds)
    if exit_code == 0 and not rules:
        return Verdict(False, [], False, seconds)
    if exit_code == 1 and rules:
        return Verdict(True, rules, False, seconds)
    tail = "\n".join(output.rstrip().split("\n")[-15:])
    return Verdict(False, rules, False, seconds, f"exit {exit_code} without a verdict:\n{tail}")


def describe(v):
    if v.error:
        return "ERROR"
    if not v.killed:
        return "SURVIVED"
    if v.hung:
        return "KILLED (hung)" + (" " + ", ".join(v.rules) if v.rules else "")
    shown = ", ".join(v.rules[:3]) + (f" (+{len(v.rules) - 3})" if len(v.rules) > 3 else "")
    return "KILLED " + shown


class Kit:
    """The built modules and a JDK 25: compiles a mutant's files and runs the kit with them patched in."""

    def __init__(self, root, java_home, timeout, campaign_seconds, event_timeout_ms):
        self.root = root
        self.java_home = java_home
        self.timeout = timeout
        self.campaign_seconds = campaign_seconds
        self.event_timeout_ms = event_timeout_ms
        with open(os.path.join(root, "dat.cli", CLASSPATH_FILE), encoding="utf-8") as f:
            deps = f.read().strip()
        self.module_path = os.pathsep.join([os.path.join(root, "dat.cli", "target", "classes"), deps])

    def tool(self, name):
        return os.path.join(self.java_home, "bin", name)

    def compile(self, texts, scratch):
        """Writes the mutated files under scratch/src/<module>, compiles them to scratch/out/<module>; returns
        {module: classes dir}, or raises NotApplicable with javac's output when they do not compile."""
        by_module = {}
        for path, text in texts.items():
            module, source_root = module_of(path)
            target = os.path.join(scratch, "src", module, path[len(source_root):])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
            by_module.setdefault(module, []).append(target)
        patches = {}
        for module, files in sorted(by_module.items()):
            out = os.path.join(scratch, "out", module)
            os.makedirs(out)
            command = [self.tool("javac"), "--release", "25", "-nowarn", "-implicit:none", "-d", out,
                       "--module-path", self.module_path,
                       "--patch-module", f"{module}={os.path.join(scratch, 'src', module)}", *files]
            p = subprocess.run(command, capture_output=True, text=True)
            if p.returncode != 0:
                raise NotApplicable(f"does not compile:\n{p.stdout}{p.stderr}".rstrip())
            patches[module] = out
        return patches

    def run(self, patches):
        """Runs the kit strict on loopback0 with the patched classes; returns its Verdict."""
        command = [self.tool("java"), "--module-path", self.module_path]
        for module, out in sorted(patches.items()):
            command += ["--patch-module", f"{module}={out}"]
        reports = tempfile.mkdtemp(prefix="mutants-reports-")
        # `dat tck` itself, as a vendor runs the kit (dat.cli on the module path, loopback added beside it).
        command += ["--add-modules", "dat.provider.loopback", "--enable-native-access=dat.provider.loopback",
                    f"-Ddat.tck.event.timeout.ms={self.event_timeout_ms}",
                    "-m", "dat.cli/dat.cli.DatCommand", "tck", "--ia", "loopback0", "--strict",
                    "--random-seconds", str(self.campaign_seconds),
                    "--concurrent-seconds", str(min(self.campaign_seconds, 1.0)), "--reports", reports]
        started = time.monotonic()
        with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
            p = subprocess.Popen(command, cwd=self.root, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
            try:
                code = p.wait(timeout=self.timeout)
                hung = False
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                code = p.wait()
                hung = True
            log.seek(0)
            output = log.read()
        shutil.rmtree(reports, ignore_errors=True)
        return verdict(code, output, time.monotonic() - started, hung)


def jdk25_home(root):
    p = subprocess.run([os.path.join(root, "tools", "jdk25-home.sh")], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("mutants: no JDK 25: " + p.stderr.strip())
    return p.stdout.strip()


def build(root, java_home):
    """Compiles `dat` and what it needs (incremental), and writes dat.cli's module path for the runs."""
    env = dict(os.environ, JAVA_HOME=java_home)
    command = ["./mvnw", "-B", "-q", "--no-transfer-progress", "-pl", "dat.cli", "-am", "compile",
               "dependency:build-classpath", f"-Dmdep.outputFile={CLASSPATH_FILE}"]
    print("mutants: " + " ".join(command), flush=True)
    p = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stdout + p.stderr, file=sys.stderr)
        sys.exit(2)


def select(mutants, only):
    """The mutants --only names (M08 or 8, comma-separated), in the list's order; ValueError for an unknown one."""
    if not only:
        return mutants
    wanted = []
    for token in only.split(","):
        token = token.strip()
        if not token:
            continue
        digits = token[1:] if token[:1] in ("M", "m") else token
        if not digits.isdigit():
            raise ValueError("not a mutant: " + token)
        wanted.append(f"M{int(digits):02d}")
    known = {m.id for m in mutants}
    unknown = [w for w in wanted if w not in known]
    if unknown:
        raise ValueError("not in the list: " + ", ".join(unknown))
    return [m for m in mutants if m.id in wanted]


def main(argv=None):
    parser = argparse.ArgumentParser(description="Replays the mutants of " + LIST + " against the kit on loopback.")
    parser.add_argument("--list", action="store_true", help="list the mutants and whether each still applies")
    parser.add_argument("--check", action="store_true",
                        help="only check that every entry applies and has a verdict in the Results table")
    parser.add_argument("--only", help="run only these mutants, comma-separated: M08,M23 or 8,23")
    parser.add_argument("--no-build", action="store_true", help="use the classes and module path already built")
    parser.add_argument("--no-baseline", action="store_true", help="skip the run of the kit without a mutant")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds after which a run counts as hung, and the mutant as killed (default 300)")
    parser.add_argument("--campaign-seconds", type=float, default=2,
                        help="seconds of the random campaign per run (default 2; the concurrent one gets at most 1)")
    parser.add_argument("--event-timeout-ms", type=int, default=2000,
                        help="how long a rule waits for an event (default 2000)")
    parser.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    with open(os.path.join(args.root, LIST), encoding="utf-8") as f:
        try:
            mutants = parse(f.read())
        except ValueError as e:
            print(f"mutants: {LIST}: {e}", file=sys.stderr)
            return 2
    try:
        chosen = select(mutants, args.only)
    except ValueError as e:
        print("mutants: --only: " + str(e), file=sys.stderr)
        return 2
    read = reader(args.root)

    if args.list or args.check:
        problems = check(chosen)
        for m in chosen:
            try:
                apply(m, read)
                state = ""
            except NotApplicable as e:
                problems.append(str(e))
                state = "  (no longer applies)"
            if args.list:
                files = ", ".join(os.path.basename(f) for f in m.files())
                print(f"{m.id}  {m.expected or '?':8}  {files:24}  {m.title}{state}")
        for p in problems:
            print("mutants: " + p, file=sys.stderr)
        if args.check and not problems:
            print(f"mutants: all {len(chosen)} entries of {LIST} apply")
        return 1 if problems else 0

    java_home = jdk25_home(args.root)
    if not args.no_build:
        build(args.root, java_home)
    kit = Kit(args.root, java_home, args.timeout, args.campaign_seconds, args.event_timeout_ms)
    started = time.monotonic()
    if not args.no_baseline:
        base = kit.run({})
        if base.killed or base.error:
            print("mutants: the kit fails on loopback without a mutant, so it measures nothing: "
                  + (base.error or describe(base)), file=sys.stderr)
            return 2
        print(f"baseline  every rule passes ({base.seconds:.1f} s)", flush=True)

    killed, survived, failing, notes = 0, 0, [], []
    for m in chosen:
        scratch = tempfile.mkdtemp(prefix=f"jdat-mutant-{m.id}-")
        began = time.monotonic()
        try:
            try:
                v = kit.run(kit.compile(apply(m, read), scratch))
            except NotApplicable as e:
                text = str(e)
                print(f"{m.id}  STALE     {text if text.startswith(m.id) else m.id + ': ' + text}", flush=True)
                failing.append(f"{m.id} no longer applies: update its entry in {LIST}")
                continue
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        line = f"{m.id}  {describe(v):9} ({time.monotonic() - began:.1f} s)"
        if v.error:
            failing.append(f"{m.id}: the run ended without a verdict")
            line += "\n" + v.error
        elif v.killed:
            killed += 1
            if m.expected == "survived":
                notes.append(f"{m.id} is killed now; the Results table says survived: update it")
        else:
            survived += 1
            if m.expected != "survived":
                failing.append(f"{m.id} survived; the Results table says {m.expected or 'nothing'}")
                line += "   <- the table says " + (m.expected or "nothing")
        print(line, flush=True)

    print(f"{killed} killed, {survived} survived ({len(chosen)} mutants, {time.monotonic() - started:.0f} s)")
    for n in notes:
        print("note: " + n)
    for f in failing:
        print("FAILED " + f, file=sys.stderr)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
