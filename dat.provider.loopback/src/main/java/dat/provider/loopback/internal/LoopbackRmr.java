// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatHandleType;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatRmr;
import dat.api.DatRmrParam;
import dat.spi.ProviderHandle;

/**
 * A remote memory region ({@code dat_rmr_create}): a window onto part of an LMR that the peer of one EP
 * reaches by RDMA. {@code dat_rmr_bind}: the arguments are checked here ({@link #checkBind}), the bind is posted on
 * that EP's request queue ({@link LoopbackEpData#postBind}) and carried out here ({@link #execute}) when it reaches
 * the queue's head; each bind and unbind draws a new random {@code rmr_context}, so an old context stops working
 * at once.
 */
final class LoopbackRmr extends LoopbackHandle implements DatRmr {

    private static final int REMOTE_PRIVILEGES = DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE;

    /**
     * What a bind established; replaced whole, so a reader never sees half a binding. {@code connGen} pins it
     * to the connection the EP had at bind time: the window is usable only over that connection.
     */
    record Binding(LoopbackLmr lmr, long offset, long length, int privileges, LoopbackEp ep, long connGen) {
    }

    final LoopbackPz pz;
    private volatile int rmrContext;
    /** Read by the peer's RDMA without a lock: volatile publication of the immutable binding. */
    volatile Binding binding;

    LoopbackRmr(LoopbackPz pz) {
        this.pz = pz;
        this.rmrContext = pz.ia().rmrContexts.register(this);
    }

    @Override
    LoopbackIa owner() {
        return pz.ia();
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_RMR;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    @Override
    protected String freeCall() {
        return "dat_rmr_free";
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz;
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
    public DatHandleType handleType() {
        return DatHandleType.RMR;
    }

    @Override
    public int rmrContext() {
        return rmrContext;
    }

    @Override
    public LoopbackPz pz() {
        return pz;
    }

    @Override
    public int bind(DatLmr lmr, long offset, long length, int memPrivileges, DatEp ep, long userCookie,
                    int completionFlags) {
        if (isClosed() || !(ep instanceof LoopbackEp e) || e.owner() != owner() || e.isClosed()
                || !(lmr instanceof LoopbackLmr l) || l.owner() != owner() || l.isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        return e.data.postBind(this, l, offset, length, memPrivileges, userCookie, completionFlags);
    }

    @Override
    public int unbind(DatEp ep, long userCookie, int completionFlags) {
        if (isClosed() || !(ep instanceof LoopbackEp e) || e.owner() != owner() || e.isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        return e.data.postBind(this, null, 0, 0, 0, userCookie, completionFlags);
    }

    /**
     * dat_rmr_bind's checks of the window against its LMR and the EP, made at post time, after the EP's own
     * checks (state, request EVD, completion flags), so a post with several faults returns what it always did. It
     * runs on the data path, under the EP's send lock: a status, no exception, no allocation.
     *
     * @param lmr the LMR of a bind, or {@code null} for an unbind (a bind of length 0 unbinds too)
     * @param epPz the PZ of the EP the bind is posted on
     * @return {@code DAT_SUCCESS}, or the return value of the post
     */
    int checkBind(LoopbackLmr lmr, long offset, long length, int privileges, LoopbackPz epPz) {
        if (lmr != null) {
            if (privileges == 0 || (privileges & ~REMOTE_PRIVILEGES) != 0 || offset < 0
                    || !lmr.contains(lmr.address + offset, length)) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            if ((lmr.privileges & privileges) != privileges) {
                return DatReturn.DAT_PRIVILEGES_VIOLATION;
            }
            if (lmr.pz != pz) {
                return DatReturn.DAT_PROTECTION_VIOLATION;
            }
        }
        if (pz != epPz) {
            return DatReturn.DAT_PROTECTION_VIOLATION;
        }
        return DatReturn.DAT_SUCCESS;
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
            return new DatRmrParam(owner(), pz, 0, 0, 0, 0, rmrContext);
        }
        return new DatRmrParam(owner(), pz, b.lmr().lmrContext(), b.lmr().address + b.offset(), b.length(),
                b.privileges(), rmrContext);
    }
}
