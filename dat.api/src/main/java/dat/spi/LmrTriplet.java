// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatReturn;
import dat.api.Iov;

/**
 * One {@code DAT_LMR_TRIPLET} of a post ({@code lmr_context}, {@code virtual_address}, {@code segment_length}), read
 * out of the consumer's {@link Iov} by {@link #read} under {@link DatMemory}'s rule: an Iov whose own memory is closed,
 * or confined to another thread, is a malformed argument of the post ({@code DAT_INVALID_PARAMETER}), never an
 * exception out of the data path. Then {@link DtoArgs#segment} checks the triplet against the LMR its context names.
 *
 * <p>A reusable holder, so a post allocates nothing: one per posting queue (or per work descriptor), used only by
 * the thread that holds that queue. Not thread safe.
 */
public final class LmrTriplet {

    private int lmrContext;
    private long virtualAddress;
    private long segmentLength;

    /** An empty holder, for a queue's set-up. */
    public LmrTriplet() {
    }

    /**
     * Reads triplet {@code i}; the caller checked {@code i} against the count ({@link DtoArgs#iov}).
     *
     * @param iov the consumer's triplets
     * @param i which one
     * @return {@code DAT_SUCCESS}, or {@code DAT_INVALID_PARAMETER} when this thread cannot read the Iov's memory
     */
    public int read(Iov iov, int i) {
        try {
            lmrContext = iov.lmrContext(i);
            virtualAddress = iov.virtualAddress(i);
            segmentLength = iov.segmentLength(i);
        } catch (IllegalStateException | WrongThreadException e) {
            // The IOV's own memory is closed, or confined to another thread: a malformed argument (DatMemory).
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        return DatReturn.DAT_SUCCESS;
    }

    /** {@return the {@code lmr_context} last read} */
    public int lmrContext() {
        return lmrContext;
    }

    /** {@return the {@code virtual_address} last read} */
    public long virtualAddress() {
        return virtualAddress;
    }

    /** {@return the {@code segment_length} last read} */
    public long segmentLength() {
        return segmentLength;
    }
}
