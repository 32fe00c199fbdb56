// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatHandleType;
import dat.api.DatReturnSubtype;
import dat.api.DatRsp;
import dat.api.DatRspParam;

/**
 * The shell of a reserved service point ({@code dat_rsp_create}, {@code dat_rsp_query}, {@code dat_rsp_free}): its
 * qualifier, reserved EP and CR EVD, and the query. The provider takes the one connection request for the EP, and
 * in {@link #destroy()} stops listening, rejects a request not yet answered and gives the EP back.
 *
 * @param <I> the provider's IA class
 * @param <E> its EVD class
 * @param <T> its EP class
 */
public abstract class AbstractRsp<I extends AbstractIa<I, ?, ?, ?, ?>, E extends AbstractEvd<I>,
        T extends AbstractEp<I>> extends AbstractHandle<I> implements DatRsp {

    private final long connQual;
    private final T ep;
    private final E crEvd;

    /**
     * Creates the shell's part of an RSP ({@code dat_rsp_create}).
     *
     * @param ia the IA creating the RSP
     * @param connQual the qualifier it listens on
     * @param ep the EP it reserves
     * @param crEvd the EVD the connection request goes to
     */
    protected AbstractRsp(I ia, long connQual, T ep, E crEvd) {
        super(ia);
        this.connQual = connQual;
        this.ep = ep;
        this.crEvd = crEvd;
    }

    @Override
    public final DatHandleType handleType() {
        return DatHandleType.RSP;
    }

    @Override
    protected final DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_RSP;
    }

    @Override
    protected final DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    @Override
    protected final String freeCall() {
        return "dat_rsp_free";
    }

    /** The CR EVD always; the EP while it is still reserved for this RSP ({@link #reservesEp()}). */
    @Override
    protected final boolean dependsOn(ProviderHandle other) {
        return other == crEvd || (other == ep && reservesEp());
    }

    /** {@return whether the EP is still reserved for this RSP (no request answered yet)} */
    protected abstract boolean reservesEp();

    @Override
    public final long connQual() {
        return connQual;
    }

    /** {@return the EP this RSP reserves} */
    public final T ep() {
        return ep;
    }

    /** {@return the EVD the connection request goes to} */
    public final E crEvd() {
        return crEvd;
    }

    /** {@code dat_rsp_query}. */
    @Override
    public final DatRspParam query() {
        requireOpen("dat_rsp_query");
        return new DatRspParam(owner(), connQual, crEvd, ep);
    }
}
