// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatHandleType;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPspParam;
import dat.api.DatReturnSubtype;
import dat.spi.ProviderHandle;

/** A public service point ({@code dat_psp_create}): turns connection requests into CR events. */
final class LoopbackPsp extends LoopbackHandle implements DatPsp, ServicePoint {

    private final LoopbackIa ia;
    private final long connQual;
    private final LoopbackEvd crEvd;
    private final DatPspFlags flags;

    LoopbackPsp(LoopbackIa ia, long connQual, LoopbackEvd crEvd, DatPspFlags flags) {
        this.ia = ia;
        this.connQual = connQual;
        this.crEvd = crEvd;
        this.flags = flags;
    }

    @Override
    public LoopbackIa owner() {
        return ia;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_PSP;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    @Override
    protected String freeCall() {
        return "dat_psp_free";
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == crEvd;
    }

    /** Stops listening; requests already delivered stay valid. */
    @Override
    protected void destroy() {
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            fabric.unlisten(this);
            markClosed();
        } finally {
            fabric.connLock.unlock();
        }
    }

    @Override
    public boolean offer(LoopbackCr cr) {
        if (isClosed()) {
            return false;
        }
        ia.pendingCrs.add(cr);
        if (!crEvd.postConnectionRequest(this, connQual, cr)) {
            ia.pendingCrs.remove(cr);
            return false;
        }
        return true;
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.PSP;
    }

    @Override
    public long connQual() {
        return connQual;
    }

    @Override
    public DatPspParam query() {
        requireOpen("dat_psp_query");
        return new DatPspParam(ia, connQual, crEvd, flags);
    }
}
