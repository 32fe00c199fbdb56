// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.spi.AbstractPz;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A protection zone ({@code dat_pz_create}): the C PZ, freed with {@code dat_pz_free} under the IA's lock. */
final class UdaplPz extends AbstractPz<UdaplIa> {

    /** The C handle. */
    final MemorySegment handle;

    UdaplPz(UdaplIa ia) {
        super(ia);
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ADDRESS);
            UdaplIa.check("dat_pz_create", ia.lib.pzCreate(ia.handle, out));
            handle = UdaplIa.handleOut(out);
        }
        ia.track(handle.address(), this);
    }

    /** Under the IA's lock; the shell checked that no LMR or EP uses the zone. */
    @Override
    protected void destroy() {
        markClosed();
        UdaplIa ia = owner();
        ia.untrack(handle.address());
        ia.freed("dat_pz_free", ia.lib.pzFree(handle));
    }
}
