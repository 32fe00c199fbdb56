package dat.provider.verbs.internal;

import dat.api.DatHandleType;
import dat.api.DatPz;
import dat.api.DatPzParam;
import dat.api.DatReturnSubtype;
import dat.api.DatRmr;
import dat.provider.verbs.internal.ffm.NativeCallException;
import java.lang.foreign.MemorySegment;

/** A protection zone ({@code dat_pz_create}): an {@code ibv_pd}. */
final class VerbsPz extends VerbsHandle implements DatPz {

    private final VerbsIa ia;
    /** The {@code struct ibv_pd *}. */
    final MemorySegment pd;

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
    protected void destroy() {
        markClosed();
        ia.verbs.ibv_dealloc_pd(pd);
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

    /** {@code dat_rmr_create}: refused with {@code DAT_MODEL_NOT_SUPPORTED}, as {@code max_rmrs} 0 says. */
    @Override
    public DatRmr createRmr() {
        requireOpen("dat_rmr_create");
        return ia.createRmr(this);
    }
}
