// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.spi.AbstractPz;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A protection zone ({@code dat_pz_create}): an {@code ibv_pd}. */
final class VerbsPz extends AbstractPz<VerbsIa> {

    /** The {@code struct ibv_pd *}. */
    final MemorySegment pd;
    /** A tiny region with bind rights that unbinds name (see {@link #windowAnchor}); guarded by this. */
    private Arena anchorArena;
    private MemorySegment anchorMr;

    VerbsPz(VerbsIa ia) {
        super(ia);
        try {
            this.pd = ia.verbs.ibv_alloc_pd(ia.context);
        } catch (NativeCallException e) {
            throw VerbsIa.resources("dat_pz_create", e);
        }
    }

    @Override
    protected synchronized void destroy() {
        markClosed();
        if (anchorMr != null) {
            owner().verbs.ibv_dereg_mr(anchorMr);
            anchorArena.close();
        }
        owner().verbs.ibv_dealloc_pd(pd);
    }

    /**
     * The region an unbind names: {@code ibv_bind_mw} with length 0 needs no region, but providers (rxe) read the
     * region's lkey regardless, and an RMR's last LMR may have been freed since. Registered with the PZ's first
     * RMR, so a bind never has to register anything.
     *
     * @return the {@code struct ibv_mr *} of 64 bytes of this PD with {@code IBV_ACCESS_MW_BIND}
     */
    @SuppressWarnings("MustBeClosedChecker") // the arena belongs to the PZ: destroy() closes it with the MR
    synchronized MemorySegment windowAnchor() {
        if (anchorMr == null) {
            Arena arena = Arena.ofShared();
            try {
                anchorMr = owner().verbs.ibv_reg_mr(pd, arena.allocate(64, 64), 64,
                        LibIbverbs.IBV_ACCESS_LOCAL_WRITE | LibIbverbs.IBV_ACCESS_MW_BIND);
            } catch (NativeCallException e) {
                arena.close();
                throw VerbsIa.resources("dat_rmr_create", e);
            }
            anchorArena = arena;
        }
        return anchorMr;
    }
}
