// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatPspFlags;
import dat.spi.AbstractPsp;

/** A public service point ({@code dat_psp_create}): turns connection requests into CR events. */
final class LoopbackPsp extends AbstractPsp<LoopbackIa, LoopbackEvd> implements ServicePoint {

    private final long connQual;

    LoopbackPsp(LoopbackIa ia, long connQual, LoopbackEvd crEvd, DatPspFlags flags) {
        super(ia, crEvd, flags);
        this.connQual = connQual;
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
        owner().pendingCrs.add(cr);
        if (!crEvd().postConnectionRequest(this, connQual, cr)) {
            owner().pendingCrs.remove(cr);
            return false;
        }
        return true;
    }

    @Override
    public long connQual() {
        return connQual;
    }
}
