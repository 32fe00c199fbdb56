// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatHandleType;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPspParam;
import dat.api.DatReturnSubtype;

/**
 * The shell of a public service point ({@code dat_psp_create}, {@code dat_psp_create_any}, {@code dat_psp_query},
 * {@code dat_psp_free}): its CR EVD and flags, and the query. The provider listens on its qualifier, turns each
 * connection request into an event on {@link #crEvd()}, and stops listening in {@link #destroy()}.
 *
 * @param <I> the provider's IA class
 * @param <E> its EVD class
 */
public abstract class AbstractPsp<I extends AbstractIa<I, ?, ?, ?, ?>, E extends AbstractEvd<I>>
        extends AbstractHandle<I> implements DatPsp {

    private final E crEvd;
    private final DatPspFlags flags;

    /**
     * Creates the shell's part of a PSP ({@code dat_psp_create}).
     *
     * @param ia the IA creating the PSP
     * @param crEvd the EVD connection requests go to
     * @param flags the PSP flags
     */
    protected AbstractPsp(I ia, E crEvd, DatPspFlags flags) {
        super(ia);
        this.crEvd = crEvd;
        this.flags = flags;
    }

    @Override
    public final DatHandleType handleType() {
        return DatHandleType.PSP;
    }

    @Override
    protected final DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_PSP;
    }

    @Override
    protected final DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    @Override
    protected final String freeCall() {
        return "dat_psp_free";
    }

    /** Its CR EVD. */
    @Override
    protected final boolean dependsOn(ProviderHandle other) {
        return other == crEvd;
    }

    /** {@return the EVD connection requests go to} */
    public final E crEvd() {
        return crEvd;
    }

    /** {@code dat_psp_query}. */
    @Override
    public final DatPspParam query() {
        requireOpen("dat_psp_query");
        return new DatPspParam(owner(), connQual(), crEvd, flags);
    }
}
