package dat.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.System.Logger.Level;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real discovery: two providers compiled and jarred at test time, one a named module that {@code provides} the
 * service, one a plain jar with {@code META-INF/services} (whose first line names a class that does not exist,
 * so recovery after a {@link java.util.ServiceConfigurationError} is exercised with the JDK's own loader).
 *
 * <p>javac is reached through {@link ToolProvider} of {@code java.base} rather than {@code javax.tools}: the
 * tests run patched into the {@code dat.registry} module, which does not read {@code java.compiler}.
 */
class ProviderPathsTest {

    /** Bound on the child JVM, far above the second or two it needs, so a hang fails instead of stalling CI. */
    private static final long CHILD_TIMEOUT_SECONDS = 60;

    @TempDir
    static Path work;

    private static Path modularJar;
    private static Path plainJar;

    @BeforeAll
    static void compileAndJarTwoProviders() throws IOException {
        Path datApi = location(dat.spi.DatProvider.class);

        Path modularSrc = work.resolve("modular-src");
        write(modularSrc.resolve("module-info.java"), """
                module test.provider.modular {
                    requires dat.api;
                    provides dat.spi.DatProvider with test.modular.internal.ModularProvider;
                }
                """);
        write(modularSrc.resolve("test/modular/internal/ModularProvider.java"), provider("test.modular.internal",
                "ModularProvider", "modular-test", "modular0"));
        Path modularClasses = work.resolve("modular-classes");
        javac("--module-path", datApi.toString(), "-d", modularClasses.toString(),
                modularSrc.resolve("module-info.java").toString(),
                modularSrc.resolve("test/modular/internal/ModularProvider.java").toString());
        modularJar = jar(modularClasses, work.resolve("modular.jar"));

        Path plainSrc = work.resolve("plain-src");
        write(plainSrc.resolve("test/plain/PlainProvider.java"), provider("test.plain", "PlainProvider", "plain-test",
                "plain0"));
        Path plainClasses = work.resolve("plain-classes");
        javac("--class-path", datApi.toString(), "-d", plainClasses.toString(),
                plainSrc.resolve("test/plain/PlainProvider.java").toString());
        write(plainClasses.resolve("META-INF/services/dat.spi.DatProvider"),
                "# the first entry is broken on purpose\ntest.plain.DoesNotExist\ntest.plain.PlainProvider\n");
        plainJar = jar(plainClasses, work.resolve("plain.jar"));
    }

    @Test
    void childJvmFindsTheModulePathAndTheClassPathProvider() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String modulePath = String.join(File.pathSeparator, location(dat.spi.DatProvider.class).toString(),
                location(DatRegistry.class).toString(), modularJar.toString());
        List<String> command = List.of(java, "-Xshare:auto", "--module-path", modulePath, "--class-path",
                plainJar.toString(), "--add-modules", "ALL-MODULE-PATH",
                "-m", "dat.registry/dat.registry.DatRegistry", "ia_name == \"plain0\" || ia_name == \"modular0\"");
        Path output = work.resolve("child-output.txt");
        Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean finished = child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            child.destroyForcibly().waitFor();
        }
        String text = Files.readString(output);
        String context = "command: " + String.join(" ", command) + "\noutput:\n" + text;
        assertTrue(finished, () -> "child JVM did not finish within " + CHILD_TIMEOUT_SECONDS + " s\n" + context);
        assertEquals(0, child.exitValue(), context);
        assertTrue(text.lines().anyMatch(l -> l.matches("  modular-test +available +service-loader +"
                + "test\\.modular\\.internal\\.ModularProvider")), context);
        assertTrue(text.lines().anyMatch(l -> l.matches("  plain-test +available +service-loader +"
                + "test\\.plain\\.PlainProvider")), context);
        assertTrue(text.lines().anyMatch(l -> l.startsWith("  test.plain.DoesNotExist ") && l.contains("unavailable")
                && l.contains("failed to load")), context);
        assertTrue(text.contains("modular0: matches"), context);
        assertTrue(text.contains("plain0: matches"), context);
    }

    @Test
    void classLoaderDiscoveryRecoversFromABrokenServicesLine() throws IOException {
        RecordingLogger log = new RecordingLogger();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {plainJar.toUri().toURL()},
                ProviderPathsTest.class.getClassLoader())) {
            DatRegistry registry = DatRegistry.builder().logger(log).classLoader(loader).build();
            assertEquals(List.of("test.plain.DoesNotExist", "plain-test"),
                    registry.providers().stream().map(ProviderEntry::name).toList());
            assertTrue(registry.providers().getFirst().unavailableReason().contains("not found"),
                    registry.providers().getFirst()::toString);
            assertEquals(List.of("plain0"), registry.ias().stream().map(IaEntry::name).toList());
            assertEquals(1, log.find(Level.WARNING, "test.plain.DoesNotExist").size(), log.entries()::toString);
        }
    }

    @Test
    void moduleLayerDiscoveryAndDatConfByClassName() throws IOException {
        ModuleFinder finder = ModuleFinder.of(modularJar);
        Configuration configuration = ModuleLayer.boot().configuration().resolve(finder, ModuleFinder.of(),
                Set.of("test.provider.modular"));
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(configuration,
                ClassLoader.getSystemClassLoader());
        Path conf = Files.writeString(work.resolve("layer.conf"),
                "conf0 u1.2 threadsafe default test.modular.internal.ModularProvider dapl.1.2 x \"\"\n");
        RecordingLogger log = new RecordingLogger();
        DatRegistry registry = DatRegistry.builder().logger(log).moduleLayer(layer).datConf(conf)
                .properties(Map.of()).build();
        assertEquals(List.of("modular-test"), registry.providers().stream().map(ProviderEntry::name).toList());
        assertEquals(List.of("modular0", "conf0"), registry.ias().stream().map(IaEntry::name).toList());
        assertTrue(registry.ias().get(1).available(), registry.ias()::toString);
        assertEquals(List.of(), log.entries());
    }

    /** Source of a provider offering one IA, and describing any IA a dat.conf entry names. */
    private static String provider(String packageName, String className, String name, String iaName) {
        return """
                package %1$s;

                import dat.api.DatException;
                import dat.api.DatIa;
                import dat.api.DatIaAttr;
                import dat.api.DatProviderAttr;
                import dat.api.DatReturn;
                import dat.spi.DatIaInfo;
                import dat.spi.DatProvider;
                import dat.spi.DatProviderInfo;
                import java.util.List;

                public final class %2$s implements DatProvider {
                    @Override
                    public String name() {
                        return "%3$s";
                    }

                    @Override
                    public DatProviderInfo info() {
                        return DatProviderInfo.available(name(), "1.0", List.of(describe("%4$s", "")), List.of());
                    }

                    @Override
                    public DatIaInfo describe(String iaName, String iaParams) {
                        return new DatIaInfo(iaName, iaParams, DatProviderAttr.builder().providerName(name()).build(),
                                DatIaAttr.builder().adapterName(iaName).build());
                    }

                    @Override
                    public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
                        throw new DatException(DatReturn.NOT_IMPLEMENTED, "test provider");
                    }
                }
                """.formatted(packageName, className, name, iaName);
    }

    private static Path location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void write(Path file, String content) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private static void javac(String... args) {
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow(
                () -> new IllegalStateException("tests need a JDK with the jdk.compiler module"));
        StringWriter out = new StringWriter();
        try (PrintWriter writer = new PrintWriter(out)) {
            int status = javac.run(writer, writer, args);
            writer.flush();
            assertEquals(0, status, () -> "javac " + String.join(" ", args) + "\n" + out);
        }
    }

    private static Path jar(Path classes, Path jarFile) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(classes)) {
            walk.filter(Files::isRegularFile).sorted().forEach(files::add);
        }
        try (OutputStream out = Files.newOutputStream(jarFile); JarOutputStream jar = new JarOutputStream(out)) {
            for (Path file : files) {
                jar.putNextEntry(new JarEntry(classes.relativize(file).toString().replace(File.separatorChar, '/')));
                jar.write(Files.readAllBytes(file));
                jar.closeEntry();
            }
        }
        return jarFile;
    }
}
