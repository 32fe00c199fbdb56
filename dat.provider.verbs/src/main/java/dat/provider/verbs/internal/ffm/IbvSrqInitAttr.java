// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_srq_init_attr} (verbs.h): the argument of {@code ibv_create_srq}.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type               field
 *      0    8  void *               srq_context
 *      8   12  struct ibv_srq_attr  attr
 * sizeof 24, alignof 8</pre>
 */
public final class IbvSrqInitAttr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("srq_context"),
            IbvSrqAttr.LAYOUT.withName("attr"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_srq_init_attr");

    /** {@code sizeof(struct ibv_srq_init_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code srq_context}. */
    public static final long SRQ_CONTEXT = NativeTypes.offset(LAYOUT, "srq_context");

    /** Offset of {@code attr}. */
    public static final long ATTR = NativeTypes.offset(LAYOUT, "attr");

    /** Offset of {@code attr.max_wr}. */
    public static final long ATTR_MAX_WR = NativeTypes.offset(LAYOUT, "attr.max_wr");

    /** Offset of {@code attr.max_sge}. */
    public static final long ATTR_MAX_SGE = NativeTypes.offset(LAYOUT, "attr.max_sge");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final AddressLayout SRQ_CONTEXT$LAYOUT = NativeTypes.member(LAYOUT, "srq_context", AddressLayout.class);
    static final ValueLayout.OfInt ATTR_MAX_WR$LAYOUT =
            NativeTypes.member(LAYOUT, "attr.max_wr", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt ATTR_MAX_SGE$LAYOUT =
            NativeTypes.member(LAYOUT, "attr.max_sge", ValueLayout.OfInt.class);

    /**
     * Sets {@code srq_context} ({@code void *}).
     *
     * @param struct a {@code struct ibv_srq_init_attr}
     * @param value the new value
     */
    public static void srqContext(MemorySegment struct, MemorySegment value) {
        struct.set(SRQ_CONTEXT$LAYOUT, SRQ_CONTEXT, value);
    }

    /**
     * {@return {@code attr.max_wr} ({@code uint32_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_srq_init_attr}
     */
    public static int attrMaxWr(MemorySegment struct) {
        return struct.get(ATTR_MAX_WR$LAYOUT, ATTR_MAX_WR);
    }

    /**
     * Sets {@code attr.max_wr} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct ibv_srq_init_attr}
     * @param value the new value
     */
    public static void attrMaxWr(MemorySegment struct, int value) {
        struct.set(ATTR_MAX_WR$LAYOUT, ATTR_MAX_WR, value);
    }

    /**
     * Sets {@code attr.max_sge} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct ibv_srq_init_attr}
     * @param value the new value
     */
    public static void attrMaxSge(MemorySegment struct, int value) {
        struct.set(ATTR_MAX_SGE$LAYOUT, ATTR_MAX_SGE, value);
    }

    private IbvSrqInitAttr() {
    }
}
