// SPDX-License-Identifier: Apache-2.0
package dat.api;

import java.lang.foreign.MemorySegment;

/**
 * A Local Memory Region: {@code DAT_LMR_HANDLE}, registered memory DTOs can use.
 *
 * <p>{@link #lmrContext()} names it in local IOVs; {@link #rmrContext()} lets a peer reach it by RDMA when it
 * was registered with {@link DatMemPriv#REMOTE_READ} or {@link DatMemPriv#REMOTE_WRITE}. Both are
 * unguessable tags, not counters.
 */
public interface DatLmr extends DatHandle {

    /** {@return the {@code lmr_context} to put in {@link Iov} triplets} */
    int lmrContext();

    /**
     * {@return the {@code rmr_context} a peer uses to reach this region by RDMA; meaningful only when the region has a
     * remote privilege}
     */
    int rmrContext();

    /** {@return the registered memory} */
    MemorySegment segment();

    /** {@return {@code registered_address}: the virtual address of the first registered byte} */
    long address();

    /** {@return {@code registered_size} in bytes} */
    long length();

    /** {@return the {@link DatMemPriv} flags the region was registered with} */
    int privileges();

    /** {@return the protection zone of the region} */
    DatPz pz();

    /**
     * {@code dat_lmr_query}.
     *
     * @return the LMR parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE} when closed
     */
    DatLmrParam query();
}
