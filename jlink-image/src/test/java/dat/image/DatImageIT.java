// SPDX-License-Identifier: Apache-2.0
package dat.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the built runtime image (target/maven-jlink/default) as a user would: {@code bin/dat} and {@code bin/java}
 * as separate processes, bounded in time, with their output captured and shown when an assertion fails. Every
 * command must also keep stderr empty: a JVM warning at start (an unknown module in a baked-in option, a
 * restricted-method warning) is a defect of the image.
 */
class DatImageIT {

    /** The modules the image exists for. */
    private static final List<String> JDAT_MODULES =
            List.of("dat.api", "dat.registry", "dat.provider.loopback", "dat.provider.verbs", "dat.provider.udapl",
                    "dat.provider.ofi", "dat.tck", "dat.cli");

    /** Modules found only through ServiceLoader or needed by the TCK and the CLI; jlink adds none by itself. */
    private static final List<String> SUPPORT_MODULES = List.of("org.junit.jupiter.engine",
            "org.junit.platform.launcher", "org.junit.platform.reporting", "org.junit.jupiter.api",
            "org.opentest4j", "info.picocli");

    private static final Duration QUICK = Duration.ofSeconds(60);
    private static final Duration TCK = Duration.ofMinutes(10);

    private static Path work;

    @BeforeAll
    static void locateImage() throws IOException {
        work = Image.work();
    }

    @Test
    void version_namesJdat() throws Exception {
        Image.Run run = Image.run(QUICK, work, "bin/dat", "--version");
        run.assertSuccess();
        assertTrue(run.out().contains("jDAT"), run.describe("the version should name jDAT"));
    }

    /**
     * picocli 4.7's class files are Java 5's, and the JVM leaves every class it verified with the old verifier out
     * of the AOT cache: each start then loaded and linked 170-odd picocli classes (the build's Relink.java rewrites
     * them). Run as bin/dat runs the JVM, with class loading logged.
     */
    @Test
    void version_takesEveryPicocliClassFromTheAotCache() throws Exception {
        Image.Run run = Image.run(QUICK, work, "bin/java", "-XX:AOTCache=" + Image.dir().resolve("lib/dat.aot"),
                                  "-Xlog:class+load=info",
                                  "-m", "dat.cli/dat.cli.DatCommand", "--version");
        run.assertSuccess();
        List<String> picocli = run.out().lines().filter(l -> l.contains(" picocli.")).toList();
        List<String> outside = picocli.stream().filter(l -> !l.contains("source: shared objects file")).toList();
        assertTrue(picocli.size() > 50, run.describe("picocli's classes should be loaded, not " + picocli.size()));
        assertEquals(List.of(), outside, run.describe("picocli classes loaded from outside the AOT cache"));
    }

    /**
     * The AOT cache holds no machine code: JDK 25 stores the adapters it generated for the build machine's CPU and
     * runs them on any CPU, so an image built on an AVX-512 host died of SIGILL on an AVX2-only one (the soft-RoCE
     * guest's qemu CPU, in the ofi kit). aot-launcher.sh trains without adapter and stub caching.
     */
    @Test
    void aotCache_holdsNoMachineCodeOfTheBuildHost() throws Exception {
        Image.Run run = Image.run(QUICK, work, "bin/java", "-XX:AOTCache=" + Image.dir().resolve("lib/dat.aot"),
                                  "-Xlog:aot+codecache+init=info", "-m", "dat.cli/dat.cli.DatCommand", "--version");
        run.assertSuccess();
        assertTrue(run.out().contains("AOT Code Cache is empty"), run.describe("the AOT cache carries machine code"));
    }

    @Test
    void listModules_containsEveryJdatModuleAndTheServiceProviders() throws Exception {
        Image.Run run = Image.run(QUICK, work, "bin/java", "--list-modules");
        run.assertSuccess();
        Set<String> modules = run.out().lines().map(l -> l.replaceFirst("@.*", "").strip())
                .filter(l -> !l.isEmpty()).collect(Collectors.toSet());
        for (String m : Stream.concat(JDAT_MODULES.stream(), SUPPORT_MODULES.stream()).toList()) {
            assertTrue(modules.contains(m), run.describe("module " + m + " missing from the image"));
        }
        // No bind-services: the JDK's tools (javac, jshell, ...) have no business in this image.
        assertFalse(modules.contains("jdk.compiler"), run.describe("jdk.compiler in the image (bind-services?)"));
    }

    /**
     * No provider adds a C environment variable once another's library runs: glibc's {@code setenv} frees the
     * {@code environ} a concurrent {@code getenv} walks, and {@code dat perf serve} died so in discovery (libdat2
     * loading while the ofi provider set its variable). Each provider loads first in turn; every variable is set by
     * then, and the others load under a thread reading the environment without pause. And no library's handler ever
     * replaces the JVM's, not even while it loads: libinfinipath's did while libfabric loaded, and a thread at a
     * safepoint then ended {@code dat info --json} ("java terminated with signal 11"); shm's did with its first
     * endpoint, and the first safepoint after it unlinked the open IA's names.
     */
    @Test
    void providers_setTheirWholeEnvironmentBeforeAnyLibraryRuns() throws Exception {
        List<String> providers = List.of("udapl", "ofi", "verbs");
        for (String first : providers) {
            List<String> order = new ArrayList<>(List.of(first));
            providers.stream().filter(p -> !p.equals(first)).forEach(order::add);
            List<String> args = new ArrayList<>(List.of(
                    "--enable-native-access=ALL-UNNAMED,dat.provider.udapl,dat.provider.ofi,dat.provider.verbs",
                    "-cp", Image.location(NativeEnvironmentProbe.class).toString(),
                    NativeEnvironmentProbe.class.getName()));
            args.addAll(order);
            Image.Run run = Image.run(QUICK, work, "bin/java", args.toArray(String[]::new));
            run.assertSuccess();
            List<String> lines = run.out().lines().toList();
            assertTrue(lines.contains("FI_MR_CACHE_MAX_COUNT=0"), run.describe(first + " loaded first"));
            assertTrue(lines.contains("DAPL_DBG_TYPE=0"), run.describe(first + " loaded first"));
            assertTrue(lines.contains("IPATH_NO_BACKTRACE=1"), run.describe(first + " loaded first"));
            assertTrue(lines.contains("signals kept"), run.describe(first + " loaded first"));
            assertTrue(lines.contains("guard restored SIGXFSZ"), run.describe(first + " loaded first"));
            assertTrue(lines.contains("shm names kept"), run.describe(first + " loaded first"));
            assertEquals("done", lines.getLast(), run.describe(first + " loaded first"));
        }
    }

    @Test
    void infoJson_listsLoopback0WithItsAttributes() throws Exception {
        Image.Run run = Image.run(QUICK, work, "bin/dat", "info", "--json");
        run.assertSuccess();
        Object parsed;
        try {
            parsed = new JsonReader(run.out()).readDocument();
        } catch (IllegalArgumentException e) {
            throw new AssertionError(run.describe("output is not JSON: " + e.getMessage()), e);
        }
        Map<?, ?> root = assertInstanceOf(Map.class, parsed, run.describe("top level should be an object"));

        List<?> providers = assertInstanceOf(List.class, root.get("providers"), run.describe("no providers array"));
        Map<?, ?> loopback = findByName(providers, "loopback", run);
        assertEquals(true, loopback.get("available"), run.describe("provider loopback should be available"));
        // The verbs provider is in the image and listed; on a machine without RDMA it is unavailable, and its
        // reason must not be missing native access: the image grants it (jlink add-options).
        Map<?, ?> verbs = findByName(providers, "verbs", run);
        Object reason = verbs.get("reason");
        if (Boolean.FALSE.equals(verbs.get("available"))) {
            assertInstanceOf(String.class, reason, run.describe("an unavailable verbs provider needs a reason"));
            assertFalse(((String) reason).contains("native access"),
                    run.describe("the image must enable native access for dat.provider.verbs: " + reason));
        }

        List<?> ias = assertInstanceOf(List.class, root.get("ias"), run.describe("no ias array"));
        Map<?, ?> ia = findByName(ias, "loopback0", run);
        assertEquals("loopback", ia.get("provider"), run.describe("loopback0 should belong to provider loopback"));
        assertEquals(true, ia.get("available"), run.describe("loopback0 should be available"));
        Map<?, ?> attributes = assertInstanceOf(Map.class, ia.get("attributes"),
                run.describe("loopback0 has no attributes object"));
        // DAT field names, with the JSON types DAT gives them.
        for (String flag : List.of("srq_supported", "is_thread_safe")) {
            assertInstanceOf(Boolean.class, attributes.get(flag), run.describe(flag + " should be a boolean"));
        }
        for (String number : List.of("optimal_buffer_alignment", "max_message_size", "max_rdma_size",
                "max_iov_segments_per_dto", "ep_recv_info_supported", "completion_flags_supported")) {
            assertInstanceOf(Number.class, attributes.get(number), run.describe(number + " should be a number"));
        }
        long alignment = ((Number) attributes.get("optimal_buffer_alignment")).longValue();
        assertTrue(alignment > 0 && 256 % alignment == 0,
                run.describe("optimal_buffer_alignment should divide DAT_OPTIMAL_ALIGNMENT (256)"));
    }

    @Test
    void tck_loopbackPasses() throws Exception {
        Path dir = Files.createDirectories(work.resolve("tck"));
        Image.Run run = Image.run(TCK, dir, "bin/dat", "tck", "--provider", "loopback");
        run.assertSuccess();
        assertTrue(run.out().contains("verifying IA loopback0"), run.describe("should verify loopback0"));
        assertTrue(run.out().lines().anyMatch(l -> l.matches("ran [1-9][0-9]* rules: 0 failed, .*")),
                run.describe("should report rules run and none failed"));
        try (Stream<Path> reports = Files.list(dir.resolve("dat-tck-reports"))) {
            assertTrue(reports.anyMatch(p -> p.toString().endsWith(".xml")),
                    run.describe("no JUnit XML report under " + dir.resolve("dat-tck-reports")));
        }
    }

    private static Map<?, ?> findByName(List<?> list, String name, Image.Run run) {
        return list.stream().filter(Map.class::isInstance).map(Map.class::cast)
                .filter(m -> name.equals(m.get("name"))).findFirst()
                .orElseThrow(() -> new AssertionError(run.describe("no entry named " + name)));
    }

    // ---- JSON ------------------------------------------------------------------------------------------------

    /**
     * Reads JSON into Map (insertion order), List, String, Boolean, Long or Double and null; strict enough to
     * reject what is not JSON, with the offset of the fault.
     */
    static final class JsonReader {
        private final String text;
        private int pos;

        JsonReader(String text) {
            this.text = text;
        }

        Object readDocument() {
            Object value = readValue();
            skipSpace();
            if (pos != text.length()) {
                throw error("trailing text");
            }
            return value;
        }

        private Object readValue() {
            skipSpace();
            if (pos >= text.length()) {
                throw error("unexpected end");
            }
            char c = text.charAt(pos);
            return switch (c) {
                case '{' -> readObject();
                case '[' -> readArray();
                case '"' -> readString();
                case 't' -> literal("true", true);
                case 'f' -> literal("false", false);
                case 'n' -> literal("null", null);
                default -> {
                    if (c == '-' || Character.isDigit(c)) {
                        yield readNumber();
                    }
                    throw error("unexpected '" + c + "'");
                }
            };
        }

        private Map<String, Object> readObject() {
            Map<String, Object> map = new LinkedHashMap<>();
            pos++;
            skipSpace();
            if (peek() == '}') {
                pos++;
                return map;
            }
            while (true) {
                skipSpace();
                if (peek() != '"') {
                    throw error("expected a member name");
                }
                String key = readString();
                skipSpace();
                expect(':');
                map.put(key, readValue());
                skipSpace();
                if (peek() == ',') {
                    pos++;
                } else {
                    expect('}');
                    return map;
                }
            }
        }

        private List<Object> readArray() {
            List<Object> list = new ArrayList<>();
            pos++;
            skipSpace();
            if (peek() == ']') {
                pos++;
                return list;
            }
            while (true) {
                list.add(readValue());
                skipSpace();
                if (peek() == ',') {
                    pos++;
                } else {
                    expect(']');
                    return list;
                }
            }
        }

        private String readString() {
            StringBuilder sb = new StringBuilder();
            pos++;
            while (true) {
                if (pos >= text.length()) {
                    throw error("unterminated string");
                }
                char c = text.charAt(pos++);
                if (c == '"') {
                    return sb.toString();
                }
                if (c < 0x20) {
                    throw error("control character in string");
                }
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                if (pos >= text.length()) {
                    throw error("unterminated escape");
                }
                char e = text.charAt(pos++);
                switch (e) {
                    case '"', '\\', '/' -> sb.append(e);
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'u' -> {
                        if (pos + 4 > text.length()) {
                            throw error("short \\u escape");
                        }
                        sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                        pos += 4;
                    }
                    default -> throw error("bad escape \\" + e);
                }
            }
        }

        private Object readNumber() {
            int start = pos;
            if (peek() == '-') {
                pos++;
            }
            boolean fraction = false;
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (Character.isDigit(c)) {
                    pos++;
                } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || (c == '-' && pos > start)) {
                    fraction = true;
                    pos++;
                } else {
                    break;
                }
            }
            String number = text.substring(start, pos);
            try {
                return fraction ? (Object) Double.parseDouble(number) : (Object) Long.parseLong(number);
            } catch (NumberFormatException e) {
                throw error("bad number " + number);
            }
        }

        private Object literal(String word, Object value) {
            if (!text.startsWith(word, pos)) {
                throw error("expected " + word);
            }
            pos += word.length();
            return value;
        }

        private void expect(char c) {
            if (peek() != c) {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        private char peek() {
            return pos < text.length() ? text.charAt(pos) : '\0';
        }

        private void skipSpace() {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
                pos++;
            }
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException(what + " at offset " + pos);
        }
    }
}
