// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.api.DatException;
import dat.spi.DatIaInfo;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of discovery: the {@code dat.providers} filter, then the providers the {@link ServiceLoader} (or the
 * builder) offers, then the {@code dat.conf} entries. Every problem becomes an entry with its reason and one
 * one-line log record (the stack trace, when there is one, goes to DEBUG); nothing a provider does escapes from
 * here: every call into provider code goes through {@link ProviderCalls}, bounded in time, and what it throws,
 * errors included, becomes a reason. Each call is announced at DEBUG before it is made, so the last record names
 * the provider when one ends the JVM; the providers' {@code info()} calls run at once (the libraries behind them load
 * side by side), so when several were announced the crash report's thread, {@code dat-registry info() of <name>},
 * says which.
 */
final class Discovery {

    /**
     * Stop asking the service loader after this many failures in a row: it documents recovery after an error as
     * best effort only, and a loader that fails forever must not hang discovery.
     */
    static final int MAX_CONSECUTIVE_LOOKUP_FAILURES = 64;

    /** How the JDK names the provider class in a {@link ServiceConfigurationError} message. */
    private static final Pattern PROVIDER_IN_MESSAGE = Pattern.compile("Provider (\\S+) ");

    /** Reasons quote at most this much of a provider's own text. */
    static final int REASON_MAX_LENGTH = 2000;

    /** The longest provider version accepted. */
    static final int VERSION_MAX_LENGTH = 64;

    /** The largest static registry file read: far beyond any real one, small enough to read at once. */
    static final int DAT_CONF_MAX_BYTES = 1 << 20;

    /** Entry name of a provider that failed before even its class name was known. */
    static final String UNKNOWN_PROVIDER = "(unknown provider)";

    private final System.Logger logger;
    private final ProviderFilter filter;
    /** Turns a class name from {@code dat.conf} into a class, or {@code null} when there is none by that name. */
    private final Function<String, Class<?>> classLookup;

    private final List<ProviderEntry> providers = new ArrayList<>();
    /** Named providers by name, first one wins, including those left out by the filter. */
    private final Map<String, ProviderEntry> byName = new HashMap<>();
    /** Instances of the available providers, by name. */
    private final Map<String, DatProvider> instances = new HashMap<>();

    private final List<IaEntry> ias = new ArrayList<>();
    /** The provider of each available IA, by IA entry position in {@link #ias}. */
    private final List<DatProvider> iaProviders = new ArrayList<>();
    private final Map<String, IaEntry> firstIaByName = new HashMap<>();
    /** Problems of the static registry file, the whole file's at line 0. */
    private final List<DatConf.Diagnostic> diagnostics = new ArrayList<>();
    private final ProviderCalls calls;

    /**
     * @param logger where each problem is reported once
     * @param filter the {@code dat.providers} list
     * @param classLookup finds provider classes named in {@code dat.conf}
     * @param calls how provider code is called
     */
    Discovery(System.Logger logger, ProviderFilter filter, Function<String, Class<?>> classLookup,
              ProviderCalls calls) {
        this.logger = logger;
        this.filter = filter;
        this.classLookup = classLookup;
        this.calls = calls;
    }

    /** {@return the problems of the static registry file, in file order} */
    List<DatConf.Diagnostic> diagnostics() {
        return diagnostics;
    }

    /** {@return the provider entries in registry order} */
    List<ProviderEntry> providers() {
        return providers;
    }

    /** {@return the IA entries in registry order} */
    List<IaEntry> ias() {
        return ias;
    }

    /** {@return the provider of each IA, parallel to {@link #ias()}, {@code null} for unavailable ones} */
    List<DatProvider> iaProviders() {
        return iaProviders;
    }

    /**
     * Registers the providers a service loader, or the builder's list, offers, in their order, then puts the
     * names {@code dat.providers} lists first, in its order.
     *
     * @param found the providers, not yet instantiated
     * @param source {@link DiscoverySource#SERVICE_LOADER} or {@link DiscoverySource#EXPLICIT}
     * @param onProviderPath whether a provider class came from the provider path, which is then its source
     */
    void discoverProviders(Iterable<? extends ServiceLoader.Provider<DatProvider>> found, DiscoverySource source,
                           Predicate<Class<?>> onProviderPath) {
        Iterator<? extends ServiceLoader.Provider<DatProvider>> it = found.iterator();
        int failuresInARow = 0;
        while (true) {
            ServiceLoader.Provider<DatProvider> next;
            try {
                if (!it.hasNext()) {
                    break;
                }
                next = it.next();
                failuresInARow = 0;
            } catch (ServiceConfigurationError | RuntimeException | LinkageError | OutOfMemoryError e) {
                // A bad META-INF/services line or a class that cannot be loaded: listed, and the loader moves on.
                String className = classNameIn(e);
                fail(className != null ? className : UNKNOWN_PROVIDER, className, source,
                        "failed to load: " + describe(e), e);
                if (++failuresInARow == MAX_CONSECUTIVE_LOOKUP_FAILURES) {
                    logger.log(Level.WARNING, "gave up looking for more DAT providers after "
                            + MAX_CONSECUTIVE_LOOKUP_FAILURES + " failures in a row");
                    break;
                }
                continue;
            }
            String className;
            try {
                className = next.type().getName();
            } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
                String named = classNameIn(e);
                fail(named != null ? named : UNKNOWN_PROVIDER, named, source, "failed to load: " + describe(e), e);
                continue;
            }
            DatProvider provider;
            try {
                announce("instantiating DAT provider class " + className);
                provider = calls.call("the constructor of " + className, next::get, null);
            } catch (ProviderCalls.Failure e) {
                fail(className, className, source, "failed to load: " + e.getMessage(), e.thrown());
                continue;
            }
            if (provider == null) {
                fail(className, className, source, "failed to load: the service loader returned null", null);
                continue;
            }
            register(provider, className, onProviderPath.test(provider.getClass()) ? DiscoverySource.PROVIDER_PATH
                    : source);
        }
        finishInfos();
        orderByFilter();
    }

    /**
     * Lists the provider-path entries that could not be loaded, each as an unavailable provider named after its
     * file.
     *
     * @param failures the jars and directories at fault, with the reasons
     */
    void providerPathFailures(List<ProviderPath.Failure> failures) {
        for (ProviderPath.Failure failure : failures) {
            fail(failure.jar().getFileName() == null ? failure.jar().toString() : failure.jar().getFileName()
                    .toString(), null, DiscoverySource.PROVIDER_PATH, failure.jar() + ": " + failure.reason(), null);
        }
    }

    /**
     * A provider whose {@code info()} is under way, and the place its entry takes in {@link #providers}.
     *
     * @param slot the entry's index in {@link #providers}, which holds a placeholder until {@link #finishInfos}
     */
    private record PendingInfo(int slot, DatProvider provider, String name, String className,
                               DiscoverySource source, ProviderCalls.Pending<DatProviderInfo> call) {
    }

    /** The {@code info()} calls started and not yet waited for, in provider order. */
    private final List<PendingInfo> pendingInfos = new ArrayList<>();

    /**
     * Asks a provider its name and, when the filter selects it, starts its {@code info()}, which
     * {@link #finishInfos} waits for: every provider's info runs at once, so the native libraries behind them
     * (libfabric, libdat2, libibverbs) load side by side. The entry takes its place in {@link #providers} now.
     *
     * @return the index of the provider's entry in {@link #providers}
     */
    private int register(DatProvider provider, String className, DiscoverySource source) {
        // Every way out below lists exactly one entry, this one.
        int slot = providers.size();
        String name;
        try {
            announce("asking DAT provider class " + className + " for name()");
            name = calls.call("name()", provider::name, null);
        } catch (ProviderCalls.Failure e) {
            fail(className, className, source, e.getMessage(), e.thrown());
            return slot;
        }
        if (name == null || name.isBlank()) {
            fail(className, className, source, "name() returned " + (name == null ? "null" : "a blank name"), null);
            return slot;
        }
        String nameProblem = SafeText.nameProblem(name);
        if (nameProblem != null) {
            fail(className, className, source, "name() returned an unusable name: " + nameProblem, null);
            return slot;
        }
        ProviderEntry first = byName.get(name);
        if (first != null) {
            String reason = "duplicate provider name " + name + ": already provided by class " + first.className();
            logger.log(Level.WARNING, "DAT provider " + className + " ignored: " + reason);
            add(new ProviderEntry(name, className, source, null, reason));
            return slot;
        }
        DiscoverySource actual = filter.includes().contains(name) ? DiscoverySource.PROPERTY : source;
        if (!filter.selects(name)) {
            // The user asked for this, so it is no news worth a warning; info() is not called, which is the
            // point of excluding a provider that misbehaves.
            logger.log(Level.DEBUG, "DAT provider " + name + " " + filter.reasonLeftOut(name));
            named(new ProviderEntry(name, className, actual, null, filter.reasonLeftOut(name)));
            return slot;
        }
        announce("asking DAT provider " + name + " (" + className + ") for info()");
        ProviderCalls.Pending<DatProviderInfo> call = calls.start("info()", name, provider::info, null);
        // Holds the name (a later provider of the same name is a duplicate) and the place until finishInfos.
        named(new ProviderEntry(name, className, actual, null, "info() under way"));
        pendingInfos.add(new PendingInfo(slot, provider, name, className, actual, call));
        return slot;
    }

    /** Waits for the {@code info()} calls under way, each within its own limit, and records their outcomes. */
    private void finishInfos() {
        for (PendingInfo p : pendingInfos) {
            ProviderEntry entry = rememberName(infoOutcome(p));
            providers.set(p.slot(), entry);
        }
        pendingInfos.clear();
    }

    private ProviderEntry infoOutcome(PendingInfo p) {
        String name = p.name();
        DatProviderInfo info;
        try {
            info = p.call().await();
        } catch (ProviderCalls.Failure e) {
            return failure(name, p.className(), p.source(), e.getMessage(), e.thrown());
        }
        if (info == null) {
            return failure(name, p.className(), p.source(), "info() returned null", null);
        }
        String infoProblem = infoProblem(info);
        if (infoProblem != null) {
            return failure(name, p.className(), p.source(), infoProblem, null);
        }
        if (!info.available()) {
            String reason = SafeText.escape(info.unavailableReason(), REASON_MAX_LENGTH);
            logger.log(Level.INFO, "DAT provider " + name + " is unavailable: " + reason);
            return new ProviderEntry(name, p.className(), p.source(), info, reason);
        }
        instances.put(name, p.provider());
        return new ProviderEntry(name, p.className(), p.source(), info, null);
    }

    /** {@return why the names in a provider's info cannot be listed, or {@code null} when they can} */
    private static String infoProblem(DatProviderInfo info) {
        String version = info.version().isEmpty() ? null : SafeText.textProblem(info.version(), VERSION_MAX_LENGTH);
        if (version != null) {
            return "info() returned an unusable version: " + version;
        }
        for (DatIaInfo ia : info.ias()) {
            String problem = SafeText.iaNameProblem(ia.iaName());
            if (problem != null) {
                return "info() lists an IA with an unusable name: IA name " + problem;
            }
        }
        return null;
    }

    /** Says, before provider code runs, whose it is: the last word when that code ends the JVM. */
    private void announce(String what) {
        logger.log(Level.DEBUG, what);
    }

    /** Lists a named provider and claims its name, so a later provider of that name is a duplicate. */
    private ProviderEntry named(ProviderEntry entry) {
        return add(rememberName(entry));
    }

    /** Claims the name of an entry already listed. */
    private ProviderEntry rememberName(ProviderEntry entry) {
        byName.put(entry.name(), entry);
        return entry;
    }

    private ProviderEntry add(ProviderEntry entry) {
        providers.add(entry);
        return entry;
    }

    private ProviderEntry fail(String name, String className, DiscoverySource source, String reason, Throwable e) {
        return add(failure(name, className, source, reason, e));
    }

    /** {@return an unavailable provider's entry, not yet listed} The reason is logged once, as a warning. */
    private ProviderEntry failure(String name, String className, DiscoverySource source, String reason,
                                  Throwable e) {
        String safeName = SafeText.escape(name);
        String safeReason = SafeText.escape(reason, REASON_MAX_LENGTH);
        String message = "DAT provider " + safeName + (className != null && !className.equals(name)
                ? " (" + SafeText.escape(className) + ")" : "") + " " + safeReason;
        logger.log(Level.WARNING, message);
        if (e != null) {
            // One line for the user; the trace for whoever turns DEBUG on.
            logger.log(Level.DEBUG, message, e);
        }
        return new ProviderEntry(safeName, className, source, null, safeReason);
    }

    /** Puts the providers {@code dat.providers} lists first, in its order, and adds the listed but missing. */
    private void orderByFilter() {
        if (filter.includes().isEmpty()) {
            return;
        }
        List<ProviderEntry> ordered = new ArrayList<>();
        // By identity: two failures can be equal records and must both stay listed.
        Set<ProviderEntry> placed = Collections.newSetFromMap(new IdentityHashMap<>());
        for (String wanted : filter.includes()) {
            ProviderEntry entry = byName.get(wanted);
            if (entry == null) {
                String reason = "not found: no provider of that name was discovered" + QueryAttributes.didYouMean(
                        QueryAttributes.suggestions(wanted, byName.keySet()));
                logger.log(Level.WARNING, "DAT provider " + wanted + " listed in " + filter.origin() + " is " + reason);
                entry = new ProviderEntry(wanted, null, DiscoverySource.PROPERTY, null, reason);
                byName.put(wanted, entry);
            } else if (filter.excludes().contains(wanted)) {
                continue;
            }
            ordered.add(entry);
            placed.add(entry);
        }
        for (ProviderEntry entry : providers) {
            if (placed.add(entry)) {
                ordered.add(entry);
            }
        }
        providers.clear();
        providers.addAll(ordered);
    }

    /** Lists the IAs each available provider offers by itself, in provider order. */
    void discoverProviderIas() {
        for (ProviderEntry entry : providers) {
            if (entry.available()) {
                for (DatIaInfo ia : entry.info().ias()) {
                    addIa(ia.iaName(), entry.name(), ia.iaParams(), entry.source(), ia, instances.get(entry.name()),
                            "provider " + entry.name());
                }
            }
        }
    }

    /**
     * Adds the IAs of a static registry file.
     *
     * @param path the file
     * @param origin where its path came from, for messages: {@code DAT_OVERRIDE}
     */
    void discoverDatConf(Path path, String origin) {
        String notAFile = RegularFiles.problem(path);
        if (notAFile != null) {
            fileProblem(path, origin, (notAFile.equals(RegularFiles.MISSING) ? "does not exist" : notAFile)
                    + "; no dat.conf entries are used");
            return;
        }
        byte[] content;
        try {
            // Bounded like a provider call: the file may have become a FIFO since it was checked, or sit on a
            // network file system that stopped answering.
            content = calls.call("reading " + path, () -> {
                try (InputStream in = Files.newInputStream(path)) {
                    return RegularFiles.readAtMost(in, DAT_CONF_MAX_BYTES);
                }
            }, null);
        } catch (ProviderCalls.Failure e) {
            fileProblem(path, origin, "cannot be read: " + e.getMessage() + "; no dat.conf entries are used");
            return;
        }
        if (content == null) {
            fileProblem(path, origin, "is larger than " + DAT_CONF_MAX_BYTES + " bytes, the most a static registry"
                    + " file may be; no dat.conf entries are used");
            return;
        }
        DatConf conf = DatConf.parse(path.toString(), content);
        for (DatConf.Diagnostic diagnostic : conf.diagnostics()) {
            logger.log(Level.WARNING, diagnostic.toString());
            diagnostics.add(diagnostic);
        }
        for (DatConf.Entry entry : conf.entries()) {
            addDatConfEntry(conf.fileName(), entry);
        }
    }

    private void fileProblem(Path path, String origin, String problem) {
        String file = SafeText.escape(path.toString(), REASON_MAX_LENGTH);
        logger.log(Level.WARNING, "static registry file " + file + " (from " + origin + ") " + problem);
        diagnostics.add(new DatConf.Diagnostic(file, 0, "static registry file (from " + origin + ") " + problem));
    }

    private void addDatConfEntry(String fileName, DatConf.Entry entry) {
        String where = fileName + ":" + entry.line();
        IaEntry first = firstIaByName.get(entry.iaName());
        if (first != null) {
            // Decided before the provider is asked: an ignored entry must not cost a describe() or a warning of
            // its own.
            addDuplicateIa(entry.iaName(), entry.library(), entry.iaParams(), DiscoverySource.DAT_CONF, where, first);
            return;
        }
        if (entry.isKernel()) {
            unavailableIa(entry, where, "a kDAPL entry (api_version k" + entry.apiVersion().major() + "."
                    + entry.apiVersion().minor() + "); Java consumers use uDAPL entries (u" + entry.apiVersion().major()
                    + "." + entry.apiVersion().minor() + ")");
            return;
        }
        ProviderEntry provider = byName.get(entry.library());
        if (provider == null) {
            provider = providers.stream().filter(p -> entry.library().equals(p.className())).findFirst()
                    .orElse(null);
        }
        if (provider == null && isClassName(entry.library())) {
            provider = loadByClassName(entry.library());
        }
        if (provider == null) {
            unavailableIa(entry, where, "provider " + entry.library() + " not found" + QueryAttributes.didYouMean(
                    QueryAttributes.suggestions(entry.library(), byName.keySet())));
            return;
        }
        if (!provider.available()) {
            // The provider's own problem was logged when it was found; the IA only points at it.
            addIa(entry.iaName(), provider.name(), entry.iaParams(), DiscoverySource.DAT_CONF, null, null, where,
                    "provider " + provider.name() + " is unavailable: " + provider.unavailableReason());
            return;
        }
        DatProvider instance = instances.get(provider.name());
        DatIaInfo info;
        try {
            announce("asking DAT provider " + provider.name() + " to describe(" + entry.iaName() + ")");
            info = calls.call("describe(" + entry.iaName() + ")",
                    () -> instance.describe(entry.iaName(), entry.iaParams()), null);
        } catch (ProviderCalls.Failure e) {
            Throwable thrown = e.thrown();
            unavailableIa(entry, where, "provider " + provider.name() + " cannot describe it: "
                    + SafeText.escape(thrown instanceof DatException ? thrown.getMessage()
                            : thrown != null ? describe(thrown) : e.getMessage(), REASON_MAX_LENGTH));
            return;
        }
        if (info == null) {
            unavailableIa(entry, where, "provider " + provider.name() + " describe() returned null");
            return;
        }
        if (!info.iaName().equals(entry.iaName()) || !info.iaParams().equals(entry.iaParams())) {
            // The entry's name is what open() is called with, so the description must carry it.
            info = new DatIaInfo(entry.iaName(), entry.iaParams(), info.providerAttr(), info.iaAttr());
        }
        addIa(entry.iaName(), provider.name(), entry.iaParams(), DiscoverySource.DAT_CONF, info, instance, where);
    }

    private void unavailableIa(DatConf.Entry entry, String where, String reason) {
        logger.log(Level.WARNING, where + ": IA " + entry.iaName() + " is unavailable: " + reason);
        addIa(entry.iaName(), entry.library(), entry.iaParams(), DiscoverySource.DAT_CONF, null, null, where, reason);
    }

    private void addIa(String name, String providerName, String iaParams, DiscoverySource source, DatIaInfo info,
                       DatProvider provider, String where) {
        addIa(name, providerName, iaParams, source, info, provider, where, null);
    }

    private void addIa(String name, String providerName, String iaParams, DiscoverySource source, DatIaInfo info,
                       DatProvider provider, String where, String unavailableReason) {
        IaEntry first = firstIaByName.get(name);
        if (first != null) {
            addDuplicateIa(name, providerName, iaParams, source, where, first);
            return;
        }
        IaEntry entry = new IaEntry(name, providerName, iaParams, source, unavailableReason == null ? info : null,
                unavailableReason);
        firstIaByName.put(name, entry);
        ias.add(entry);
        iaProviders.add(entry.available() ? provider : null);
    }

    private void addDuplicateIa(String name, String providerName, String iaParams, DiscoverySource source,
                                String where, IaEntry first) {
        String reason = "duplicate IA name " + name + ": already offered by provider " + first.providerName() + " ("
                + first.source() + ")";
        logger.log(Level.WARNING, where + ": IA " + name + " ignored: " + reason);
        ias.add(new IaEntry(name, providerName, iaParams, source, null, reason));
        iaProviders.add(null);
    }

    /** Loads, instantiates and registers a provider class named by {@code dat.conf}. */
    private ProviderEntry loadByClassName(String className) {
        Class<?> type;
        try {
            type = classLookup.apply(className);
        } catch (RuntimeException | LinkageError e) {
            return fail(className, className, DiscoverySource.DAT_CONF, "failed to load: " + describe(e), e);
        }
        if (type == null) {
            return null;
        }
        if (!DatProvider.class.isAssignableFrom(type)) {
            return fail(className, className, DiscoverySource.DAT_CONF, "does not implement "
                    + DatProvider.class.getName(), null);
        }
        DatProvider provider;
        try {
            announce("instantiating DAT provider class " + className + " named by dat.conf");
            provider = (DatProvider) calls.call("the constructor of " + className,
                    () -> type.getConstructor().newInstance(), null);
        } catch (ProviderCalls.Failure e) {
            Throwable thrown = e.thrown() instanceof InvocationTargetException ite ? ite.getCause() : e.thrown();
            return fail(className, className, DiscoverySource.DAT_CONF, "could not be instantiated: "
                    + (thrown != null ? describe(thrown) : e.getMessage()), thrown);
        }
        int slot = register(provider, className, DiscoverySource.DAT_CONF);
        finishInfos();
        return providers.get(slot);
    }

    /** {@return whether the text is a Java binary class name with a package, as opposed to a provider name} */
    static boolean isClassName(String text) {
        if (!text.contains(".")) {
            return false;
        }
        for (String part : text.split("\\.", -1)) {
            if (part.isEmpty() || !Character.isJavaIdentifierStart(part.charAt(0))) {
                return false;
            }
            for (int i = 1; i < part.length(); i++) {
                if (!Character.isJavaIdentifierPart(part.charAt(i))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** {@return the provider class a service loader error names, or {@code null}} */
    private static String classNameIn(Throwable e) {
        Matcher m = PROVIDER_IN_MESSAGE.matcher(String.valueOf(e.getMessage()));
        return m.find() ? m.group(1) : null;
    }

    /** {@return the exception and its causes on one line, for a reason a user reads} */
    static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder(text(e));
        int depth = 0;
        for (Throwable cause = e.getCause(); cause != null && depth < 4; cause = cause.getCause(), depth++) {
            sb.append(": caused by ").append(text(cause));
        }
        return sb.toString();
    }

    /** {@return {@link Throwable#toString()}, escaped and cut; a toString that throws is itself a reason} */
    private static String text(Throwable e) {
        String text;
        try {
            text = e.toString();
        } catch (RuntimeException | Error failed) {
            text = e.getClass().getName() + " (whose toString() threw " + failed.getClass().getName() + ")";
        }
        return SafeText.escape(text, REASON_MAX_LENGTH);
    }
}
