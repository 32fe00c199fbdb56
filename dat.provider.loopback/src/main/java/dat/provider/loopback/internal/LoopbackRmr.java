// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatLmr;
import dat.api.DatReturn;
import dat.api.DatRmrParam;
import dat.spi.AbstractRmr;

/**
 * A remote memory region ({@code dat_rmr_create}): a window onto part of an LMR that the peer of one EP
 * reaches by RDMA. {@code dat_rmr_bind}: the arguments are checked by the shell ({@link #checkBind}), the bind is
 * posted on
 * that EP's request queue ({@link LoopbackEpData#postBind}) and carried out here ({@link #execute}) when it reaches
 * the queue's head; each bind and unbind draws a new random {@code rmr_context}, so an old context stops working
 * at once.
 */
final class LoopbackRmr extends AbstractRmr<LoopbackIa, LoopbackPz> {

    /**
     * What a bind established; replaced whole, so a reader never sees half a binding. {@code connGen} pins it
     * to the connection the EP had at bind time: the window is usable only over that connection.
     */
    record Binding(LoopbackLmr lmr, long offset, long length, int privileges, LoopbackEp ep, long connGen) {
    }

    private volatile int rmrContext;
    /** Read by the peer's RDMA without a lock: volatile publication of the immutable binding. */
    volatile Binding binding;

    LoopbackRmr(LoopbackPz pz) {
        super(pz);
        this.rmrContext = pz.ia().rmrContexts.register(this);
    }

    @Override
    protected synchronized void destroy() {
        markClosed();
        owner().rmrContexts.remove(rmrContext);
        Binding b = binding;
        if (b != null) {
            b.lmr().unbindRmr();
            binding = null;
        }
    }

    @Override
    public int rmrContext() {
        return rmrContext;
    }

    @Override
    public int bind(DatLmr lmr, long offset, long length, int memPrivileges, DatEp ep, long userCookie,
                    int completionFlags) {
        if (isClosed() || !(ep instanceof LoopbackEp e) || !sibling(e) || !(lmr instanceof LoopbackLmr l)
                || !sibling(l)) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        return e.data.postBind(this, l, offset, length, memPrivileges, userCookie, completionFlags);
    }

    @Override
    public int unbind(DatEp ep, long userCookie, int completionFlags) {
        if (isClosed() || !(ep instanceof LoopbackEp e) || !sibling(e)) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        return e.data.postBind(this, null, 0, 0, 0, userCookie, completionFlags);
    }

    /**
     * Carries out a bind (length &gt; 0) or unbind when it reaches the head of the EP's request queue.
     *
     * @return the bind completion status
     */
    synchronized DatDtoStatus execute(LoopbackLmr lmr, long offset, long length, int privileges, LoopbackEp ep,
                                      long connGen) {
        if (isClosed() || (length != 0 && !lmr.bindRmr())) {
            return DatDtoStatus.RMR_OPERATION_FAILED;
        }
        Binding old = binding;
        if (old != null) {
            old.lmr().unbindRmr();
        }
        // The old context is forgotten before the new binding is published: no access can use a stale tag.
        owner().rmrContexts.remove(rmrContext);
        binding = length == 0 ? null : new Binding(lmr, offset, length, privileges, ep, connGen);
        rmrContext = owner().rmrContexts.register(this);
        return DatDtoStatus.SUCCESS;
    }

    @Override
    public DatRmrParam query() {
        requireOpen("dat_rmr_query");
        Binding b = binding;
        if (b == null) {
            return new DatRmrParam(owner(), pz(), 0, 0, 0, 0, rmrContext);
        }
        return new DatRmrParam(owner(), pz(), b.lmr().lmrContext(), b.lmr().address() + b.offset(), b.length(),
                b.privileges(), rmrContext);
    }
}
