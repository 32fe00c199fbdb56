// SPDX-License-Identifier: Apache-2.0
package repochecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every source file of the repository names its license in its first three lines. */
class LicenseHeaderTest {

    static final String SPDX = "SPDX-License-Identifier: Apache-2.0";
    /** Scripts without an extension. */
    private static final Set<String> SCRIPTS = Set.of(".ci/run", "dat");
    /** Directories that hold no source of ours: build output, VCS data, the Maven wrapper, benchmark runs. */
    private static final Set<String> SKIPPED = Set.of("target", ".git", ".mvn", "results", "node_modules");

    private static boolean isSource(Path root, Path file) {
        String name = file.getFileName().toString();
        String relative = root.relativize(file).toString().replace('\\', '/');
        return name.endsWith(".java") || name.endsWith(".sh") || name.endsWith(".py") || name.endsWith(".c")
                || name.equals("pom.xml") || name.equals("bnd.bnd") || SCRIPTS.contains(relative);
    }

    @Test
    void everySourceFileCarriesTheLicenseHeader() throws IOException {
        Path root = Repo.root();
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
}
