package com.example.dat.internal;

import dat.api.DatHandle;
import dat.api.DatHandleType;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPspParam;
import dat.api.DatReturnSubtype;
import dat.spi.ProviderHandle;

/** A public service point ({@code dat_psp_create}): every connect to its qualifier becomes a request on its EVD. */
final class ExamplePsp extends ExampleHandle implements DatPsp, Fabric.Listener {

    private final long connQual;
    private final ExampleEvd crEvd;
    private final DatPspFlags flags;

    ExamplePsp(ExampleIa ia, long connQual, ExampleEvd crEvd, DatPspFlags flags) {
        super(ia);
        this.connQual = connQual;
        this.crEvd = crEvd;
        this.flags = flags;
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
        return null;
    }

    /** The qualifier this service point was created with; still readable after it is freed. */
    @Override
    public long connQual() {
        return connQual;
    }

    @Override
    public DatPspParam query() {
        requireOpen("dat_psp_query");
        return new DatPspParam(ia, connQual, crEvd, flags);
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

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == crEvd;
    }

    @Override
    protected void destroy() {
        Fabric.unlisten(connQual, this);
        markClosed();
    }
}
