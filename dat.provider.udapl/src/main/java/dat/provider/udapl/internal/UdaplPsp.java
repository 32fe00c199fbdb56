// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.DatPspFlags;
import dat.spi.AbstractPsp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A public service point ({@code dat_psp_create}, {@code dat_psp_create_any}): the C PSP. Its connection requests
 * arrive on the CR EVD as C CRs, which {@link UdaplIa#cr} wraps.
 */
final class UdaplPsp extends AbstractPsp<UdaplIa, UdaplEvd> {

    /** The C handle. */
    final MemorySegment handle;
    private final long connQual;

    UdaplPsp(UdaplIa ia, boolean any, long connQual, UdaplEvd crEvd, DatPspFlags flags) {
        super(ia, crEvd, flags);
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ADDRESS);
            int c = flags == DatPspFlags.PROVIDER ? 1 : 0;
            if (any) {
                MemorySegment qual = local.allocate(JAVA_LONG);
                UdaplIa.check("dat_psp_create_any", ia.lib.pspCreateAny(ia.handle, qual, crEvd.handle, c, out));
                this.connQual = qual.get(JAVA_LONG, 0);
            } else {
                UdaplIa.check("dat_psp_create", ia.lib.pspCreate(ia.handle, connQual, crEvd.handle, c, out));
                this.connQual = connQual;
            }
            handle = UdaplIa.handleOut(out);
        }
    }

    @Override
    public long connQual() {
        return connQual;
    }

    /**
     * Under the IA's lock. OFA keeps a PSP with undecided requests until they are answered
     * ({@code dapl_psp_free}); the Java CRs stay usable and are answered through their own handles.
     */
    @Override
    protected void destroy() {
        markClosed();
        UdaplIa ia = owner();
        ia.sps.remove(handle.address(), this);
        ia.untrack(handle.address());
        ia.freed("dat_psp_free", ia.lib.pspFree(handle));
    }
}
