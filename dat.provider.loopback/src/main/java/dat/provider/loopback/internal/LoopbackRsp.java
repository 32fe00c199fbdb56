// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatHandleType;
import dat.api.DatReturnSubtype;
import dat.api.DatRsp;
import dat.api.DatRspParam;
import dat.spi.ProviderHandle;

/**
 * A reserved service point ({@code dat_rsp_create}): listens for one request for its reserved EP and stops
 * listening when it arrives.
 */
final class LoopbackRsp extends LoopbackHandle implements DatRsp, ServicePoint {

    private final LoopbackIa ia;
    private final long connQual;
    final LoopbackEp ep;
    private final LoopbackEvd crEvd;
    /** The one request taken, if any; guarded by the fabric's connection lock. */
    private LoopbackCr taken;

    LoopbackRsp(LoopbackIa ia, long connQual, LoopbackEp ep, LoopbackEvd crEvd) {
        this.ia = ia;
        this.connQual = connQual;
        this.ep = ep;
        this.crEvd = crEvd;
    }

    @Override
    public LoopbackIa owner() {
        return ia;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_RSP;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    @Override
    protected String freeCall() {
        return "dat_rsp_free";
    }

    /** The CR EVD always; the EP while it is still reserved for this RSP. */
    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == crEvd || (other == ep && ep.connection.isReservedBy(this));
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
            ep.connection.unreserve(this);
        } finally {
            fabric.connLock.unlock();
        }
    }

    @Override
    public boolean offer(LoopbackCr cr) {
        if (isClosed() || taken != null || ep.isClosed()) {
            return false;
        }
        // An RSP takes exactly one request, then stops listening.
        taken = cr;
        LoopbackFabric.INSTANCE.unlisten(this);
        ep.connection.passivePending();
        ia.pendingCrs.add(cr);
        if (!crEvd.postConnectionRequest(this, connQual, cr)) {
            ia.pendingCrs.remove(cr);
            ep.connection.unreserve(this);
            return false;
        }
        return true;
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.RSP;
    }

    @Override
    public long connQual() {
        return connQual;
    }

    @Override
    public DatRspParam query() {
        requireOpen("dat_rsp_query");
        return new DatRspParam(ia, connQual, crEvd, ep);
    }
}
