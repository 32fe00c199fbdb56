// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.ffm;

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
 * Checks every Java struct layout of the bindings against the C compiler, as the verbs provider's test does: a C
 * program prints {@code offsetof} and {@code sizeof} of every named member the layouts declare, {@code sizeof} and
 * {@code _Alignof} of every struct, and the value of every {@code FI_*}, {@code AF_*} constant of
 * {@link LibFabric}; gcc compiles it against libfabric-dev's headers; each mismatch is its own assertion. Each
 * accessor's layout ({@code NAME$LAYOUT}) is compared with its member's offset and width too.
 *
 * <p>Needs {@code gcc} and {@code libfabric-dev}: skipped with the fix when missing, except under {@code CI=true},
 * where it fails.
 */
class OfiLayoutOffsetTest {

    static final String MISSING = "install gcc libfabric-dev (apt)";

    private static final String C_NAMES = "(FI|AF)_[A-Z0-9_]+";

    private static final long TIMEOUT_SECONDS = 120;

    @TempDir
    Path work;

    @Test
    void javaLayoutsMatchTheCCompiler(TestReporter reporter) throws Exception {
        requireToolchain();
        List<StructClasses.Struct> structs = StructClasses.all();
        List<Field> constants = StructClasses.cConstants(LibFabric.class, C_NAMES);

        StringBuilder c = new StringBuilder("""
                #include <stddef.h>
                #include <stdio.h>
                #include <sys/socket.h>
                #include <sys/uio.h>
                #include <netinet/in.h>
                #include <rdma/fabric.h>
                #include <rdma/fi_cm.h>
                #include <rdma/fi_domain.h>
                #include <rdma/fi_endpoint.h>
                #include <rdma/fi_eq.h>
                #include <rdma/fi_errno.h>
                #include <rdma/fi_rma.h>
                #include <rdma/fi_tagged.h>
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
            long java = f.getType() == long.class ? f.getLong(null) : f.getInt(null);
            checks.add(() -> assertEquals(measured.get("C|" + f.getName()), Long.toString(java),
                    f.getName() + " in C vs " + f.getDeclaringClass().getSimpleName() + "." + f.getName()));
        }
        reporter.publishEntry("compared", structs.size() + " structs (sizeof and _Alignof), " + members
                + " members (offsetof and sizeof), " + accessors + " accessors (offset and width), "
                + constants.size() + " constants");
        assertAll(checks);
        assertTrue(structs.size() >= 39, "structs compared: " + structs.size());
        assertTrue(members > 250, "members compared: " + members);
        assertTrue(accessors > 250, "accessors compared: " + accessors);
        assertTrue(constants.size() > 50, "constants compared: " + constants.size());
    }

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

    private void requireToolchain() throws Exception {
        Path probe = Files.writeString(work.resolve("probe.c"),
                "#include <rdma/fabric.h>\n#include <rdma/fi_endpoint.h>\nint main(void) { return 0; }\n");
        boolean ok;
        try {
            Process p = new ProcessBuilder("gcc", "-E", "-o", "/dev/null", probe.toString())
                    .redirectErrorStream(true).redirectOutput(work.resolve("probe.txt").toFile()).start();
            ok = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            ok = false;
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
            assertTrue(p.destroyForcibly().waitFor(10, TimeUnit.SECONDS), "the child outlived SIGKILL by 10 s");
        }
        String text = Files.readString(out);
        assertTrue(finished, what + " did not finish within " + TIMEOUT_SECONDS + " s");
        assertEquals(0, p.exitValue(), () -> what + " failed: " + String.join(" ", command) + "\n" + text);
        return text;
    }
}
