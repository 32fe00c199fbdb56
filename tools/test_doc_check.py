# SPDX-License-Identifier: Apache-2.0
"""tools/doc-check.py: which blocks it finds, what it runs of them, and that a failing command fails the check."""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("doc_check", os.path.join(HERE, "doc-check.py"))
doc_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(doc_check)


def doc(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8")
    f.write(text)
    f.close()
    return f.name


class DocCheckTest(unittest.TestCase):
    def test_only_marked_blocks_are_checked(self):
        path = doc("```\nnot checked\n```\n<!-- check: one -->\n```sh\necho one\n```\n")
        found = doc_check.blocks(path)
        self.assertEqual(["one"], [b.name for b in found])
        self.assertEqual("echo one\n", found[0].script())

    def test_a_transcript_runs_its_commands_not_its_output(self):
        path = doc("<!-- check: t exits=0,1 -->\n```\n$ echo a \\\n  b\nsample output\n$ false\n```\n")
        block = doc_check.blocks(path)[0]
        self.assertEqual("echo a \\\n  b\nfalse\n", block.script())
        self.assertEqual({0, 1}, block.exits())

    def test_an_indented_block_loses_its_indent(self):
        path = doc("- item\n\n  <!-- check: i -->\n  ```\n  echo i\n  ```\n")
        self.assertEqual("echo i\n", doc_check.blocks(path)[0].script())

    def test_a_marker_without_a_block_is_an_error(self):
        with self.assertRaises(ValueError):
            doc_check.blocks(doc("<!-- check: lost -->\ntext\n"))

    def test_a_failing_command_fails_even_when_a_later_one_succeeds(self):
        path = doc("<!-- check: f -->\n```\nfalse\necho after\n```\n")
        code, out, _ = doc_check.run(doc_check.blocks(path)[0], 60)
        self.assertNotEqual(0, code)
        self.assertIn("exit 1 from: false", out)

    def test_an_allowed_exit_passes_and_state_carries_between_lines(self):
        path = doc("<!-- check: s exits=0,1 -->\n```\n$ cd ~/jdat\n$ test -f tools/doc-check.py\n$ false\n```\n")
        code, out, _ = doc_check.run(doc_check.blocks(path)[0], 60)
        self.assertEqual(0, code, out)

    def test_the_shell_has_no_java_home(self):
        path = doc("<!-- check: j -->\n```\ntest -z \"${JAVA_HOME:-}\"\n```\n")
        code, out, _ = doc_check.run(doc_check.blocks(path)[0], 60)
        self.assertEqual(0, code, out)


if __name__ == "__main__":
    unittest.main()
