// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatHandle;
import dat.spi.AbstractRsp;

/**
 * A reserved service point ({@code dat_rsp_create}): one connection request to its qualifier, for the EP it
 * reserved. The query and the free protocol are the shell's.
 */
final class ExampleRsp extends AbstractRsp<ExampleIa, ExampleEvd, ExampleEp> implements Fabric.Listener {

    ExampleRsp(ExampleIa ia, long connQual, ExampleEp ep, ExampleEvd crEvd) {
        super(ia, connQual, ep, crEvd);
    }

    /** The one request arrived: the qualifier is free again. */
    void consumed() {
        Fabric.unlisten(connQual(), this);
    }

    /** The EP stays reserved until the RSP is freed, so it cannot be freed first. */
    @Override
    protected boolean reservesEp() {
        return true;
    }

    @Override
    public long qualifier() {
        return connQual();
    }

    @Override
    public DatHandle handle() {
        return this;
    }

    @Override
    public ExampleEp reservedEp() {
        return ep();
    }

    /** Stops listening and gives the EP back. */
    @Override
    protected void destroy() {
        Fabric.unlisten(connQual(), this);
        markClosed();
        ep().connection.unreserve();
    }
}
