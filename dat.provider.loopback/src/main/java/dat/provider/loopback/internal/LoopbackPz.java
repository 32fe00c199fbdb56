// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatHandleType;
import dat.api.DatPz;
import dat.api.DatPzParam;
import dat.api.DatReturnSubtype;
import dat.api.DatRmr;

/** A protection zone ({@code dat_pz_create}): DTOs may only touch LMRs of their EP's (or SRQ's) PZ. */
final class LoopbackPz extends LoopbackHandle implements DatPz {

    private final LoopbackIa ia;

    LoopbackPz(LoopbackIa ia) {
        this.ia = ia;
    }

    @Override
    LoopbackIa owner() {
        return ia;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_PZ;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_PZ_IN_USE;
    }

    @Override
    protected String freeCall() {
        return "dat_pz_free";
    }

    @Override
    protected void destroy() {
        markClosed();
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.PZ;
    }

    @Override
    public LoopbackIa ia() {
        return ia;
    }

    @Override
    public DatPzParam query() {
        requireOpen("dat_pz_query");
        return new DatPzParam(ia);
    }

    @Override
    public DatRmr createRmr() {
        requireOpen("dat_rmr_create");
        return ia.createRmr(this);
    }
}
