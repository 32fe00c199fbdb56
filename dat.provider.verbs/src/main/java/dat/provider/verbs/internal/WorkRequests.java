// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.api.DatReturn;
import dat.api.Iov;
import dat.provider.verbs.internal.ffm.IbvSge;
import dat.spi.DtoArgs;
import dat.spi.LmrTriplet;
import java.lang.foreign.MemorySegment;

/**
 * The work request id every post carries, and the translation of DAT triplets into verbs scatter/gather entries.
 *
 * <p>A {@code wr_id} is {@code kind:2 | owner:24 | sequence:32 | unused:6} laid out as
 * {@code kind << 62 | owner << 32 | sequence}: the kind says which queue (send queue, receive queue, SRQ), the
 * owner is the QP number (24 bits in InfiniBand) or the SRQ's index, the sequence names the slot of the posting
 * bookkeeping. A completion thus finds its owner with one int-keyed lookup and no allocation. A {@code wr_id} is
 * never 0 (QP numbers and SRQ indexes are not), so 0 can mean "no token".
 */
final class WorkRequests {

    /** A request on an EP's send queue: send, RDMA read or write. */
    static final int SEND = 0;
    /** A receive on an EP's own receive queue. */
    static final int RECV = 1;
    /** A receive on an SRQ. */
    static final int SRQ = 2;

    private WorkRequests() {
    }

    static long id(int kind, int owner, long sequence) {
        return ((long) kind << 62) | ((long) (owner & 0xFF_FFFF) << 32) | (sequence & 0xFFFF_FFFFL);
    }

    static int kind(long wrId) {
        return (int) (wrId >>> 62);
    }

    static int owner(long wrId) {
        return (int) ((wrId >>> 32) & 0xFF_FFFF);
    }

    static int sequence(long wrId) {
        return (int) wrId;
    }

    /** For the trace: what a {@code wr_id} names. */
    static String describe(long wrId) {
        return switch (kind(wrId)) {
            case SEND -> "send";
            case RECV -> "recv";
            case SRQ -> "srq";
            default -> "internal";
        } + " owner " + owner(wrId) + " seq " + Integer.toUnsignedLong(sequence(wrId));
    }

    /**
     * Checks DAT triplets against the registered regions and writes them as {@code ibv_sge}s. The checks are the
     * post-time ones of dat_ep_post_send / _recv / _rdma_write / _rdma_read and dat_srq_post_recv
     * ({@link DtoArgs#segment}); a segment longer than an {@code ibv_sge} holds is {@code DAT_INVALID_PARAMETER}, and
     * so is an IOV whose own memory this thread cannot read.
     *
     * @param ia the IA whose regions the contexts name
     * @param pz the PZ the segments must belong to
     * @param n how many segments
     * @param iov the triplets
     * @param privilege the local privilege the operation needs
     * @param sges where the {@code ibv_sge} array is written
     * @param triplet the caller's holder, where each triplet is read ({@link LmrTriplet#read})
     * @return the total length, or a negative DAT return code
     */
    static long load(VerbsIa ia, VerbsPz pz, int n, Iov iov, int privilege, MemorySegment sges,
                     LmrTriplet triplet) {
        long total = 0;
        for (int i = 0; i < n; i++) {
            int status = triplet.read(iov, i);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            int context = triplet.lmrContext();
            long address = triplet.virtualAddress();
            long length = triplet.segmentLength();
            status = DtoArgs.segment(ia.lmrsByLkey.get(context), pz, privilege, address, length);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (length > 0xFFFF_FFFFL) {
                // An ibv_sge's length is 32 bits.
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            IbvSge.addr(sges, i, address);
            IbvSge.length(sges, i, (int) length);
            IbvSge.lkey(sges, i, context);
            total += length;
        }
        return total;
    }

    /**
     * Shortens loaded {@code ibv_sge}s to their first {@code limit} bytes. An RDMA read moves as many bytes as its
     * scatter list holds, while dat_ep_post_rdma_read moves the remote buffer's {@code segment_length}: local
     * segments past it must not be offered to the HCA, or it reads past the remote buffer into them.
     *
     * @param sges the loaded entries
     * @param n how many are loaded
     * @param limit bytes to keep, at most their total
     * @return how many entries hold the first {@code limit} bytes (the last one shortened)
     */
    static int trim(MemorySegment sges, int n, long limit) {
        long left = limit;
        for (int i = 0; i < n; i++) {
            if (left == 0) {
                return i;
            }
            long length = Integer.toUnsignedLong(IbvSge.length(sges, i));
            if (length >= left) {
                IbvSge.length(sges, i, (int) left);
                return i + 1;
            }
            left -= length;
        }
        return n;
    }
}
