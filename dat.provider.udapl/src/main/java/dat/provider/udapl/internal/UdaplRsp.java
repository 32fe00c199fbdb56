// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.api.DatEpState;
import dat.spi.AbstractRsp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A reserved service point ({@code dat_rsp_create}): the C RSP, which reserves its EP in C. */
final class UdaplRsp extends AbstractRsp<UdaplIa, UdaplEvd, UdaplEp> {

    /** The C handle. */
    final MemorySegment handle;

    UdaplRsp(UdaplIa ia, long connQual, UdaplEp ep, UdaplEvd crEvd) {
        super(ia, connQual, ep, crEvd);
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ADDRESS);
            UdaplIa.check("dat_rsp_create", ia.lib.rspCreate(ia.handle, connQual, ep.handle, crEvd.handle, out));
            handle = UdaplIa.handleOut(out);
        }
    }

    /** The EP is reserved while C says so (a request accepted on it moves it on); IA lock held. */
    @Override
    protected boolean reservesEp() {
        UdaplEp ep = ep();
        if (ep.isClosed()) {
            return false;
        }
        DatEpState s = ep.stateLocked();
        return s == DatEpState.RESERVED || s == DatEpState.UNCONFIGURED_RESERVED;
    }

    @Override
    protected void destroy() {
        markClosed();
        UdaplIa ia = owner();
        ia.sps.remove(handle.address(), this);
        ia.untrack(handle.address());
        ia.freed("dat_rsp_free", ia.lib.rspFree(handle));
    }
}
