// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import dat.tck.RuleLevel;
import dat.tck.TckContext;
import dat.tck.TckLauncher;
import java.io.Console;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dat tck}: runs the conformance kit against a provider found by the registry, with a live progress line, a
 * summary per DAT call and JUnit XML reports. Exits 0 only when no rule failed.
 */
@Command(name = "tck", mixinStandardHelpOptions = true,
        description = {"Run the DAT conformance kit (TCK) against a provider.",
            "Exit 0 only when every rule that ran passed; 1 when one failed."})
final class TckCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** Which IA to verify: by provider (its first available IA) or by IA name. */
    static final class Target {
        @Option(names = "--provider", paramLabel = "NAME", description = "Verify the first available IA of NAME.")
        String provider;

        @Option(names = "--ia", paramLabel = "NAME", description = "Verify the IA NAME.")
        String ia;
    }

    @ArgGroup(exclusive = true)
    Target target;

    @Option(names = "--strict", description = "Fail, rather than skip, required rules the provider cannot run.")
    boolean strict;

    @Option(names = "--exclude", paramLabel = "FILE",
            description = "Leave out the rules named in FILE (one per line, * wildcards, # comments).")
    Path exclude;

    @Option(names = "--reports", paramLabel = "DIR", defaultValue = "dat-tck-reports",
            description = "Write JUnit XML reports to DIR (default: ${DEFAULT-VALUE}).")
    Path reports;

    @Option(names = "--only", paramLabel = "PATTERN", split = ",",
            description = "Run only the rules whose test names match (comma-separated, * wildcards).")
    List<String> only;

    @Option(names = {"-v", "--verbose"},
            description = "Print a line as each rule starts and ends (a log, where no terminal shows progress).")
    boolean verbose;

    @Option(names = "--list-rules", description = "Print the rules index and exit.")
    boolean listRules;

    @Option(names = "--peer", paramLabel = "HOST:CONN_QUAL",
            description = {"Also run the cross-node rules against `dat tck-peer` listening there",
                "(an IPv6 address in brackets); the run ends by telling that peer bye."})
    String peer;

    @Option(names = "--seed", paramLabel = "S",
            description = {"Seed of the random campaign (decimal or 0x hex), to replay a reported failure;",
                "default: a fresh seed, printed with the result."})
    String seed;

    @Option(names = "--steps", paramLabel = "N",
            description = "At most N steps of the random campaign (default: as many as the time allows).")
    Long steps;

    @Option(names = "--random-seconds", paramLabel = "T",
            description = "At most T seconds of the random campaign (default: 10; 0 skips it).")
    Double randomSeconds;

    @Option(names = "--concurrent-seconds", paramLabel = "T",
            description = {"Seconds of the concurrent campaign, for a thread-safe provider with SRQs",
                "(default: 5; 0 skips it)."})
    Double concurrentSeconds;

    /** Created by picocli. */
    TckCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (listRules) {
            TckLauncher.printRules(out);
            out.flush();
            return 0;
        }
        String ia = resolveIa(DatRegistry.load(), target == null ? null : target.provider,
                target == null ? null : target.ia);
        TckLauncher.Options options = TckLauncher.Options.ia(ia).strict(strict).excludeFile(exclude)
                .reportsDir(reports);
        if (only != null && !only.isEmpty()) {
            options = options.only(only.toArray(String[]::new));
        }
        try {
            options = options.peer(peer);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--peer: " + e.getMessage(), e);
        }
        try {
            options = options.campaign(seed, steps, randomSeconds);
            if (concurrentSeconds != null) {
                if (concurrentSeconds < 0 || concurrentSeconds.isNaN()) {
                    throw new IllegalArgumentException("--concurrent-seconds must be 0 or more: " + concurrentSeconds);
                }
                options = options.parameter(TckContext.CAMPAIGN_CONCURRENT_SECONDS, concurrentSeconds.toString());
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--seed/--steps/--random-seconds: " + e.getMessage(), e);
        }
        out.println("dat tck: verifying IA " + ia + (strict ? " (strict)" : "")
                + (peer == null ? "" : ", cross-node rules against the peer at " + peer));
        out.flush();
        // Since JDK 22 System.console() is not null when output is redirected: ask whether it is a terminal.
        boolean terminal = Optional.ofNullable(System.console()).map(Console::isTerminal).orElse(false);
        Progress progress = new Progress(out, terminal, verbose);
        TckLauncher.Result result = TckLauncher.run(options, progress);
        progress.finish();
        printSummary(out, result);
        out.println("JUnit XML reports: " + reports.toAbsolutePath());
        out.flush();
        return result.success() ? 0 : DatCommand.EXIT_NO;
    }

    /**
     * @param registry the registry
     * @param providerName {@code --provider}, or {@code null}
     * @param iaName {@code --ia}, or {@code null}
     * @return the IA named, or the first available IA of the provider (loopback when neither is given)
     * @throws IllegalArgumentException naming what exists when nothing fits
     */
    static String resolveIa(DatRegistry registry, String providerName, String iaName) {
        if (iaName != null) {
            return iaName;
        }
        String provider = providerName == null ? "loopback" : providerName;
        List<IaEntry> ias = registry.ias().stream().filter(e -> e.providerName().equals(provider)).toList();
        if (ias.isEmpty()) {
            // An unavailable provider lists no IA: its reason says what to fix (load a module, add a device).
            registry.providers().stream().filter(p -> p.name().equals(provider) && !p.available()).findFirst()
                    .ifPresent(p -> {
                        throw new IllegalArgumentException("provider " + provider + " is unavailable: "
                                + p.unavailableReason());
                    });
        }
        return ias.stream().filter(IaEntry::available).findFirst().map(IaEntry::name).orElseThrow(() ->
                new IllegalArgumentException(ias.isEmpty()
                        ? "no provider named " + provider + " offers an IA; providers found: " + registry.providers()
                                .stream().map(p -> p.name() + (p.available() ? "" : " (unavailable)")).toList()
                        : "provider " + provider + " has no available IA: " + ias.get(0).unavailableReason()));
    }

    private static void printSummary(PrintWriter out, TckLauncher.Result result) {
        out.printf("%n%-28s %7s %7s %8s%n", "DAT call", "passed", "failed", "skipped");
        result.perCall().forEach((call, s) ->
                out.printf("%-28s %7d %7d %8d%n", call, s.passed(), s.failed(), s.skipped()));
        out.printf("%-28s %7d %7d %8d%n", "total", result.passed(), result.failed(), result.skipped());
        for (TckLauncher.Failure f : result.failures()) {
            out.println((f.level() == RuleLevel.REQUIRED ? "FAILED " : "FAILED (optional) ") + f.testName() + ": "
                    + f.message());
        }
        if (!result.skips().isEmpty()) {
            out.println("skipped:");
            result.skips().forEach((rule, why) -> out.println("  " + rule + ": " + why));
        }
        result.reports().forEach((rule, report) -> out.println(rule + ": " + report));
    }

    /**
     * A live progress line: on a terminal one line rewritten in place, elsewhere one line per failure so logs stay
     * readable.
     */
    private static final class Progress implements TestExecutionListener {
        private final PrintWriter out;
        private final boolean terminal;
        private final boolean verbose;
        private final AtomicInteger done = new AtomicInteger();
        private final AtomicInteger failed = new AtomicInteger();
        private final AtomicInteger skipped = new AtomicInteger();
        private long total;

        Progress(PrintWriter out, boolean terminal, boolean verbose) {
            this.out = out;
            this.terminal = terminal && !verbose;
            this.verbose = verbose;
        }

        @Override
        public void executionStarted(TestIdentifier test) {
            if (verbose && test.isTest()) {
                out.println("  start " + name(test));
                out.flush();
            }
        }

        @Override
        public void testPlanExecutionStarted(TestPlan plan) {
            total = plan.countTestIdentifiers(TestIdentifier::isTest);
        }

        @Override
        public void executionSkipped(TestIdentifier test, String reason) {
            if (test.isTest()) {
                skipped.incrementAndGet();
                step(test);
            }
        }

        @Override
        public void executionFinished(TestIdentifier test, TestExecutionResult result) {
            if (!test.isTest()) {
                return;
            }
            switch (result.getStatus()) {
                case FAILED -> {
                    failed.incrementAndGet();
                    if (!terminal) {
                        out.println("  failed: " + name(test));
                    }
                }
                case ABORTED -> skipped.incrementAndGet();
                case SUCCESSFUL -> { }
            }
            if (verbose) {
                out.println("  " + result.getStatus().name().toLowerCase(Locale.ROOT) + " " + name(test));
                out.flush();
            }
            step(test);
        }

        private void step(TestIdentifier test) {
            int n = done.incrementAndGet();
            if (terminal) {
                out.printf("\r[%d/%d] failed %d, skipped %d  %-70.70s", n, total, failed.get(), skipped.get(),
                        name(test));
                out.flush();
            }
        }

        void finish() {
            if (terminal) {
                out.printf("\r%-120s\r", "");
            }
            out.printf("ran %d rules: %d failed, %d skipped%n", done.get(), failed.get(), skipped.get());
        }

        private static String name(TestIdentifier test) {
            return test.getSource().filter(MethodSource.class::isInstance)
                    .map(s -> ((MethodSource) s).getMethodName()).orElse(test.getDisplayName());
        }
    }
}
