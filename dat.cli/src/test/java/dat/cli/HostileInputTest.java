// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.registry.DatRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command against providers that hang, throw, or hand it hostile strings ({@link HostileProviders}), and against
 * an output it cannot write: it stays bounded, says in one line what failed, and prints nothing that forges a row
 * or moves the cursor.
 */
class HostileInputTest {

    /** Far above the few seconds any command here needs, the one-second timeouts included. */
    private static final Duration COMMAND_BOUND = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    /**
     * Runs the command in this JVM, bounded: a command that hangs in a provider fails the test after
     * {@link #COMMAND_BOUND} (and its thread is interrupted, which releases the hanging provider).
     */
    private DatCommandTest.Run dat(String... args) {
        return assertTimeoutPreemptively(COMMAND_BOUND,
                () -> HostileProviders.withConf(dir, () -> DatCommandTest.dat(args)),
                () -> "dat " + String.join(" ", args) + " did not return within " + COMMAND_BOUND);
    }

    /** No control character of a provider's strings reaches the output; each error is one line. */
    private static void assertClean(String text, String context) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean allowed = c == '\n' || (!Character.isISOControl(c) && Character.getType(c) != Character.FORMAT);
            assertTrue(allowed, "raw U+" + Integer.toHexString(c) + " at " + i + " of " + context + ":\n" + text);
        }
        assertTrue(text.lines().noneMatch(l -> l.startsWith("loopback9")), "a forged row in " + context + ":\n" + text);
    }

    private static void assertOneLine(String err, String context) {
        assertEquals(1, err.lines().count(), context + " printed more than one line:\n" + err);
        assertFalse(err.contains("\tat "), context + " printed a stack trace:\n" + err);
    }

    // ------------------------------------------------------------------------------------ R3: --timeout bounds

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "perf pingpong --ia hang0 --timeout 1",
        "perf serve --ia hang0 --conn-qual 7 --timeout 1",
        "tck-peer --ia hang0 --conn-qual 7 --timeout 1",
        "tck-fault victim --ia hang0 --conn-qual 7 --fault none --marker MARKER --timeout 1"})
    void aTimeoutBoundsAnOpenThatNeverReturns(String args) {
        long start = System.nanoTime();
        DatCommandTest.Run r = dat(args.replace("MARKER", dir.resolve("marker").toString()).split(" ", -1));
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        assertEquals(Exit.USAGE, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("opening IA hang0 of provider hang did not return within 1 s"), r.err());
        assertOneLine(r.err(), args);
        assertTrue(seconds < 10, "gave up after " + seconds + " s");
    }

    /**
     * The IA's close is a step like any other: {@code --timeout} bounds it (the measuring threads' joins before it
     * have their own bound). It once had a fixed 9 s, so a close that waits for a stopped peer failed the command
     * under any timeout, and a close slower than the timeout passed.
     */
    @Test
    void aTimeoutBoundsTheIasClose() {
        DatCommandTest.Run r = dat("perf", "pingpong", "--ia", "slowclose0", "--sizes", "8", "--iters", "100",
                "--timeout", "2");
        assertEquals(Exit.USAGE, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("closing IA slowclose0 of provider slowclose did not return within 2 s"), r.err());
        assertOneLine(r.err(), "a close slower than --timeout");
        assertTrue(r.out().lines().anyMatch(l -> l.trim().startsWith("8 ")), "the row was printed:\n" + r.out());
    }

    /**
     * A command told its provider asks no other for its IAs, so it never waits for another's native library (libfabric
     * takes hundreds of milliseconds to load); told an IA, it asks every provider, since any may offer the name.
     */
    @Test
    void aCommandToldItsProviderAsksNoOtherForItsIas() {
        String[] perf = {"perf", "pingpong", "--sizes", "8", "--iters", "10"};
        HostileProviders.ASKED.clear();
        DatCommandTest.Run byProvider = dat(concat(perf, "--provider", "loopback"));
        assertEquals(Exit.OK, byProvider.exit(), byProvider.out() + byProvider.err());
        DatCommandTest.Run byDefault = dat(perf);
        assertEquals(Exit.OK, byDefault.exit(), byDefault.out() + byDefault.err());
        assertEquals(Set.of(), HostileProviders.ASKED);

        DatCommandTest.Run byIa = dat(concat(perf, "--ia", "loopback0"));
        assertEquals(Exit.OK, byIa.exit(), byIa.out() + byIa.err());
        assertEquals(Set.of("hang", "forger", "overflow", "absent", "slowclose"), HostileProviders.ASKED);
    }

    private static String[] concat(String[] head, String... tail) {
        return Stream.concat(Arrays.stream(head), Arrays.stream(tail)).toArray(String[]::new);
    }

    @Test
    void theJvmEndsWhileAProviderThreadIsStuckInOpen() throws Exception {
        ChildDat.Result r = HostileProviders.withConf(dir, () -> child("", "perf", "pingpong", "--ia", "hang0",
                "--timeout", "1"));
        assertEquals(Exit.USAGE, r.exit(), r.both());
        assertTrue(r.err().contains("opening IA hang0 of provider hang did not return within 1 s"), r.both());
        assertTrue(r.millis() < 30_000, r.both());
    }

    private ChildDat.Result child(String redirect, String... args) {
        try {
            Path conf = dir.resolve("dat.conf");
            return ChildDat.run(dir, Files.exists(conf) ? Map.of(DatRegistry.DAT_CONF_ENV, conf.toString()) : Map.of(),
                    redirect, args);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    // ------------------------------------------------------------------------------------ R5: one line, no trace

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "perf pingpong --ia overflow0",
        "perf serve --ia overflow0 --conn-qual 7",
        "tck-peer --ia overflow0 --conn-qual 7",
        "tck-fault survivor --ia overflow0 --peer 127.0.0.1:7 --timeout 1"})
    void aProviderErrorIsOneLineNamingTheStep(String args) {
        DatCommandTest.Run r = dat(args.split(" ", -1));
        assertEquals(Exit.USAGE, r.exit(), r.out() + r.err());
        // The registry bounds and catches the open (DAT_INTERNAL_ERROR naming provider, IA and the Error); the
        // command's own boundary catches what escapes it: either way one line with all three.
        assertTrue(r.err().contains("IA overflow0") && r.err().contains("provider overflow")
                && r.err().contains("java.lang.StackOverflowError"), r.err());
        assertOneLine(r.err(), args);
    }

    // ------------------------------------------------------------------------------------ R7: unknown IA

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "tck --ia nosuch --reports REPORTS                 | unknown IA 'nosuch'; IAs: ",
        "perf pingpong --ia nosuch                         | unknown IA 'nosuch'; IAs: ",
        "tck-peer --ia nosuch --conn-qual 7                | unknown IA 'nosuch'; IAs: ",
        "tck-fault survivor --ia nosuch --peer 127.0.0.1:7 | unknown IA 'nosuch'; IAs: ",
        "tck --ia absent0 --reports REPORTS                | IA absent0 (provider absent) is unavailable: ",
        "perf pingpong --ia absent0                        | IA absent0 (provider absent) is unavailable: ",
        "tck-peer --ia absent0 --conn-qual 7               | IA absent0 (provider absent) is unavailable: ",
        "tck --provider absent --reports REPORTS           | provider absent is unavailable: no device\\n",
        "tck-fault victim --ia absent0 --conn-qual 7 --fault none --marker M | IA absent0 (provider absent) is unav"})
    void anUnknownOrUnavailableIaIsOneUsageError(String args, String message) {
        DatCommandTest.Run r = dat(args.replace("REPORTS", dir.resolve("reports").toString()).trim().split("\\s+", -1));
        assertEquals(Exit.USAGE, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(message), r.err());
        assertOneLine(r.err(), args);
        assertClean(r.err(), args);
        assertFalse(r.out().contains("ran "), "no rule ran: " + r.out());
    }

    // ------------------------------------------------------------------------------------ R9: escaping

    @ParameterizedTest
    @ValueSource(strings = {"", "-l", "-v", "-e", "--json", "--where ia_name==\"forger0\"", "-v -e"})
    void noProviderStringForgesARowOrMovesTheCursor(String options) {
        List<String> args = new ArrayList<>(List.of("info"));
        if (!options.isEmpty()) {
            args.addAll(List.of(options.split(" ", -1)));
        }
        DatCommandTest.Run r = dat(args.toArray(String[]::new));
        assertClean(r.out(), "dat " + String.join(" ", args));
        assertClean(r.err(), "dat " + String.join(" ", args));
        if (options.isEmpty()) {
            assertTrue(r.out().contains("unavailable: no device\\nloopback9  loopback  1.0      available\\x1b[2J"),
                    "the reason, escaped: " + r.out());
        }
        if (options.equals("--json")) {
            assertTrue(r.out().contains("\\u001b[2J") && r.out().contains("\\u009b") && r.out().contains("\\u202e"),
                    "JSON escapes ESC, C1 and bidi controls: " + r.out());
        }
        if (options.equals("-v")) {
            assertTrue(r.out().contains("adapter_name = hca\\nloopback9"), r.out());
        }
    }

    @Test
    void aProviderMessageInAnErrorIsEscaped() {
        DatCommandTest.Run r = dat("perf", "pingpong", "--ia", "forger0");
        assertEquals(Exit.USAGE, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("cannot open IA forger0: ") && r.err().contains("no memory\\n"), r.err());
        assertOneLine(r.err(), "perf");
        assertClean(r.err(), "perf");
    }

    /**
     * The kit's multi-line reports (the campaign's table of calls, a failing episode's program) went through the
     * one-line escaper and printed as one line full of "\\n"; they keep their lines, escaped line by line, and no
     * line of them can start at column 0 to pass for the command's own "ran 186 rules" or "FAILED".
     */
    @Test
    void aMultiLineReportKeepsItsLinesAndCannotForgeOne() {
        String nl = System.lineSeparator();
        assertEquals("seed 1: no violation" + nl + "    step    applied" + nl + "    SEND      3" + nl
                        + "    ran 186 rules: 0 failed\\x1b[2J",
                Text.block("seed 1: no violation\nstep    applied\r\n    SEND      3\n"
                        + "ran 186 rules: 0 failed\u001b[2J"));
        assertEquals("one line", Text.block("one line"));
    }

    @Test
    void textEscapesEveryControlButLeavesOtherTextAlone() {
        assertEquals("a\\nb\\r\\t\\x1b[0m\\x7f\\x9b\\u202e\\u2028\\ud800x",
                Text.safe("a\nb\r\t\u001b[0m\u007f\u009b\u202e\u2028\ud800x"));
        assertEquals("grüße 日本 \uD83D\uDE00 C:\\dat", Text.safe("grüße 日本 \uD83D\uDE00 C:\\dat"));
        assertEquals("\"\\u001b\\u007f\\u009b\\u2028 é\"", Json.write("\u001b\u007f\u009b\u2028 é"));
    }

    // ------------------------------------------------------------------------------------ R10: write errors

    /** A standard output whose every write fails, as a full disk's. */
    private static final class FullDisk extends Writer {
        @Override
        public void write(char[] buffer, int offset, int length) throws IOException {
            throw new IOException("No space left on device");
        }

        @Override
        public void flush() throws IOException {
            throw new IOException("No space left on device");
        }

        @Override
        public void close() {
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"info", "info --json", "info -l", "info -v -e", "tck --list-rules", "--version", "--help",
        "perf pingpong --sizes 8 --iters 10", "info --where srq_supported"})
    void anOutputThatCannotBeWrittenIsAnError(String args) {
        StringWriter err = new StringWriter();
        int exit = DatCommand.execute(new PrintWriter(new FullDisk(), true), new PrintWriter(err, true),
                args.split(" ", -1));
        assertEquals(Exit.USAGE, exit, args + ": " + err);
        assertTrue(err.toString().contains("cannot write to standard output"), args + ": " + err);
    }

    @ParameterizedTest
    @ValueSource(strings = {">/dev/full", ">&-"})
    void theLauncherExitsNonZeroWhenStandardOutputFails(String redirect) {
        ChildDat.Result r = child(redirect, "info");
        assertNotEquals(0, r.exit(), r.both());
        assertTrue(r.err().contains("dat: cannot write to standard output: "), r.both());
        assertOneLine(r.err(), redirect);
    }
}
