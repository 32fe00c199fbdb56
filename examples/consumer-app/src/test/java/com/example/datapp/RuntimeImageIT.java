// SPDX-License-Identifier: Apache-2.0
package com.example.datapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's "Your own runtime image", done: jlink links the application module and jDAT from the module path
 * (no --bind-services: it fails on a JDK without jmods, which links from its own run-time image), and the image
 * runs the application. Providers are found through ServiceLoader, which jlink does not follow: an image that
 * does not name the provider module has an empty registry, and the application says so.
 */
class RuntimeImageIT {

    private static final long TIMEOUT_SECONDS = 60;

    @Test
    void anImageNamingTheProviderRunsTheApplication() throws Exception {
        Path image = link("with-provider", "com.example.datapp,dat.provider.loopback");
        Run run = run(image);
        assertEquals(0, run.exit(), run.text());
        assertTrue(run.out().contains("IA loopback0 of provider loopback offers " + Main.NEEDS
                + "; event round trip: DAT_SUCCESS, DAT_SUCCESS, 42"), run.text());
    }

    @Test
    void anImageWithoutTheProviderHasNoIaAndSaysSo() throws Exception {
        Path image = link("without-provider", "com.example.datapp");
        Run run = run(image);
        assertEquals(1, run.exit(), run.text());
        assertTrue(run.out().contains("no IA offers " + Main.NEEDS) && run.out().contains("DAT providers (0)"),
                run.text());
    }

    /** Runs jlink as the README shows it; @return the image directory */
    private static Path link(String name, String modules) throws Exception {
        Path work = Files.createDirectories(Path.of(System.getProperty("app.work")));
        Path image = work.resolve(name);
        if (Files.exists(image)) {
            try (Stream<Path> old = Files.walk(image)) {
                old.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        String modulePath = System.getProperty("app.jar") + File.pathSeparator + System.getProperty("app.modules");
        // The jlink command of the JDK running the test, as a process: jlink refuses to link from the run-time
        // image inside a JVM started with --patch-module, as this test JVM is.
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "jlink").toString(),
                "--module-path", modulePath, "--add-modules", modules,
                "--launcher", "datapp=com.example.datapp/com.example.datapp.Main", "--strip-debug",
                "--no-header-files", "--no-man-pages", "--output", image.toString());
        Run linked = run(work, command);
        assertEquals(0, linked.exit(), linked.text());
        return image;
    }

    private record Run(int exit, String out, String text) {
    }

    private static Run run(Path image) throws Exception {
        return run(image.getParent(), List.of(image.resolve("bin/datapp").toString()));
    }

    private static Run run(Path dir, List<String> command) throws Exception {
        Path output = Files.createTempFile(dir, "run", ".txt");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                .start();
        boolean finished = process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            // Bounded too: a child stuck in the kernel must not hang the build after its own timeout.
            assertTrue(process.destroyForcibly().waitFor(10, TimeUnit.SECONDS), "the child outlived SIGKILL by 10 s");
        }
        String out = Files.readString(output, StandardCharsets.UTF_8);
        String text = String.join(" ", command) + "\n" + out;
        assertTrue(finished, "did not finish in " + TIMEOUT_SECONDS + " s: " + text);
        return new Run(process.exitValue(), out, "exit " + process.exitValue() + ": " + text);
    }
}
