// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The Java layouts agree with themselves, without a C compiler: sizes are multiples of alignments, every member
 * sits at an offset its alignment allows, struct members do not overlap, and each offset constant equals the
 * offset of the member it names.
 */
class VerbsLayoutConsistencyTest {

    @Test
    void everyStructIsFoundAndNamedAfterItsCType() {
        List<StructClasses.Struct> structs = StructClasses.all();
        assertTrue(structs.size() >= 39, () -> "struct classes found: " + structs);
        for (StructClasses.Struct s : structs) {
            assertTrue(s.cType().matches("(struct|union) [a-z_0-9]+"), s.cType());
        }
    }

    @Test
    void sizesAndAlignmentsAreSelfConsistent() {
        List<Executable> checks = new ArrayList<>();
        for (StructClasses.Struct s : StructClasses.all()) {
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
        for (StructClasses.Struct s : StructClasses.all()) {
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
