// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatHandleType;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPspParam;
import dat.api.DatReturnSubtype;

/** A public service point ({@code dat_psp_create}): every connect to its qualifier becomes a request on its EVD. */
final class ExamplePsp extends ExampleServicePoint implements DatPsp {

    private final DatPspFlags flags;

    ExamplePsp(ExampleIa ia, long connQual, ExampleEvd crEvd, DatPspFlags flags) {
        super(ia, connQual, crEvd);
        this.flags = flags;
    }

    @Override
    public ExampleEp reservedEp() {
        return null;
    }

    @Override
    public DatPspParam query() {
        requireOpen("dat_psp_query");
        return new DatPspParam(ia, connQual(), crEvd(), flags);
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.PSP;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_PSP;
    }

    @Override
    protected String freeCall() {
        return "dat_psp_free";
    }
}
