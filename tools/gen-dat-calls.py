#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes docs/dat-calls.md: every DAT call, the API method that implements it, each provider's file, its TCK rules.

Read from the sources, so it cannot drift: the API method is the one whose Javadoc opens with {@code dat_...}; a
provider's file is its class implementing that API type, or the file of the object that class hands the method to in a
one-line body (an EP split by job: LoopbackEp.postSend is data.postSend(...), so LoopbackEpData.java); a rule belongs
to the longest call its name starts with (required_ep_post_send_... to dat_ep_post_send). Run from the repository root
after changing any of them: python3 tools/gen-dat-calls.py. An argument names another output file (dat.api's
SourceTreeTest writes there and compares).
"""
import os
import re
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "docs/dat-calls.md"
# The consumer's API, the provider SPI's entry point and the registry (dat_ia_open, dat_registry_*).
API = ["dat.api/src/main/java/dat/api", "dat.api/src/main/java/dat/spi/DatProvider.java",
       "dat.registry/src/main/java/dat/registry/DatRegistry.java"]
PROVIDERS = [("loopback", "dat.provider.loopback/src/main/java"), ("verbs", "dat.provider.verbs/src/main/java")]
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


def provider_files(root):
    """{"DatEp": "dat.provider.../LoopbackEp.java"}: the class implementing each API type."""
    files = {}
    for path in java_files(root):
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"class\s+\w+(?:\s+extends\s+\w+)?\s+implements\s+([\w\s,<>]+)\{", text):
            for api in re.findall(r"\bDat\w+", m.group(1)):
                files.setdefault(api, path)
        if re.search(r"abstract class \w+ extends ProviderHandle\b", text):
            # Every handle's close (dat_*_free) runs through the provider's handle base, on dat.spi's ProviderHandle.
            files.setdefault("DatHandle", path)
    return files


def delegated(path, method):
    """The file of the class of the final field that path's method hands itself to in a one-line body
    (return field.method(...);), else path."""
    text = open(path, encoding="utf-8").read()
    body = re.search(r"public\s+[\w.<>\[\], ?]+\s+%s\s*\([^)]*\)\s*\{\s*(?:return\s+)?(\w+)\.%s\([^;]*\);\s*\}"
                     % (method, method), text)
    field = body and re.search(r"\bfinal\s+(\w+)\s+%s\s*[;=]" % body.group(1), text)
    target = field and os.path.join(os.path.dirname(path), field.group(1) + ".java")
    return target if target and os.path.exists(target) else path


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
    impl = {name: provider_files(root) for name, root in PROVIDERS}
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
        "that implements it, and the TCK rules that verify it (`dat tck --only '*_<call>_*'` runs them). A rule belongs",
        "to the call its name starts with; the campaign and a few cross-cutting rules (`dat tck --list-rules`) belong to",
        "none.",
        "",
        "| DAT call | API | loopback | verbs | TCK rules |",
        "|---|---|---|---|---|",
    ]
    for call in sorted(calls):
        methods = calls[call]
        types = [m.split(".")[0] for m in methods]
        cells = []
        for name, _ in PROVIDERS:
            found = sorted({delegated(impl[name][t], m.split(".")[1]) for t, m in zip(types, methods)
                            if t in impl[name]})
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
