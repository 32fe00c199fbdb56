// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks every Java struct layout against the C compiler: writes a C program that prints {@code offsetof} and
 * {@code sizeof} of every named member the Java layouts declare (nested members by their dotted designator),
 * {@code sizeof} and {@code _Alignof} of every struct, the value of every {@code IBV_*}, {@code RDMA_*} and
 * {@code AF_*} constant of {@link LibIbverbs} and {@link LibRdmacm} and of every {@code E*} constant of
 * {@link Errno}; compiles it with {@code gcc} against the installed rdma-core headers, runs it and compares. Each
 * accessor's layout ({@code NAME$LAYOUT}, found by reflection) is compared too: its width with the C member's
 * {@code sizeof}, the offset it reads at ({@code NAME}) with its {@code offsetof}. Each mismatch is its own
 * assertion message.
 *
 * <p>Needs {@code gcc} and the headers of {@code libibverbs-dev} and {@code librdmacm-dev}. When they are missing
 * the test is <b>skipped</b> with "install gcc libibverbs-dev librdmacm-dev (apt)", except when the environment
 * variable {@code CI} is {@code true}: then it <b>fails</b> with that message, so CI cannot silently stop
 * checking the layouts.
 */
class VerbsLayoutOffsetTest {

    static final String MISSING = "install gcc libibverbs-dev librdmacm-dev (apt)";

    /** The constants of the library classes named like C enumerators and macros. */
    private static final String C_NAMES = "(IBV|RDMA|AF)_[A-Z0-9_]+";

    private static final long TIMEOUT_SECONDS = 120;

    @TempDir
    Path work;

    @Test
    void javaLayoutsMatchTheCCompiler(TestReporter reporter) throws Exception {
        requireToolchain();
        List<StructClasses.Struct> structs = StructClasses.all();
        List<Field> constants = new ArrayList<>(StructClasses.cConstants(LibIbverbs.class, C_NAMES));
        constants.addAll(StructClasses.cConstants(LibRdmacm.class, C_NAMES));
        constants.addAll(StructClasses.cConstants(Errno.class, "E[A-Z0-9]+"));

        StringBuilder c = new StringBuilder("""
                #include <errno.h>
                #include <poll.h>
                #include <stddef.h>
                #include <stdio.h>
                #include <sys/socket.h>
                #include <netinet/in.h>
                #include <infiniband/verbs.h>
                #include <rdma/rdma_cma.h>
                #define SIZE(T) printf("S|%s|%zu|%zu\\n", #T, sizeof(T), _Alignof(T));
                #define MEMBER(T, M) printf("M|%s|%s|%zu|%zu\\n", #T, #M, offsetof(T, M), sizeof(((T *) 0)->M));
                #define CONSTANT(N) printf("C|%s|%lld\\n", #N, (long long) (N));
                int main(void) {
                """);
        int members = 0;
        for (StructClasses.Struct s : structs) {
            c.append("    SIZE(").append(s.cType()).append(")\n");
            for (StructClasses.Member m : StructClasses.members(s.layout())) {
                c.append("    MEMBER(").append(s.cType()).append(", ").append(m.designator()).append(")\n");
                members++;
            }
        }
        for (Field f : constants) {
            c.append("    CONSTANT(").append(f.getName()).append(")\n");
        }
        c.append("    return 0;\n}\n");
        Path source = Files.writeString(work.resolve("layouts.c"), c, StandardCharsets.UTF_8);
        Path binary = work.resolve("layouts");
        run(List.of("gcc", "-std=gnu11", "-o", binary.toString(), source.toString()), "gcc");
        String output = run(List.of(binary.toString()), "the layout program");

        Map<String, String> measured = new HashMap<>();
        for (String line : output.lines().toList()) {
            int split = line.startsWith("M|") ? nthBar(line, 3) : nthBar(line, 2);
            measured.put(line.substring(0, split), line.substring(split + 1));
        }

        List<Executable> checks = new ArrayList<>();
        for (StructClasses.Struct s : structs) {
            String key = "S|" + s.cType();
            String java = s.layout().byteSize() + "|" + s.layout().byteAlignment();
            checks.add(() -> assertEquals(measured.get(key), java,
                    "sizeof|_Alignof(" + s.cType() + ") in C vs " + s.type().getSimpleName() + ".LAYOUT"));
            for (StructClasses.Member m : StructClasses.members(s.layout())) {
                String mkey = "M|" + s.cType() + "|" + m.designator();
                String mjava = m.offset() + "|" + m.size();
                checks.add(() -> assertEquals(measured.get(mkey), mjava, "offsetof|sizeof(" + s.cType() + ", "
                        + m.designator() + ") in C vs " + s.type().getSimpleName() + ".LAYOUT"));
            }
        }
        int accessors = 0;
        for (StructClasses.Struct s : structs) {
            for (StructClasses.Accessor a : StructClasses.accessors(s)) {
                accessors++;
                checks.add(() -> checkAccessor(s, a, measured));
            }
        }
        for (Field f : constants) {
            long java = f.getInt(null);
            checks.add(() -> assertEquals(measured.get("C|" + f.getName()), Long.toString(java),
                    f.getName() + " in C vs " + f.getDeclaringClass().getSimpleName() + "." + f.getName()));
        }
        reporter.publishEntry("compared", structs.size() + " structs (sizeof and _Alignof), " + members
                + " members (offsetof and sizeof), " + accessors + " accessors (offset and width), "
                + constants.size() + " constants");
        assertAll(checks);
        assertTrue(members > 300, "members compared: " + members);
        assertTrue(accessors > 100, "accessors compared: " + accessors);
    }

    /** An accessor reads and writes exactly its C member: the offset it uses is offsetof, its width sizeof. */
    private static void checkAccessor(StructClasses.Struct s, StructClasses.Accessor a, Map<String, String> measured) {
        assertNotNull(a.member(), () -> a.where() + " names no member of " + s.cType());
        assertNotNull(a.offset(), () -> a.where() + " has no offset constant beside it");
        String designator = a.member().designator();
        String c = measured.get("M|" + s.cType() + "|" + designator);
        String java = a.offset() + "|" + a.layout().byteSize();
        assertEquals(c, java, () -> "offsetof|sizeof(" + s.cType() + ", " + designator + ") in C vs "
                + a.where() + " (the offset and width its accessor reads and writes)");
    }

    private static int nthBar(String line, int n) {
        int at = -1;
        for (int i = 0; i < n; i++) {
            at = line.indexOf('|', at + 1);
        }
        return at;
    }

    /** Skips, or fails on CI, when gcc or the rdma-core headers are missing. */
    private void requireToolchain() throws Exception {
        Path probe = Files.writeString(work.resolve("probe.c"),
                "#include <infiniband/verbs.h>\n#include <rdma/rdma_cma.h>\nint main(void) { return 0; }\n");
        boolean ok;
        try {
            Process p = new ProcessBuilder("gcc", "-E", "-o", "/dev/null", probe.toString())
                    .redirectErrorStream(true).redirectOutput(work.resolve("probe.txt").toFile()).start();
            ok = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            ok = false; // no gcc on PATH
        }
        if (!ok) {
            MissingTool.skipOrFailOnCi(MISSING);
        }
    }

    private String run(List<String> command, String what) throws Exception {
        Path out = Files.createTempFile(work, "out", ".txt");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean finished = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            // Bounded too: a child stuck in the kernel must not hang the build after its own timeout.
            assertTrue(p.destroyForcibly().waitFor(10, TimeUnit.SECONDS), "the child outlived SIGKILL by 10 s");
        }
        String text = Files.readString(out);
        assertTrue(finished, what + " did not finish within " + TIMEOUT_SECONDS + " s");
        assertEquals(0, p.exitValue(), () -> what + " failed: " + String.join(" ", command) + "\n" + text);
        assertNotNull(text);
        return text;
    }
}
