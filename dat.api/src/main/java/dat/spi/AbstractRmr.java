// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatHandleType;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatRmr;

/**
 * The shell of a remote memory region ({@code dat_rmr_create}, {@code dat_rmr_free}): its PZ, and the argument checks
 * of {@code dat_rmr_bind} every provider makes in the same order ({@link #checkBind}). The bind itself is posted on
 * an EP's request queue, which is the provider's data path: its {@code bind} and {@code unbind} check the handles
 * ({@link #sibling}) and hand the post to the EP.
 *
 * <p>Duties the shell cannot check for you (the kit does): the {@code rmr_context} of each bind is unguessable (a
 * cryptographic generator or a keyed PRF, as an LMR's); a rebind, an unbind, {@code dat_rmr_free} and the end of the
 * bound EP's connection each retire the context the window had, so RDMA through an old context is refused and moves
 * no byte; a bind never grants a remote privilege the LMR was not registered with ({@code
 * DAT_PRIVILEGES_VIOLATION}).
 *
 * @param <I> the provider's IA class
 * @param <P> its PZ class
 */
public abstract class AbstractRmr<I extends AbstractIa<I, ?, ?, ?, ?>, P extends AbstractPz<I>>
        extends AbstractHandle<I> implements DatRmr {

    private static final int REMOTE_PRIVILEGES = DatMemPriv.REMOTE_READ | DatMemPriv.REMOTE_WRITE;

    private final P pz;

    /**
     * Creates the shell's part of an RMR ({@code dat_rmr_create}).
     *
     * @param pz the PZ the RMR belongs to
     */
    protected AbstractRmr(P pz) {
        super(pz.owner());
        this.pz = pz;
    }

    @Override
    public final DatHandleType handleType() {
        return DatHandleType.RMR;
    }

    @Override
    protected final DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_RMR;
    }

    @Override
    protected final DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    @Override
    protected final String freeCall() {
        return "dat_rmr_free";
    }

    /** Its PZ; a provider whose windows stay tied to LMRs after a bind adds those. */
    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz;
    }

    @Override
    public final P pz() {
        return pz;
    }

    /**
     * The {@code dat_rmr_bind} page's checks of the window against its LMR and the posting EP, made at post time after
     * the EP's own (state, request EVD, completion flags), in this order: a window outside the LMR or privileges that
     * are not a non-empty set of remote ones {@code DAT_INVALID_PARAMETER}, a privilege the LMR lacks
     * {@code DAT_PRIVILEGES_VIOLATION}, an LMR or an EP of another PZ {@code DAT_PROTECTION_VIOLATION}. Data path:
     * no exception, no allocation.
     *
     * @param lmr the LMR of a bind, or {@code null} for an unbind (only the PZs count then)
     * @param offset the window's offset in the LMR
     * @param length the window's length
     * @param privileges the remote privileges asked for
     * @param epPz the PZ of the EP the bind is posted on
     * @return {@code DAT_SUCCESS}, or the return value of the post
     */
    public final int checkBind(AbstractLmr<I, P> lmr, long offset, long length, int privileges, P epPz) {
        if (lmr != null) {
            if (privileges == 0 || (privileges & ~REMOTE_PRIVILEGES) != 0 || offset < 0
                    || !lmr.contains(lmr.address() + offset, length)) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            if ((lmr.privileges() & privileges) != privileges) {
                return DatReturn.DAT_PRIVILEGES_VIOLATION;
            }
            if (lmr.pz() != pz) {
                return DatReturn.DAT_PROTECTION_VIOLATION;
            }
        }
        return pz != epPz ? DatReturn.DAT_PROTECTION_VIOLATION : DatReturn.DAT_SUCCESS;
    }
}
