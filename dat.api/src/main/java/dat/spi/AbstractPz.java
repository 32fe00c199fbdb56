// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatHandleType;
import dat.api.DatPz;
import dat.api.DatPzParam;
import dat.api.DatReturnSubtype;
import dat.api.DatRmr;

/**
 * The shell of a protection zone ({@code dat_pz_create}, {@code dat_pz_query}, {@code dat_pz_free}): DTOs may only
 * touch LMRs of their EP's (or SRQ's) PZ, which {@link DtoArgs#segment} checks. A PZ of a software provider needs
 * nothing more; a hardware provider adds its protection domain and releases it in {@link #destroy()}.
 *
 * @param <I> the provider's IA class
 */
public abstract class AbstractPz<I extends AbstractIa<I, ?, ?, ?, ?>> extends AbstractHandle<I> implements DatPz {

    /**
     * Creates the shell's part of a PZ ({@code dat_pz_create}).
     *
     * @param ia the IA creating the PZ
     */
    protected AbstractPz(I ia) {
        super(ia);
    }

    @Override
    public final DatHandleType handleType() {
        return DatHandleType.PZ;
    }

    @Override
    protected final DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_PZ;
    }

    @Override
    protected final DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_PZ_IN_USE;
    }

    @Override
    protected final String freeCall() {
        return "dat_pz_free";
    }

    /**
     * Releases the PZ, called once by the free protocol with the lifecycle lock held and no object left on the PZ.
     * The default marks it closed; an override calls {@link #markClosed()} first (see {@link
     * ProviderHandle#destroy()}).
     */
    @Override
    protected void destroy() {
        markClosed();
    }

    /** {@return the PZ's IA ({@code ia_handle} of {@code dat_pz_query})} */
    @Override
    public final I ia() {
        return owner();
    }

    /** {@code dat_pz_query}. */
    @Override
    public final DatPzParam query() {
        requireOpen("dat_pz_query");
        return new DatPzParam(owner());
    }

    /**
     * {@code dat_rmr_create}: {@code DAT_MODEL_NOT_SUPPORTED} where {@code max_rmrs} is 0, else the IA's
     * {@link AbstractIa#implCreateRmr} under its limits.
     */
    @Override
    public final DatRmr createRmr() {
        requireOpen("dat_rmr_create");
        return owner().createRmr(this);
    }
}
