// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.spi.AbstractLmr;
import java.lang.foreign.MemorySegment;

/**
 * A registered region ({@code dat_lmr_create}): a native segment of the consumer's arena with privileges and
 * two random tags, {@code lmr_context} for local IOVs and {@code rmr_context} for a peer's RDMA (honoured only
 * when the region has {@code REMOTE_READ} or {@code REMOTE_WRITE}).
 */
final class LoopbackLmr extends AbstractLmr<LoopbackIa, LoopbackPz> {

    private final int lmrContext;
    private final int rmrContext;
    /** RMRs bound to this region; guarded by {@code this}, so a bind and a free cannot cross. */
    private int boundRmrs;

    LoopbackLmr(LoopbackPz pz, MemorySegment segment, int privileges) {
        super(pz, segment, privileges);
        this.lmrContext = pz.ia().lmrContexts.register(this);
        this.rmrContext = pz.ia().rmrContexts.register(this);
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

    @Override
    public int lmrContext() {
        return lmrContext;
    }

    @Override
    public int rmrContext() {
        return rmrContext;
    }
}
