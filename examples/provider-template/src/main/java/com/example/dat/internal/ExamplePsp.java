// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatHandle;
import dat.api.DatPspFlags;
import dat.spi.AbstractPsp;

/**
 * A public service point ({@code dat_psp_create}): every connect to its qualifier becomes a request on its EVD. It
 * holds the qualifier on the fabric from creation to free; the query and the free protocol are the shell's.
 */
final class ExamplePsp extends AbstractPsp<ExampleIa, ExampleEvd> implements Fabric.Listener {

    private final long connQual;

    ExamplePsp(ExampleIa ia, long connQual, ExampleEvd crEvd, DatPspFlags flags) {
        super(ia, crEvd, flags);
        this.connQual = connQual;
    }

    @Override
    public long connQual() {
        return connQual;
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
    public ExampleEp reservedEp() {
        return null;
    }

    /** Stops listening; requests already queued stay answerable. */
    @Override
    protected void destroy() {
        Fabric.unlisten(connQual, this);
        markClosed();
    }
}
