// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatHandle;
import dat.spi.ProviderHandle;

/**
 * What a PSP and an RSP share: a qualifier on the fabric, held from creation to free, and the EVD its connection
 * requests go to.
 */
abstract class ExampleServicePoint extends ExampleHandle implements Fabric.Listener {

    private final long connQual;
    private final ExampleEvd crEvd;

    ExampleServicePoint(ExampleIa ia, long connQual, ExampleEvd crEvd) {
        super(ia);
        this.connQual = connQual;
        this.crEvd = crEvd;
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

    /** The qualifier this service point was created with; still readable after it is freed. */
    public long connQual() {
        return connQual;
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
