// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Provider paths an operator gets wrong or an attacker prepares: special files, symbolic link loops, directories of
 * thousands of jars, jars whose metadata inflates without end. Each is one listed reason, never a hang.
 */
class HostileProviderPathTest {

    private static final Duration BOUND = Duration.ofSeconds(60);

    private final RecordingLogger log = new RecordingLogger();

    @TempDir
    Path dir;

    private DatRegistry load(Path... entries) {
        return assertTimeoutPreemptively(BOUND, () -> DatRegistry.builder().logger(log).properties(Map.of())
                .providerPath(List.of(entries)).build());
    }

    private static String reasonOf(DatRegistry registry, String name) {
        return registry.providers().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow(
                () -> new AssertionError(name + " not in " + registry.providers())).unavailableReason();
    }

    @Test
    void aFifoNamedAsAJarIsRefusedWithoutBlocking() throws Exception {
        Path fifo = HostileProviderTest.mkfifo(dir.resolve("pipe.jar"));
        DatRegistry registry = load(fifo);
        String reason = reasonOf(registry, "pipe.jar");
        assertTrue(reason.contains("FIFO"), reason);
    }

    @Test
    void specialFilesAndLinksInADirectoryAreListedNotSkippedSilently() throws Exception {
        Path jars = Files.createDirectory(dir.resolve("jars"));
        HostileProviderTest.mkfifo(jars.resolve("pipe.jar"));
        Files.createDirectory(jars.resolve("exploded.jar"));
        Files.createSymbolicLink(jars.resolve("loop-a.jar"), jars.resolve("loop-b.jar"));
        Files.createSymbolicLink(jars.resolve("loop-b.jar"), jars.resolve("loop-a.jar"));
        Files.createSymbolicLink(jars.resolve("dangling.jar"), jars.resolve("gone.jar"));
        DatRegistry registry = load(jars);
        assertTrue(reasonOf(registry, "pipe.jar").contains("FIFO"), registry::toString);
        assertTrue(reasonOf(registry, "exploded.jar").contains("directory"), registry::toString);
        assertTrue(reasonOf(registry, "loop-a.jar").contains("symbolic link"), registry::toString);
        assertTrue(reasonOf(registry, "dangling.jar").contains("symbolic link"), registry::toString);
    }

    @Test
    void aSymbolicLinkLoopOnThePathIsNotCalledMissing() throws IOException {
        Path a = Files.createSymbolicLink(dir.resolve("a"), dir.resolve("b"));
        Files.createSymbolicLink(dir.resolve("b"), a);
        String reason = reasonOf(load(a), "a");
        assertTrue(reason.contains("symbolic link"), reason);
        assertFalse(reason.contains("no such file"), reason);
    }

    @Test
    void aDirectoryOfThousandsOfJarsIsOneReasonNotThousandsOfEntries() throws IOException {
        Path crowded = Files.createDirectory(dir.resolve("crowded"));
        for (int i = 0; i < 5000; i++) {
            Files.createFile(crowded.resolve("j" + i + ".jar"));
        }
        DatRegistry registry = load(crowded);
        assertEquals(1, registry.providers().size(), registry::toString);
        String reason = reasonOf(registry, "crowded");
        assertTrue(reason.contains("jars"), reason);
    }

    @Test
    void aJarWhoseManifestInflatesBeyondTheLimitIsRefused() throws IOException {
        Path bomb = dir.resolve("bomb.jar");
        try (OutputStream out = Files.newOutputStream(bomb); JarOutputStream jar = new JarOutputStream(out)) {
            jar.putNextEntry(new JarEntry("META-INF/MANIFEST.MF"));
            jar.write("Manifest-Version: 1.0\n".getBytes(StandardCharsets.US_ASCII));
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 64; i++) {
                jar.write(zeros);
            }
            jar.closeEntry();
        }
        String reason = reasonOf(load(bomb), "bomb.jar");
        assertTrue(reason.contains("MANIFEST.MF") && reason.contains("larger than"), reason);
    }

    @Test
    void aJarWhoseServicesFileInflatesBeyondTheLimitIsRefused() throws IOException {
        Path bomb = dir.resolve("services.jar");
        try (OutputStream out = Files.newOutputStream(bomb); JarOutputStream jar = new JarOutputStream(out)) {
            jar.putNextEntry(new JarEntry("META-INF/services/dat.spi.DatProvider"));
            byte[] spaces = new byte[1 << 20];
            Arrays.fill(spaces, (byte) ' ');
            for (int i = 0; i < 16; i++) {
                jar.write(spaces);
            }
            jar.closeEntry();
        }
        String reason = reasonOf(load(bomb), "services.jar");
        assertTrue(reason.contains("dat.spi.DatProvider") && reason.contains("larger than"), reason);
    }
}
