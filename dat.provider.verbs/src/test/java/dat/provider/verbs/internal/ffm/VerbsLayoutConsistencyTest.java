// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.layoutcheck.StructClasses;
import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The Java layouts agree with themselves, without a C compiler: sizes are multiples of alignments, every member
 * sits at an offset its alignment allows, struct members do not overlap, each offset constant equals the offset of
 * the member it names, each accessor's layout is its member's, and no code outside the struct classes reads or
 * writes a struct field with a width of its own.
 */
class VerbsLayoutConsistencyTest {

    @Test
    void everyStructIsFoundAndNamedAfterItsCType() {
        List<StructClasses.Struct> structs = StructClasses.in(LibIbverbs.class);
        assertTrue(structs.size() >= 40, () -> "struct classes found: " + structs);
        for (StructClasses.Struct s : structs) {
            assertTrue(s.cType().matches("(struct|union) [a-z_0-9]+"), s.cType());
        }
    }

    @Test
    void sizesAndAlignmentsAreSelfConsistent() {
        List<Executable> checks = new ArrayList<>();
        for (StructClasses.Struct s : StructClasses.in(LibIbverbs.class)) {
            GroupLayout layout = s.layout();
            checks.add(() -> assertEquals(0, layout.byteSize() % layout.byteAlignment(),
                    s.cType() + ": sizeof " + layout.byteSize() + " is not a multiple of alignof "
                            + layout.byteAlignment()));
            checks.add(() -> assertEquals(layout.byteSize(), s.type().getField("SIZE").getLong(null),
                    s.cType() + ": SIZE"));
            checkMembers(s.cType(), layout, checks);
        }
        assertAll(checks);
    }

    private static void checkMembers(String where, GroupLayout group, List<Executable> checks) {
        long at = 0;
        long alignment = 1;
        for (MemoryLayout m : group.memberLayouts()) {
            long offset = at;
            String name = where + "." + m.name().orElse("<unnamed>");
            checks.add(() -> assertEquals(0, offset % m.byteAlignment(),
                    name + " at " + offset + " breaks its alignment " + m.byteAlignment()));
            alignment = Math.max(alignment, m.byteAlignment());
            if (m instanceof GroupLayout inner) {
                checkMembers(name, inner, checks);
            }
            if (group instanceof StructLayout) {
                at += m.byteSize();
            }
        }
        long expected = alignment;
        checks.add(() -> assertEquals(expected, group.byteAlignment(), where + ": alignment is its widest member's"));
        if (group instanceof StructLayout) {
            long sum = at;
            checks.add(() -> assertEquals(sum, group.byteSize(), where + ": members (with padding) fill the struct"));
        }
    }

    @Test
    void offsetConstantsEqualTheLayoutOffsets() throws IllegalAccessException {
        List<Executable> checks = new ArrayList<>();
        int constants = 0;
        for (StructClasses.Struct s : StructClasses.in(LibIbverbs.class)) {
            Map<String, Long> byConstantName = new HashMap<>();
            for (StructClasses.Member m : StructClasses.members(s.layout())) {
                byConstantName.putIfAbsent(m.designator().replace('.', '_').toUpperCase(Locale.ROOT),
                        m.offset());
            }
            for (Field f : s.type().getFields()) {
                if (!Modifier.isStatic(f.getModifiers()) || f.getType() != long.class || f.getName().equals("SIZE")) {
                    continue;
                }
                constants++;
                Long offset = byConstantName.get(f.getName());
                long value = f.getLong(null);
                checks.add(() -> assertEquals(offset, Long.valueOf(value),
                        s.type().getSimpleName() + "." + f.getName() + " names no member at that offset"));
            }
        }
        assertTrue(constants > 200, "offset constants checked: " + constants);
        assertAll(checks);
    }

    @Test
    void everyAccessorIsBoundToItsMembersLayout() {
        List<Executable> checks = new ArrayList<>();
        int accessors = 0;
        for (StructClasses.Struct s : StructClasses.in(LibIbverbs.class)) {
            for (StructClasses.Accessor a : StructClasses.accessors(s)) {
                accessors++;
                checks.add(() -> {
                    assertNotNull(a.member(), a.where() + " names no member of " + s.cType());
                    assertEquals(a.member().offset(), a.offset(), a.where() + ": the offset its accessor uses");
                    assertEquals(a.member().size(), a.layout().byteSize(), a.where() + ": its width");
                });
            }
        }
        assertTrue(accessors > 100, "accessors checked: " + accessors);
        assertAll(checks);
    }

    @Test
    void theOpsSlotLayoutIsEverySlots() {
        for (MemoryLayout m : IbvContextOps.LAYOUT.memberLayouts()) {
            assertEquals(IbvContextOps.SLOT.withName(m.name().orElseThrow()), m, "IbvOps.function reads every slot"
                    + " through IbvContextOps.SLOT");
        }
    }

    @Test
    void theObjectsIbvOpsFollowStartWithTheirContext() {
        // IbvOps.contextOf reads any of them as an ibv_pd.
        for (long offset : new long[] {IbvPd.CONTEXT, IbvQp.CONTEXT, IbvCq.CONTEXT, IbvSrq.CONTEXT, IbvMw.CONTEXT}) {
            assertEquals(0, offset);
        }
    }

    /**
     * A struct field read or written with a width of the call site's own ({@code set(JAVA_INT, IbvSendWr.NUM_SGE, n)}
     * on a segment), a slice or a copy at a struct's offset constant: the accessors exist so no call site restates a
     * width.
     */
    private static final Pattern RAW_FIELD_ACCESS = Pattern.compile(
            "\\.(?:get|set)(?:AtIndex)?\\(\\s*(?:ValueLayout\\.)?(?:JAVA_[A-Z]+|ADDRESS)\\s*,"
                    + "[^,;)]*?\\b[A-Z]\\w*\\.[A-Z][A-Z0-9_]*\\b"
                    + "|\\.asSlice\\(\\s*[A-Z]\\w*\\.[A-Z][A-Z0-9_]*\\b"
                    + "|JAVA_BYTE\\s*,[^,;)]*?\\b[A-Z]\\w*\\.[A-Z][A-Z0-9_]*\\s*,");

    @Test
    void structFieldsAreReadAndWrittenThroughTheirAccessors() throws IOException {
        List<String> raw = new ArrayList<>();
        int files = 0;
        for (String root : new String[] {"src/main/java", "src/test/java"}) {
            try (Stream<Path> paths = Files.walk(Path.of(root))) {
                for (Path p : paths.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                    files++;
                    String text = Files.readString(p);
                    Matcher m = RAW_FIELD_ACCESS.matcher(text);
                    while (m.find()) {
                        long line = text.substring(0, m.start()).lines().count();
                        raw.add(p + ":" + line + ": " + m.group().lines().findFirst().orElse(""));
                    }
                }
            }
        }
        assertTrue(files > 50, "source files scanned: " + files);
        assertEquals(List.of(), raw, "use the struct class's accessor (IbvSendWr.numSge(wr, n)), bound to the"
                + " member's own layout");
    }

    @Test
    void theOpsSlotsMatchTheReferenceOffsets() {
        // rdma-core 44 on x86_64, as measured in the soft-RoCE guest: ops at +8, poll_cq +88, post_send +200,
        // post_recv +208 within ops.
        assertEquals(8, IbvContext.OPS);
        assertEquals(88, IbvContextOps.POLL_CQ);
        assertEquals(200, IbvContextOps.POST_SEND);
        assertEquals(208, IbvContextOps.POST_RECV);
    }

    @Test
    void designatorsResolveThroughAnonymousUnions() {
        assertEquals(36, NativeTypes.offset(IbvSendWr.LAYOUT, "imm_data"));
        assertEquals(48, NativeTypes.offset(IbvSendWr.LAYOUT, "wr.rdma.rkey"));
        assertEquals(96, NativeTypes.offset(IbvSendWr.LAYOUT, "bind_mw.bind_info"));
        assertEquals(IbvRecvWr.NUM_SGE, NativeTypes.offset(IbvRecvWr.LAYOUT, "num_sge"));
        Assertions.assertThrows(IllegalArgumentException.class,
                () -> NativeTypes.offset(IbvSendWr.LAYOUT, "wr.rdma.nope"));
    }
}
