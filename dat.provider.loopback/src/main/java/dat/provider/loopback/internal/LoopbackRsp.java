// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.spi.AbstractRsp;

/**
 * A reserved service point ({@code dat_rsp_create}): listens for one request for its reserved EP and stops
 * listening when it arrives.
 */
final class LoopbackRsp extends AbstractRsp<LoopbackIa, LoopbackEvd, LoopbackEp> implements ServicePoint {

    /** The one request taken, if any; guarded by the fabric's connection lock. */
    private LoopbackCr taken;

    LoopbackRsp(LoopbackIa ia, long connQual, LoopbackEp ep, LoopbackEvd crEvd) {
        super(ia, connQual, ep, crEvd);
    }

    @Override
    protected boolean reservesEp() {
        return ep().connection.isReservedBy(this);
    }

    /** Stops listening; a reserved EP goes back to UNCONNECTED and a request not yet answered is rejected. */
    @Override
    protected void destroy() {
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            fabric.unlisten(this);
            markClosed();
            if (taken != null && !taken.isClosed()) {
                taken.rejectQuietly();
            }
            ep().connection.unreserve(this);
        } finally {
            fabric.connLock.unlock();
        }
    }

    @Override
    public boolean offer(LoopbackCr cr) {
        LoopbackEp ep = ep();
        if (isClosed() || taken != null || ep.isClosed()) {
            return false;
        }
        // An RSP takes exactly one request, then stops listening.
        taken = cr;
        LoopbackFabric.INSTANCE.unlisten(this);
        ep.connection.passivePending();
        owner().pendingCrs.add(cr);
        if (!crEvd().postConnectionRequest(this, connQual(), cr)) {
            owner().pendingCrs.remove(cr);
            ep.connection.unreserve(this);
            return false;
        }
        return true;
    }
}
