// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatReturn;
import dat.api.Iov;

/**
 * The data-path twin of {@link DatArgs}: the checks every provider makes of a post's arguments, in the order the DAT
 * post pages give their return codes. Each returns a DAT return code ({@link DatReturn#DAT_SUCCESS} when the
 * argument passes), never throws and allocates nothing, so that a provider's post calls it directly: a static call
 * the JIT inlines into each provider's own post, not a shared call site that sees every provider's objects.
 */
public final class DtoArgs {

    private DtoArgs() {
    }

    /**
     * The segment count of a post: {@code 0..maxIov}, and within the consumer's {@link Iov} (which may be
     * {@code null} only when the count is 0).
     *
     * @param numSegments the count the consumer passed
     * @param iov the consumer's triplets, or {@code null}
     * @param maxIov the queue's limit ({@code max_request_iov}, {@code max_recv_iov}, ...)
     * @return {@code DAT_SUCCESS} or {@code DAT_INVALID_PARAMETER}
     */
    public static int iov(int numSegments, Iov iov, int maxIov) {
        if (numSegments < 0 || numSegments > maxIov
                || (numSegments > 0 && (iov == null || numSegments > iov.capacity()))) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        return DatReturn.DAT_SUCCESS;
    }

    /**
     * One local segment of a post against the LMR its {@code lmr_context} named, in the post pages' order: an
     * unknown or freed context is {@code DAT_PRIVILEGES_VIOLATION} ("one of the LMRs used in local_iov was either
     * invalid"), an LMR of another PZ {@code DAT_PROTECTION_VIOLATION}, a missing local privilege
     * {@code DAT_PRIVILEGES_VIOLATION}, a segment outside its LMR {@code DAT_INVALID_PARAMETER}.
     *
     * @param lmr the LMR the context names, or {@code null} when it names none
     * @param pz the PZ of the EP or SRQ posting
     * @param privilege the local privilege the operation needs ({@code LOCAL_READ} to send or write from,
     *     {@code LOCAL_WRITE} to receive or read into)
     * @param address the segment's first byte
     * @param length the segment's length
     * @return {@code DAT_SUCCESS} or the post's return code
     */
    public static int segment(AbstractLmr<?, ?> lmr, AbstractPz<?> pz, int privilege, long address, long length) {
        if (lmr == null || lmr.isClosed()) {
            return DatReturn.DAT_PRIVILEGES_VIOLATION;
        }
        if (lmr.pz() != pz) {
            return DatReturn.DAT_PROTECTION_VIOLATION;
        }
        if ((lmr.privileges() & privilege) != privilege) {
            return DatReturn.DAT_PRIVILEGES_VIOLATION;
        }
        if (!lmr.contains(address, length)) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        return DatReturn.DAT_SUCCESS;
    }
}
