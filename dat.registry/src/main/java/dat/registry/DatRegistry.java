// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.spi.DatProvider;
import dat.spi.DatSetting;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The DAT registry: finds providers, lists their IAs, opens an IA by name ({@code dat_ia_open}) and selects IAs
 * by attributes, explaining every rejection.
 *
 * <p>Discovery, in this order:
 * <ol>
 *   <li>{@value #PROVIDERS_PROPERTY} (system property), or else {@value #PROVIDERS_ENV} (environment): a comma
 *       and/or whitespace separated list of provider names, most preferred first; {@code ^name} leaves a
 *       provider out, and a list of only exclusions keeps every other provider. Listed providers come first, in
 *       the list's order; a listed name that is not found is listed as unavailable, "not found", so a typo shows.
 *   <li>{@link ServiceLoader} for {@link DatProvider}, through the thread context class loader (module path and
 *       class path), or an explicit class loader or module layer, or an explicit list of instances. With a
 *       provider path ({@value #PROVIDER_PATH_PROPERTY}, or else {@value #PROVIDER_PATH_ENV}: jars and directories
 *       of jars), the class loader also sees those jars: modular ones in a child module layer, granted native access
 *       when {@code dat.registry} has it, the others on a class path (see {@link Builder#providerPath}).
 *   <li>A static registry file in uDAPL's {@code dat.conf} format ({@link DatConf}): its path from
 *       {@value #DAT_CONF_ENV} (environment), or else {@value #DAT_CONF_PROPERTY} (system property). Each entry
 *       names an IA and its provider, by provider name or provider class name, and the provider's
 *       {@link DatProvider#describe} gives its attributes. A configured file that does not exist is a warning; the file
 *       is UTF-8, and a line with a byte that is not is skipped (and named) without costing the others.
 * </ol>
 *
 * <p>Discovery never throws and never drops anything silently (unlike {@code java.sql.DriverManager}): a provider
 * that fails to load, throws from its constructor, {@code name()} or {@code info()} (errors such as
 * {@link StackOverflowError} or {@link OutOfMemoryError} included), does not return within
 * {@value #CALL_TIMEOUT_PROPERTY} milliseconds ({@value #CALL_TIMEOUT_ENV}, default {@value #CALL_TIMEOUT_DEFAULT}),
 * reports itself unavailable, answers with an unusable name, or repeats another's name is listed in
 * {@link #providers()} with the reason, and each such event is logged once per JVM, on one line, through
 * {@link System.Logger} {@value #LOGGER_NAME} (WARNING for failures, INFO for a provider that says it is unavailable;
 * a repeat in a later discovery, and the stack trace of a failure, at DEBUG). Before each call into a provider, the
 * registry logs at DEBUG which provider and call it is, so the last record names a provider that ends the JVM. The
 * same holds for IAs in {@link #ias()}; the problems of the static registry file are also in {@link #diagnostics()}.
 * When two providers or IAs share a name the first wins.
 *
 * <p>Provider and IA names must be printable: a name that is empty, longer than {@value DatConf#IA_NAME_MAX_LENGTH}
 * characters, or holds a space, a control character, a format character (a bidi override, a zero-width space, a
 * byte-order mark) or another non-printable code point makes that provider or {@code dat.conf} line unavailable, with
 * a reason naming the code point. Text a provider hands in (its unavailable reason, its exceptions' messages) is
 * escaped in reasons, so every name and reason the registry returns is safe to print.
 *
 * <p>Files are opened only when they are regular files: a {@code dat.conf} or a provider-path jar that is a FIFO, a
 * device or a directory is a reason, never a read that blocks.
 *
 * <p>An instance is an immutable snapshot of one discovery and is safe to share between threads; call
 * {@link #load()} again to see providers installed since.
 */
public final class DatRegistry {

    /** System property naming the providers to use: {@code loopback,verbs}, or {@code ^verbs} to exclude one. */
    public static final String PROVIDERS_PROPERTY = "dat.providers";
    /** Environment variable read when {@link #PROVIDERS_PROPERTY} is not set. */
    public static final String PROVIDERS_ENV = "DAT_PROVIDERS";
    /** Default of {@link #PROVIDERS_PROPERTY}: empty, every provider found. */
    public static final String PROVIDERS_DEFAULT = "";
    /** System property with the path of a static registry file, read when {@link #DAT_CONF_ENV} is not set. */
    public static final String DAT_CONF_PROPERTY = "dat.conf";
    /** Environment variable with the path of a static registry file; uDAPL's name, taking precedence. */
    public static final String DAT_CONF_ENV = "DAT_OVERRIDE";
    /** Default of {@link #DAT_CONF_PROPERTY}: empty, no static registry file. */
    public static final String DAT_CONF_DEFAULT = "";
    /**
     * System property with the provider path: jars and directories of jars, separated by
     * {@link java.io.File#pathSeparator}, whose providers are discovered besides those the application was started
     * with (see {@link Builder#providerPath}).
     */
    public static final String PROVIDER_PATH_PROPERTY = "dat.provider.path";
    /** Environment variable read when {@link #PROVIDER_PATH_PROPERTY} is not set. */
    public static final String PROVIDER_PATH_ENV = "DAT_PROVIDER_PATH";
    /** Default of {@link #PROVIDER_PATH_PROPERTY}: empty, no provider path. */
    public static final String PROVIDER_PATH_DEFAULT = "";
    /**
     * Async EVD queue length {@link #open(String)} asks for: room for a burst of asynchronous errors (EP broken,
     * SRQ low watermark, EVD overflow) from a handful of endpoints before the consumer dequeues.
     */
    public static final int ASYNC_EVD_MIN_QLEN_DEFAULT = 16;
    /**
     * System property with the limit, in milliseconds, on each call into a provider: its constructor, {@code name()},
     * {@code info()} and {@code describe()} during discovery, reading the static registry file, and
     * {@code open()} in {@link #open(String, int)}. A provider that exceeds it is listed as unavailable with that
     * reason, and an open that exceeds it fails; the call goes on in a daemon thread, which cannot keep the JVM
     * alive. Read when {@link Builder#callTimeout} was not called; a value that is not a whole number from 1 to
     * {@value #CALL_TIMEOUT_MAX} is a warning and the default applies.
     */
    public static final String CALL_TIMEOUT_PROPERTY = "dat.registry.timeout.ms";
    /** Environment variable read when {@link #CALL_TIMEOUT_PROPERTY} is not set. */
    public static final String CALL_TIMEOUT_ENV = "DAT_REGISTRY_TIMEOUT_MS";
    /**
     * Default of {@link #CALL_TIMEOUT_PROPERTY}: 10 s, far above what a provider that follows the SPI needs (its
     * discovery calls touch no hardware) and what a verbs {@code open} takes on an emulated device.
     */
    public static final long CALL_TIMEOUT_DEFAULT = 10_000;
    /** The largest {@link #CALL_TIMEOUT_PROPERTY} accepted: one hour. */
    public static final long CALL_TIMEOUT_MAX = 3_600_000;
    /** Name of the {@link System.Logger} discovery reports to. */
    public static final String LOGGER_NAME = "dat.registry";

    private final List<ProviderEntry> providers;
    private final List<IaEntry> ias;
    /** The provider of each IA, parallel to {@link #ias}; {@code null} where the IA is unavailable. */
    private final List<DatProvider> iaProviders;
    private final List<DatSetting> settings;
    private final List<DatConf.Diagnostic> diagnostics;
    private final ProviderCalls calls;

    private DatRegistry(Discovery discovery, List<DatSetting> settings, ProviderCalls calls) {
        this.providers = List.copyOf(discovery.providers());
        this.ias = List.copyOf(discovery.ias());
        // May hold nulls, so not List.copyOf.
        this.iaProviders = Collections.unmodifiableList(new ArrayList<>(discovery.iaProviders()));
        this.settings = List.copyOf(settings);
        this.diagnostics = List.copyOf(discovery.diagnostics());
        this.calls = calls;
    }

    /**
     * Discovers providers with the system properties and environment of this process, through the thread
     * context class loader.
     *
     * @return a snapshot of what was found
     */
    public static DatRegistry load() {
        return builder().systemConfiguration().build();
    }

    /**
     * Discovers providers visible to a class loader, with the system properties and environment of this process.
     *
     * @param loader where {@link ServiceLoader} and {@code dat.conf} class names look
     * @return a snapshot of what was found
     */
    public static DatRegistry load(ClassLoader loader) {
        return builder().systemConfiguration().classLoader(loader).build();
    }

    /**
     * Discovers providers in a module layer (and its parents), with the system properties and environment of
     * this process; for applications that load provider modules into a layer of their own.
     *
     * @param layer where {@link ServiceLoader} and {@code dat.conf} class names look
     * @return a snapshot of what was found
     */
    public static DatRegistry load(ModuleLayer layer) {
        return builder().systemConfiguration().moduleLayer(layer).build();
    }

    /**
     * {@return a builder with no configuration (no properties, no environment, no {@code dat.conf}) that discovers
     * through the thread context class loader}
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * {@return every provider found, named or failed, available or not, in registry order: those
     * {@value #PROVIDERS_PROPERTY} lists in its order, then the others in discovery order}
     */
    public List<ProviderEntry> providers() {
        return providers;
    }

    /**
     * {@return every IA, available or not, in registry order: the IAs of each available provider in provider order,
     * then the {@code dat.conf} entries in file order}
     */
    public List<IaEntry> ias() {
        return ias;
    }

    /**
     * {@return the problems found in the static registry file ({@code dat.conf}, {@code DAT_OVERRIDE}), in file order:
     * each names the file and the line ({@link DatConf.Diagnostic#toString()} is {@code file:line: message}), and
     * one about the whole file (missing, not a regular file, unreadable, too large) has line 0; empty when there is
     * no file or nothing was wrong}
     */
    public List<DatConf.Diagnostic> diagnostics() {
        return diagnostics;
    }

    /** {@return the registry's settings with the values this snapshot used, for {@code dat info -e}} */
    public List<DatSetting> settings() {
        return settings;
    }

    /**
     * {@code dat_ia_open} with an async EVD of {@value #ASYNC_EVD_MIN_QLEN_DEFAULT} entries.
     *
     * @param iaName an IA name from {@link #ias()}
     * @return the open IA; the caller closes it
     * @throws DatException as {@link #open(String, int)}
     */
    public DatIa open(String iaName) {
        return open(iaName, ASYNC_EVD_MIN_QLEN_DEFAULT);
    }

    /**
     * {@code dat_ia_open}: opens an IA by name through its provider.
     *
     * @param iaName an IA name from {@link #ias()}; when several entries share it, the first
     * @param asyncEvdMinQlen the minimum queue length of the IA's async EVD, at least 1
     * @return the open IA; the caller closes it
     * @throws DatException {@link DatReturn#PROVIDER_NOT_FOUND}/{@link DatReturnSubtype#NAME_NOT_REGISTERED}
     *     for an unknown or {@code null} name (the message lists the known IAs), {@link DatReturn#PROVIDER_NOT_FOUND}
     *     with the
     *     reason for an unavailable IA, {@link DatReturn#INVALID_PARAMETER} for a queue length below 1,
     *     {@link DatReturn#TIMEOUT_EXPIRED} when the provider's {@link DatProvider#open} does not return within
     *     {@value #CALL_TIMEOUT_PROPERTY} (an IA it returns later is closed), or what that open throws
     *     ({@link DatReturn#INTERNAL_ERROR} when it is not a {@code DatException}, errors included)
     */
    public DatIa open(String iaName, int asyncEvdMinQlen) {
        if (iaName == null) {
            // As DatProvider.open answers it: no name names no provider (not a NullPointerException).
            throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    "dat_ia_open: ia_name is null" + knownIas(""));
        }
        if (asyncEvdMinQlen < 1) {
            throw new DatException(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    "dat_ia_open: async_evd_min_qlen " + asyncEvdMinQlen + " is below 1");
        }
        int index = indexOf(iaName);
        if (index < 0) {
            throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NAME_NOT_REGISTERED,
                    "dat_ia_open: no IA named '" + SafeText.escape(iaName) + "' is registered" + knownIas(iaName));
        }
        IaEntry entry = ias.get(index);
        if (!entry.available()) {
            throw new DatException(DatReturn.PROVIDER_NOT_FOUND, DatReturnSubtype.NO_SUBTYPE,
                    "dat_ia_open: IA " + iaName + " is unavailable: " + entry.unavailableReason());
        }
        DatProvider provider = iaProviders.get(index);
        DatIa ia;
        try {
            ia = calls.call("open(" + iaName + ")", () -> provider.open(iaName, entry.iaParams(), asyncEvdMinQlen),
                    late -> closeOrphan(entry, late));
        } catch (ProviderCalls.Failure e) {
            if (e.thrown() instanceof DatException refused) {
                throw refused;
            }
            if (e.thrown() == null) {
                throw new DatException(DatReturn.TIMEOUT_EXPIRED, DatReturnSubtype.NO_SUBTYPE, "dat_ia_open: provider "
                        + entry.providerName() + " " + e.getMessage() + "; an IA it opens later is closed");
            }
            throw new DatException(DatReturn.INTERNAL_ERROR, DatReturnSubtype.NO_SUBTYPE, "dat_ia_open: provider "
                    + entry.providerName() + " failed to open IA " + iaName + ": " + Discovery.describe(e.thrown()),
                    e.thrown());
        }
        if (ia == null) {
            throw new DatException(DatReturn.INTERNAL_ERROR, "dat_ia_open: provider " + entry.providerName()
                    + " returned no IA for " + iaName);
        }
        return ia;
    }

    /**
     * Chooses the IA a tool was asked for, the one resolution every command shares: by IA name, or the first
     * available IA of a provider, or the first available IA of all.
     *
     * @param providerName a provider name, or {@code null}; with {@code iaName}, the provider the IA must belong to
     * @param iaName an IA name, or {@code null}
     * @return the entry, available
     * @throws IaResolutionException when the IA or provider is unknown (the message lists what exists), unavailable
     *     (the message gives the reason), or offers no available IA
     */
    public IaEntry resolve(String providerName, String iaName) {
        if (iaName != null) {
            IaEntry ia = ias.stream().filter(e -> e.name().equals(iaName)).findFirst().orElseThrow(
                    () -> unresolved(true, "unknown IA '" + esc(iaName) + "'; " + listIas(ias)));
            if (!ia.available()) {
                throw unresolved(false, "IA " + esc(ia.name()) + " (provider " + esc(ia.providerName())
                        + ") is unavailable: " + esc(ia.unavailableReason()));
            }
            if (providerName != null && !providerName.equals(ia.providerName())) {
                throw unresolved(true, "IA " + esc(ia.name()) + " belongs to provider " + esc(ia.providerName())
                        + ", not " + esc(providerName));
            }
            return ia;
        }
        List<IaEntry> own = ias;
        if (providerName != null) {
            ProviderEntry provider = providers.stream().filter(p -> p.name().equals(providerName)).findFirst()
                    .orElseThrow(() -> unresolved(true, "no provider named " + esc(providerName) + " offers an IA; "
                            + listProviders()));
            if (!provider.available()) {
                throw unresolved(false, "provider " + esc(provider.name()) + " is unavailable: "
                        + esc(provider.unavailableReason()));
            }
            own = ias.stream().filter(ia -> ia.providerName().equals(providerName)).toList();
        }
        List<IaEntry> candidates = own;
        return own.stream().filter(IaEntry::available).findFirst().orElseThrow(() -> unresolved(false,
                (providerName == null ? "there is" : "provider " + esc(providerName) + " has") + " no available IA; "
                        + listIas(candidates)));
    }

    /** {@return the failure of {@link #resolve}: a name not registered, or nothing available} */
    private static IaResolutionException unresolved(boolean unknownName, String reason) {
        return new IaResolutionException(unknownName ? DatReturnSubtype.NAME_NOT_REGISTERED
                : DatReturnSubtype.NO_SUBTYPE, reason);
    }

    /** Names are validated where they enter, reasons escaped there; escaped again for a name a caller typed. */
    private static String esc(String text) {
        return SafeText.escape(text);
    }

    private String listProviders() {
        if (providers.isEmpty()) {
            return "no providers were found";
        }
        return "providers: " + providers.stream()
                .map(p -> esc(p.name()) + (p.available() ? " (available)"
                        : " (unavailable: " + esc(p.unavailableReason()) + ")"))
                .collect(Collectors.joining(", "));
    }

    private static String listIas(List<IaEntry> ias) {
        if (ias.isEmpty()) {
            return "no IAs are registered";
        }
        return "IAs: " + ias.stream()
                .map(ia -> esc(ia.name()) + " (provider " + esc(ia.providerName()) + (ia.available()
                        ? ", available)" : ", unavailable: " + esc(ia.unavailableReason()) + ")"))
                .collect(Collectors.joining(", "));
    }

    /** Closes an IA that arrived after {@link #open} gave up: no one else holds it. */
    private static void closeOrphan(IaEntry entry, DatIa late) {
        try {
            late.close();
        } catch (RuntimeException e) {
            OncePerJvmLogger.registry().log(System.Logger.Level.WARNING, "the IA " + entry.name() + " that provider "
                    + entry.providerName() + " opened after dat_ia_open gave up could not be closed: "
                    + Discovery.describe(e));
        }
    }

    private int indexOf(String iaName) {
        for (int i = 0; i < ias.size(); i++) {
            if (ias.get(i).name().equals(iaName)) {
                return i;
            }
        }
        return -1;
    }

    private String knownIas(String iaName) {
        if (ias.isEmpty()) {
            return "; no IAs are registered at all (providers: " + (providers.isEmpty() ? "none"
                    : providers.stream().map(p -> p.name() + (p.available() ? "" : " (unavailable)"))
                            .collect(Collectors.joining(", "))) + ")";
        }
        List<String> names = ias.stream().map(IaEntry::name).distinct().toList();
        return QueryAttributes.didYouMean(QueryAttributes.suggestions(iaName, names)) + "; known IAs: "
                + ias.stream().map(ia -> ia.name() + (ia.available() ? "" : " (unavailable)")).distinct()
                        .collect(Collectors.joining(", "));
    }

    /**
     * Selects the available IAs that satisfy a query and explains why each other IA does not.
     *
     * @param query the condition
     * @return matches and rejections, each in registry order; an unavailable IA is rejected with
     *     {@code unavailable: <reason>}
     */
    public Selection select(DatQuery query) {
        Objects.requireNonNull(query, "query");
        Map<IaEntry, List<String>> outcomes = new LinkedHashMap<>();
        for (IaEntry ia : ias) {
            outcomes.put(ia, ia.available() ? query.explain(ia.info())
                    : List.of("unavailable: " + ia.unavailableReason()));
        }
        return new Selection(query, outcomes);
    }

    /**
     * Parses a query and selects with it.
     *
     * @param queryText a query in the text form of {@link DatQuery}
     * @return matches and rejections
     * @throws DatQuerySyntaxException when the text is not a valid query
     */
    public Selection select(String queryText) {
        return select(DatQuery.parse(queryText));
    }

    /**
     * @return a table of the providers, then of the IAs, one per line, with status, source, and class or
     *     reason
     */
    @Override
    public String toString() {
        List<String[]> providerRows = new ArrayList<>();
        for (ProviderEntry p : providers) {
            providerRows.add(new String[] {p.name(), p.available() ? "available" : "unavailable",
                p.source().toString(), p.className() == null ? "-" : p.className(),
                p.available() ? "" : p.unavailableReason()});
        }
        List<String[]> iaRows = new ArrayList<>();
        for (IaEntry ia : ias) {
            iaRows.add(new String[] {ia.name(), ia.providerName(), ia.available() ? "available" : "unavailable",
                ia.source().toString(), ia.available() ? "" : ia.unavailableReason()});
        }
        StringBuilder sb = new StringBuilder();
        table(sb, "DAT providers", new String[] {"NAME", "STATUS", "SOURCE", "CLASS", "REASON"}, providerRows);
        table(sb, "DAT IAs", new String[] {"NAME", "PROVIDER", "STATUS", "SOURCE", "REASON"}, iaRows);
        return sb.toString();
    }

    private static void table(StringBuilder sb, String title, String[] header, List<String[]> rows) {
        sb.append(title).append(" (").append(rows.size()).append("):\n");
        if (rows.isEmpty()) {
            return;
        }
        int[] widths = new int[header.length];
        List<String[]> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        for (String[] row : all) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        for (String[] row : all) {
            StringBuilder line = new StringBuilder("  ");
            for (int c = 0; c < row.length; c++) {
                line.append(c == row.length - 1 ? row[c] : String.format("%-" + widths[c] + "s  ", row[c]));
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
    }

    /**
     * Configures one discovery. Starts with no properties, no environment and no {@code dat.conf}, discovering
     * through the thread context class loader; {@link #providers}, {@link #classLoader} and
     * {@link #moduleLayer} each replace the way providers are found, the last call winning.
     */
    public static final class Builder {

        private Iterable<? extends ServiceLoader.Provider<DatProvider>> serviceProviders;
        private DiscoverySource source = DiscoverySource.SERVICE_LOADER;
        private ClassLoader classLoader;
        private ModuleLayer moduleLayer;
        private Map<String, String> properties = Map.of();
        private Map<String, String> environment = Map.of();
        private Path datConf;
        private List<Path> providerPath;
        private System.Logger logger;
        private Duration callTimeout;
        private String onlyProvider;

        private Builder() {
        }

        /**
         * Uses these provider instances instead of a {@link ServiceLoader}, in this order; for tests and for
         * applications that construct providers themselves. Their IAs get {@link DiscoverySource#EXPLICIT}.
         *
         * @param instances the providers
         * @return this builder
         */
        public Builder providers(List<? extends DatProvider> instances) {
            List<ServiceLoader.Provider<DatProvider>> given = new ArrayList<>();
            for (DatProvider instance : instances) {
                given.add(new GivenProvider(Objects.requireNonNull(instance, "provider")));
            }
            return discover(given, DiscoverySource.EXPLICIT);
        }

        /**
         * Finds providers with {@code ServiceLoader.load(DatProvider.class, loader)}: named modules defined to
         * the loader and its ancestors, then {@code META-INF/services} on its class path. Also where
         * {@code dat.conf} class names are loaded from.
         *
         * @param loader the class loader
         * @return this builder
         */
        public Builder classLoader(ClassLoader loader) {
            this.classLoader = Objects.requireNonNull(loader, "loader");
            this.moduleLayer = null;
            return discover(null, DiscoverySource.SERVICE_LOADER);
        }

        /**
         * Finds providers with {@code ServiceLoader.load(layer, DatProvider.class)}: the layer and its parents.
         * Also where {@code dat.conf} class names are looked up.
         *
         * @param layer the module layer
         * @return this builder
         */
        public Builder moduleLayer(ModuleLayer layer) {
            this.moduleLayer = Objects.requireNonNull(layer, "layer");
            this.classLoader = null;
            return discover(null, DiscoverySource.SERVICE_LOADER);
        }

        /** Test seam: providers as a {@link ServiceLoader} would hand them out, failures included. */
        Builder discover(Iterable<? extends ServiceLoader.Provider<DatProvider>> found, DiscoverySource as) {
            this.serviceProviders = found;
            this.source = as;
            return this;
        }

        /**
         * Sets the system properties to read.
         *
         * @param values system properties to read {@value #PROVIDERS_PROPERTY} and {@value #DAT_CONF_PROPERTY}
         *     from
         * @return this builder
         */
        public Builder properties(Map<String, String> values) {
            this.properties = Map.copyOf(values);
            return this;
        }

        /**
         * Sets the environment variables to read.
         *
         * @param values environment variables to read {@value #PROVIDERS_ENV} and {@value #DAT_CONF_ENV} from
         * @return this builder
         */
        public Builder environment(Map<String, String> values) {
            this.environment = Map.copyOf(values);
            return this;
        }

        /**
         * Reads {@link System#getProperties()} and {@link System#getenv()}, as {@link DatRegistry#load()} does.
         *
         * @return this builder
         */
        public Builder systemConfiguration() {
            Properties system = System.getProperties();
            Map<String, String> values = new LinkedHashMap<>();
            for (String name : system.stringPropertyNames()) {
                values.put(name, system.getProperty(name));
            }
            return properties(values).environment(System.getenv());
        }

        /**
         * Reads this static registry file, whatever the environment and properties say.
         *
         * @param path a file in {@code dat.conf} format
         * @return this builder
         */
        public Builder datConf(Path path) {
            this.datConf = Objects.requireNonNull(path, "path");
            return this;
        }

        /**
         * Also discovers the providers in these jars and directories of jars, whatever the environment and
         * properties say ({@value #PROVIDER_PATH_PROPERTY}): modular jars (and jars with an
         * {@code Automatic-Module-Name}) in a child module layer, other jars through a class loader over it. Applies
         * to discovery through a class loader (the default, or {@link #classLoader}); each distinct set of jars is
         * loaded once per JVM. A jar that cannot be loaded is listed as an unavailable provider with the reason.
         *
         * @param entries jars and directories of jars, in order; empty for none
         * @return this builder
         */
        public Builder providerPath(List<Path> entries) {
            this.providerPath = List.copyOf(entries);
            return this;
        }

        /**
         * Sends discovery's problem reports to {@code destination}.
         *
         * @param destination where discovery reports every problem each time, instead of {@code System.getLogger}
         *     ({@value #LOGGER_NAME}), which each problem reaches once per JVM
         * @return this builder
         */
        public Builder logger(System.Logger destination) {
            this.logger = Objects.requireNonNull(destination, "destination");
            return this;
        }

        /**
         * Bounds each call into a provider, whatever {@value #CALL_TIMEOUT_PROPERTY} says.
         *
         * @param limit how long one call may take, positive
         * @return this builder
         * @throws IllegalArgumentException when the limit is not positive
         */
        public Builder callTimeout(Duration limit) {
            if (limit.isNegative() || limit.isZero()) {
                throw new IllegalArgumentException("callTimeout " + limit + " is not positive");
            }
            this.callTimeout = limit;
            return this;
        }

        /**
         * Asks only this provider for its IAs, within what {@value #PROVIDERS_PROPERTY} selects: for a tool told which
         * provider to use ({@code dat perf --provider verbs}), so that no other provider's {@link DatProvider#info()}
         * runs and no other provider's native library is loaded (libfabric alone takes a few hundred milliseconds to
         * load). The others are still instantiated and named, and listed unavailable with the reason that they were
         * not asked; a provider {@value #PROVIDERS_PROPERTY} excludes stays excluded, so the request is refused with
         * that reason.
         *
         * @param name the provider's name
         * @return this builder
         */
        public Builder onlyProvider(String name) {
            this.onlyProvider = Objects.requireNonNull(name, "name");
            return this;
        }

        /** {@return the call limit: the builder's, else the property's, else the variable's, else the default} */
        private Duration callLimit(System.Logger log) {
            if (callTimeout != null) {
                return callTimeout;
            }
            String origin = "system property " + CALL_TIMEOUT_PROPERTY;
            String text = properties.get(CALL_TIMEOUT_PROPERTY);
            if (isBlank(text)) {
                origin = CALL_TIMEOUT_ENV;
                text = environment.get(CALL_TIMEOUT_ENV);
            }
            if (isBlank(text)) {
                return Duration.ofMillis(CALL_TIMEOUT_DEFAULT);
            }
            long millis = -1;
            try {
                millis = Long.parseLong(text.strip());
            } catch (NumberFormatException e) {
                // Reported below with the other values out of range.
            }
            if (millis < 1 || millis > CALL_TIMEOUT_MAX) {
                log.log(System.Logger.Level.WARNING, origin + " is " + SafeText.quote(text) + ", not a number of"
                        + " milliseconds from 1 to " + CALL_TIMEOUT_MAX + "; using " + CALL_TIMEOUT_DEFAULT);
                return Duration.ofMillis(CALL_TIMEOUT_DEFAULT);
            }
            return Duration.ofMillis(millis);
        }

        /**
         * Runs discovery.
         *
         * @return the snapshot
         */
        public DatRegistry build() {
            DatRegistry registry = build(onlyProvider);
            if (onlyProvider != null && registry.providers.stream().noneMatch(p -> p.name().equals(onlyProvider))) {
                // No provider has the name: every one is asked after all, so the refusal can list what each offers.
                return build(null);
            }
            return registry;
        }

        private DatRegistry build(String only) {
            System.Logger log = logger != null ? logger : OncePerJvmLogger.registry();
            Duration limit = callLimit(log);
            ProviderCalls calls = new ProviderCalls(limit, "limit: " + CALL_TIMEOUT_PROPERTY + " or "
                    + CALL_TIMEOUT_ENV);

            String providersVariable = PROVIDERS_PROPERTY;
            String providersText = properties.get(PROVIDERS_PROPERTY);
            if (providersText == null && environment.get(PROVIDERS_ENV) != null) {
                providersVariable = PROVIDERS_ENV;
                providersText = environment.get(PROVIDERS_ENV);
            }
            ProviderFilter filter = ProviderFilter.parse(providersVariable, providersText);
            if (only != null) {
                filter = filter.narrowedTo(only);
            }

            String pathVariable = "DatRegistry.Builder.providerPath";
            List<Path> pathEntries = providerPath;
            if (pathEntries == null && !isBlank(properties.get(PROVIDER_PATH_PROPERTY))) {
                pathVariable = "system property " + PROVIDER_PATH_PROPERTY;
                pathEntries = ProviderPath.split(properties.get(PROVIDER_PATH_PROPERTY));
            } else if (pathEntries == null && !isBlank(environment.get(PROVIDER_PATH_ENV))) {
                pathVariable = PROVIDER_PATH_ENV;
                pathEntries = ProviderPath.split(environment.get(PROVIDER_PATH_ENV));
            }
            ProviderPath.Loaded path = null;
            if (pathEntries != null && !pathEntries.isEmpty()) {
                if (serviceProviders != null || moduleLayer != null) {
                    log.log(System.Logger.Level.WARNING, "the DAT provider path from " + pathVariable + " is ignored:"
                            + " discovery was given " + (moduleLayer != null ? "a module layer" : "its providers"));
                } else {
                    path = ProviderPath.load(pathEntries, classLoader != null ? classLoader : contextClassLoader());
                    if (path.nativeAccessNote() != null) {
                        log.log(System.Logger.Level.INFO, path.nativeAccessNote());
                    }
                }
            }

            ClassLoader loader = path != null ? path.loader() : classLoader != null ? classLoader
                    : contextClassLoader();
            Function<String, Class<?>> classLookup = moduleLayer != null ? name -> findInLayer(moduleLayer, name)
                    : name -> findInLoader(loader, name);
            Iterable<? extends ServiceLoader.Provider<DatProvider>> found = serviceProviders;
            if (found == null) {
                ServiceLoader<DatProvider> serviceLoader = moduleLayer != null
                        ? ServiceLoader.load(moduleLayer, DatProvider.class)
                        : ServiceLoader.load(DatProvider.class, loader);
                found = () -> serviceLoader.stream().iterator();
            }

            Discovery discovery = new Discovery(log, filter, classLookup, calls);
            if (path != null) {
                discovery.providerPathFailures(path.failures());
            }
            discovery.discoverProviders(found, source, path == null ? type -> false : path::defines);
            discovery.discoverProviderIas();

            Path confPath = datConf;
            String confOrigin = "DatRegistry.Builder.datConf";
            if (confPath == null && !isBlank(environment.get(DAT_CONF_ENV))) {
                confPath = Path.of(environment.get(DAT_CONF_ENV));
                confOrigin = DAT_CONF_ENV;
            } else if (confPath == null && !isBlank(properties.get(DAT_CONF_PROPERTY))) {
                confPath = Path.of(properties.get(DAT_CONF_PROPERTY));
                confOrigin = "system property " + DAT_CONF_PROPERTY;
            }
            if (confPath != null) {
                discovery.discoverDatConf(confPath, confOrigin);
            }

            List<DatSetting> settings = List.of(
                    new DatSetting(PROVIDERS_PROPERTY, PROVIDERS_DEFAULT, providersText == null ? PROVIDERS_DEFAULT
                            : providersText.trim(), "providers to use, most preferred first; ^name excludes one ("
                            + PROVIDERS_ENV + " when the property is unset)"),
                    new DatSetting(DAT_CONF_PROPERTY, DAT_CONF_DEFAULT, confPath == null ? DAT_CONF_DEFAULT
                            : confPath.toString(), "static registry file in dat.conf format (" + DAT_CONF_ENV
                            + " takes precedence)"),
                    new DatSetting(PROVIDER_PATH_PROPERTY, PROVIDER_PATH_DEFAULT, pathEntries == null
                            ? PROVIDER_PATH_DEFAULT : pathEntries.stream().map(Path::toString)
                                    .collect(Collectors.joining(File.pathSeparator)),
                            "jars and directories of jars with more providers (" + PROVIDER_PATH_ENV
                            + " when the property is unset)" + (path == null || path.nativeAccessNote() == null ? ""
                                    : "; " + path.nativeAccessNote())),
                    new DatSetting(CALL_TIMEOUT_PROPERTY, Long.toString(CALL_TIMEOUT_DEFAULT),
                            Long.toString(limit.toMillis()), "limit in milliseconds on each call into a provider"
                            + " (constructor, name(), info(), describe(), open()); one that exceeds it is unavailable ("
                            + CALL_TIMEOUT_ENV + " when the property is unset)"));
            return new DatRegistry(discovery, settings, calls);
        }

        private static boolean isBlank(String value) {
            return value == null || value.isBlank();
        }

        private static ClassLoader contextClassLoader() {
            ClassLoader context = Thread.currentThread().getContextClassLoader();
            return context != null ? context : ClassLoader.getSystemClassLoader();
        }

        private static Class<?> findInLoader(ClassLoader loader, String className) {
            try {
                return Class.forName(className, false, loader);
            } catch (ClassNotFoundException e) {
                return null;
            }
        }

        private static Class<?> findInLayer(ModuleLayer layer, String className) {
            int dot = className.lastIndexOf('.');
            String packageName = dot < 0 ? "" : className.substring(0, dot);
            for (Module module : layer.modules()) {
                if (module.getPackages().contains(packageName)) {
                    return Class.forName(module, className);
                }
            }
            for (ModuleLayer parent : layer.parents()) {
                Class<?> found = findInLayer(parent, className);
                if (found != null) {
                    return found;
                }
            }
            return null;
        }
    }

    /** A provider instance handed to the builder, presented as a service loader would present it. */
    private record GivenProvider(DatProvider instance) implements ServiceLoader.Provider<DatProvider> {

        @Override
        public Class<? extends DatProvider> type() {
            return instance.getClass();
        }

        @Override
        public DatProvider get() {
            return instance;
        }
    }
}
