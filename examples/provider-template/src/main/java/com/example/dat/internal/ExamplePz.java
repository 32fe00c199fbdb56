// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatIa;
import dat.api.DatPz;
import dat.api.DatPzParam;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatRmr;

/** A protection zone ({@code dat_pz_create}): LMRs and EPs of one PZ may work together, no others. */
final class ExamplePz extends ExampleHandle implements DatPz {

    ExamplePz(ExampleIa ia) {
        super(ia);
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.PZ;
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
    public DatIa ia() {
        requireOpen("dat_pz_query");
        return ia;
    }

    @Override
    public DatPzParam query() {
        requireOpen("dat_pz_query");
        return new DatPzParam(ia);
    }

    /** {@code max_rmrs} is 0: memory windows are not supported. */
    @Override
    public DatRmr createRmr() {
        requireOpen("dat_rmr_create");
        throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, "dat_rmr_create: provider " + ExampleProvider.NAME
                + " has no memory windows (max_rmrs = 0); give the peer an LMR's rmr_context instead");
    }
}
