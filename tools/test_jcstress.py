# SPDX-License-Identifier: Apache-2.0
"""tools/jcstress.sh passes only a run in which every planned test passed (README, "The rings under jcstress").

jcstress itself exits 0 when nothing was tested: on a JVM older than the classes every test is a soft error, and a
filter that matches nothing, or a JVM that cannot start, ends without a verdict. Run by .ci/run after the build,
which leaves dat.jcstress/target/jcstress.jar in place (the script builds it otherwise).
"""
import os
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "jcstress.sh")


def run(*args):
    env = dict(os.environ)
    # As the README's set-up has it: no JAVA_HOME, the default java older than 25.
    env.pop("JAVA_HOME", None)
    p = subprocess.run([SCRIPT, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout + p.stderr


class JcstressScriptTest(unittest.TestCase):
    def test_a_filter_that_matches_no_test_fails(self):
        code, out = run("-t", "NoSuchJcstressTest", "-m", "sanity")
        self.assertEqual(1, code, out)
        self.assertIn("no test ran", out)

    def test_a_jvm_that_cannot_start_fails(self):
        code, out = run("-t", "Publication", "-m", "sanity", "-jvmArgs", "-XX:+NoSuchJvmFlag")
        self.assertEqual(1, code, out)
        self.assertIn("FAILED", out)

    def test_a_passing_run_passes_and_reports_its_counts(self):
        code, out = run("-t", "Publication", "-m", "sanity")
        self.assertEqual(0, code, out)
        self.assertRegex(out, r"jcstress: (\d+) planned, \1 passed, 0 failed, 0 soft errors, 0 hard errors")


if __name__ == "__main__":
    unittest.main()
