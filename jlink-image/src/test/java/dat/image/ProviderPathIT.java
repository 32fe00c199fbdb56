// SPDX-License-Identifier: Apache-2.0
package dat.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.spi.DatProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A vendor's provider jar, built here outside the reactor (javac and jar on the example provider's sources), seen
 * by the stock image through {@code dat --provider-path} and {@code DAT_PROVIDER_PATH}: as a modular jar (a module
 * layer of its own) and as a plain jar (META-INF/services on a class loader), listed by {@code info} and verified
 * by {@code tck}; a jar that cannot load is listed with its reason.
 */
class ProviderPathIT {

    private static final Duration QUICK = Duration.ofSeconds(60);
    private static final Duration TCK = Duration.ofMinutes(5);

    private static Path work;
    private static Path modularJar;
    private static Path plainJar;

    @BeforeAll
    static void buildTheVendorJars() throws Exception {
        // A fresh directory per run: a build without clean must not find the last run's classes.
        work = Files.createTempDirectory(Image.work(), "provider-path");
        Path sources = Path.of(System.getProperty("dat.example.sources")).toAbsolutePath();
        Path datApi = Image.location(DatProvider.class);
        modularJar = build(sources, datApi, true, work.resolve("vendor-modular.jar"));
        plainJar = build(sources, datApi, false, work.resolve("vendor-plain.jar"));
    }

    /** Compiles the example provider against dat.api, with or without its module-info, and jars it. */
    private static Path build(Path sources, Path datApi, boolean modular, Path jar) throws Exception {
        Path classes = work.resolve(jar.getFileName() + "-classes");
        List<String> args = new ArrayList<>(List.of(modular ? "--module-path" : "--class-path", datApi.toString(),
                "-d", classes.toString()));
        args.addAll(Image.javaFiles(sources.resolve("java"), modular));
        Image.tool("javac", args.toArray(String[]::new));
        Path services = sources.resolve("resources/META-INF/services/dat.spi.DatProvider");
        Files.createDirectories(classes.resolve("META-INF/services"));
        Files.copy(services, classes.resolve("META-INF/services/dat.spi.DatProvider"));
        Files.deleteIfExists(jar);
        Image.tool("jar", "--create", "--file", jar.toString(), "-C", classes.toString(), ".");
        return jar;
    }

    @Test
    void info_listsTheProviderOfAModularJarOnTheProviderPath() throws Exception {
        Image.Run run = Image.run(QUICK, work, "bin/dat", "--provider-path", modularJar.toString(), "info");
        run.assertSuccess();
        assertTrue(run.out().lines().anyMatch(l -> l.matches("example0 +example +1\\.0 +available")),
                run.describe("example0 should be listed as available"));
        assertTrue(run.out().lines().anyMatch(l -> l.matches("loopback0 +loopback .* available")),
                run.describe("the image's own providers stay"));
    }

    @Test
    void tck_verifiesTheVendorJarAndWritesJUnitXml() throws Exception {
        Path dir = Files.createDirectories(work.resolve("tck"));
        Image.Run run = Image.run(TCK, dir, "bin/dat", "--provider-path", modularJar.toString(), "tck",
                "--provider", "example", "--reports", "reports");
        run.assertSuccess();
        assertTrue(run.out().contains("verifying IA example0"), run.describe("should verify example0"));
        assertTrue(run.out().lines().anyMatch(l -> l.matches("ran [1-9][0-9]* rules: 0 failed, .*")),
                run.describe("should report rules run and none failed"));
        try (Stream<Path> reports = Files.list(dir.resolve("reports"))) {
            assertTrue(reports.anyMatch(p -> p.toString().endsWith(".xml")), run.describe("no JUnit XML"));
        }
    }

    @Test
    void environmentVariable_loadsAPlainJarThroughItsServicesFile() throws Exception {
        Image.Run run = Image.run(QUICK, work, Map.of("DAT_PROVIDER_PATH", plainJar.toString()), "bin/dat", "info",
                "--json");
        run.assertSuccess();
        assertTrue(run.out().contains("\"name\": \"example0\""), run.describe("example0 should be listed"));
        assertTrue(run.out().contains("\"source\": \"PROVIDER_PATH\""), run.describe("found on the provider path"));
        Image.Run tck = Image.run(TCK, Files.createDirectories(work.resolve("tck-plain")),
                Map.of("DAT_PROVIDER_PATH", plainJar.toString()), "bin/dat", "tck", "--provider", "example",
                "--only", "required_ep_*,required_evd_*");
        tck.assertSuccess();
    }

    @Test
    void modulesOnTheProviderPathGetNativeAccessInTheImage() throws Exception {
        // A provider that binds a C library needs it; the registry passes on what the image grants dat.registry.
        Path src = Files.createDirectories(work.resolve("native-probe-src/probe"));
        // CHECKSTYLE.OFF: source (Java source in a text block names types in full)
        Files.writeString(src.getParent().resolve("module-info.java"), """
                module test.nativeprobe {
                    requires dat.api;
                    provides dat.spi.DatProvider with probe.NativeProbe;
                }
                """);
        Files.writeString(src.resolve("NativeProbe.java"), """
                package probe;

                public final class NativeProbe implements dat.spi.DatProvider {
                    public String name() {
                        return "native-probe";
                    }

                    public dat.spi.DatProviderInfo info() {
                        return dat.spi.DatProviderInfo.unavailable(name(), "1", "native access "
                                + getClass().getModule().isNativeAccessEnabled(), java.util.List.of());
                    }

                    public dat.api.DatIa open(String ia, String params, int qlen) {
                        throw new dat.api.DatException(dat.api.DatReturn.PROVIDER_NOT_FOUND, "a probe");
                    }
                }
                """);
        // CHECKSTYLE.ON: source
        Path classes = work.resolve("native-probe-classes");
        List<String> args = new ArrayList<>(List.of("--module-path",
                Image.location(DatProvider.class).toString(), "-d", classes.toString()));
        args.addAll(Image.javaFiles(src.getParent(), true));
        Image.tool("javac", args.toArray(String[]::new));
        Path jar = work.resolve("native-probe.jar");
        Image.tool("jar", "--create", "--file", jar.toString(), "-C", classes.toString(), ".");

        Image.Run run = Image.run(QUICK, work, "bin/dat", "--provider-path", jar.toString(), "info");
        run.assertSuccess();
        assertTrue(run.out().lines().anyMatch(l -> l.contains("native-probe") && l.contains("native access true")),
                run.describe("the layer's module should have native access"));
    }

    @Test
    void aJarThatCannotLoadIsListedWithItsReasonAndTheOthersStillLoad() throws Exception {
        Path broken = Files.writeString(work.resolve("broken.jar"), "not a zip");
        Image.Run run = Image.run(QUICK, work, "bin/dat", "--provider-path", Image.path(broken, modularJar), "info");
        assertEquals(0, run.exit(), run.describe("info lists, it does not fail"));
        assertTrue(run.out().lines().anyMatch(l -> l.contains("broken.jar") && l.contains("unavailable")
                && l.contains("not a readable jar")), run.describe("broken.jar should be listed with its reason"));
        assertTrue(run.out().lines().anyMatch(l -> l.matches("example0 +example +1\\.0 +available")),
                run.describe("the good jar still loads"));
    }
}
