// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_recv_wr} (verbs.h): a receive work request (QP or SRQ).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                field
 *      0    8  uint64_t              wr_id
 *      8    8  struct ibv_recv_wr *  next
 *     16    8  struct ibv_sge *      sg_list
 *     24    4  int                   num_sge
 * sizeof 32, alignof 8</pre>
 */
public final class IbvRecvWr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_recv_wr");

    /** {@code sizeof(struct ibv_recv_wr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code wr_id}. */
    public static final long WR_ID = NativeTypes.offset(LAYOUT, "wr_id");

    /** Offset of {@code next}. */
    public static final long NEXT = NativeTypes.offset(LAYOUT, "next");

    /** Offset of {@code sg_list}. */
    public static final long SG_LIST = NativeTypes.offset(LAYOUT, "sg_list");

    /** Offset of {@code num_sge}. */
    public static final long NUM_SGE = NativeTypes.offset(LAYOUT, "num_sge");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfLong WR_ID$LAYOUT = NativeTypes.member(LAYOUT, "wr_id", ValueLayout.OfLong.class);
    static final AddressLayout SG_LIST$LAYOUT = NativeTypes.member(LAYOUT, "sg_list", AddressLayout.class);
    static final ValueLayout.OfInt NUM_SGE$LAYOUT = NativeTypes.member(LAYOUT, "num_sge", ValueLayout.OfInt.class);

    /**
     * Sets {@code wr_id} ({@code uint64_t}, unsigned).
     *
     * @param struct a {@code struct ibv_recv_wr}
     * @param value the new value
     */
    public static void wrId(MemorySegment struct, long value) {
        struct.set(WR_ID$LAYOUT, WR_ID, value);
    }

    /**
     * Sets {@code sg_list} ({@code struct ibv_sge *}).
     *
     * @param struct a {@code struct ibv_recv_wr}
     * @param value the new value
     */
    public static void sgList(MemorySegment struct, MemorySegment value) {
        struct.set(SG_LIST$LAYOUT, SG_LIST, value);
    }

    /**
     * Sets {@code num_sge} ({@code int}).
     *
     * @param struct a {@code struct ibv_recv_wr}
     * @param value the new value
     */
    public static void numSge(MemorySegment struct, int value) {
        struct.set(NUM_SGE$LAYOUT, NUM_SGE, value);
    }

    private IbvRecvWr() {
    }
}
