// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.spi.DatProvider;
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
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
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
    /** A class-path program that prints what {@link DatRegistry#load} finds and what a query selects. */
    private static Path lister;

    @BeforeAll
    static void compileAndJarTwoProviders() throws IOException {
        Path datApi = location(DatProvider.class);

        Path modularSrc = work.resolve("modular-src");
        // CHECKSTYLE.OFF: source (Java source in a text block names types in full)
        write(modularSrc.resolve("module-info.java"), """
                module test.provider.modular {
                    requires dat.api;
                    provides dat.spi.DatProvider with test.modular.internal.ModularProvider;
                }
                """);
        // CHECKSTYLE.ON: source
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

        Path listerSrc = work.resolve("lister-src/child/ListIas.java");
        // CHECKSTYLE.OFF: source (Java source in a text block names types in full)
        write(listerSrc, """
                package child;

                public final class ListIas {
                    public static void main(String[] args) {
                        dat.registry.DatRegistry registry = dat.registry.DatRegistry.load();
                        System.out.print(registry);
                        System.out.print(registry.select(String.join(" ", args)));
                    }
                }
                """);
        // CHECKSTYLE.ON: source
        lister = work.resolve("lister-classes");
        javac("--module-path", datApi + File.pathSeparator + location(DatRegistry.class), "--add-modules",
                "dat.registry", "-d", lister.toString(), listerSrc.toString());
    }

    @Test
    void childJvmFindsTheModulePathAndTheClassPathProvider() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String modulePath = String.join(File.pathSeparator, location(DatProvider.class).toString(),
                location(DatRegistry.class).toString(), modularJar.toString());
        List<String> command = List.of(java, "-Xshare:auto", "--module-path", modulePath, "--class-path",
                plainJar + File.pathSeparator + lister, "--add-modules", "ALL-MODULE-PATH",
                "child.ListIas", "ia_name == \"plain0\" || ia_name == \"modular0\"");
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
        assertEquals(List.of(), log.problems());
    }

    @Test
    void providerPathLoadsModularAndPlainJarsOnceAndListsWhatFails() throws Exception {
        Path dir = Files.createDirectories(work.resolve("path-dir"));
        Files.copy(plainJar, dir.resolve("plain.jar"), StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(dir.resolve("notes.txt"), "not a jar, not looked at");
        Path missing = work.resolve("no-such.jar");
        Path notAJar = Files.writeString(work.resolve("text.jar"), "not a zip");
        Path unresolvable = moduleJarRequiringAbsentModule("test.provider.needy", "no.such.module");
        List<Path> path = List.of(modularJar, dir, missing, notAJar, unresolvable);

        RecordingLogger log = new RecordingLogger();
        DatRegistry registry = DatRegistry.builder().logger(log).properties(Map.of()).providerPath(path).build();

        assertEquals(DiscoverySource.PROVIDER_PATH, entry(registry, "modular-test").source());
        assertTrue(entry(registry, "modular-test").available(), registry::toString);
        assertEquals(DiscoverySource.PROVIDER_PATH, entry(registry, "plain-test").source());
        ProviderEntry noFile = entry(registry, "no-such.jar");
        assertEquals(missing + ": no such file or directory", noFile.unavailableReason());
        assertTrue(entry(registry, "text.jar").unavailableReason().contains("not a readable jar"), registry::toString);
        ProviderEntry needy = entry(registry, "needy.jar");
        assertTrue(needy.unavailableReason().contains("module test.provider.needy cannot be resolved")
                && needy.unavailableReason().contains("no.such.module"), needy::toString);
        assertEquals(DiscoverySource.PROVIDER_PATH, needy.source());
        assertEquals(List.of("modular0", "plain0"), registry.ias().stream().map(IaEntry::name).sorted().toList());
        assertEquals(1, log.find(Level.WARNING, "no-such.jar").size(), log.entries()::toString);
        assertEquals(1, log.find(Level.WARNING, "test.plain.DoesNotExist").size(), log.entries()::toString);

        // The same jars again: the same layer and loader, not a second copy of every class.
        ClassLoader parent = Thread.currentThread().getContextClassLoader();
        ProviderPath.Loaded loaded = ProviderPath.load(path, parent);
        assertSame(loaded, ProviderPath.load(path, parent));
        Module module = Class.forName("test.modular.internal.ModularProvider", false, loaded.loader()).getModule();
        assertEquals("test.provider.modular", module.getName());
        assertSame(loaded.layer(), module.getLayer());
        assertTrue(loaded.defines(Class.forName("test.plain.PlainProvider", false, loaded.loader())));
        assertFalse(loaded.defines(DatRegistry.class));

        // A jar added to a directory on the path is a new set of jars: it is seen on the next load.
        Files.copy(modularJar, dir.resolve("modular-copy.jar"));
        DatRegistry grown = DatRegistry.builder().logger(log).properties(Map.of()).providerPath(path).build();
        assertTrue(grown.providers().stream().anyMatch(p -> p.name().equals("modular-copy.jar")
                && p.unavailableReason().contains("module test.provider.modular is already on the provider path")),
                grown::toString);
    }

    @Test
    void withoutNativeAccessOfItsOwnTheRegistrySaysWhatToAdd() {
        // The tests run without --enable-native-access: the registry cannot pass on what it does not have.
        Assumptions.assumeFalse(DatRegistry.class.getModule().isNativeAccessEnabled());
        ProviderPath.Loaded loaded = ProviderPath.load(List.of(modularJar, plainJar),
                Thread.currentThread().getContextClassLoader());
        assertTrue(loaded.nativeAccessNote().contains("--enable-native-access=dat.registry")
                && loaded.nativeAccessNote().contains("test.provider.modular")
                && loaded.nativeAccessNote().contains("--enable-native-access=ALL-UNNAMED"), loaded::nativeAccessNote);
        assertFalse(Class.forName(loaded.layer().findModule("test.provider.modular").orElseThrow(),
                "test.modular.internal.ModularProvider").getModule().isNativeAccessEnabled());
    }

    @Test
    void providerPathFromThePropertyOrElseTheEnvironment() {
        DatRegistry fromEnv = DatRegistry.builder().logger(new RecordingLogger())
                .environment(Map.of(DatRegistry.PROVIDER_PATH_ENV, modularJar.toString())).build();
        assertEquals(DiscoverySource.PROVIDER_PATH, entry(fromEnv, "modular-test").source());
        assertEquals(modularJar.toString(), fromEnv.settings().stream()
                .filter(s -> s.property().equals(DatRegistry.PROVIDER_PATH_PROPERTY)).findFirst().orElseThrow()
                .currentValue());

        DatRegistry fromProperty = DatRegistry.builder().logger(new RecordingLogger())
                .environment(Map.of(DatRegistry.PROVIDER_PATH_ENV, modularJar.toString()))
                .properties(Map.of(DatRegistry.PROVIDER_PATH_PROPERTY, plainJar.toString())).build();
        assertTrue(fromProperty.providers().stream().noneMatch(p -> p.name().equals("modular-test")),
                fromProperty::toString);
        assertEquals(DiscoverySource.PROVIDER_PATH, entry(fromProperty, "plain-test").source());
    }

    @Test
    void providerPathIsIgnoredWithAWarningWhenDiscoveryIsGivenItsProviders() {
        RecordingLogger log = new RecordingLogger();
        DatRegistry registry = DatRegistry.builder().logger(log).providers(List.of()).providerPath(List.of(modularJar))
                .build();
        assertEquals(List.of(), registry.providers());
        assertEquals(1, log.find(Level.WARNING, "provider path").size(), log.entries()::toString);
    }

    @Test
    void theDefaultLoggerReportsEachProblemOncePerJvm() {
        RecordingLogger log = new RecordingLogger();
        OncePerJvmLogger once = new OncePerJvmLogger(log);
        Path missing = work.resolve("missing-once.jar");
        for (int i = 0; i < 3; i++) {
            DatRegistry.builder().logger(once).providerPath(List.of(missing)).build();
        }
        assertEquals(1, log.find(Level.WARNING, "missing-once.jar").size(), log.entries()::toString);
        assertEquals(2, log.find(Level.DEBUG, "missing-once.jar").size(), log.entries()::toString);
        assertSame(OncePerJvmLogger.registry(), OncePerJvmLogger.registry());
    }

    private static ProviderEntry entry(DatRegistry registry, String name) {
        return registry.providers().stream().filter(p -> p.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no provider " + name + " in\n" + registry));
    }

    /** A modular jar whose module requires one that exists only at compile time, named after its last part. */
    private static Path moduleJarRequiringAbsentModule(String module, String absent) throws IOException {
        Path stubSrc = work.resolve(absent + "-src");
        write(stubSrc.resolve("module-info.java"), "module " + absent + " { }\n");
        Path stub = work.resolve("stubs").resolve(absent);
        javac("-d", stub.toString(), stubSrc.resolve("module-info.java").toString());
        Path src = work.resolve(module + "-src");
        write(src.resolve("module-info.java"),
                "module " + module + " { requires dat.api; requires " + absent + "; }\n");
        Path classes = work.resolve(module + "-classes");
        javac("--module-path", location(DatProvider.class) + File.pathSeparator + work.resolve("stubs"),
                "-d", classes.toString(), src.resolve("module-info.java").toString());
        return jar(classes, work.resolve(module.substring(module.lastIndexOf('.') + 1) + ".jar"));
    }

    /** Source of a provider offering one IA, and describing any IA a dat.conf entry names. */
    private static String provider(String packageName, String className, String name, String iaName) {
        // CHECKSTYLE.OFF: source (Java source in a text block names types in full)
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
        // CHECKSTYLE.ON: source
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
