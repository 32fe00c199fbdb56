// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.Dat;
import dat.api.DatHandleType;
import dat.api.DatLmr;
import dat.api.DatLmrParam;
import dat.api.DatPz;
import dat.api.DatReturnSubtype;
import dat.spi.ProviderHandle;
import java.lang.foreign.MemorySegment;

/**
 * Registered memory ({@code dat_lmr_create}). Its one context serves as lmr_context and rmr_context, random so a
 * peer cannot guess another region's. Every copy runs under {@link Fabric#LOCK}, so once {@code dat_lmr_free}
 * returns nothing reads or writes the region again.
 */
final class ExampleLmr extends ExampleHandle implements DatLmr {

    final ExamplePz pz;
    private final MemorySegment region;
    private final int privileges;
    private final int context;

    ExampleLmr(ExampleIa ia, ExamplePz pz, MemorySegment region, int privileges) {
        super(ia);
        this.pz = pz;
        this.region = region;
        this.privileges = privileges;
        this.context = Fabric.register(this);
    }

    /** {@return whether {@code [address, address + length)} lies in the region} */
    boolean covers(long address, long length) {
        return length >= 0 && address >= region.address()
                && address - region.address() <= region.byteSize() - length;
    }

    /** {@return whether every privilege bit asked for is granted} */
    boolean allows(int wanted) {
        return (privileges & wanted) == wanted;
    }

    /**
     * @param address a virtual address inside the region
     * @param length the bytes wanted, {@link #covers covered}
     * @return the bytes, or {@code null} when the consumer already closed the memory's arena
     */
    MemorySegment slice(long address, long length) {
        return region.scope().isAlive() ? region.asSlice(address - region.address(), length) : null;
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.LMR;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_LMR;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_LMR_IN_USE;
    }

    @Override
    protected String freeCall() {
        return "dat_lmr_free";
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz;
    }

    @Override
    protected void destroy() {
        Fabric.unregister(context);
        markClosed();
    }

    @Override
    public int lmrContext() {
        requireOpen("dat_lmr_query");
        return context;
    }

    @Override
    public int rmrContext() {
        requireOpen("dat_lmr_query");
        return context;
    }

    @Override
    public MemorySegment segment() {
        requireOpen("dat_lmr_query");
        return region;
    }

    @Override
    public long address() {
        requireOpen("dat_lmr_query");
        return region.address();
    }

    @Override
    public long length() {
        requireOpen("dat_lmr_query");
        return region.byteSize();
    }

    @Override
    public int privileges() {
        requireOpen("dat_lmr_query");
        return privileges;
    }

    @Override
    public DatPz pz() {
        requireOpen("dat_lmr_query");
        return pz;
    }

    @Override
    public DatLmrParam query() {
        requireOpen("dat_lmr_query");
        return new DatLmrParam(ia, Dat.DAT_MEM_TYPE_VIRTUAL, region, region.byteSize(), pz, privileges, context,
                context, region.byteSize(), region.address());
    }
}
