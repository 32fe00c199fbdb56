// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dat.registry.DatRegistry;
import dat.registry.peer.PeerAddress;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.regex.Pattern;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;

/**
 * Runs the TCK programmatically: against an IA by name (through the registry) or any verification class, with
 * strict mode, an exclude file and a JUnit XML report directory. {@code dat tck} is built on it.
 */
public final class TckLauncher {

    private TckLauncher() {
    }

    /**
     * What to run.
     *
     * @param iaName the IA to verify through the registry; ignored when {@code verification} is given
     * @param verification a verification class to run instead, or {@code null} for {@link RegistryVerification}
     * @param strict fail required rules the provider cannot run instead of skipping them
     * @param excludeFile a file of test names to leave out (one per line, {@code *} wildcards, {@code #}
     *     comments), or {@code null}
     * @param reportsDir where to write JUnit XML reports, or {@code null}
     * @param only test-name patterns ({@code *} wildcards) to run alone; empty runs every rule
     * @param parameters further JUnit configuration parameters, such as {@link TckContext#EVENT_TIMEOUT_MS}
     */
    public record Options(String iaName, Class<? extends DatProviderVerification> verification, boolean strict,
                          Path excludeFile, Path reportsDir, List<String> only, Map<String, String> parameters) {

        /** Makes the collections immutable. */
        public Options {
            only = List.copyOf(only);
            parameters = Map.copyOf(parameters);
        }

        /**
         * {@return options for a plain run against the IA {@code iaName}}
         *
         * @param iaName the IA to verify
         */
        public static Options ia(String iaName) {
            return new Options(iaName, null, false, null, null, List.of(), Map.of());
        }

        /**
         * {@return options for a plain run of {@code verificationClass}}
         *
         * @param verificationClass the verification class to run
         */
        public static Options verification(Class<? extends DatProviderVerification> verificationClass) {
            return new Options(null, verificationClass, false, null, null, List.of(), Map.of());
        }

        /**
         * {@return a copy with strict mode set}
         *
         * @param on strict mode
         */
        public Options strict(boolean on) {
            return new Options(iaName, verification, on, excludeFile, reportsDir, only, parameters);
        }

        /**
         * {@return a copy with {@code file} as the exclude file}
         *
         * @param file the exclude file, or {@code null}
         */
        public Options excludeFile(Path file) {
            return new Options(iaName, verification, strict, file, reportsDir, only, parameters);
        }

        /**
         * {@return a copy writing reports to {@code dir}}
         *
         * @param dir the JUnit XML report directory, or {@code null}
         */
        public Options reportsDir(Path dir) {
            return new Options(iaName, verification, strict, excludeFile, dir, only, parameters);
        }

        /**
         * {@return a copy running only the tests {@code patterns} match}
         *
         * @param patterns test-name patterns to run alone
         */
        public Options only(String... patterns) {
            return new Options(iaName, verification, strict, excludeFile, reportsDir, List.of(patterns), parameters);
        }

        /**
         * Runs the cross-node rules against the kit's peer ({@code dat tck-peer}) on another node; the run ends by
         * telling it "bye".
         *
         * @param peer where the peer listens, {@code HOST:CONN_QUAL}, or {@code null} for none
         * @return a copy with {@link TckContext#PEER} set
         * @throws IllegalArgumentException when {@code peer} is not {@code HOST:CONN_QUAL}
         */
        public Options peer(String peer) {
            if (peer == null) {
                Map<String, String> fewer = new HashMap<>(parameters);
                fewer.remove(TckContext.PEER);
                return new Options(iaName, verification, strict, excludeFile, reportsDir, only, fewer);
            }
            return parameter(TckContext.PEER, PeerAddress.parse(peer).toString());
        }

        /**
         * Bounds the random campaign ({@code dat.tck.rules.CampaignRules}); it stops at whichever bound comes first.
         *
         * @param seed its seed, or {@code null} for a fresh one (printed with the result)
         * @param steps at most this many steps, or {@code null} for no bound but the time
         * @param seconds at most this long; 0 skips the campaign; {@code null} keeps the default (10 s)
         * @return a copy with {@link TckContext#CAMPAIGN_SEED}, {@link TckContext#CAMPAIGN_STEPS} and
         *     {@link TckContext#CAMPAIGN_SECONDS} set
         * @throws IllegalArgumentException for a seed that is neither decimal nor {@code 0x} hex, or a negative
         *     bound
         */
        public Options campaign(String seed, Long steps, Double seconds) {
            Options o = this;
            if (seed != null) {
                o = o.parameter(TckContext.CAMPAIGN_SEED, "0x" + Long.toHexString(TckContext.parseSeed(seed)));
            }
            if (steps != null) {
                if (steps < 0) {
                    throw new IllegalArgumentException("campaign steps must be 0 or more: " + steps);
                }
                o = o.parameter(TckContext.CAMPAIGN_STEPS, Long.toString(steps));
            }
            if (seconds != null) {
                if (seconds < 0 || seconds.isNaN()) {
                    throw new IllegalArgumentException("campaign seconds must be 0 or more: " + seconds);
                }
                o = o.parameter(TckContext.CAMPAIGN_SECONDS, Double.toString(seconds));
            }
            return o;
        }

        /**
         * {@return a copy with the parameter added}
         *
         * @param name a configuration parameter
         * @param value its value
         */
        public Options parameter(String name, String value) {
            Map<String, String> more = new HashMap<>(parameters);
            more.put(name, value);
            return new Options(iaName, verification, strict, excludeFile, reportsDir, only, more);
        }
    }

    /** Counts of one DAT call's rules in a run. */
    public static final class CallSummary {
        private int passed;
        private int failed;
        private int skipped;

        /** Creates an empty summary. */
        public CallSummary() {
        }

        /** {@return rules that passed} */
        public int passed() {
            return passed;
        }

        /** {@return rules that failed} */
        public int failed() {
            return failed;
        }

        /** {@return rules that were skipped} */
        public int skipped() {
            return skipped;
        }
    }

    /**
     * One failed rule.
     *
     * @param testName the rule's test name
     * @param level its level
     * @param message the failure message
     */
    public record Failure(String testName, RuleLevel level, String message) {
    }

    /**
     * The outcome of a run.
     *
     * @param perCall counts per DAT call, sorted by call
     * @param failures every failed rule
     * @param skips every skipped rule with its reason
     * @param reports what rules published besides pass or fail, by rule: the campaign's seed, steps and time
     */
    public record Result(Map<String, CallSummary> perCall, List<Failure> failures, Map<String, String> skips,
                         Map<String, String> reports) {

        /** {@return whether every required rule passed (optional rules may have failed only if they were skipped)} */
        public boolean success() {
            return failures.isEmpty();
        }

        /** {@return total rules passed} */
        public int passed() {
            return perCall.values().stream().mapToInt(CallSummary::passed).sum();
        }

        /** {@return total rules failed} */
        public int failed() {
            return failures.size();
        }

        /** {@return total rules skipped} */
        public int skipped() {
            return skips.size();
        }
    }

    /**
     * Runs the kit.
     *
     * @param options what to run
     * @param progress also told about every test, for a live progress line; may be {@code null}
     * @return the outcome
     */
    public static Result run(Options options, TestExecutionListener progress) {
        Class<? extends DatProviderVerification> target = options.verification() != null
                ? options.verification() : RegistryVerification.class;
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(target))
                .configurationParameter(TckContext.STRICT, Boolean.toString(options.strict()));
        if (options.iaName() != null) {
            request.configurationParameter(TckContext.IA, options.iaName());
        }
        if (options.iaName() != null && !options.parameters().containsKey(TckContext.REPLAY_COMMAND)) {
            request.configurationParameter(TckContext.REPLAY_COMMAND, replayCommand(options.iaName()));
        }
        options.parameters().forEach(request::configurationParameter);
        if (options.excludeFile() != null) {
            request.filters(matching(readExcludes(options.excludeFile()), false));
        }
        if (!options.only().isEmpty()) {
            request.filters(matching(options.only().stream().map(TckLauncher::wildcard).toList(), true));
        }
        LauncherDiscoveryRequest discovery = request.build();
        Collector collector = new Collector();
        List<TestExecutionListener> listeners = new ArrayList<>(List.of(collector));
        if (progress != null) {
            listeners.add(progress);
        }
        if (options.reportsDir() != null) {
            try {
                Files.createDirectories(options.reportsDir());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the reports directory " + options.reportsDir(), e);
            }
            listeners.add(new LegacyXmlReportGeneratingListener(options.reportsDir(),
                    new PrintWriter(System.err, true, StandardCharsets.UTF_8)));
        }
        Launcher launcher = LauncherFactory.create();
        launcher.execute(discovery, listeners.toArray(new TestExecutionListener[0]));
        return collector.result();
    }

    /**
     * {@return the {@code dat} command line that verifies {@code iaName} again as this JVM found it: with the
     * provider path and the {@code dat.conf} this JVM was given (as {@code DAT_OVERRIDE}), so a vendor's replay reaches
     * the vendor's provider}
     *
     * @param iaName the IA under test
     */
    public static String replayCommand(String iaName) {
        StringBuilder command = new StringBuilder();
        String conf = System.getProperty(DatRegistry.DAT_CONF_PROPERTY, "");
        if (!conf.isBlank()) {
            command.append(DatRegistry.DAT_CONF_ENV).append('=').append(shellQuote(conf)).append(' ');
        }
        command.append("dat");
        String path = System.getProperty(DatRegistry.PROVIDER_PATH_PROPERTY, "");
        if (!path.isBlank()) {
            command.append(" --provider-path ").append(shellQuote(path));
        }
        return command.append(" tck --ia ").append(shellQuote(iaName)).toString();
    }

    /**
     * {@return {@code text} as one POSIX shell word: as is when it holds only safe characters, else in single quotes}
     *
     * @param text any text
     */
    public static String shellQuote(String text) {
        if (!text.isEmpty()
                && text.chars().allMatch(c -> Character.isLetterOrDigit(c) || "@%+=:,./_-".indexOf(c) >= 0)) {
            return text;
        }
        return "'" + text.replace("'", "'\\''") + "'";
    }

    /**
     * Prints the rules index: call, section, return codes, level, test name, rule.
     *
     * @param out where to print
     */
    public static void printRules(PrintWriter out) {
        out.printf("%-24s %-13s %-34s %-9s %s%n", "call", "section", "return codes", "level", "test (rule)");
        for (TckRule r : RulesIndex.rules()) {
            out.printf("%-24s %-13s %-34s %-9s %s (%s)%n", r.call(), r.section(), r.returnsText(),
                    r.level().name().toLowerCase(Locale.ROOT), r.testName(), r.rule());
        }
    }

    /**
     * Reads an exclude file: one test name per line, {@code *} matches any run of characters, {@code #} starts a
     * comment.
     *
     * @param file the exclude file
     * @return the patterns
     */
    static List<Pattern> readExcludes(Path file) {
        List<Pattern> patterns = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(file)) {
                int hash = line.indexOf('#');
                String name = (hash >= 0 ? line.substring(0, hash) : line).strip();
                if (!name.isEmpty()) {
                    patterns.add(wildcard(name));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the exclude file " + file, e);
        }
        return patterns;
    }

    private static Pattern wildcard(String name) {
        return Pattern.compile(Pattern.quote(name).replace("*", "\\E.*\\Q"));
    }

    /** Keeps ({@code include}) or drops the test methods whose names match one of {@code patterns}. */
    private static PostDiscoveryFilter matching(List<Pattern> patterns, boolean include) {
        return descriptor -> {
            Optional<String> method = descriptor.getSource().filter(MethodSource.class::isInstance)
                    .map(s -> ((MethodSource) s).getMethodName());
            if (method.isEmpty()) {
                return FilterResult.included("not a test method");
            }
            boolean matched = patterns.stream().anyMatch(p -> p.matcher(method.get()).matches());
            return matched == include ? FilterResult.included(include ? "selected" : "not excluded")
                    : FilterResult.excluded(include ? "not selected" : "excluded by the exclude file");
        };
    }

    /** Counts results per DAT call. */
    private static final class Collector implements TestExecutionListener {
        private final Map<String, TckRule> byName = new TreeMap<>();
        private final Map<String, CallSummary> perCall = new TreeMap<>();
        private final List<Failure> failures = new ArrayList<>();
        private final Map<String, String> skips = new TreeMap<>();
        private final Map<String, String> reports = new ConcurrentSkipListMap<>();

        Collector() {
            for (TckRule r : RulesIndex.rules()) {
                byName.put(r.testName(), r);
            }
        }

        @Override
        public void testPlanExecutionStarted(TestPlan plan) {
        }

        @Override
        public void reportingEntryPublished(TestIdentifier test, ReportEntry entry) {
            rule(test).ifPresent(r -> entry.getKeyValuePairs().forEach((key, value) ->
                    reports.merge(r.testName(), value, (a, b) -> a + System.lineSeparator() + b)));
        }

        @Override
        public void executionSkipped(TestIdentifier test, String reason) {
            rule(test).ifPresent(r -> {
                summary(r).skipped++;
                skips.put(r.testName(), reason);
            });
        }

        @Override
        public void executionFinished(TestIdentifier test, TestExecutionResult result) {
            Optional<TckRule> rule = rule(test);
            if (rule.isEmpty()) {
                if (result.getStatus() == TestExecutionResult.Status.FAILED) {
                    failures.add(new Failure(test.getDisplayName(), RuleLevel.REQUIRED,
                            result.getThrowable().map(Throwable::toString).orElse("failed")));
                }
                return;
            }
            TckRule r = rule.get();
            switch (result.getStatus()) {
                case SUCCESSFUL -> summary(r).passed++;
                case ABORTED -> {
                    summary(r).skipped++;
                    skips.put(r.testName(), result.getThrowable().map(Throwable::getMessage).orElse("aborted"));
                }
                case FAILED -> {
                    summary(r).failed++;
                    failures.add(new Failure(r.testName(), r.level(),
                            result.getThrowable().map(Throwable::toString).orElse("failed")));
                }
            }
        }

        private Optional<TckRule> rule(TestIdentifier test) {
            return test.getSource().filter(MethodSource.class::isInstance)
                    .map(s -> byName.get(((MethodSource) s).getMethodName()));
        }

        private CallSummary summary(TckRule r) {
            return perCall.computeIfAbsent(r.call(), c -> new CallSummary());
        }

        Result result() {
            return new Result(Collections.unmodifiableSortedMap(new TreeMap<>(perCall)), List.copyOf(failures),
                    Collections.unmodifiableSortedMap(new TreeMap<>(skips)),
                    Collections.unmodifiableSortedMap(new TreeMap<>(reports)));
        }
    }
}
