// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.api.DatHandleType;
import dat.api.DatPz;
import dat.api.DatPzParam;
import dat.api.DatReturnSubtype;
import dat.api.DatRmr;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.NativeCallException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A protection zone ({@code dat_pz_create}): an {@code ibv_pd}. */
final class VerbsPz extends VerbsHandle implements DatPz {

    private final VerbsIa ia;
    /** The {@code struct ibv_pd *}. */
    final MemorySegment pd;
    /** A tiny region with bind rights that unbinds name (see {@link #windowAnchor}); guarded by this. */
    private Arena anchorArena;
    private MemorySegment anchorMr;

    VerbsPz(VerbsIa ia) {
        this.ia = ia;
        try {
            this.pd = ia.verbs.ibv_alloc_pd(ia.context);
        } catch (NativeCallException e) {
            throw VerbsIa.resources("dat_pz_create", e);
        }
    }

    @Override
    VerbsIa owner() {
        return ia;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_PZ;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_PZ_IN_USE;
    }

    @Override
    protected String freeCall() {
        return "dat_pz_free";
    }

    @Override
    protected synchronized void destroy() {
        markClosed();
        if (anchorMr != null) {
            ia.verbs.ibv_dereg_mr(anchorMr);
            anchorArena.close();
        }
        ia.verbs.ibv_dealloc_pd(pd);
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
                anchorMr = ia.verbs.ibv_reg_mr(pd, arena.allocate(64, 64), 64,
                        LibIbverbs.IBV_ACCESS_LOCAL_WRITE | LibIbverbs.IBV_ACCESS_MW_BIND);
            } catch (NativeCallException e) {
                arena.close();
                throw VerbsIa.resources("dat_rmr_create", e);
            }
            anchorArena = arena;
        }
        return anchorMr;
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.PZ;
    }

    @Override
    public VerbsIa ia() {
        return ia;
    }

    @Override
    public DatPzParam query() {
        requireOpen("dat_pz_query");
        return new DatPzParam(ia);
    }

    /** {@code dat_rmr_create}: a memory window, or {@code DAT_MODEL_NOT_SUPPORTED} where {@code max_rmrs} is 0. */
    @Override
    public DatRmr createRmr() {
        requireOpen("dat_rmr_create");
        return ia.createRmr(this);
    }
}
