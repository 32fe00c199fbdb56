// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_sge} (verbs.h): one scatter/gather element (a DAT LMR triplet: lkey = lmr_context).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type    field
 *      0    8  uint64_t  addr
 *      8    4  uint32_t  length
 *     12    4  uint32_t  lkey
 * sizeof 16, alignof 8</pre>
 */
public final class IbvSge {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("addr"),
            JAVA_INT.withName("length"),
            JAVA_INT.withName("lkey")).withName("struct ibv_sge");

    /** {@code sizeof(struct ibv_sge)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code addr}. */
    public static final long ADDR = NativeTypes.offset(LAYOUT, "addr");

    /** Offset of {@code length}. */
    public static final long LENGTH = NativeTypes.offset(LAYOUT, "length");

    /** Offset of {@code lkey}. */
    public static final long LKEY = NativeTypes.offset(LAYOUT, "lkey");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfLong ADDR$LAYOUT = NativeTypes.member(LAYOUT, "addr", ValueLayout.OfLong.class);
    static final ValueLayout.OfInt LENGTH$LAYOUT = NativeTypes.member(LAYOUT, "length", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt LKEY$LAYOUT = NativeTypes.member(LAYOUT, "lkey", ValueLayout.OfInt.class);

    /**
     * Sets {@code addr} ({@code uint64_t}, unsigned).
     *
     * @param array {@code struct ibv_sge} entries
     * @param index the entry
     * @param value the new value
     */
    public static void addr(MemorySegment array, long index, long value) {
        array.set(ADDR$LAYOUT, index * SIZE + ADDR, value);
    }

    /**
     * {@return {@code length} ({@code uint32_t}, unsigned)}
     *
     * @param array {@code struct ibv_sge} entries
     * @param index the entry
     */
    public static int length(MemorySegment array, long index) {
        return array.get(LENGTH$LAYOUT, index * SIZE + LENGTH);
    }

    /**
     * Sets {@code length} ({@code uint32_t}, unsigned).
     *
     * @param array {@code struct ibv_sge} entries
     * @param index the entry
     * @param value the new value
     */
    public static void length(MemorySegment array, long index, int value) {
        array.set(LENGTH$LAYOUT, index * SIZE + LENGTH, value);
    }

    /**
     * Sets {@code lkey} ({@code uint32_t}, unsigned).
     *
     * @param array {@code struct ibv_sge} entries
     * @param index the entry
     * @param value the new value
     */
    public static void lkey(MemorySegment array, long index, int value) {
        array.set(LKEY$LAYOUT, index * SIZE + LKEY, value);
    }

    private IbvSge() {
    }
}
