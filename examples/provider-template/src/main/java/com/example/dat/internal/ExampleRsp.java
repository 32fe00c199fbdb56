// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatHandleType;
import dat.api.DatRsp;
import dat.api.DatRspParam;
import dat.api.DatReturnSubtype;
import dat.spi.ProviderHandle;

/**
 * A reserved service point ({@code dat_rsp_create}): one connection request to its qualifier, for the EP it
 * reserved.
 */
final class ExampleRsp extends ExampleServicePoint implements DatRsp {

    private final ExampleEp ep;

    ExampleRsp(ExampleIa ia, long connQual, ExampleEp ep, ExampleEvd crEvd) {
        super(ia, connQual, crEvd);
        this.ep = ep;
    }

    /** The one request arrived: the qualifier is free again. */
    void consumed() {
        Fabric.unlisten(connQual(), this);
    }

    @Override
    public ExampleEp reservedEp() {
        return ep;
    }

    @Override
    public DatRspParam query() {
        requireOpen("dat_rsp_query");
        return new DatRspParam(ia, connQual(), crEvd(), ep);
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.RSP;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_RSP;
    }

    @Override
    protected String freeCall() {
        return "dat_rsp_free";
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == ep || super.dependsOn(other);
    }

    @Override
    protected void destroy() {
        super.destroy();
        ep.unreserve();
    }
}
