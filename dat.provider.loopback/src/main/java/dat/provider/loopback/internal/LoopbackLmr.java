// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.Dat;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatLmr;
import dat.api.DatLmrParam;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.spi.ProviderHandle;
import java.lang.foreign.MemorySegment;

/**
 * A registered region ({@code dat_lmr_create}): a native segment of the consumer's arena with privileges and
 * two random tags, {@code lmr_context} for local IOVs and {@code rmr_context} for a peer's RDMA (honoured only
 * when the region has {@code REMOTE_READ} or {@code REMOTE_WRITE}).
 */
final class LoopbackLmr extends LoopbackHandle implements DatLmr {

    final LoopbackPz pz;
    final MemorySegment segment;
    final long address;
    final long length;
    final int privileges;
    private final int lmrContext;
    private final int rmrContext;
    /** RMRs bound to this region; guarded by {@code this}, so a bind and a free cannot cross. */
    private int boundRmrs;

    LoopbackLmr(LoopbackPz pz, MemorySegment segment, int privileges) {
        this.pz = pz;
        this.segment = segment;
        this.address = segment.address();
        this.length = segment.byteSize();
        this.privileges = privileges;
        this.lmrContext = pz.ia().lmrContexts.register(this);
        this.rmrContext = pz.ia().rmrContexts.register(this);
    }

    @Override
    LoopbackIa owner() {
        return pz.ia();
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_LMR;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_LMR_IN_USE;
    }

    @Override
    protected String freeCall() {
        return "dat_lmr_free";
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz;
    }

    @Override
    protected synchronized void checkFree() {
        if (boundRmrs > 0) {
            throw new DatException(DatReturn.INVALID_STATE, inUseSubtype(),
                    "dat_lmr_free: " + boundRmrs + " RMR(s) are still bound to the LMR; unbind or free them first");
        }
        // Closed in the same critical section as the check, so a concurrent bind cannot slip in between.
        markClosed();
    }

    @Override
    protected synchronized void destroy() {
        markClosed();
        owner().lmrContexts.remove(lmrContext);
        owner().rmrContexts.remove(rmrContext);
    }

    /** Counts a bind onto this region; {@code false} when the region was freed meanwhile. */
    synchronized boolean bindRmr() {
        if (isClosed()) {
            return false;
        }
        boundRmrs++;
        return true;
    }

    synchronized void unbindRmr() {
        boundRmrs--;
    }

    /**
     * {@return whether {@code [virtualAddress, virtualAddress + len)} lies inside the region}
     *
     * @param virtualAddress first byte
     * @param len byte count
     */
    boolean contains(long virtualAddress, long len) {
        long offset = virtualAddress - address;
        return len >= 0 && offset >= 0 && offset <= length && len <= length - offset;
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.LMR;
    }

    @Override
    public int lmrContext() {
        return lmrContext;
    }

    @Override
    public int rmrContext() {
        return rmrContext;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int privileges() {
        return privileges;
    }

    @Override
    public LoopbackPz pz() {
        return pz;
    }

    @Override
    public DatLmrParam query() {
        requireOpen("dat_lmr_query");
        return new DatLmrParam(owner(), Dat.DAT_MEM_TYPE_VIRTUAL, segment, length, pz, privileges, lmrContext,
                rmrContext, length, address);
    }
}
