# SPDX-License-Identifier: Apache-2.0
"""tools/git-hooks/commit-msg holds CONTRIBUTING's subject rule, and every commit since the hook came in keeps it."""
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOOK = os.path.join(ROOT, "tools", "git-hooks", "commit-msg")


def hook(message):
    with tempfile.NamedTemporaryFile("w", delete=False, encoding="utf-8") as f:
        f.write(message)
    p = subprocess.run([HOOK, f.name], capture_output=True, text=True, timeout=60)
    os.unlink(f.name)
    return p.returncode, p.stderr


def git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


class CommitMsgHookTest(unittest.TestCase):
    def test_a_short_subject_with_an_area_and_a_body_passes(self):
        self.assertEqual(0, hook("loopback: one slot per change\n\nWhy, with the figures.\n")[0])
        self.assertEqual(0, hook("cli tests: two words of area\n")[0])

    def test_git_comment_lines_are_not_the_message(self):
        self.assertEqual(0, hook("# Please enter the commit message\ndocs: fine\n")[0])

    def test_a_subject_over_72_characters_fails_and_says_how_long(self):
        code, err = hook("docs: " + "x" * 67 + "\n")
        self.assertEqual(1, code)
        self.assertIn("73 characters", err)

    def test_a_subject_without_an_area_fails(self):
        self.assertEqual(1, hook("fixed the thing\n")[0])

    def test_a_body_without_a_blank_line_fails(self):
        self.assertEqual(1, hook("tck: subject\nbody at once\n")[0])

    def test_an_empty_message_fails(self):
        self.assertEqual(1, hook("\n")[0])

    def test_merges_pass(self):
        self.assertEqual(0, hook("Merge branch 'i24-kit' into main: the kit's new rules and many more words here\n")[0])

    def test_every_commit_since_the_hook_keeps_the_rule(self):
        added = git("log", "--diff-filter=A", "--format=%H", "--", "tools/git-hooks/commit-msg")
        if added.returncode != 0 or not added.stdout.strip():
            self.skipTest("not a git checkout with the hook's history")
        since = added.stdout.split()[-1]
        log = git("log", "--format=%H%x00%B%x01", since + "..HEAD")
        self.assertEqual(0, log.returncode, log.stderr)
        bad = []
        for entry in filter(None, (e.strip("\n") for e in log.stdout.split("\x01"))):
            sha, message = entry.split("\x00", 1)
            code, err = hook(message + "\n")
            if code != 0:
                bad.append(f"{sha[:10]} {err.strip().splitlines()[0]}")
        self.assertEqual([], bad)


if __name__ == "__main__":
    unittest.main()
