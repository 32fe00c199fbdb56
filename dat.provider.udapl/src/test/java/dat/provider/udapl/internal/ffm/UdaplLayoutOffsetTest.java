// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks the bridge's DAT 2.0 layouts and constants against the C compiler and OFA dapl's headers: writes a C
 * program that prints {@code sizeof} and {@code _Alignof} of every struct in {@link DatStructs} (the field name is
 * the C typedef), {@code offsetof} and {@code sizeof} of every named member, and the value of every constant the
 * bridge uses (the {@code DAT_*} fields of {@link LibDat2}, {@link DatStructs} and {@link DatStatus}, the
 * {@code DAT_RETURN_SUBTYPE} names in order, the enumerators the attribute mapping decodes); compiles it with
 * {@code gcc} against {@code dat2/udat.h} ({@code libdapl-dev}), runs it and compares, one assertion per value.
 *
 * <p>Without gcc or the headers the test is skipped with "install gcc libdapl-dev (apt)", except under
 * {@code CI=true}, where it fails, so CI cannot silently stop checking the layouts.
 */
class UdaplLayoutOffsetTest {

    static final String MISSING = "install gcc libdapl-dev (apt)";
    private static final long TIMEOUT_SECONDS = 120;

    /** Enumerators the attribute and status mapping decode by value, with the value the bridge assumes. */
    private static final Map<String, Long> ENUMERATORS = new LinkedHashMap<>();

    static {
        ENUMERATORS.put("DAT_PZ_UNIQUE", 0L);
        ENUMERATORS.put("DAT_PZ_SHAREABLE", 1L);
        ENUMERATORS.put("DAT_IOV_CONSUMER", 0L);
        ENUMERATORS.put("DAT_IOV_PROVIDER_NOMOD", 1L);
        ENUMERATORS.put("DAT_IOV_PROVIDER_MOD", 2L);
        ENUMERATORS.put("DAT_PSP_CREATES_EP_NEVER", 0L);
        ENUMERATORS.put("DAT_PSP_CREATES_EP_IFASKED", 1L);
        ENUMERATORS.put("DAT_PSP_CREATES_EP_ALWAYS", 2L);
        ENUMERATORS.put("AF_INET", 2L);
        ENUMERATORS.put("AF_INET6", 10L);
        ENUMERATORS.put("DAT_SUCCESS", 0L);
        ENUMERATORS.put("DAT_INVALID_PARAMETER", 0x00060000L);
        ENUMERATORS.put("DAT_PROVIDER_NOT_FOUND", 0x000A0000L);
        ENUMERATORS.put("DAT_CONN_QUAL_UNAVAILABLE", 0x00140000L);
        ENUMERATORS.put("DAT_CLASS_ERROR", 0x80000000L);
    }

    @TempDir
    Path work;

    record Member(String name, long offset, long size) {
    }

    static List<Member> members(StructLayout layout) {
        List<Member> out = new ArrayList<>();
        long offset = 0;
        for (MemoryLayout m : layout.memberLayouts()) {
            if (!(m instanceof PaddingLayout) && m.name().isPresent()) {
                out.add(new Member(m.name().get(), offset, m.byteSize()));
            }
            offset += m.byteSize();
        }
        return out;
    }

    static Map<String, StructLayout> structs() throws IllegalAccessException {
        Map<String, StructLayout> out = new LinkedHashMap<>();
        for (Field f : DatStructs.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && GroupLayout.class.isAssignableFrom(f.getType())) {
                out.put(f.getName(), (StructLayout) f.get(null));
            }
        }
        return out;
    }

    static Map<String, Long> constants() throws IllegalAccessException {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Class<?> c : List.of(LibDat2.class, DatStructs.class)) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getName().startsWith("DAT_")
                        && (f.getType() == int.class || f.getType() == long.class)) {
                    out.put(f.getName(), ((Number) f.get(null)).longValue());
                }
            }
        }
        for (Field f : DatStatus.class.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getName().startsWith("DAT2_")) {
                out.put("DAT_" + f.getName().substring("DAT2_".length()), ((Number) f.get(null)).longValue());
            }
        }
        for (int i = 0; i < DatStatus.SUBTYPES_2_0.length; i++) {
            out.put(DatStatus.SUBTYPES_2_0[i], (long) i);
        }
        out.putAll(ENUMERATORS);
        return out;
    }

    @Test
    void javaLayoutsMatchTheCCompiler(TestReporter reporter) throws Exception {
        requireToolchain();
        Map<String, StructLayout> structs = structs();
        Map<String, Long> constants = constants();
        StringBuilder c = new StringBuilder("""
                #include <stddef.h>
                #include <stdio.h>
                #include <sys/socket.h>
                #include <dat2/udat.h>
                #define SIZE(T) printf("S|%s|%zu|%zu\\n", #T, sizeof(T), _Alignof(T));
                #define MEMBER(T, M) printf("M|%s|%s|%zu|%zu\\n", #T, #M, offsetof(T, M), sizeof(((T *) 0)->M));
                #define CONSTANT(N) printf("C|%s|%lld\\n", #N, (long long) (N));
                int main(void) {
                """);
        int members = 0;
        for (Map.Entry<String, StructLayout> s : structs.entrySet()) {
            c.append("    SIZE(").append(s.getKey()).append(")\n");
            for (Member m : members(s.getValue())) {
                c.append("    MEMBER(").append(s.getKey()).append(", ").append(m.name()).append(")\n");
                members++;
            }
        }
        for (String name : constants.keySet()) {
            c.append("    CONSTANT(").append(name).append(")\n");
        }
        c.append("    return 0;\n}\n");
        Path source = Files.writeString(work.resolve("layouts.c"), c, StandardCharsets.UTF_8);
        Path binary = work.resolve("layouts");
        run(List.of("gcc", "-std=gnu11", "-o", binary.toString(), source.toString()), "gcc");
        String output = run(List.of(binary.toString()), "the layout program");
        Map<String, String> measured = new HashMap<>();
        for (String line : output.lines().toList()) {
            int split = line.lastIndexOf('|', line.startsWith("C|") ? line.length() : line.lastIndexOf('|') - 1);
            measured.put(line.substring(0, split), line.substring(split + 1));
        }
        List<Executable> checks = new ArrayList<>();
        for (Map.Entry<String, StructLayout> s : structs.entrySet()) {
            StructLayout l = s.getValue();
            checks.add(() -> assertEquals(measured.get("S|" + s.getKey()), l.byteSize() + "|" + l.byteAlignment(),
                    "sizeof|_Alignof(" + s.getKey() + ") in C vs DatStructs." + s.getKey()));
            for (Member m : members(l)) {
                checks.add(() -> assertEquals(measured.get("M|" + s.getKey() + "|" + m.name()),
                        m.offset() + "|" + m.size(),
                        "offsetof|sizeof(" + s.getKey() + ", " + m.name() + ") in C vs DatStructs." + s.getKey()));
            }
        }
        for (Map.Entry<String, Long> k : constants.entrySet()) {
            // DAT_CLASS_ERROR is an unsigned 32-bit value; C prints it as such.
            checks.add(() -> assertEquals(measured.get("C|" + k.getKey()), Long.toString(k.getValue()),
                    k.getKey() + " in C vs the bridge"));
        }
        reporter.publishEntry("compared", structs.size() + " structs, " + members + " members, "
                + constants.size() + " constants");
        assertAll(checks);
        assertTrue(members >= 75, "members compared: " + members);
    }

    private void requireToolchain() throws Exception {
        Path probe = Files.writeString(work.resolve("probe.c"),
                "#include <dat2/udat.h>\nint main(void) { return 0; }\n");
        boolean ok;
        try {
            Process p = new ProcessBuilder("gcc", "-E", "-o", "/dev/null", probe.toString())
                    .redirectErrorStream(true).redirectOutput(work.resolve("probe.txt").toFile()).start();
            ok = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            ok = false;
        }
        if (!ok) {
            if ("true".equals(System.getenv("CI"))) {
                fail(MISSING);
            }
            Assumptions.abort(MISSING);
        }
    }

    private String run(List<String> command, String what) throws Exception {
        Path out = Files.createTempFile(work, "out", ".txt");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean finished = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly();
            fail(what + " did not finish in " + TIMEOUT_SECONDS + " s");
        }
        String text = Files.readString(out);
        assertEquals(0, p.exitValue(), () -> what + " failed:\n" + text);
        return text;
    }
}
