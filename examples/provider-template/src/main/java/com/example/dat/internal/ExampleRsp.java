package com.example.dat.internal;

import dat.api.DatHandle;
import dat.api.DatHandleType;
import dat.api.DatRsp;
import dat.api.DatRspParam;
import dat.api.DatReturnSubtype;
import dat.spi.ProviderHandle;

/**
 * A reserved service point ({@code dat_rsp_create}): one connection request to its qualifier, for the EP it
 * reserved.
 */
final class ExampleRsp extends ExampleHandle implements DatRsp, Fabric.Listener {

    private final long connQual;
    private final ExampleEp ep;
    private final ExampleEvd crEvd;

    ExampleRsp(ExampleIa ia, long connQual, ExampleEp ep, ExampleEvd crEvd) {
        super(ia);
        this.connQual = connQual;
        this.ep = ep;
        this.crEvd = crEvd;
    }

    /** The one request arrived: the qualifier is free again. */
    void consumed() {
        Fabric.unlisten(connQual, this);
    }

    @Override
    public long qualifier() {
        return connQual;
    }

    @Override
    public DatHandle handle() {
        return this;
    }

    @Override
    public ExampleEvd crEvd() {
        return crEvd;
    }

    @Override
    public ExampleEp reservedEp() {
        return ep;
    }

    /** The qualifier this service point was created with; still readable after it is freed. */
    @Override
    public long connQual() {
        return connQual;
    }

    @Override
    public DatRspParam query() {
        requireOpen("dat_rsp_query");
        return new DatRspParam(ia, connQual, crEvd, ep);
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
        return other == crEvd || other == ep;
    }

    @Override
    protected void destroy() {
        Fabric.unlisten(connQual, this);
        ep.unreserve();
        markClosed();
    }
}
