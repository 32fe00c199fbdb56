// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.registry.DatRegistry;
import java.io.File;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every numeric option, rule pattern, file and repeated option of every command, as a careless operator gives them:
 * what cannot be held or matches nothing is refused up front (exit 2, naming the option and why), and what is
 * documented works as documented.
 */
class OptionBoundsTest {

    @TempDir
    Path dir;

    private static void assertUsage(String message, String... args) {
        DatCommandTest.Run r = DatCommandTest.dat(args);
        assertEquals(Exit.USAGE, r.exit(), String.join(" ", args) + ":\n" + r.out() + r.err());
        assertTrue(r.err().contains(message), String.join(" ", args) + ": expected '" + message + "' in\n" + r.err());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        assertTrue(!r.out().contains("ran "), "no rule ran: " + r.out());
    }

    // ------------------------------------------------------------------------------------ R6: counts and sizes

    @Test
    void anIterationCountOfAnySizeNeedsNoMemoryPerIteration() {
        long start = System.nanoTime();
        DatCommandTest.Run r = DatCommandTest.dat("perf", "pingpong", "--sizes", "8", "--iters", "2147483647",
                "--warmup", "0", "--timeout", "1");
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        assertEquals(Exit.USAGE, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("size 8 (0 warm-up + 2147483647 iterations) did not finish within 1 s"), r.err());
        assertTrue(seconds < 10, "took " + seconds + " s");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "perf pingpong --timeout 9223372036854775807       | --timeout 9223372036854775807 is above the limit of",
        "perf pingpong --timeout -1                        | --timeout -1 must be at least 1 second",
        "perf serve --conn-qual 7 --timeout 31536001       | --timeout 31536001 is above the limit of 31536000",
        "perf serve --conn-qual -1                         | --conn-qual -1 must not be negative",
        "perf pingpong --iters -1                          | --iters -1 must be at least 1",
        "perf pingpong --sizes 1t                          | size '1t' is not a number of bytes",
        "perf pingpong --sizes 4g --iters 2147483647       | --iters 2147483647 of size 4g moves more bytes than",
        "tck-peer --conn-qual 7 --timeout 9223372036854775807 | --timeout 9223372036854775807 is above the limit",
        "tck-fault victim --conn-qual -5 --fault none --marker m | --conn-qual -5 must not be negative",
        "tck-fault survivor --peer 127.0.0.1:7 --timeout 0 | --timeout 0 must be at least 1 second",
        "tck --steps -1                                    | --steps -1 must not be negative",
        "tck --random-seconds NaN                          | --random-seconds NaN must be from 0 to",
        "tck --random-seconds Infinity                     | --random-seconds Infinity must be from 0 to",
        "tck --random-seconds -1                           | --random-seconds -1.0 must be from 0 to",
        "tck --concurrent-seconds 1e300                    | --concurrent-seconds 1.0E300 must be from 0 to",
        "tck --seed 0xnope                                 | --seed '0xnope' is not a seed",
        "tck --seed 99999999999999999999                   | --seed '99999999999999999999' is not a seed"})
    void aValueThatCannotBeHeldIsRefusedUpFront(String args, String message) {
        List<String> argv = new ArrayList<>(Arrays.asList(args.trim().split("\\s+", -1)));
        if (argv.getFirst().equals("tck")) {
            argv.addAll(List.of("--reports", dir.resolve("reports").toString()));
        }
        assertUsage(message, argv.toArray(String[]::new));
    }

    @Test
    void moreSizesThanAPlanCarriesAreRefused() {
        String sizes = String.join(",", Collections.nCopies(PerfPlan.MAX_SIZES + 1, "8"));
        assertUsage("--sizes lists " + (PerfPlan.MAX_SIZES + 1) + " sizes; at most " + PerfPlan.MAX_SIZES, "perf",
                "pingpong", "--sizes", sizes);
    }

    /** A serving node sizes its buffer from the client's count of sizes: a count it could not hold is refused. */
    @Test
    void aServerTakesNoMoreSizesOrTimeFromAClientThanItsOwnCommandLineWould() {
        for (int count : new int[] {PerfPlan.MAX_SIZES + 1, Integer.MAX_VALUE}) {
            assertNull(PerfPeer.Request.decode(new PerfPeer.Request(PerfPeer.VERSION, PerfPlan.Test.PINGPONG,
                    PerfPlan.Op.SEND, count, 8, 0, 0).encode()), "count " + count);
        }
        PerfPeer.Request request = new PerfPeer.Request(PerfPeer.VERSION, PerfPlan.Test.PINGPONG, PerfPlan.Op.SEND,
                PerfPlan.MAX_SIZES, 8, 0, 0);
        assertEquals(request, PerfPeer.Request.decode(request.encode()));
        try (Arena arena = Arena.ofConfined()) {
            assertPlanTimeoutIsBounded(arena.allocate(PerfPeer.planBytes(1)));
        }
    }

    private static void assertPlanTimeoutIsBounded(MemorySegment plan) {
        plan.set(ValueLayout.JAVA_INT_UNALIGNED, 8, 1);
        plan.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, 8);
        plan.set(ValueLayout.JAVA_INT_UNALIGNED, 24, 10);
        PerfPeer.Request one = new PerfPeer.Request(PerfPeer.VERSION, PerfPlan.Test.PINGPONG, PerfPlan.Op.SEND, 1, 8,
                0, 0);
        plan.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, TimeUnit.SECONDS.toNanos(60));
        assertEquals(TimeUnit.SECONDS.toNanos(60),
                PerfPeer.plan(one, plan, PerfPeer.planBytes(1), "test").timeoutNanos());
        plan.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, Long.MAX_VALUE);
        CommandFailure refused = assertThrows(CommandFailure.class,
                () -> PerfPeer.plan(one, plan, PerfPeer.planBytes(1), "serving x"));
        assertTrue(refused.getMessage().contains("out of range"), refused.getMessage());
    }

    @Test
    void theHistogramIsExactBelowItsRangeAndWithinItsPrecisionAbove() {
        LatencyHistogram h = new LatencyHistogram();
        Random random = new Random(7);
        for (int round = 0; round < 20; round++) {
            h.reset();
            int n = 1 + random.nextInt(5000);
            long[] samples = new long[n];
            for (int i = 0; i < n; i++) {
                samples[i] = random.nextBoolean() ? random.nextInt((int) LatencyHistogram.EXACT_BELOW)
                        : (long) Math.exp(random.nextDouble() * 40);
                h.record(samples[i]);
            }
            Arrays.sort(samples);
            for (double q : new double[] {0.0, 0.5, 0.9, 0.99, 1.0}) {
                long exact = samples[Math.max(0, (int) Math.ceil(q * n) - 1)];
                long got = h.percentile(q);
                long tolerance = exact < LatencyHistogram.EXACT_BELOW ? 0 : exact / LatencyHistogram.HALF + 1;
                assertTrue(Math.abs(got - exact) <= tolerance, "q " + q + ": " + got + " for " + exact);
            }
        }
        h.reset();
        h.record(Long.MAX_VALUE);
        h.record(-5);
        assertEquals(0, h.percentile(0.5));
        assertTrue(h.percentile(1.0) > Long.MAX_VALUE / 2);
    }

    // ------------------------------------------------------------------------------------ R8: rule patterns

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "*srq_resiz_*         | --only '*srq_resiz_*' matches no rule; nearest: required_srq_resize_",
        "*_dat_srq_resize_*   | rule names drop the dat_ prefix: '*_srq_resize_*' matches",
        "required_ia_querry   | nearest: required_ia_query",
        "*campaign*,nosuch    | --only 'nosuch' matches no rule"})
    void anOnlyPatternThatMatchesNoRuleIsRefusedWithTheNearestNames(String patterns, String message) {
        assertUsage(message, "tck", "--only", patterns.trim(), "--reports", dir.resolve("r").toString());
    }

    @Test
    void anEmptyOnlyPatternIsRefused() {
        assertUsage("--only has an empty pattern", "tck", "--only", "required_ia_query_*,,*campaign*", "--reports",
                dir.resolve("r").toString());
    }

    @Test
    void anExcludeFileMustExistBeTextAndNameRules() throws IOException {
        Path missing = dir.resolve("missing.txt");
        assertUsage("--exclude " + missing + ": no such file", "tck", "--exclude", missing.toString());
        assertUsage("--exclude " + dir + ": not a regular file", "tck", "--exclude", dir.toString());
        Path typo = dir.resolve("typo.txt");
        Files.writeString(typo, "# known issues\nrequired_ia_query_*   # fine\nrequired_srq_resiz_x\n");
        assertUsage("--exclude " + typo + ", line 3: 'required_srq_resiz_x' matches no rule; nearest: "
                + "required_srq_resize_", "tck", "--exclude", typo.toString());
        Path latin1 = dir.resolve("latin1.txt");
        Files.write(latin1, "# caf\u00e9\nrequired_ia_query_*\n".getBytes(StandardCharsets.ISO_8859_1));
        assertUsage("--exclude " + latin1 + ": not UTF-8 text", "tck", "--exclude", latin1.toString());
    }

    /** The --only patterns the docs show: each must select a rule (docs/dat-calls.md once showed one that did not). */
    @Test
    void everyDocumentedOnlyPatternMatchesARule() throws IOException {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve("mvnw"))) {
            root = root.getParent();
        }
        // Quoted anywhere (the docs quote rule patterns); unquoted only in a dat tck command (bench's --only differs).
        Pattern only = Pattern.compile("--only[ =](?:'([^']*)'|\"([^\"]*)\")"
                + "|dat tck\\b[^`\\n]*?--only[ =]([^\\s'\"`]+)");
        int found = 0;
        List<String> docs = new ArrayList<>(List.of("README.md", "CONTRIBUTING.md"));
        try (Stream<Path> md = Files.list(root.resolve("docs"))) {
            md.filter(f -> f.toString().endsWith(".md")).map(f -> "docs/" + f.getFileName()).sorted()
                    .forEach(docs::add);
        }
        for (String doc : docs) {
            Matcher m = only.matcher(Files.readString(root.resolve(doc)));
            while (m.find()) {
                String patterns = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3);
                if (patterns.matches("[A-Z_.,]+\\]?")) {
                    continue;
                }
                for (String pattern : patterns.split(",", -1)) {
                    found++;
                    assertEquals(null, RuleNames.unmatched(pattern), doc + " shows --only " + patterns);
                }
            }
        }
        assertTrue(found >= 4, "found only " + found + " documented patterns");
    }

    // ------------------------------------------------------------------------------------ --provider-path

    @Test
    void providerPathRepeatsBeforeAndAfterTheCommandInOrder() {
        String a = dir.resolve("a.jar").toString();
        String b = dir.resolve("b.jar").toString();
        String c = dir.resolve("c.jar").toString();
        String d = dir.resolve("d.jar").toString();
        for (String[] args : new String[][] {
            {"--provider-path", a, "--provider-path", b, "info", "--provider-path", c, "--provider-path=" + d},
            {"--provider-path", a + File.pathSeparator + b, "info", "--provider-path", c, "--provider-path",
                d}}) {
            DatCommandTest.Run r = DatCommandTest.dat(args);
            assertEquals(0, r.exit(), String.join(" ", args) + "\n" + r.err());
            List<String> listed = r.out().lines().filter(l -> l.startsWith("-")).map(l -> l.split("\\s+", -1)[1])
                    .toList();
            assertEquals(List.of("a.jar", "b.jar", "c.jar", "d.jar"), listed, r.out());
        }
        DatCommandTest.Run last = DatCommandTest.dat("info", "--provider-path");
        assertEquals(Exit.USAGE, last.exit(), last.err());
        assertTrue(last.err().startsWith("--provider-path needs a PATH (jars and directories of jars)\n"), last.err());
        DatCommandTest.Run option = DatCommandTest.dat("info", "--provider-path", "--json");
        assertEquals(Exit.USAGE, option.exit(), option.err());
        assertTrue(option.err().startsWith("--provider-path needs a PATH (jars and directories of jars), not '--json'"),
                option.err());
    }

    @Test
    void providerPathOnTheCommandLineReplacesTheEnvironmentsAndTheEnvironmentsAloneWorks() throws Exception {
        String fromEnv = dir.resolve("env.jar").toString();
        String fromOption = dir.resolve("option.jar").toString();
        ChildDat.Result both = ChildDat.run(dir, Map.of(DatRegistry.PROVIDER_PATH_ENV, fromEnv), "",
                "--provider-path", fromOption, "info", "-e");
        assertEquals(0, both.exit(), both.both());
        assertTrue(both.out().contains("dat.provider.path = " + fromOption + " (default"), both.both());
        assertTrue(!both.out().contains("env.jar") && !both.err().contains("env.jar"), both.both());
        ChildDat.Result env = ChildDat.run(dir, Map.of(DatRegistry.PROVIDER_PATH_ENV, fromEnv), "", "info", "-e");
        assertTrue(env.out().contains("dat.provider.path = " + fromEnv + " (default"), env.both());
    }
}
