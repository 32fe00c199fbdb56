// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import dat.tck.RuleLevel;
import dat.tck.TckContext;
import dat.tck.TckLauncher;
import java.io.Console;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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

    /** Which IA to verify. */
    @Mixin
    IaTarget target;

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
            return Exit.OK;
        }
        checkOnly();
        checkExclude();
        if (seed != null) {
            try {
                TckContext.parseSeed(seed);
            } catch (IllegalArgumentException e) {
                throw new CommandFailure("--seed '" + Text.safe(seed) + "' is not a seed (decimal or 0x hex, at most"
                        + " 64 bits)");
            }
        }
        if (steps != null) {
            OptionChecks.notNegative("--steps", steps);
        }
        OptionChecks.duration("--random-seconds", randomSeconds);
        OptionChecks.duration("--concurrent-seconds", concurrentSeconds);
        target.check();
        IaEntry entry = target.resolve(target.registry());
        String ia = entry.name();
        TckLauncher.Options options = TckLauncher.Options.ia(ia).strict(strict).excludeFile(exclude)
                .reportsDir(reports).parameter(TckContext.PROVIDER, entry.providerName());
        if (only != null && !only.isEmpty()) {
            options = options.only(only.toArray(String[]::new));
        }
        try {
            options = options.peer(peer);
        } catch (IllegalArgumentException e) {
            throw new CommandFailure("--peer: " + e.getMessage(), e);
        }
        options = options.campaign(seed, steps, randomSeconds);
        if (concurrentSeconds != null) {
            options = options.parameter(TckContext.CAMPAIGN_CONCURRENT_SECONDS, concurrentSeconds.toString());
        }
        out.println("dat tck: verifying IA " + Text.safe(ia) + (strict ? " (strict)" : "")
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
        return result.success() ? Exit.OK : Exit.NO;
    }

    /**
     * @param registry the registry
     * @param providerName {@code --provider}, or {@code null}
     * @param iaName {@code --ia}, or {@code null}
     * @return the IA named, or the first available IA of the provider (loopback when neither is given)
     * @throws CommandFailure naming what exists when nothing fits, or the reason of an unavailable IA
     */
    static String resolveIa(DatRegistry registry, String providerName, String iaName) {
        return IaTarget.resolve(registry, providerName, iaName).name();
    }

    /** A pattern that matches no rule would run nothing and pass: refused, with the names it may have meant. */
    private void checkOnly() {
        if (only == null) {
            return;
        }
        for (String pattern : only) {
            if (pattern.isBlank()) {
                throw new CommandFailure("--only has an empty pattern: give test names or * patterns, separated"
                        + " by commas");
            }
            String why = RuleNames.unmatched(pattern.strip());
            if (why != null) {
                throw new CommandFailure("--only " + why);
            }
        }
    }

    /**
     * The exclude file must be a readable text file, and each name in it must match a rule: a name that matches
     * none is a typo that leaves the rule it meant in the run.
     */
    private void checkExclude() {
        if (exclude == null) {
            return;
        }
        String file = Text.safe(exclude);
        if (!Files.isRegularFile(exclude)) {
            throw new CommandFailure("--exclude " + file + ": " + (Files.exists(exclude) ? "not a regular file"
                    : "no such file"));
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(exclude, StandardCharsets.UTF_8);
        } catch (MalformedInputException e) {
            throw new CommandFailure("--exclude " + file + ": not UTF-8 text");
        } catch (IOException e) {
            throw new CommandFailure("--exclude " + file + ": cannot read it: " + e);
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String name = (hash >= 0 ? line.substring(0, hash) : line).strip();
            String why = name.isEmpty() ? null : RuleNames.unmatched(name);
            if (why != null) {
                throw new CommandFailure("--exclude " + file + ", line " + (i + 1) + ": " + why);
            }
        }
    }

    private static void printSummary(PrintWriter out, TckLauncher.Result result) {
        out.printf("%n%-28s %7s %7s %8s%n", "DAT call", "passed", "failed", "skipped");
        result.perCall().forEach((call, s) ->
                out.printf("%-28s %7d %7d %8d%n", call, s.passed(), s.failed(), s.skipped()));
        out.printf("%-28s %7d %7d %8d%n", "total", result.passed(), result.failed(), result.skipped());
        for (TckLauncher.Failure f : result.failures()) {
            out.println((f.level() == RuleLevel.REQUIRED ? "FAILED " : "FAILED (optional) ") + f.testName() + ": "
                    + Text.block(f.message()));
        }
        if (!result.skips().isEmpty()) {
            out.println("skipped:");
            result.skips().forEach((rule, why) -> out.println("  " + rule + ": " + Text.safe(why)));
        }
        result.reports().forEach((rule, report) -> out.println(rule + ": " + Text.block(report)));
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
