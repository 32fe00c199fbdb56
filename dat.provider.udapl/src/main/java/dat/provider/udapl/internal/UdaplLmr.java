// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dat.provider.udapl.internal.ffm.CStruct;
import dat.provider.udapl.internal.ffm.DatStructs;
import dat.provider.udapl.internal.ffm.LibDat2;
import dat.spi.AbstractLmr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Registered memory ({@code dat_lmr_create} of {@code DAT_MEM_TYPE_VIRTUAL}) over a Java {@link MemorySegment}: the
 * shell checked the segment native, alive and within {@code max_lmr_block_size}; the C provider registers its address
 * and length and chooses both contexts.
 */
final class UdaplLmr extends AbstractLmr<UdaplIa, UdaplPz> {

    /** The C handle. */
    final MemorySegment handle;
    private final int lmrContext;
    private final int rmrContext;

    UdaplLmr(UdaplPz pz, MemorySegment region, int privileges) {
        super(pz, region, privileges);
        UdaplIa ia = pz.owner();
        try (Arena local = Arena.ofConfined()) {
            MemorySegment desc = local.allocate(LibDat2.REGION_BY_VALUE);
            desc.set(ValueLayout.JAVA_LONG, CStruct.offset(LibDat2.REGION_BY_VALUE, "for_va"), region.address());
            MemorySegment out = local.allocate(ADDRESS);
            MemorySegment lmrCtx = local.allocate(JAVA_INT);
            MemorySegment rmrCtx = local.allocate(JAVA_INT);
            MemorySegment regLen = local.allocate(ValueLayout.JAVA_LONG);
            MemorySegment regAddr = local.allocate(ValueLayout.JAVA_LONG);
            UdaplIa.check("dat_lmr_create", ia.lib.lmrCreate(ia.handle, DatStructs.DAT_MEM_TYPE_VIRTUAL, desc,
                    region.byteSize(), pz.handle, privileges, DatStructs.DAT_VA_TYPE_VA, out, lmrCtx, rmrCtx, regLen,
                    regAddr));
            handle = UdaplIa.handleOut(out);
            lmrContext = lmrCtx.get(JAVA_INT, 0);
            rmrContext = rmrCtx.get(JAVA_INT, 0);
        }
    }

    /** Under the IA's lock: the context stops resolving before C deregisters. */
    @Override
    protected void destroy() {
        markClosed();
        UdaplIa ia = owner();
        ia.lmrs.remove(lmrContext, this);
        ia.untrack(handle.address());
        ia.freed("dat_lmr_free", ia.lib.lmrFree(handle));
    }

    @Override
    public int lmrContext() {
        return lmrContext;
    }

    @Override
    public int rmrContext() {
        return rmrContext;
    }
}
