// SPDX-License-Identifier: Apache-2.0
package repochecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** The checkout these checks guard, and the tools they run in it. */
final class Repo {

    private Repo() {
    }

    /** {@return the repository root: the nearest directory up from the module holding {@code mvnw}} */
    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
            dir = dir.getParent();
        }
        assertTrue(dir != null, "no mvnw above " + Path.of("").toAbsolutePath());
        return dir;
    }

    /**
     * Skips the calling test because {@code why}, except under {@code CI=true}, where it fails: CI cannot silently
     * stop checking ({@code .ci/run} installs the tools).
     *
     * @param why what is missing
     */
    static void unavailable(String why) {
        assertTrue(!"true".equals(System.getenv("CI")), why);
        Assumptions.abort(why);
    }

    /**
     * Runs {@code command} in the root and waits for it.
     *
     * @param root the repository root
     * @param seconds how long it may take
     * @param what its name in the failure when it does not finish in time
     * @param command the command and its arguments
     * @return its exit code and output (stdout and stderr together)
     * @throws IOException when it cannot be started (the tool is not installed)
     */
    static Run run(Path root, int seconds, String what, List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), what + " did not finish");
        return new Run(p.exitValue(), out);
    }

    /**
     * Runs git in the root; skips the calling test when git is missing or this is no git checkout (a source
     * archive), except under {@code CI=true}, which always runs on a clone.
     *
     * @param root the repository root
     * @param args git's arguments
     * @return what git printed
     */
    static String git(Path root, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        Run run;
        try {
            run = run(root, 60, "git", command);
        } catch (IOException e) {
            unavailable("git is not installed");
            return "";
        }
        if (run.exit() != 0) {
            unavailable("not a git checkout: " + run.output().strip());
        }
        return run.output();
    }

    /**
     * Runs a script of ours, {@code python3 tools/NAME ARGS} (a generator, a check), and fails unless it exits 0.
     *
     * @param root the repository root
     * @param args the script under {@code tools/} and its arguments
     */
    static void python(Path root, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("python3", "tools/" + args[0]));
        command.addAll(List.of(args).subList(1, args.length));
        Run run = run(root, 60, args[0].startsWith("gen-") ? "the generator" : "python3 tools/" + args[0], command);
        assertEquals(0, run.exit(), "python3 tools/" + args[0] + ": " + run.output());
    }

    /**
     * A finished command.
     *
     * @param exit its exit code
     * @param output what it printed
     */
    record Run(int exit, String output) {
    }
}
