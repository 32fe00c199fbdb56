#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes docs/dat-calls.md: every DAT call, the API method that implements it, each provider's file, its TCK rules.

Read from the sources, so it cannot drift: the API method is the one whose Javadoc opens with {@code dat_...}; a
provider's file is its class implementing that API type (directly, or through a dat.spi shell base it extends), or
the class that class hands the method to; where the shell base implements the method, the base's file and the
provider's file of each impl* hook the method calls; a rule belongs to the longest call its name starts with
(required_ep_post_send_... to dat_ep_post_send). Run from the
repository root after changing any of them: python3 tools/gen-dat-calls.py. An argument names another output file
(repo-checks' GeneratorDriftTest writes there and compares).
"""
import os
import re
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "docs/dat-calls.md"
# The consumer's API, the provider SPI's entry point and the registry (dat_ia_open, dat_registry_*).
API = ["dat.api/src/main/java/dat/api", "dat.api/src/main/java/dat/spi/DatProvider.java",
       "dat.registry/src/main/java/dat/registry/DatRegistry.java"]
PROVIDERS = [("loopback", "dat.provider.loopback/src/main/java"), ("verbs", "dat.provider.verbs/src/main/java")]
# The provider shell: the Abstract* bases a provider's classes extend.
SPI = "dat.api/src/main/java/dat/spi"
TCK = "dat.tck/src/main/java"

# A Javadoc block, then the declaration it documents (annotations and modifiers skipped).
METHOD = re.compile(r"/\*\*(?P<doc>(?:(?!\*/).)*)\*/\s*(?:@\w+(?:\([^)]*\))?\s*)*"
                    r"(?:(?:public|static|default|abstract|final)\s+)*"
                    r"(?:<[^>]+>\s*)?[\w.<>\[\], ?]+\s+(?P<name>\w+)\s*\(", re.S)
# A first sentence that opens with the call: {@code dat_ep_post_send}: ... (dat_*_free is DatHandle.close).
CALL = re.compile(r"^\s*\*?\s*\{@code (dat_[a-z0-9_*]+)\}")


def java_files(root):
    if root.endswith(".java"):
        yield root
        return
    for dirpath, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            if name.endswith(".java"):
                yield os.path.join(dirpath, name)


def api_methods():
    """{call: ["DatEp.postSend", ...]} from the first dat_ call each method's Javadoc names in its first sentence."""
    calls = {}
    for path in (p for root in API for p in java_files(root)):
        text = open(path, encoding="utf-8").read()
        if not re.search(r"\b(interface|class)\s+\w+", text):
            continue
        owner = os.path.basename(path)[:-5]
        for m in METHOD.finditer(text):
            first = re.split(r"\.\s|\n\s*\*\s*\n|@param|@return", m.group("doc"), maxsplit=1)[0]
            found = CALL.search(first)
            if found:
                calls.setdefault(found.group(1), []).append(owner + "." + m.group("name"))
    return calls


def shell_bases():
    """{"AbstractPz": (path, ["DatPz"])}: the dat.spi bases and the API types each implements."""
    bases = {}
    for path in java_files(SPI):
        m = re.search(r"abstract class (Abstract\w+)\b[^{]*?implements\s+([\w\s,<>]+)\{",
                      open(path, encoding="utf-8").read(), re.S)
        if m:
            bases[m.group(1)] = (path, re.findall(r"\bDat\w+", m.group(2)))
    return bases


def provider_files(root, bases):
    """{"DatEp": (".../LoopbackEp.java", ".../AbstractEp.java" or None)}: the class implementing each API type, and
    the shell base it extends."""
    files = {}
    for path in java_files(root):
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"class\s+\w+\s+(?:extends\s+(\w+)(?:<[^{]*?>)?\s*)?(?:implements\s+([^{]+))?\{", text):
            base = bases.get(m.group(1))
            apis = re.findall(r"\bDat\w+", m.group(2) or "") + (base[1] if base else [])
            for api in apis:
                files.setdefault(api, (path, base[0] if base else None))
            if base:
                # Every handle's close (dat_*_free) runs through dat.spi's AbstractHandle.
                files.setdefault("DatHandle", (os.path.join(SPI, "AbstractHandle.java"), None))
    return files


def declares(path, method):
    """Whether the file declares (not only calls) the method."""
    return re.search(r"^\s+(?:@\w+\s+)*(?:(?:public|protected|private|static|final|synchronized)\s+)*"
                     r"[\w<>\[\], ?.]+\s+%s\s*\([^;{]*\)\s*\{" % method,
                     open(path, encoding="utf-8").read(), re.M) is not None


def delegate(path, method, any_name=False):
    """The file that does a provider method's work: its own, or, when its body only hands the call to a field
    (`return data.postSend(...)`), the file of that field's class beside it (an object split by job). A hook may hand
    it to a method of another name (`implModify` to `control.modify`)."""
    text = open(path, encoding="utf-8").read()
    call = re.search(r"\b%s\s*\([^)]*\)\s*\{\s*(?:return\s+)?(\w+)\.%s\s*\("
                     % (method, r"\w+" if any_name else method), text)
    field = call and re.search(r"\b(\w+)\s+%s\s*[;=]" % call.group(1), text)
    target = field and os.path.join(os.path.dirname(path), field.group(1) + ".java")
    return target if target and os.path.exists(target) else path


def bodies(text, method):
    """The bodies of every declaration of the method (its overloads) in a class's text."""
    return [m.group(1) for m in re.finditer(r"\s%s\s*\([^;{]*\)\s*\{(.*?)\n    \}" % method, text, re.S)]


def locate(path, base, method):
    """The files of a provider method: the provider's own, or the shell base's and those of the impl* hooks its
    final method calls (itself or through the base's private helpers)."""
    if base is None or declares(path, method) or not declares(base, method):
        return {delegate(path, method)}
    text = open(base, encoding="utf-8").read()
    code = bodies(text, method)
    helpers = re.findall(r"private [\w<>, ]+ (\w+)\s*\(", text)
    for helper in sorted({h for b in code for h in re.findall(r"\b(\w+)\s*\(", b) if h in helpers}):
        code += bodies(text, helper)
    found = {base}
    for hook in sorted({h for b in code for h in re.findall(r"\b(impl\w+)\s*\(", b)}):
        if declares(path, hook):
            found.add(delegate(path, hook, any_name=True))
    return found


def tck_rules():
    """[(rule, file)] for every rule method of the kit."""
    rules = []
    for path in java_files(TCK):
        for name in sorted(set(re.findall(r"\bvoid\s+((?:required|optional)_[A-Za-z0-9_]+)\s*\(",
                                          open(path, encoding="utf-8").read()))):
            rules.append((name, path))
    return rules


def link(path):
    return "[%s](../%s)" % (os.path.basename(path), path)


def main():
    calls = api_methods()
    bases = shell_bases()
    impl = {name: provider_files(root, bases) for name, root in PROVIDERS}
    by_call = {}
    known = sorted(calls, key=len, reverse=True)
    for rule, path in tck_rules():
        stem = rule.split("_", 1)[1]
        for call in known:
            if stem.startswith(call[len("dat_"):] + "_"):
                by_call.setdefault(call, []).append((rule, path))
                break
        else:
            if re.match(r"[a-z]+_free_", stem):
                by_call.setdefault("dat_*_free", []).append((rule, path))
    lines = [
        "<!-- Generated by tools/gen-dat-calls.py from the sources: edit them, then run it. -->",
        "# Where each DAT call lives",
        "",
        "Every DAT 1.2 call the API implements: the Java method (its Javadoc names the call), the file of each provider",
        "that implements it, and the TCK rules that verify it. Rule names drop the call's `dat_` prefix:",
        "`dat tck --only '*_srq_resize_*'` runs the rules of `dat_srq_resize`. A rule belongs to the call its name",
        "starts with; the campaign and a few cross-cutting rules (`dat tck --list-rules`) belong to none.",
        "",
        "| DAT call | API | loopback | verbs | TCK rules |",
        "|---|---|---|---|---|",
    ]
    for call in sorted(calls):
        methods = calls[call]
        cells = []
        for name, _ in PROVIDERS:
            found = sorted({f for t, m in (q.split(".") for q in methods) if t in impl[name]
                            for f in locate(*impl[name][t], m)})
            cells.append(", ".join(link(p) for p in found) or "-")
        rules = by_call.get(call, [])
        files = sorted({p for _, p in rules})
        rule_cell = ("%d in %s" % (len(rules), ", ".join(link(p) for p in files))) if rules else "-"
        lines.append("| `%s` | %s | %s | %s | %s |" % (call, ", ".join("`%s`" % m for m in methods),
                                                        cells[0], cells[1], rule_cell))
    os.makedirs(os.path.dirname(OUT) or ".", exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
