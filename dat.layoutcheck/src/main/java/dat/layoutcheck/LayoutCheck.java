// SPDX-License-Identifier: Apache-2.0
package dat.layoutcheck;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.function.Executable;

/**
 * Checks a bindings package against the C compiler: writes a C program that prints {@code sizeof} and
 * {@code _Alignof} of every struct class's C type ({@link StructClasses#in}), {@code offsetof} and {@code sizeof} of
 * every named member its layout declares (nested ones by their dotted designator) and the value of every constant
 * given; compiles it with {@code gcc} against the headers given, runs it and compares, one assertion per value. Each
 * accessor's layout ({@code NAME$LAYOUT}, found by reflection) is compared too: its width with the C member's
 * {@code sizeof}, the offset it reads at ({@code NAME}) with its {@code offsetof}.
 *
 * <p>Without gcc or the headers the check is skipped with the fix ({@link #missing}), except when the environment
 * variable {@code CI} is {@code true}: then it fails, so CI cannot silently stop checking the layouts.
 */
public final class LayoutCheck {

    private static final long TIMEOUT_SECONDS = 120;

    private final Class<?> anchor;
    private final List<String> headers = new ArrayList<>();
    private final List<Field> constants = new ArrayList<>();
    private String missing = "install gcc and the library's headers (apt)";

    private LayoutCheck(Class<?> anchor) {
        this.anchor = anchor;
    }

    /**
     * {@return a check of the struct classes in the anchor's package}
     *
     * @param anchor a class of the bindings package
     */
    public static LayoutCheck of(Class<?> anchor) {
        return new LayoutCheck(Objects.requireNonNull(anchor, "anchor"));
    }

    /**
     * {@return this check, the program including these headers after {@code stddef.h} and {@code stdio.h}}
     *
     * @param names header names as {@code #include <...>} takes them, for example {@code rdma/fabric.h}
     */
    public LayoutCheck include(String... names) {
        headers.addAll(List.of(names));
        return this;
    }

    /**
     * {@return this check, also comparing the constants of {@code type} named like C's ({@link
     * StructClasses#cConstants})}
     *
     * @param type a class restating C enumerators and macros
     * @param names a regular expression for their names, for example {@code (FI|AF)_[A-Z0-9_]+}
     */
    public LayoutCheck constants(Class<?> type, String names) {
        constants.addAll(StructClasses.cConstants(type, names));
        return this;
    }

    /**
     * {@return this check, saying how to install what it needs when it is missing}
     *
     * @param fix for example {@code install gcc libfabric-dev (apt)}
     */
    public LayoutCheck missing(String fix) {
        this.missing = Objects.requireNonNull(fix, "fix");
        return this;
    }

    /**
     * What a run compared.
     *
     * @param structs struct classes (sizeof and _Alignof)
     * @param members named members (offsetof and sizeof)
     * @param accessors accessor layouts (offset and width)
     * @param constants constants (value)
     */
    public record Counts(int structs, int members, int accessors, int constants) {

        @Override
        public String toString() {
            return structs + " structs (sizeof and _Alignof), " + members + " members (offsetof and sizeof), "
                    + accessors + " accessors (offset and width), " + constants + " constants";
        }
    }

    /**
     * Compiles, runs and compares; every mismatch is its own assertion failure.
     *
     * @param work an empty directory for the program
     * @return what was compared, for the caller's lower bounds
     * @throws Exception when the program cannot be written, built or run
     */
    public Counts run(Path work) throws Exception {
        requireToolchain(work);
        List<StructClasses.Struct> structs = StructClasses.in(anchor);
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n");
        for (String h : headers) {
            c.append("#include <").append(h).append(">\n");
        }
        c.append("""
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
        run(work, List.of("gcc", "-std=gnu11", "-o", binary.toString(), source.toString()), "gcc");
        Map<String, String> measured = parse(run(work, List.of(binary.toString()), "the layout program"));

        List<Executable> checks = new ArrayList<>();
        int accessors = 0;
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
        assertAll(checks);
        return new Counts(structs.size(), members, accessors, constants.size());
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

    /** The program's lines by key: {@code S|type}, {@code M|type|member}, {@code C|name}. */
    private static Map<String, String> parse(String output) {
        Map<String, String> measured = new HashMap<>();
        for (String line : output.lines().toList()) {
            int split = nthBar(line, line.startsWith("M|") ? 3 : 2);
            measured.put(line.substring(0, split), line.substring(split + 1));
        }
        return measured;
    }

    private static int nthBar(String line, int n) {
        int at = -1;
        for (int i = 0; i < n; i++) {
            at = line.indexOf('|', at + 1);
        }
        return at;
    }

    /** Skips, or fails on CI, when gcc or the headers are missing: the headers alone, preprocessed. */
    private void requireToolchain(Path work) throws Exception {
        StringBuilder probe = new StringBuilder();
        for (String h : headers) {
            probe.append("#include <").append(h).append(">\n");
        }
        Path source = Files.writeString(work.resolve("probe.c"), probe.append("int main(void) { return 0; }\n"));
        boolean ok;
        try {
            Process p = new ProcessBuilder("gcc", "-E", "-o", "/dev/null", source.toString())
                    .redirectErrorStream(true).redirectOutput(work.resolve("probe.txt").toFile()).start();
            ok = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            ok = false; // no gcc on PATH
        }
        if (!ok) {
            skipOrFailOnCi(missing);
        }
    }

    /**
     * Skips the calling test, except under {@code CI=true}, where it fails: CI installs the tools, so a missing one
     * there means the check silently stopped running.
     *
     * @param why what is missing and how to install it
     */
    public static void skipOrFailOnCi(String why) {
        if ("true".equals(System.getenv("CI"))) {
            fail(why);
        }
        Assumptions.abort(why);
    }

    private static String run(Path work, List<String> command, String what) throws Exception {
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
        return text;
    }
}
