// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;

import dat.api.DatReturn;
import dat.api.Iov;
import dat.provider.udapl.internal.ffm.DatStructs;
import dat.spi.LmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Native scratch of DAT 2.0 {@code DAT_LMR_TRIPLET}s, one per EP (and per SRQ) sized to its IOV limit, that the data
 * path fills from a jDAT {@link Iov} on every post without allocating. DAT 2.0's {@code segment_length} is a 32-bit
 * {@code DAT_SEG_LENGTH} where DAT 1.2's is 64-bit: a longer segment is refused with {@code DAT_INVALID_PARAMETER},
 * never cut to its low 32 bits (which would post a different transfer than the consumer asked for).
 *
 * <p>Not thread-safe: the owner posts under its own lock.
 */
public final class UdaplIov {

    /** The largest {@code segment_length} DAT 2.0 can carry. */
    static final long MAX_SEGMENT = 0xFFFF_FFFFL;

    private static final long SIZE = DatStructs.DAT_LMR_TRIPLET.byteSize();
    private static final long VA = offset(DatStructs.DAT_LMR_TRIPLET, "virtual_address");
    private static final long LENGTH = offset(DatStructs.DAT_LMR_TRIPLET, "segment_length");
    private static final long CONTEXT = offset(DatStructs.DAT_LMR_TRIPLET, "lmr_context");

    private final MemorySegment triplets;
    private final int capacity;
    private final LmrTriplet reader = new LmrTriplet();

    /**
     * Allocates the scratch.
     *
     * @param arena the owner's arena, closed when the owner is freed
     * @param capacity the owner's IOV limit, at least 1
     */
    public UdaplIov(Arena arena, int capacity) {
        this.capacity = Math.max(1, capacity);
        this.triplets = arena.allocate(DatStructs.DAT_LMR_TRIPLET, this.capacity);
    }

    /** {@return the scratch, the {@code local_iov} argument of the C post} */
    public MemorySegment triplets() {
        return triplets;
    }

    /**
     * Writes the first {@code count} entries of {@code iov} as DAT 2.0 triplets.
     *
     * @param iov the consumer's IOV, already checked against the LMRs by {@code dat.spi.DtoArgs}
     * @param count how many entries
     * @return {@code DAT_SUCCESS}, or {@code DAT_INVALID_PARAMETER} for a count beyond the scratch, an IOV whose
     *     memory is closed or confined elsewhere, or a segment longer than DAT 2.0 carries
     */
    public int fill(Iov iov, int count) {
        if (count < 0 || count > capacity) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        for (int i = 0; i < count; i++) {
            int rc = reader.read(iov, i);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            long length = reader.segmentLength();
            if (length < 0 || length > MAX_SEGMENT) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            long base = SIZE * i;
            triplets.set(ValueLayout.JAVA_LONG, base + VA, reader.virtualAddress());
            triplets.set(ValueLayout.JAVA_INT, base + LENGTH, (int) length);
            triplets.set(ValueLayout.JAVA_INT, base + CONTEXT, reader.lmrContext());
        }
        return DatReturn.DAT_SUCCESS;
    }
}
