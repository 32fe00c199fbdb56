// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatSrq;
import dat.api.Iov;

/**
 * The shell of a shared receive queue ({@code dat_srq_create}, {@code dat_srq_free}): its PZ and IOV limit, the
 * checks that open {@code dat_srq_post_recv} ({@link #checkPostRecv}), {@code dat_srq_resize}'s argument checks and
 * {@code dat_srq_set_lw}'s open check.
 * The queue, its accounting and the low watermark are the provider's.
 *
 * @param <I> the provider's IA class
 * @param <P> its PZ class
 */
public abstract class AbstractSrq<I extends AbstractIa<I, ?, ?, ?, ?>, P extends AbstractPz<I>>
        extends AbstractHandle<I> implements DatSrq {

    private final P pz;
    private final int maxRecvIov;

    /**
     * Creates the shell's part of an SRQ ({@code dat_srq_create}).
     *
     * @param pz the PZ posted buffers must belong to
     * @param maxRecvIov the most segments a posted buffer may have
     */
    protected AbstractSrq(P pz, int maxRecvIov) {
        super(pz.owner());
        this.pz = pz;
        this.maxRecvIov = maxRecvIov;
    }

    @Override
    public final DatHandleType handleType() {
        return DatHandleType.SRQ;
    }

    @Override
    protected final DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_SRQ;
    }

    @Override
    protected final DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_SRQ_IN_USE;
    }

    @Override
    protected final String freeCall() {
        return "dat_srq_free";
    }

    /** Its PZ (the EPs on it depend on the SRQ, not the other way round). */
    @Override
    protected final boolean dependsOn(ProviderHandle other) {
        return other == pz;
    }

    /** {@return the PZ posted buffers must belong to} */
    public final P pz() {
        return pz;
    }

    /** {@return the most segments a posted buffer may have ({@code max_recv_iov})} */
    public final int maxRecvIov() {
        return maxRecvIov;
    }

    /**
     * The checks that open {@code dat_srq_post_recv}, before the provider's lock: allocation-free.
     *
     * @param numSegments the consumer's segment count
     * @param localIov the consumer's triplets
     * @return {@code DAT_SUCCESS}, {@code DAT_INVALID_HANDLE} when freed, {@code DAT_INVALID_PARAMETER}
     */
    protected final int checkPostRecv(int numSegments, Iov localIov) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        return DtoArgs.iov(numSegments, localIov, maxRecvIov);
    }

    /** {@code dat_srq_resize}: {@link DatArgs#srqResize}, then {@link #implResize}. */
    @Override
    public final void resize(int srqMaxRecvDto) {
        requireOpen("dat_srq_resize");
        DatArgs.srqResize(owner().iaAttr(), srqMaxRecvDto);
        implResize(srqMaxRecvDto);
    }

    /** {@code dat_srq_set_lw}: {@link #implSetLowWatermark}. */
    @Override
    public final void setLowWatermark(int lowWatermark) {
        requireOpen("dat_srq_set_lw");
        implSetLowWatermark(lowWatermark);
    }

    /**
     * Arms the low watermark, no lock held: takes the SRQ's lock, checks it is still open
     * ({@code requireOpen("dat_srq_set_lw")}) and the value against the SRQ's size ({@link DatArgs#srqLowWatermark}).
     * A value above the buffers on the SRQ now fires the event at once; 0 disarms.
     *
     * @param lowWatermark the new low watermark
     */
    protected abstract void implSetLowWatermark(int lowWatermark);

    /**
     * Resizes the SRQ, no lock held; the argument is checked. Takes the SRQ's lock, checks it is still open
     * ({@code requireOpen("dat_srq_resize")}) and refuses a size below its outstanding buffers or low watermark
     * ({@link DatArgs#srqResizeState}); the SRQ is unchanged on failure.
     *
     * @param srqMaxRecvDto the new size, within {@code 1..max_recv_per_srq}
     */
    protected abstract void implResize(int srqMaxRecvDto);
}
