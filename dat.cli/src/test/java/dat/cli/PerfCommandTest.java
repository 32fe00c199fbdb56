// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code dat perf} as a user runs it, against the loopback provider, with tiny iteration counts. */
class PerfCommandTest {

    private static final List<String> TABLE_COLUMNS =
            List.of("bytes", "#sent", "#ack", "total", "time", "MB/sec", "usec/xfer", "Mxfers/sec");

    /** What one run printed and returned. */
    record Run(int exit, String out, String err) {
        String both() {
            return "exit " + exit + "\nout:\n" + out + "\nerr:\n" + err;
        }
    }

    static Run dat(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = DatCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** Every run, failed or not, stops and joins its worker threads before the command returns. */
    @AfterEach
    void noWorkerLeftBehind() {
        List<String> alive = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .map(Thread::getName).filter(n -> n.startsWith("dat-perf-")).toList();
        assertEquals(List.of(), alive, "worker threads still running after the command returned");
    }

    /**
     * The write pingpong's receivers wait for the flag byte to change rather than clearing it after each message:
     * sizes repeated, descending and of one byte (the whole message is the flag), with more round trips than tags,
     * must all finish, each answer carrying its own tag. A flag left over from an earlier size or phase would be taken
     * for an answer (a wrong tag fails the run) or never change (the run times out).
     */
    @Test
    void theWritePingpongTakesNoStaleFlagAcrossSizesAndPhases() {
        Run r = dat("perf", "pingpong", "--op", "write", "--sizes", "64,64,8,1,4k,8", "--iters", "300",
                "--timeout", "60");
        assertEquals(0, r.exit(), r.both());
        assertEquals("", r.err(), r.both());
        List<String> rows = r.out().lines().filter(l -> !l.startsWith("#")).skip(1).toList();
        assertEquals(6, rows.size(), r.out());
    }

    @ParameterizedTest(name = "{0} --op {1}")
    @CsvSource({"pingpong, send", "pingpong, write", "pingpong, read", "bw, send", "bw, write", "bw, read",
        "rate, send", "rate, write", "rate, read"})
    void everyTestAndOpPrintsOneRowPerSize(String test, String op) {
        Run r = dat("perf", test, "--op", op, "--sizes", "8,4k", "--iters", "200");
        assertEquals(0, r.exit(), r.both());
        assertEquals("", r.err(), r.both());
        List<String> lines = r.out().lines().filter(l -> !l.startsWith("#")).toList();
        boolean pingpong = test.equals("pingpong");
        List<String> columns = new ArrayList<>(TABLE_COLUMNS);
        if (pingpong) {
            columns.add("p50 us");
            columns.add("p99 us");
        }
        assertEquals(columns, headerColumns(lines.getFirst()), r.both());
        assertEquals(3, lines.size(), "header and one row per size:\n" + r.out());
        String[] expectedSizes = {"8", "4k"};
        for (int i = 0; i < 2; i++) {
            String[] cells = lines.get(i + 1).trim().split("\\s+", -1);
            assertEquals(columns.size(), cells.length, lines.get(i + 1));
            assertEquals(expectedSizes[i], cells[0], lines.get(i + 1));
            assertEquals("200", cells[1], "#sent: " + lines.get(i + 1));
            assertEquals("200", cells[2], "#ack: " + lines.get(i + 1));
            assertTrue(cells[4].endsWith("s"), "time in seconds: " + lines.get(i + 1));
            for (int c = 3; c < cells.length; c++) {
                double value = number(cells[c]);
                assertTrue(value > 0, columns.get(c) + " is not positive in: " + lines.get(i + 1));
            }
            if (pingpong) {
                assertTrue(number(cells[8]) <= number(cells[9]), "p50 above p99: " + lines.get(i + 1));
            }
        }
        long total = (long) number(lines.get(2).trim().split("\\s+", -1)[3]);
        long xfers = pingpong && !op.equals("read") ? 2 : 1;
        assertEquals((double) (4096 * 200 * xfers), (double) total, 0.05 * total, "total bytes of the 4k row");
    }

    /** The column names, split where the table puts two or more blanks or a blank before a column name. */
    private static List<String> headerColumns(String header) {
        List<String> names = new ArrayList<>();
        for (String token : header.trim().split("\\s+", -1)) {
            if (token.equals("us") && !names.isEmpty()) {
                names.set(names.size() - 1, names.getLast() + " us");
            } else {
                names.add(token);
            }
        }
        return names;
    }

    /** A table cell as a number: {@code 31.3k}, {@code 0.02s}, {@code 1.2m}, {@code 0.0041}. */
    private static double number(String cell) {
        String s = cell.endsWith("s") ? cell.substring(0, cell.length() - 1) : cell;
        double scale = switch (s.charAt(s.length() - 1)) {
            case 'k' -> 1024;
            case 'm' -> 1024 * 1024;
            case 'g' -> 1024 * 1024 * 1024;
            default -> 1;
        };
        return Double.parseDouble(scale == 1 ? s : s.substring(0, s.length() - 1)) * scale;
    }

    @Test
    void pingpongJsonHasTheDocumentedShape() {
        Run r = dat("perf", "pingpong", "--sizes", "8,64", "--iters", "100", "--json");
        assertEquals(0, r.exit(), r.both());
        Map<?, ?> root = assertInstanceOf(Map.class, new MiniJson(r.out()).parse(), r.out());
        assertEquals(List.of("provider", "ia", "test", "op", "results"), List.copyOf(root.keySet()), r.out());
        assertEquals("loopback", root.get("provider"));
        assertEquals("loopback0", root.get("ia"));
        assertEquals("pingpong", root.get("test"));
        assertEquals("send", root.get("op"));
        List<?> results = assertInstanceOf(List.class, root.get("results"));
        assertEquals(2, results.size(), r.out());
        long[] sizes = {8, 64};
        for (int i = 0; i < 2; i++) {
            Map<?, ?> row = assertInstanceOf(Map.class, results.get(i));
            assertEquals(List.of("bytes", "iters", "total_bytes", "seconds", "mb_per_sec", "usec_per_xfer",
                    "mxfers_per_sec", "p50_usec", "p99_usec"), List.copyOf(row.keySet()), r.out());
            assertEquals((double) sizes[i], row.get("bytes"));
            assertEquals(100.0, row.get("iters"));
            assertEquals(sizes[i] * 100 * 2.0, row.get("total_bytes"), "both directions count");
            for (String key : List.of("seconds", "mb_per_sec", "usec_per_xfer", "mxfers_per_sec", "p50_usec",
                "p99_usec")) {
                double value = assertInstanceOf(Double.class, row.get(key), key);
                assertTrue(value > 0, key + " not positive in " + r.out());
            }
            assertTrue((Double) row.get("p50_usec") <= (Double) row.get("p99_usec"), r.out());
        }
    }

    @Test
    void aLongPingpongSamplesOneIterationInSeveral() {
        assertEquals(1, PerfClient.sampleEvery(10_000));
        assertEquals(1, PerfClient.sampleEvery(2 * PerfClient.SAMPLES - 1));
        assertEquals(2, PerfClient.sampleEvery(20_000));
        assertEquals(100, PerfClient.sampleEvery(1_000_000));
        assertEquals(1, PerfClient.sampleEvery(0));
    }

    /** Every pingpong loop still records its samples when it samples one iteration in two (and one in three). */
    @ParameterizedTest
    @CsvSource({"send, 20000", "write, 20000", "read, 30000"})
    void aSampledPingpongStillReportsItsPercentiles(String op, String iters) {
        Run r = dat("perf", "pingpong", "--op", op, "--sizes", "8", "--iters", iters, "--warmup", "0", "--json");
        assertEquals(0, r.exit(), r.both());
        Map<?, ?> root = assertInstanceOf(Map.class, new MiniJson(r.out()).parse(), r.out());
        Map<?, ?> row = assertInstanceOf(Map.class, assertInstanceOf(List.class, root.get("results")).get(0));
        double p50 = assertInstanceOf(Double.class, row.get("p50_usec"));
        double p99 = assertInstanceOf(Double.class, row.get("p99_usec"));
        assertTrue(p50 > 0 && p50 <= p99, r.out());
        assertEquals(Double.parseDouble(iters), row.get("iters"), r.out());
    }

    @Test
    void streamJsonHasNoPercentiles() {
        Run r = dat("perf", "bw", "--op", "write", "--sizes", "64k", "--iters", "50", "--json");
        assertEquals(0, r.exit(), r.both());
        Map<?, ?> root = assertInstanceOf(Map.class, new MiniJson(r.out()).parse(), r.out());
        assertEquals("bw", root.get("test"));
        assertEquals("write", root.get("op"));
        Map<?, ?> row = assertInstanceOf(Map.class, ((List<?>) root.get("results")).getFirst());
        assertEquals(65536.0 * 50, row.get("total_bytes"));
        assertNull(row.get("p50_usec"), r.out());
        assertNull(row.get("p99_usec"), r.out());
        assertTrue(row.containsKey("p99_usec"), r.out());
        assertTrue((Double) row.get("mb_per_sec") > 0, r.out());
    }

    @Test
    void iaAndProviderSelectTheSameIa() {
        Run byIa = dat("perf", "rate", "--ia", "loopback0", "--iters", "100");
        assertEquals(0, byIa.exit(), byIa.both());
        assertTrue(byIa.out().startsWith("# dat perf rate: op send, provider loopback, IA loopback0, window 64"),
                byIa.out());
        Run byProvider = dat("perf", "rate", "--provider", "loopback", "--iters", "100", "--warmup", "0");
        assertEquals(0, byProvider.exit(), byProvider.both());
        assertTrue(byProvider.out().contains("IA loopback0"), byProvider.out());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0        | size 0 is 0; sizes must be at least 1 byte",
        "8,-4     | size -4 is negative",
        "4x       | size '4x' is not a number of bytes",
        "8,,4     | has an empty entry",
        "2g       | size 2g (2147483648 bytes) is above max_message_size 1073741824 of the endpoints on IA loopback0",
        "99999999999999999999 | is too large"})
    void badSizesAreUsageErrors(String sizes, String message) {
        Run r = dat("perf", "pingpong", "--sizes", sizes, "--iters", "10");
        assertEquals(2, r.exit(), r.both());
        assertTrue(r.err().startsWith("dat perf: ") && r.err().contains(message), r.both());
        assertEquals("", r.out(), "nothing measured: " + r.out());
    }

    @Test
    void rdmaSizesAreCheckedAgainstMaxRdmaSize() {
        Run r = dat("perf", "bw", "--op", "read", "--sizes", "8,4g", "--iters", "10");
        assertEquals(2, r.exit(), r.both());
        assertTrue(r.err().contains("size 4g (4294967296 bytes) is above max_rdma_size 1073741824"), r.both());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "pingpong --provider nosuch | no provider named nosuch offers an IA; providers: loopback (available)",
        "pingpong --ia nosuch       | unknown IA 'nosuch'; IAs: loopback0 (provider loopback, available)",
        "latency                    | unknown test 'latency': expected pingpong, bw, rate or serve",
        "pingpong --op atomic       | unknown op 'atomic': expected send, write or read",
        "pingpong --provider loopback --ia loopback0 | give --provider or --ia, not both",
        "pingpong --iters 0         | --iters 0 must be at least 1",
        "pingpong --warmup -1       | --warmup -1 must not be negative",
        "pingpong --timeout 0       | --timeout 0 must be at least 1 second"})
    void badArgumentsAreUsageErrors(String args, String message) {
        List<String> argv = new ArrayList<>(List.of("perf"));
        argv.addAll(List.of(args.trim().split("\\s+")));
        Run r = dat(argv.toArray(String[]::new));
        assertEquals(2, r.exit(), r.both());
        assertEquals("dat perf: " + message, r.err().strip(), r.both());
    }

    @Test
    void missingTestIsAPicocliUsageError() {
        Run r = dat("perf");
        assertEquals(2, r.exit(), r.both());
        assertTrue(r.err().contains("Missing required parameter: 'TEST'"), r.both());
    }

    @Test
    void watchdogAbortsARunThatOutlivesItsTimeout() {
        long start = System.nanoTime();
        Run r = dat("perf", "rate", "--iters", "2000000000", "--warmup", "0", "--timeout", "1");
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        assertEquals(2, r.exit(), r.both());
        assertTrue(r.err().contains("size 8 (0 warm-up + 2000000000 iterations) did not finish within 1 s; "
                + "aborted by the watchdog"), r.both());
        assertTrue(seconds < 5, "the abort took " + seconds + " s");
    }

    @Test
    void helpListsTheOptions() {
        Run r = dat("perf", "--help");
        assertEquals(0, r.exit(), r.both());
        for (String option : List.of("--provider", "--ia", "--op", "--sizes", "--iters", "--warmup", "--timeout",
            "--json", "(default: 10%")) {
            assertTrue(r.out().contains(option), option + " missing from\n" + r.out());
        }
        assertEquals("", r.err(), "picocli complained about the help text: " + r.err());
    }

    @Test
    void sizesParseWithBinarySuffixes() {
        assertArrayEquals(new long[] {8, 64, 4096, 65536, 1 << 20, 3L << 30},
                PerfPlan.parseSizes("8, 64,4k,64K,1m,3g"));
        assertEquals("4k", PerfPlan.sizeName(4096));
        assertEquals("1m", PerfPlan.sizeName(1 << 20));
        assertEquals("1000", PerfPlan.sizeName(1000));
    }

    @Test
    void defaultIterationsShrinkForLargeSizes() {
        assertEquals(10_000, PerfPlan.defaultIters(PerfPlan.Test.PINGPONG, PerfPlan.Op.SEND, 4096));
        // 256 MiB over 64k messages that cross twice.
        assertEquals(2048, PerfPlan.defaultIters(PerfPlan.Test.PINGPONG, PerfPlan.Op.SEND, 64 * 1024));
        assertEquals(256, PerfPlan.defaultIters(PerfPlan.Test.PINGPONG, PerfPlan.Op.READ, 1 << 20));
        assertEquals(PerfPlan.MIN_ITERS, PerfPlan.defaultIters(PerfPlan.Test.PINGPONG, PerfPlan.Op.SEND, 1L << 30));
        assertEquals(100_000, PerfPlan.defaultIters(PerfPlan.Test.BW, PerfPlan.Op.SEND, 8));
        assertEquals(1024, PerfPlan.defaultIters(PerfPlan.Test.BW, PerfPlan.Op.WRITE, 1 << 20));
        assertEquals(1_000_000, PerfPlan.defaultIters(PerfPlan.Test.RATE, PerfPlan.Op.SEND, 8));
    }

    @Test
    void jsonWriterEscapesAndWritesNullForMissingFigures() {
        String text = PerfJson.report("p\"q", "ia\\0", null, "bw", "send",
                List.of(new PerfResult(8, 10, 10, 10, 80, 1_000, 10, -1, -1)));
        Map<?, ?> root = assertInstanceOf(Map.class, new MiniJson(text).parse(), text);
        assertEquals("p\"q", root.get("provider"));
        assertEquals("ia\\0", root.get("ia"));
        Map<?, ?> row = assertInstanceOf(Map.class, ((List<?>) root.get("results")).getFirst());
        assertEquals(80.0, row.get("mb_per_sec"), text);
        assertEquals(0.1, row.get("usec_per_xfer"), text);
        assertEquals(10.0, row.get("mxfers_per_sec"), text);
        assertEquals(0.000001, row.get("seconds"), text);
        assertNull(row.get("p50_usec"), text);
        assertFalse(text.contains("E"), "plain notation: " + text);
    }

    /**
     * The perf report had a JSON string writer of its own that let DEL, the C1 controls (an 8-bit CSI) and bidi
     * overrides through raw, where {@code dat info --json} escapes them: a provider name could still move the cursor.
     */
    @Test
    void jsonReportEscapesWhatDatInfoEscapes() {
        String text = PerfJson.report("p\u009b2J\u202e", "ia\u007f", null, "bw", "send",
                List.of(new PerfResult(8, 10, 10, 10, 80, 1_000, 10, -1, -1)));
        assertFalse(text.chars().anyMatch(c -> c == 0x9b || c == 0x202e || c == 0x7f), text);
        assertTrue(text.contains("p\\u009b2J\\u202e") && text.contains("ia\\u007f"), text);
    }

    /** Just enough of a JSON parser to check the report's shape: objects keep their key order. */
    static final class MiniJson {
        private final String s;
        private int i;

        MiniJson(String text) {
            this.s = text;
        }

        Object parse() {
            Object value = value();
            skip();
            if (i != s.length()) {
                throw new IllegalArgumentException("trailing text at " + i);
            }
            return value;
        }

        private Object value() {
            skip();
            char c = s.charAt(i);
            if (c == '{') {
                i++;
                Map<String, Object> map = new LinkedHashMap<>();
                skip();
                if (s.charAt(i) == '}') {
                    i++;
                    return map;
                }
                do {
                    skip();
                    String key = string();
                    skip();
                    expect(':');
                    if (map.put(key, value()) != null) {
                        throw new IllegalArgumentException("duplicate key " + key);
                    }
                    skip();
                } while (s.charAt(i++) == ',');
                if (s.charAt(i - 1) != '}') {
                    throw new IllegalArgumentException("expected } at " + (i - 1));
                }
                return map;
            }
            if (c == '[') {
                i++;
                List<Object> list = new ArrayList<>();
                skip();
                if (s.charAt(i) == ']') {
                    i++;
                    return list;
                }
                do {
                    list.add(value());
                    skip();
                } while (s.charAt(i++) == ',');
                if (s.charAt(i - 1) != ']') {
                    throw new IllegalArgumentException("expected ] at " + (i - 1));
                }
                return list;
            }
            if (c == '"') {
                return string();
            }
            if (s.startsWith("null", i)) {
                i += 4;
                return null;
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            return Double.parseDouble(s.substring(start, i));
        }

        private String string() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (s.charAt(i) != '"') {
                char c = s.charAt(i++);
                if (c == '\\') {
                    char e = s.charAt(i++);
                    sb.append(switch (e) {
                        case 'n' -> '\n';
                        case 't' -> '\t';
                        case 'r' -> '\r';
                        case 'u' -> {
                            char u = (char) Integer.parseInt(s.substring(i, i + 4), 16);
                            i += 4;
                            yield u;
                        }
                        default -> e;
                    });
                } else {
                    sb.append(c);
                }
            }
            i++;
            return sb.toString();
        }

        private void expect(char c) {
            if (s.charAt(i) != c) {
                throw new IllegalArgumentException("expected " + c + " at " + i + " in " + s);
            }
            i++;
        }

        private void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }
    }
}
