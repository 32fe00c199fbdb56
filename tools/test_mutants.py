# SPDX-License-Identifier: Apache-2.0
"""tools/mutants.py: how it reads the mutant list, applies an entry, names the killers, and judges a run.

The runs themselves (javac and the kit) are exercised by .ci/run's sample (tools/mutants.py --only ...); these tests
need no build and no JDK.
"""
import contextlib
import importlib.util
import io
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("mutants", os.path.join(HERE, "mutants.py"))
mutants = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutants)

LIST = """# Mutants

## A section

### M01 one pair in a loopback file
- file: `LoopbackSrq.java`
```find
    int a = 1;
```
```replace
    int a = 2;
```

### M02 two pairs, the second spanning lines, in the shell
- file: `dat.api/src/main/java/dat/spi/DatArgs.java`
- a note that is not a file
```find
    x();
```
```replace
    y();
```
```find
    if (b) {
        z();
```
```replace
    if (!b) {
        z();
```

## Results

| mutant | kit before (b440a7b) | kit after | caught by (after) |
|---|---|---|---|
| M01 | survived | killed | srq_resize_x |
| M02 | killed | survived |  |
| total | 1 of 2 killed | 1 of 2 killed | |
"""


class ParseTest(unittest.TestCase):
    def test_entries_their_pairs_and_the_table_verdicts(self):
        found = mutants.parse(LIST)
        self.assertEqual(["M01", "M02"], [m.id for m in found])
        self.assertEqual("one pair in a loopback file", found[0].title)
        self.assertEqual([(mutants.LOOPBACK + "LoopbackSrq.java", "    int a = 1;\n", "    int a = 2;\n")],
                         found[0].pairs)
        self.assertEqual(2, len(found[1].pairs))
        self.assertEqual(("dat.api/src/main/java/dat/spi/DatArgs.java", "    if (b) {\n        z();\n",
                          "    if (!b) {\n        z();\n"), found[1].pairs[1])
        self.assertEqual(["killed", "survived"], [m.expected for m in found])
        self.assertEqual([], mutants.check(found))

    def test_an_entry_without_a_row_is_a_problem(self):
        found = mutants.parse(LIST.replace("| M02 | killed | survived |  |\n", ""))
        self.assertEqual(["M02: no row in the Results table"], mutants.check(found))

    def test_a_find_without_its_replace_is_malformed(self):
        broken = LIST.replace("```replace\n    int a = 2;\n```\n", "")
        with self.assertRaisesRegex(ValueError, "M01: a find block without its replace block"):
            mutants.parse(broken)

    def test_a_block_before_its_file_line_is_malformed(self):
        with self.assertRaisesRegex(ValueError, "M01: a find block before its - file: line"):
            mutants.parse(LIST.replace("- file: `LoopbackSrq.java`\n", ""))

    def test_an_id_listed_twice_is_malformed(self):
        with self.assertRaisesRegex(ValueError, "M01: listed twice"):
            mutants.parse(LIST.replace("### M02", "### M01"))

    def test_the_real_list_parses_and_every_entry_has_a_verdict(self):
        with open(os.path.join(mutants.ROOT, mutants.LIST), encoding="utf-8") as f:
            found = mutants.parse(f.read())
        self.assertGreaterEqual(len(found), 51)
        self.assertEqual([], mutants.check(found))


class ApplyTest(unittest.TestCase):
    def setUp(self):
        self.m01, self.m02 = mutants.parse(LIST)
        self.files = {
            self.m01.pairs[0][0]: "class S {\n    int a = 1;\n}\n",
            self.m02.pairs[0][0]: "class A {\n    void f() {\n    x();\n    if (b) {\n        z();\n    }\n}\n",
        }

    def read(self, path):
        if path not in self.files:
            raise FileNotFoundError(path)
        return self.files[path]

    def test_every_pair_is_applied_to_its_file(self):
        self.assertEqual({self.m01.pairs[0][0]: "class S {\n    int a = 2;\n}\n"},
                         mutants.apply(self.m01, self.read))
        texts = mutants.apply(self.m02, self.read)
        self.assertEqual("class A {\n    void f() {\n    y();\n    if (!b) {\n        z();\n    }\n}\n",
                         texts[self.m02.pairs[0][0]])

    def test_the_source_itself_is_left_alone(self):
        before = dict(self.files)
        mutants.apply(self.m02, self.read)
        self.assertEqual(before, self.files)

    def test_text_that_is_gone_no_longer_applies(self):
        self.files[self.m01.pairs[0][0]] = "class S {\n    int a = 3;\n}\n"
        with self.assertRaisesRegex(mutants.NotApplicable, r"M01: the text to find \(int a = 1; \.\.\.\) is gone"):
            mutants.apply(self.m01, self.read)

    def test_text_found_twice_no_longer_applies(self):
        self.files[self.m01.pairs[0][0]] = "    int a = 1;\n    int a = 1;\n"
        with self.assertRaisesRegex(mutants.NotApplicable, "occurs 2 times"):
            mutants.apply(self.m01, self.read)

    def test_a_missing_file_no_longer_applies(self):
        del self.files[self.m01.pairs[0][0]]
        with self.assertRaisesRegex(mutants.NotApplicable, "does not exist"):
            mutants.apply(self.m01, self.read)

    def test_every_entry_of_the_real_list_applies_to_the_sources(self):
        with open(os.path.join(mutants.ROOT, mutants.LIST), encoding="utf-8") as f:
            found = mutants.parse(f.read())
        read = mutants.reader(mutants.ROOT)
        for m in found:
            with self.subTest(m.id):
                mutants.apply(m, read)


class ModuleTest(unittest.TestCase):
    def test_the_module_is_the_folder_and_the_source_root_follows(self):
        self.assertEqual(("dat.provider.loopback", "dat.provider.loopback/src/main/java/"),
                         mutants.module_of(mutants.LOOPBACK + "Dto.java"))
        self.assertEqual(("dat.api", "dat.api/src/main/java/"),
                         mutants.module_of("dat.api/src/main/java/dat/spi/DatArgs.java"))

    def test_a_test_source_is_refused(self):
        with self.assertRaises(ValueError):
            mutants.module_of("dat.tck/src/test/java/dat/tck/X.java")


class VerdictTest(unittest.TestCase):
    def test_a_clean_run_survives(self):
        v = mutants.verdict(0, "DAT call passed failed\n", 20.0)
        self.assertFalse(v.killed)
        self.assertEqual("SURVIVED", mutants.describe(v))

    def test_failed_rules_kill_and_are_named_as_the_table_names_them(self):
        out = ("FAILED required_evd_create_overflowRaisesAsyncEvent: org.opentest4j.AssertionFailedError: no event\n"
               "FAILED optional_rmr_bind_windowPrivilegesAreEnforced: expected: <1>\n  at x\n")
        v = mutants.verdict(1, out, 20.0)
        self.assertTrue(v.killed)
        self.assertEqual(["evd_create_overflowRaisesAsyncEvent", "opt:rmr_bind_windowPrivilegesAreEnforced"], v.rules)
        self.assertEqual("KILLED evd_create_overflowRaisesAsyncEvent, opt:rmr_bind_windowPrivilegesAreEnforced",
                         mutants.describe(v))

    def test_many_rules_are_counted_after_three(self):
        out = "".join(f"FAILED required_r{i}: x\n" for i in range(5))
        self.assertEqual("KILLED r0, r1, r2 (+2)", mutants.describe(mutants.verdict(1, out, 1.0)))

    def test_a_hang_kills(self):
        v = mutants.verdict(-9, "", 300.0, hung=True)
        self.assertTrue(v.killed)
        self.assertEqual("KILLED (hung)", mutants.describe(v))

    def test_a_crash_without_a_failed_rule_is_no_verdict(self):
        v = mutants.verdict(1, "Error occurred during initialization of boot layer\n", 1.0)
        self.assertEqual("ERROR", mutants.describe(v))
        self.assertIn("boot layer", v.error)
        self.assertEqual("ERROR", mutants.describe(mutants.verdict(134, "FAILED required_x: y\n", 1.0)))


class SelectTest(unittest.TestCase):
    def setUp(self):
        self.all = mutants.parse(LIST)

    def test_ids_or_numbers_in_the_lists_order(self):
        self.assertEqual(["M01", "M02"], [m.id for m in mutants.select(self.all, "2,M01")])
        self.assertEqual(["M02"], [m.id for m in mutants.select(self.all, "m02")])
        self.assertEqual(self.all, mutants.select(self.all, None))

    def test_an_unknown_mutant_is_refused(self):
        with self.assertRaisesRegex(ValueError, "not in the list: M07"):
            mutants.select(self.all, "1,7")
        with self.assertRaisesRegex(ValueError, "not a mutant: x"):
            mutants.select(self.all, "x")


class CommandTest(unittest.TestCase):
    def test_check_fails_on_a_stale_entry_of_a_copy(self):
        with tempfile.TemporaryDirectory() as root:
            listed = os.path.join(root, mutants.LIST)
            os.makedirs(os.path.dirname(listed))
            with open(listed, "w", encoding="utf-8") as f:
                f.write(LIST)
            os.makedirs(os.path.join(root, mutants.LOOPBACK))
            with open(os.path.join(root, mutants.LOOPBACK, "LoopbackSrq.java"), "w", encoding="utf-8") as f:
                f.write("    int a = 1;\n")
            os.makedirs(os.path.join(root, "dat.api/src/main/java/dat/spi"))
            with open(os.path.join(root, "dat.api/src/main/java/dat/spi/DatArgs.java"), "w", encoding="utf-8") as f:
                f.write("    x();\n    if (b) {\n        z();\n")
            quiet = io.StringIO()
            with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
                self.assertEqual(0, mutants.main(["--check", "--root", root]))
            with open(os.path.join(root, mutants.LOOPBACK, "LoopbackSrq.java"), "w", encoding="utf-8") as f:
                f.write("    int a = 3;\n")
            with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
                self.assertEqual(1, mutants.main(["--check", "--root", root]))
                self.assertEqual(0, mutants.main(["--check", "--only", "2", "--root", root]))
            self.assertIn("M01: the text to find (int a = 1; ...) is gone", quiet.getvalue())


if __name__ == "__main__":
    unittest.main()
