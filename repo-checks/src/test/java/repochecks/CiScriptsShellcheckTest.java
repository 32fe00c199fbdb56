// SPDX-License-Identifier: Apache-2.0
package repochecks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shell scripts CI runs, directly or in the guests, pass ShellCheck. */
class CiScriptsShellcheckTest {

    /** The shell scripts CI runs, directly or in the guests. */
    private static final List<String> CI_SCRIPTS = List.of(".ci/run", "dat", "tools/jdk25.sh", "tools/jdk25-home.sh",
            "tools/jcstress.sh", "bench/compare.sh", "dat.provider.verbs/src/test/vm/rxe-vm.sh",
            "dat.provider.verbs/src/test/vm/rxe-vm-selftest.sh",
            "dat.provider.verbs/src/test/vm/guest-init.sh", "dat.provider.verbs/src/test/vm/fault-victim.sh",
            "jlink-image/src/build/aot-launcher.sh");

    /**
     * ShellCheck finds nothing in the scripts CI depends on (a finding that does not apply is disabled in the script,
     * with the reason). Without shellcheck the test is skipped, except under {@code CI=true}, where it fails: CI
     * cannot silently stop checking them ({@code .ci/run} installs it).
     */
    @Test
    void theScriptsCiRunsPassShellcheck() throws IOException, InterruptedException {
        Path root = Repo.root();
        List<String> command = new ArrayList<>(List.of("shellcheck", "-x", "-f", "gcc"));
        command.addAll(CI_SCRIPTS);
        Repo.Run run;
        try {
            run = Repo.run(root, 120, "shellcheck", command);
        } catch (IOException e) {
            Repo.unavailable("shellcheck is not installed (apt-get install shellcheck)");
            return;
        }
        assertEquals("", run.output(), "shellcheck " + String.join(" ", CI_SCRIPTS));
        assertEquals(0, run.exit());
    }
}
