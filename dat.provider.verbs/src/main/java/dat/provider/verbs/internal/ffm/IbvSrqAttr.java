// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_srq_attr} (verbs.h): SRQ depth, SGE limit and low watermark ({@code srq_limit}).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type    field
 *      0    4  uint32_t  max_wr
 *      4    4  uint32_t  max_sge
 *      8    4  uint32_t  srq_limit
 * sizeof 12, alignof 4</pre>
 */
public final class IbvSrqAttr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("max_wr"),
            JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("srq_limit")).withName("struct ibv_srq_attr");

    /** {@code sizeof(struct ibv_srq_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code max_wr}. */
    public static final long MAX_WR = NativeTypes.offset(LAYOUT, "max_wr");

    /** Offset of {@code max_sge}. */
    public static final long MAX_SGE = NativeTypes.offset(LAYOUT, "max_sge");

    /** Offset of {@code srq_limit}. */
    public static final long SRQ_LIMIT = NativeTypes.offset(LAYOUT, "srq_limit");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfInt MAX_WR$LAYOUT = NativeTypes.member(LAYOUT, "max_wr", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt SRQ_LIMIT$LAYOUT = NativeTypes.member(LAYOUT, "srq_limit", ValueLayout.OfInt.class);

    /**
     * Sets {@code max_wr} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct ibv_srq_attr}
     * @param value the new value
     */
    public static void maxWr(MemorySegment struct, int value) {
        struct.set(MAX_WR$LAYOUT, MAX_WR, value);
    }

    /**
     * Sets {@code srq_limit} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct ibv_srq_attr}
     * @param value the new value
     */
    public static void srqLimit(MemorySegment struct, int value) {
        struct.set(SRQ_LIMIT$LAYOUT, SRQ_LIMIT, value);
    }

    private IbvSrqAttr() {
    }
}
