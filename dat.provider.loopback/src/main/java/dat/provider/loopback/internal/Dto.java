// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatReturn;
import dat.api.Iov;
import dat.spi.DtoArgs;
import dat.spi.LmrTriplet;
import java.lang.foreign.MemorySegment;

/**
 * One preallocated work descriptor of a request queue, receive queue or SRQ. A post copies the consumer's
 * {@code DAT_LMR_TRIPLET}s into it, resolved to (LMR, offset, length), so the consumer owns its {@link Iov}
 * again when the post returns ({@code iov_ownership_on_return = DAT_IOV_CONSUMER}).
 *
 * <p>Descriptors are reused for ever: nothing here allocates after construction.
 */
final class Dto {

    static final int SEND = 1;
    static final int RECV = 2;
    static final int RDMA_WRITE = 3;
    static final int RDMA_READ = 4;
    static final int BIND = 5;

    int op;
    long cookie;
    int flags;
    int count;
    long total;
    final LoopbackLmr[] lmrs;
    final long[] offsets;
    final long[] lengths;

    // RDMA: the remote buffer triplet.
    int rmrContext;
    long target;
    long segmentLength;

    // RMR bind.
    LoopbackRmr rmr;
    LoopbackLmr bindLmr;
    long bindOffset;
    long bindLength;
    int bindPrivileges;

    /** The SRQ a receive buffer belongs to, {@code null} for an EP's own receive. */
    LoopbackSrq srq;

    Dto(int maxSegments) {
        lmrs = new LoopbackLmr[maxSegments];
        offsets = new long[maxSegments];
        lengths = new long[maxSegments];
    }

    int capacity() {
        return lmrs.length;
    }

    /** Where in a {@link #tripletScratch} array {@link #load} reads a triplet. */
    private static final int TRIPLET_AT = 8;

    /**
     * {@return an array for {@link #load} to read triplets into, one per lock that serialises posts} The three words
     * sit a cache line from either end, so the array's neighbours in the heap, which other threads may write, never
     * share their line: a post writes them for every triplet.
     */
    static long[] tripletScratch() {
        return new long[TRIPLET_AT + 3 + 8];
    }

    /**
     * Copies and checks {@code iov[0..n)}: each triplet read (as {@link LmrTriplet#read}: an IOV whose own memory this
     * thread cannot read is {@code DAT_INVALID_PARAMETER}) and checked in the order the DAT post pages give
     * ({@link DtoArgs#segment}).
     * Caller checked {@code 0 <= n <= capacity()} and {@code n <= iov.capacity()}.
     *
     * @param triplet a {@link #tripletScratch} array of the lock the caller holds
     * @return a DAT status
     */
    int load(ContextTable contexts, LoopbackPz pz, int n, Iov iov, int privilege, long[] triplet) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            // One read of the whole triplet (one index check, not one per field), into the poster's own
            // padded scratch, not into a holder object beside this descriptor: a holder's fields, written on every
            // post, shared a cache line with this descriptor's words, which the peer's delivering thread reads
            // (LmrTriplet's rule kept: an IOV whose memory this thread cannot read is a bad argument).
            try {
                iov.read(i, triplet, TRIPLET_AT);
            } catch (IllegalStateException | WrongThreadException e) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            int context = (int) triplet[TRIPLET_AT];
            long address = triplet[TRIPLET_AT + 1];
            long length = triplet[TRIPLET_AT + 2];
            LoopbackLmr lmr = contexts.get(context) instanceof LoopbackLmr l ? l : null;
            int status = DtoArgs.segment(lmr, pz, privilege, address, length);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            setSegment(i, lmr, address - lmr.address(), length);
            // Each length is at most max_lmr_block_size (2^40) and n at most 16: the sum cannot overflow.
            sum += length;
        }
        // Stored only when they change, as the segments (setSegment).
        if (count != n) {
            count = n;
        }
        if (total != sum) {
            total = sum;
        }
        if (srq != null || rmr != null || bindLmr != null) {
            srq = null;
            rmr = null;
            bindLmr = null;
        }
        return DatReturn.DAT_SUCCESS;
    }

    /**
     * Stores segment {@code i}, skipping each store of the value already there. A receive descriptor is written by
     * its poster and read by the peer's delivering thread, and consumers mostly re-post the same buffers: a store
     * that changes nothing would still take the line into the poster's cache as modified, and the next delivery
     * would have to fetch it back from that core, one line for each of the three arrays. Skipped, the lines stay
     * shared in both caches. (A reference store also costs a GC write barrier.)
     */
    private void setSegment(int i, LoopbackLmr lmr, long offset, long length) {
        if (lmrs[i] != lmr) {
            lmrs[i] = lmr;
        }
        if (offsets[i] != offset) {
            offsets[i] = offset;
        }
        if (lengths[i] != length) {
            lengths[i] = length;
        }
    }

    /** {@return whether every LMR this descriptor names is still registered} */
    boolean lmrsOpen() {
        for (int i = 0; i < count; i++) {
            if (lmrs[i].isClosed()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Copies the whole message of {@code from} into {@code to} in IOV order: the front segments of {@code to}
     * fill completely, at most one partly, the rest stay untouched. Caller checked
     * {@code from.total <= to.total}.
     *
     * @param checkFrom whether to check {@code from}'s LMRs open: not when the caller checked them under the send
     *     lock it still holds
     * @return {@code true}, or {@code false} when memory was freed under the transfer
     */
    static boolean copy(Dto from, Dto to, boolean checkFrom) {
        if ((checkFrom && !from.lmrsOpen()) || !to.lmrsOpen()) {
            return false;
        }
        try {
            int si = 0;
            int di = 0;
            long so = 0;
            long dof = 0;
            long remaining = from.total;
            while (remaining > 0) {
                while (from.lengths[si] == so) {
                    si++;
                    so = 0;
                }
                while (to.lengths[di] == dof) {
                    di++;
                    dof = 0;
                }
                long chunk = Math.min(from.lengths[si] - so, to.lengths[di] - dof);
                MemorySegment.copy(from.lmrs[si].segment(), from.offsets[si] + so,
                        to.lmrs[di].segment(), to.offsets[di] + dof, chunk);
                so += chunk;
                dof += chunk;
                remaining -= chunk;
            }
            return true;
        } catch (IllegalStateException | WrongThreadException e) {
            // The consumer closed the arena of a registered region: the DTO fails, memory is never touched.
            return false;
        }
    }

    /**
     * Gathers this descriptor's segments into {@code dst} at {@code dstOffset} (RDMA write).
     *
     * @param check whether to check the LMRs open: not when the caller checked them under the send lock it still
     *     holds
     * @return {@code false} when memory was freed under the transfer
     */
    boolean gatherInto(MemorySegment dst, long dstOffset, boolean check) {
        if (check && !lmrsOpen()) {
            return false;
        }
        try {
            long at = dstOffset;
            for (int i = 0; i < count; i++) {
                MemorySegment.copy(lmrs[i].segment(), offsets[i], dst, at, lengths[i]);
                at += lengths[i];
            }
            return true;
        } catch (IllegalStateException | WrongThreadException e) {
            return false;
        }
    }

    /**
     * Scatters {@code length} bytes of {@code src} at {@code srcOffset} into this descriptor's segments in
     * IOV order (RDMA read).
     *
     * @param check whether to check the LMRs open: not when the caller checked them under the send lock it still
     *     holds
     * @return {@code false} when memory was freed under the transfer
     */
    boolean scatterFrom(MemorySegment src, long srcOffset, long length, boolean check) {
        if (check && !lmrsOpen()) {
            return false;
        }
        try {
            long from = srcOffset;
            long remaining = length;
            for (int i = 0; i < count && remaining > 0; i++) {
                long chunk = Math.min(lengths[i], remaining);
                MemorySegment.copy(src, from, lmrs[i].segment(), offsets[i], chunk);
                from += chunk;
                remaining -= chunk;
            }
            return true;
        } catch (IllegalStateException | WrongThreadException e) {
            return false;
        }
    }

    /** Copies every field of {@code other}, whose segments fit; used when a queue is rebuilt. */
    void copyFrom(Dto other) {
        op = other.op;
        cookie = other.cookie;
        flags = other.flags;
        count = other.count;
        total = other.total;
        System.arraycopy(other.lmrs, 0, lmrs, 0, other.count);
        System.arraycopy(other.offsets, 0, offsets, 0, other.count);
        System.arraycopy(other.lengths, 0, lengths, 0, other.count);
        rmrContext = other.rmrContext;
        target = other.target;
        segmentLength = other.segmentLength;
        rmr = other.rmr;
        bindLmr = other.bindLmr;
        bindOffset = other.bindOffset;
        bindLength = other.bindLength;
        bindPrivileges = other.bindPrivileges;
        srq = other.srq;
    }
}
