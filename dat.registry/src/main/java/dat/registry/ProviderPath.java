// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.spi.DatProvider;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.Configuration;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.module.ResolutionException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.zip.ZipFile;

/**
 * The provider path: jars, and directories of jars, that hold providers the application was not started with
 * ({@value DatRegistry#PROVIDER_PATH_PROPERTY}, {@value DatRegistry#PROVIDER_PATH_ENV}, {@code dat
 * --provider-path}).
 *
 * <p>A jar with a {@code module-info.class}, or with an {@code Automatic-Module-Name} in its manifest, is a module:
 * all of them resolve together into one child {@link ModuleLayer} of the layer {@code dat.api} is in, with one class
 * loader, and each is granted native access when this module has it (a provider that binds a C library needs it;
 * the JDK grants it to a layer's modules only through the layer's controller). Any other jar is a class-path jar: a
 * {@link URLClassLoader} over them, whose parent is the layer's loader, so {@code META-INF/services} providers
 * there see the layer's modules. Discovery then goes through that loader, which sees the layer, the parent loader's
 * modules and class path, and the class-path jars, each provider once.
 *
 * <p>Every path is loaded once per JVM: the same jars (by path, size and modification time) under the same parent
 * loader give the same layer and loader, so {@link DatRegistry#load()} called per test does not define the same
 * classes again. A jar added to a directory, or rebuilt, makes a new layer on the next load. A jar that cannot
 * be read or resolved becomes a {@link Failure} the registry lists as an unavailable provider.
 */
final class ProviderPath {

    /**
     * A path entry, or a jar in one, that provides nothing because it could not be loaded.
     *
     * @param jar the file or directory, as given or as found in a directory
     * @param reason why, for a user to read
     */
    record Failure(Path jar, String reason) {
    }

    /**
     * A loaded path.
     *
     * @param loader the loader discovery goes through: over the class-path jars, the layer, and the parent loader
     * @param layer the child layer of the modular jars, {@code null} when there were none
     * @param classPathLoader the loader of the jars without a module, {@code null} when there were none
     * @param failures the entries that could not be loaded, in path order
     * @param nativeAccessNote what to add so the path's code may call native code, or {@code null} when it may
     */
    record Loaded(ClassLoader loader, ModuleLayer layer, ClassLoader classPathLoader, List<Failure> failures,
                  String nativeAccessNote) {

        /** {@return whether the class was loaded from the provider path rather than found by the parent loader} */
        boolean defines(Class<?> type) {
            return (layer != null && type.getModule().getLayer() == layer)
                    || (classPathLoader != null && type.getClassLoader() == classPathLoader);
        }
    }

    /** The most jars one provider path loads, and the most one directory on it may hold. */
    static final int MAX_JARS = 1000;

    /** The most entries a provider jar may have. */
    static final int MAX_ENTRIES = 100_000;

    /** The largest manifest, module descriptor or service file read from a jar, once inflated. */
    static final int MAX_METADATA_BYTES = 1 << 20;

    /** Jars already loaded, by what was found on the path and the parent loader. */
    private static final ConcurrentMap<Key, Loaded> LOADED = new ConcurrentHashMap<>();

    /** What a path resolves to on disk, with each jar's size and modification time, under one parent loader. */
    private record Key(List<String> stamps, ClassLoader parent) {
    }

    private ProviderPath() {
    }

    /**
     * Splits a provider path at {@link File#pathSeparator}, dropping empty elements.
     *
     * @param text the path as the property or the variable gives it
     * @return the entries, in order
     */
    static List<Path> split(String text) {
        List<Path> entries = new ArrayList<>();
        for (String element : text.split(File.pathSeparator, -1)) {
            if (!element.isBlank()) {
                entries.add(Path.of(element.strip()));
            }
        }
        return entries;
    }

    /**
     * Loads the jars of a provider path, or returns what an earlier call loaded from the same jars.
     *
     * @param entries jars and directories of jars
     * @param parent the loader the path's loader delegates to: the one discovery would use without a path
     * @return the loader to discover through, and what failed
     */
    static Loaded load(List<Path> entries, ClassLoader parent) {
        List<Failure> failures = new ArrayList<>();
        Map<Path, String> jars = new LinkedHashMap<>();
        for (Path entry : entries) {
            expand(entry.toAbsolutePath().normalize(), jars, failures);
        }
        List<String> stamps = new ArrayList<>();
        jars.forEach((jar, stamp) -> stamps.add(jar + "|" + stamp));
        failures.forEach(f -> stamps.add(f.jar() + "|" + f.reason()));
        return LOADED.computeIfAbsent(new Key(List.copyOf(stamps), parent),
                key -> define(List.copyOf(jars.keySet()), failures, parent));
    }

    /**
     * Adds a jar with its stamp, or the jars of a directory in name order, or a failure for anything else: a path
     * that is missing, a special file (a FIFO would block the read), a link that loops, a directory of more jars than
     * {@link #MAX_JARS}.
     */
    private static void expand(Path entry, Map<Path, String> jars, List<Failure> failures) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(entry, BasicFileAttributes.class);
        } catch (IOException | SecurityException e) {
            String problem = RegularFiles.problem(entry);
            failures.add(new Failure(entry, problem != null ? problem : "cannot be read: " + Discovery.describe(e)));
            return;
        }
        if (!attributes.isDirectory()) {
            addJar(entry, jars, failures);
            return;
        }
        List<Path> inside = new ArrayList<>();
        // Names only, no stat per entry: a directory of 100,000 files costs one pass, and only *.jar are kept.
        try (DirectoryStream<Path> list = Files.newDirectoryStream(entry, "*.jar")) {
            for (Path jar : list) {
                if (inside.size() == MAX_JARS) {
                    failures.add(new Failure(entry, "holds more than " + MAX_JARS + " jars, more than a provider"
                            + " path loads; none of them is loaded (name the provider jars, or a directory of them)"));
                    return;
                }
                inside.add(jar);
            }
        } catch (IOException | DirectoryIteratorException | SecurityException e) {
            failures.add(new Failure(entry, "cannot be listed: " + Discovery.describe(e)));
            return;
        }
        inside.sort(null);
        for (Path jar : inside) {
            addJar(jar, jars, failures);
        }
    }

    private static void addJar(Path jar, Map<Path, String> jars, List<Failure> failures) {
        String problem = RegularFiles.problem(jar);
        if (problem != null) {
            failures.add(new Failure(jar, problem));
            return;
        }
        if (!jars.containsKey(jar) && jars.size() == MAX_JARS) {
            failures.add(new Failure(jar, "not loaded: the provider path already names " + MAX_JARS
                    + " jars, the most it loads"));
            return;
        }
        try {
            BasicFileAttributes attributes = Files.readAttributes(jar, BasicFileAttributes.class);
            jars.putIfAbsent(jar, attributes.size() + "|" + attributes.lastModifiedTime().toMillis());
        } catch (IOException | SecurityException e) {
            failures.add(new Failure(jar, "cannot be read: " + Discovery.describe(e)));
        }
    }

    private static Loaded define(List<Path> jars, List<Failure> failures, ClassLoader parent) {
        ModuleLayer parentLayer = DatProvider.class.getModule().getLayer() != null
                ? DatProvider.class.getModule().getLayer() : ModuleLayer.boot();
        Map<String, Path> modules = new LinkedHashMap<>();
        List<Path> classPath = new ArrayList<>();
        for (Path jar : jars) {
            classify(jar, parentLayer, modules, classPath, failures);
        }
        ModuleLayer.Controller controller = modules.isEmpty() ? null
                : defineLayer(modules, parentLayer, parent, failures);
        ClassLoader layerLoader = controller == null ? parent
                : controller.layer().findLoader(controller.layer().modules().iterator().next().getName());
        ClassLoader classPathLoader = null;
        if (!classPath.isEmpty()) {
            URL[] urls = new URL[classPath.size()];
            for (int i = 0; i < urls.length; i++) {
                try {
                    urls[i] = classPath.get(i).toUri().toURL();
                } catch (MalformedURLException e) {
                    throw new IllegalStateException("a file path always makes a URL: " + classPath.get(i), e);
                }
            }
            // Never closed: the providers' classes live as long as the JVM (or until no registry uses them).
            classPathLoader = new URLClassLoader("dat-provider-path", urls, layerLoader);
        }
        return new Loaded(classPathLoader != null ? classPathLoader : layerLoader,
                controller == null ? null : controller.layer(), classPathLoader, List.copyOf(failures),
                nativeAccessNote(controller, classPathLoader));
    }

    /**
     * Sorts a jar into the modules (explicit or named automatic) or the class path; a module already in the parent
     * layer (a copy of {@code dat.api} beside the provider) is left out, as the class path would shadow it too.
     */
    private static void classify(Path jar, ModuleLayer parentLayer, Map<String, Path> modules, List<Path> classPath,
                                 List<Failure> failures) {
        boolean modular;
        try (JarFile file = new JarFile(jar.toFile(), true, ZipFile.OPEN_READ, Runtime.version())) {
            String tooLarge = metadataTooLarge(file);
            if (tooLarge != null) {
                failures.add(new Failure(jar, tooLarge));
                return;
            }
            Manifest manifest = file.getManifest();
            modular = file.getJarEntry("module-info.class") != null || (manifest != null
                    && manifest.getMainAttributes().getValue(new Attributes.Name("Automatic-Module-Name")) != null);
        } catch (IOException | RuntimeException e) {
            failures.add(new Failure(jar, "not a readable jar: " + Discovery.describe(e)));
            return;
        }
        if (!modular) {
            classPath.add(jar);
            return;
        }
        ModuleDescriptor descriptor;
        try {
            descriptor = ModuleFinder.of(jar).findAll().stream().map(ModuleReference::descriptor).findFirst()
                    .orElseThrow(() -> new FindException("no module found in " + jar));
        } catch (FindException | SecurityException e) {
            failures.add(new Failure(jar, "not a valid module: " + Discovery.describe(e)));
            return;
        }
        String name = descriptor.name();
        if (parentLayer.findModule(name).isPresent()) {
            return;
        }
        Path other = modules.putIfAbsent(name, jar);
        if (other != null) {
            failures.add(new Failure(jar, "module " + name + " is already on the provider path in " + other));
        }
    }

    /**
     * Reads, with a limit, what the JDK reads whole when it loads a jar: the manifest, the module descriptors and the
     * service files. An entry whose data inflates beyond {@link #MAX_METADATA_BYTES} (a zip bomb, whatever size its
     * header claims) is refused here, before the module system or a service loader reads it without one.
     *
     * @return why the jar is refused, or {@code null}
     */
    private static String metadataTooLarge(JarFile file) throws IOException {
        if (file.size() > MAX_ENTRIES) {
            return "has " + file.size() + " entries, more than the " + MAX_ENTRIES + " a provider jar may have";
        }
        Enumeration<JarEntry> entries = file.entries();
        while (entries.hasMoreElements()) {
            JarEntry entry = entries.nextElement();
            String name = entry.getName();
            boolean metadata = name.equalsIgnoreCase(JarFile.MANIFEST_NAME) || name.endsWith("module-info.class")
                    || (name.startsWith("META-INF/services/") && !entry.isDirectory());
            if (!metadata) {
                continue;
            }
            try (InputStream in = file.getInputStream(entry)) {
                if (RegularFiles.readAtMost(in, MAX_METADATA_BYTES) == null) {
                    return name + " is larger than " + MAX_METADATA_BYTES + " bytes once inflated, far beyond what"
                            + " such an entry holds; the jar is not loaded";
                }
            }
        }
        return null;
    }

    /**
     * Resolves the modules into one layer. When they do not resolve together, each is tried alone so the jar at
     * fault is the one listed (a missing {@code requires}, a split package), and the others still load.
     */
    private static ModuleLayer.Controller defineLayer(Map<String, Path> modules, ModuleLayer parentLayer,
                                                      ClassLoader parent, List<Failure> failures) {
        ModuleFinder finder = ModuleFinder.of(modules.values().toArray(Path[]::new));
        List<Configuration> parents = List.of(parentLayer.configuration());
        Set<String> roots = new LinkedHashSet<>(modules.keySet());
        try {
            Configuration.resolve(finder, parents, ModuleFinder.of(), roots);
        } catch (FindException | ResolutionException e) {
            for (String root : modules.keySet()) {
                try {
                    Configuration.resolve(finder, parents, ModuleFinder.of(), Set.of(root));
                } catch (FindException | ResolutionException alone) {
                    roots.remove(root);
                    failures.add(new Failure(modules.get(root), "module " + root + " cannot be resolved: "
                            + alone.getMessage()));
                }
            }
        }
        if (roots.isEmpty()) {
            return null;
        }
        try {
            Configuration configuration = Configuration.resolve(finder, parents, ModuleFinder.of(), roots);
            return ModuleLayer.defineModulesWithOneLoader(configuration, List.of(parentLayer), parent);
        } catch (FindException | ResolutionException | LayerInstantiationException | SecurityException e) {
            for (String root : roots) {
                failures.add(new Failure(modules.get(root), "module " + root + " cannot be loaded with the other"
                        + " provider-path modules " + roots + ": " + e.getMessage()));
            }
            return null;
        }
    }

    /**
     * Grants the layer's modules native access when this module has it (the JDK lets only a module with native
     * access pass it on, and would otherwise warn or, under {@code --illegal-native-access=deny}, refuse).
     *
     * @return what the user must add for the path's code to reach native code, or {@code null} when nothing
     */
    // Restricted on purpose: called only when this module has native access, the JDK's condition for passing it on.
    @SuppressWarnings("restricted")
    private static String nativeAccessNote(ModuleLayer.Controller controller, ClassLoader classPathLoader) {
        List<String> missing = new ArrayList<>();
        if (controller != null) {
            if (ProviderPath.class.getModule().isNativeAccessEnabled()) {
                for (Module module : controller.layer().modules()) {
                    controller.enableNativeAccess(module);
                }
            } else {
                missing.add("--enable-native-access=" + (ProviderPath.class.getModule().isNamed()
                        ? ProviderPath.class.getModule().getName() : "ALL-UNNAMED")
                        + " (the registry grants it to the provider-path modules "
                        + controller.layer().modules().stream().map(Module::getName).sorted().toList() + ")");
            }
        }
        if (classPathLoader != null && !classPathLoader.getUnnamedModule().isNativeAccessEnabled()) {
            missing.add("--enable-native-access=ALL-UNNAMED (for the provider-path jars without a module)");
        }
        return missing.isEmpty() ? null : "code on the provider path has no native access; to grant it, start the"
                + " JVM with " + String.join(" and ", missing);
    }
}
