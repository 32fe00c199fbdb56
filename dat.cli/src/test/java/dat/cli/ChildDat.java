// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.registry.DatRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code dat} as a process, for what only a process shows: its exit code when standard output cannot be written,
 * whether the JVM ends while a provider's thread is stuck, what the environment does. Started on this JVM's module
 * path, with the tests patched into {@code dat.cli} (so {@code dat.conf} can name {@link HostileProviders}).
 */
final class ChildDat {

    /** Bound on one child, far above the second or two it needs, so a hang fails instead of stalling the build. */
    static final long TIMEOUT_SECONDS = 60;

    /** What the child did. */
    record Result(int exit, String out, String err, long millis) {
        String both() {
            return "exit " + exit + " after " + millis + " ms\nout:\n" + out + "\nerr:\n" + err;
        }
    }

    private ChildDat() {
    }

    /**
     * Runs {@code dat ARGS} through {@code sh -c}, so the test can redirect or close its standard output.
     *
     * @param dir a scratch directory for the outputs
     * @param env extra environment
     * @param redirect appended to the shell command: {@code >/dev/full}, {@code >&-}, or empty to capture
     * @param args the arguments
     */
    static Result run(Path dir, Map<String, String> env, String redirect, String... args)
            throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String modulePath = System.getProperty("jdk.module.path");
        Path testClasses = Path.of(ChildDat.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        List<String> command = new ArrayList<>(List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1"));
        if (modulePath != null) {
            command.addAll(List.of("--module-path", modulePath, "--patch-module", "dat.cli=" + testClasses,
                    "--add-exports", "dat.cli/dat.cli=dat.registry", "--add-modules", "ALL-MODULE-PATH",
                    "-m", "dat.cli/dat.cli.DatCommand"));
        } else {
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), DatCommand.class.getName()));
        }
        command.addAll(List.of(args));
        StringBuilder shell = new StringBuilder("exec");
        for (String word : command) {
            shell.append(" '").append(word.replace("'", "'\\''")).append('\'');
        }
        Path out = dir.resolve("child-out.txt");
        Path err = dir.resolve("child-err.txt");
        shell.append(' ').append(redirect.isEmpty() ? ">'" + out + "'" : redirect).append(" 2>'").append(err)
                .append('\'');
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", shell.toString());
        builder.environment().remove(DatRegistry.PROVIDER_PATH_ENV);
        builder.environment().remove(DatRegistry.DAT_CONF_ENV);
        builder.environment().putAll(env);
        long start = System.nanoTime();
        Process child = builder.start();
        boolean ended = child.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        String o = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
        String e = Files.exists(err) ? Files.readString(err, StandardCharsets.UTF_8) : "";
        assertTrue(ended, "dat " + String.join(" ", args) + " did not end within " + TIMEOUT_SECONDS + " s\n" + e);
        return new Result(child.exitValue(), o, e, millis);
    }
}
