// SPDX-License-Identifier: Apache-2.0
package dat.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks on the whole source tree that {@code ./mvnw verify} runs here, in the module every other builds on: every
 * source file names its license, the shell scripts CI runs pass ShellCheck, and the attribute records are exactly
 * what {@code tools/gen-attr-records.py} writes from its field table.
 */
class SourceTreeTest {

    static final String SPDX = "SPDX-License-Identifier: Apache-2.0";
    /** Scripts without an extension. */
    private static final Set<String> SCRIPTS = Set.of(".ci/run", "dat");
    /** Directories that hold no source of ours: build output, VCS data, the Maven wrapper, benchmark runs. */
    private static final Set<String> SKIPPED = Set.of("target", ".git", ".mvn", "results", "node_modules");

    /** {@return the repository root: the nearest directory up from the module holding {@code mvnw}} */
    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
            dir = dir.getParent();
        }
        assertTrue(dir != null, "no mvnw above " + Path.of("").toAbsolutePath());
        return dir;
    }

    private static boolean isSource(Path root, Path file) {
        String name = file.getFileName().toString();
        String relative = root.relativize(file).toString().replace('\\', '/');
        return name.endsWith(".java") || name.endsWith(".sh") || name.endsWith(".py") || name.endsWith(".c")
                || name.equals("pom.xml") || name.equals("bnd.bnd") || SCRIPTS.contains(relative);
    }

    @Test
    void everySourceFileCarriesTheLicenseHeader() throws IOException {
        Path root = root();
        List<Path> sources = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                return SKIPPED.contains(dir.getFileName().toString()) ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile() && isSource(root, file)) {
                    sources.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        assertTrue(sources.size() > 300, "source files found: " + sources.size());
        List<String> missing = sources.stream().filter(p -> !headed(p)).map(p -> root.relativize(p).toString())
                .sorted().toList();
        assertEquals(List.of(), missing, "source files without \"" + SPDX + "\" in their first three lines");
    }

    private static boolean headed(Path file) {
        try (Stream<String> lines = Files.lines(file, StandardCharsets.UTF_8)) {
            return lines.limit(3).anyMatch(l -> l.contains(SPDX));
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

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
        Path root = root();
        List<String> command = new ArrayList<>(List.of("shellcheck", "-x", "-f", "gcc"));
        command.addAll(CI_SCRIPTS);
        Process p;
        try {
            p = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            String why = "shellcheck is not installed (apt-get install shellcheck)";
            assertTrue(!"true".equals(System.getenv("CI")), why);
            Assumptions.abort(why);
            return;
        }
        String found = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "shellcheck did not finish");
        assertEquals("", found, "shellcheck " + String.join(" ", CI_SCRIPTS));
        assertEquals(0, p.exitValue());
    }

    /**
     * The repository tracks nothing that running its own commands writes: {@code ./dat tck} from the root writes JUnit
     * XML to {@code dat-tck-reports/}, the build to {@code target/}; a tracked copy is rewritten by every run. Git
     * must also ignore those places, so the next run's output is not committed again. Skipped outside a git checkout
     * (a source archive), except under {@code CI=true}, which always runs on a clone.
     */
    @Test
    void runOutputIsNeitherTrackedNorUnignored() throws IOException, InterruptedException {
        Path root = root();
        String tracked = git(root, "ls-files");
        List<String> output = tracked.lines()
                .filter(f -> f.startsWith("dat-tck-reports/") || f.contains("/target/") || f.startsWith("target/")
                        || f.matches("(.*/)?TEST-[^/]*\\.xml"))
                .toList();
        assertEquals(List.of(), output, "run output tracked by git: git rm --cached it");
        for (String written : List.of("dat-tck-reports/TEST-junit-jupiter.xml", "dat-tck-reports/x/TEST-a.xml",
                "dat.cli/target/x", "target/jcstress-results/index.html", "jcstress-results-1.bin.gz")) {
            Process p = new ProcessBuilder("git", "check-ignore", "-q", "--no-index", written)
                    .directory(root.toFile()).redirectErrorStream(true).start();
            p.getInputStream().transferTo(OutputStream.nullOutputStream());
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "git check-ignore did not finish");
            assertEquals(0, p.exitValue(), written + " is not ignored by .gitignore");
        }
    }

    private static String git(Path root, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            String why = "git is not installed";
            assertTrue(!"true".equals(System.getenv("CI")), why);
            Assumptions.abort(why);
            return "";
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "git did not finish");
        if (p.exitValue() != 0) {
            String why = "not a git checkout: " + out.strip();
            assertTrue(!"true".equals(System.getenv("CI")), why);
            Assumptions.abort(why);
        }
        return out;
    }

    @Test
    void theDatCallMapIsWhatTheGeneratorWrites(@TempDir Path out) throws IOException, InterruptedException {
        Path root = root();
        Path written = out.resolve("dat-calls.md");
        Process p = new ProcessBuilder("python3", "tools/gen-dat-calls.py", written.toString())
                .directory(root.toFile()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the generator did not finish");
        assertEquals(0, p.exitValue(), "python3 tools/gen-dat-calls.py: " + log);
        assertEquals(Files.readString(written), Files.readString(root.resolve("docs/dat-calls.md")),
                "docs/dat-calls.md differs from the sources: run python3 tools/gen-dat-calls.py");
    }

    @Test
    void theAttributeRecordsAreWhatTheGeneratorWrites(@TempDir Path out) throws IOException, InterruptedException {
        Path root = root();
        Process p = new ProcessBuilder("python3", "tools/gen-attr-records.py", out.toString()).directory(root.toFile())
                .redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the generator did not finish");
        assertEquals(0, p.exitValue(), "python3 tools/gen-attr-records.py: " + log);
        for (String record : List.of("DatProviderAttr", "DatIaAttr", "DatEpAttr")) {
            Path committed = root.resolve("dat.api/src/main/java/dat/api/" + record + ".java");
            assertEquals(Files.readString(out.resolve(record + ".java")), Files.readString(committed),
                    record + ".java differs from what tools/gen-attr-records.py writes: edit the table there and run"
                            + " it, never the record");
        }
    }
}
