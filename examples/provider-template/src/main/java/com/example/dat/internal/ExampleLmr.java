// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.spi.AbstractLmr;
import java.lang.foreign.MemorySegment;

/**
 * Registered memory ({@code dat_lmr_create}). Its one context serves as lmr_context and rmr_context, random so a
 * peer cannot guess another region's. Every copy runs under {@link Fabric#LOCK}, so once {@code dat_lmr_free}
 * returns nothing reads or writes the region again. The region, its PZ, privileges, bounds check and query are the
 * shell's ({@link AbstractLmr}).
 */
final class ExampleLmr extends AbstractLmr<ExampleIa, ExamplePz> {

    private final int context;

    ExampleLmr(ExamplePz pz, MemorySegment region, int privileges) {
        super(pz, region, privileges);
        this.context = Fabric.register(this);
    }

    /** {@return whether every privilege bit asked for is granted} */
    boolean allows(int wanted) {
        return (privileges() & wanted) == wanted;
    }

    /**
     * @param address a virtual address inside the region
     * @param length the bytes wanted, {@link #contains contained}
     * @return the bytes, or {@code null} when the consumer already closed the memory's arena
     */
    MemorySegment slice(long address, long length) {
        MemorySegment region = segment();
        return region.scope().isAlive() ? region.asSlice(address - region.address(), length) : null;
    }

    /** Called once by the free protocol, under {@link Fabric#LOCK}: the context names nothing from now on. */
    @Override
    protected void destroy() {
        Fabric.unregister(context);
        markClosed();
    }

    @Override
    public int lmrContext() {
        return context;
    }

    @Override
    public int rmrContext() {
        return context;
    }
}
