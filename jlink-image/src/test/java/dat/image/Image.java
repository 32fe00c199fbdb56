// SPDX-License-Identifier: Apache-2.0
package dat.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * What the image's integration tests share: where the image is, running its executables as processes, and the
 * JDK tools (javac, jar, jlink) a test uses to build what a user would bring.
 */
final class Image {

    private Image() {
    }

    /** {@return the image directory (system property {@code dat.image}), checked to hold bin/dat and bin/java} */
    static Path dir() {
        String dir = System.getProperty("dat.image");
        assertTrue(dir != null && !dir.isBlank(), "system property dat.image (the image directory) is not set");
        Path image = Path.of(dir).toAbsolutePath();
        assertTrue(Files.isExecutable(image.resolve("bin/dat")), "no executable bin/dat in " + image);
        assertTrue(Files.isExecutable(image.resolve("bin/java")), "no executable bin/java in " + image);
        return image;
    }

    /** {@return a scratch directory for the tests (system property {@code dat.image.work}), created} */
    static Path work() throws IOException {
        dir();
        Path work = Path.of(System.getProperty("dat.image.work", System.getProperty("java.io.tmpdir")))
                .toAbsolutePath();
        return Files.createDirectories(work);
    }

    /** A finished process: its command, exit code and both streams. */
    record Run(List<String> command, int exit, String out, String err) {

        String describe(String what) {
            return what + "\n  command: " + String.join(" ", command) + "\n  exit: " + exit
                    + "\n  ---- stdout ----\n" + out + "\n  ---- stderr ----\n" + err;
        }

        /** Exit 0 and nothing on stderr. */
        void assertSuccess() {
            assertEquals(0, exit, describe("exit code"));
            assertTrue(err.isBlank(), describe("stderr should be empty"));
        }
    }

    /** {@link #run(Duration, Path, Map, String, String...)} with no added environment. */
    static Run run(Duration timeout, Path dir, String executable, String... args) throws Exception {
        return run(timeout, dir, Map.of(), executable, args);
    }

    /**
     * Runs an image executable ({@code bin/...}, relative to the image, or an absolute path) in {@code dir}, with
     * the JVM option variables, the registry's and those jDAT sets for C libraries cleared so the image is tested as
     * built, then {@code environment} added. Output goes to files (no pipe can fill up); a process that outlives
     * {@code timeout} is killed and the test fails with what it printed so far.
     */
    static Run run(Duration timeout, Path dir, Map<String, String> environment, String executable, String... args)
            throws Exception {
        List<String> command = new ArrayList<>();
        command.add(dir().resolve(executable).toString());
        command.addAll(List.of(args));
        Path work = work();
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        Map<String, String> env = pb.environment();
        for (String v : List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "DAT_PROVIDERS",
                "DAT_OVERRIDE", "DAT_PROVIDER_PATH", "FI_MR_CACHE_MAX_COUNT", "DAPL_DBG_TYPE", "IPATH_NO_BACKTRACE")) {
            env.remove(v);
        }
        env.putAll(environment);
        Process process = pb.start();
        boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!finished) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        Run run = new Run(command, finished ? process.exitValue() : -1, Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        if (!finished) {
            fail(run.describe("did not finish within " + timeout.toSeconds() + " s and was killed"));
        }
        return run;
    }

    /** Runs a JDK tool of the JDK running the tests (javac, jar, jlink) and fails with its output if it fails. */
    static void tool(String name, String... args) {
        ToolProvider tool = ToolProvider.findFirst(name).orElseThrow(
                () -> new IllegalStateException("the tests need a JDK with " + name));
        StringWriter text = new StringWriter();
        try (PrintWriter writer = new PrintWriter(text)) {
            int status = tool.run(writer, writer, args);
            writer.flush();
            assertEquals(0, status, () -> name + " " + String.join(" ", args) + "\n" + text);
        }
    }

    /** {@return every {@code .java} file under a directory, as javac arguments} */
    static List<String> javaFiles(Path dir, boolean withModuleInfo) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> withModuleInfo || !p.getFileName().toString().equals("module-info.java"))
                    .map(Path::toString).sorted().toList();
        }
    }

    /** {@return the jar or directory a class was loaded from: the jDAT modules the tests compile against} */
    static Path location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@return the entries joined with the platform's path separator} */
    static String path(Path... entries) {
        return String.join(File.pathSeparator, Stream.of(entries).map(Path::toString).toList());
    }
}
