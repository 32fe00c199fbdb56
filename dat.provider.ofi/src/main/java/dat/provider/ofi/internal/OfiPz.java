// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiException;
import dat.spi.AbstractPz;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * A protection zone ({@code dat_pz_create}): an {@code fi_domain} of its own. libfabric has no protection domain
 * below the domain, and a registration's key is valid in its whole domain (tcp looks an RMA's key up in the domain's
 * map, whatever endpoint it came through): with one domain per zone, an LMR is registered in its zone's domain and
 * an EP's endpoints are made in it, so a peer's RMA through an EP of one zone finds no key of another and fails as
 * a protection violation. The posts check the local side ({@code DtoArgs.segment}).
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiPz extends AbstractPz<OfiIa> {

    /** The zone's {@code fid_domain}. */
    final MemorySegment domain;
    /** rmr_context (the key) of each LMR of the zone. Guarded by the IA's lock. */
    final Map<Long, OfiLmr> keys = new HashMap<>();

    OfiPz(OfiIa ia) {
        super(ia);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            ia.fi.check("fi_domain", ia.fi.guarded(() -> Fi.fi_domain(ia.fabric, ia.info, out)));
            domain = out.get(ADDRESS, 0);
        } catch (FiException e) {
            throw OfiIa.resources("dat_pz_create", e);
        }
    }

    /** Under the lifecycle lock: no EP or LMR is left on the zone; the EVDs' CQs on its domain go before it. */
    @Override
    protected void destroy() {
        markClosed();
        OfiIa ia = ia();
        for (OfiEvd evd : ia.cqEvds) { // the orphan CQ's EVD among them
            evd.closeCqOn(domain);
        }
        Fi.fi_close(domain);
    }
}
