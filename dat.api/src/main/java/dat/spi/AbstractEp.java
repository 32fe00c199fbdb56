// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatCloseFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpRecvInfo;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;

/**
 * The shell of an endpoint ({@code dat_ep_create}, {@code dat_ep_create_with_srq}, {@code dat_ep_free}): the return
 * codes of its handle, and the checks that open {@code dat_ep_disconnect}, {@code dat_ep_modify},
 * {@code dat_ep_recv_query} and {@code dat_ep_set_watermark}. Everything else is the provider's: its data path
 * (posts stay in the provider's own final classes, where the JIT sees one receiver; a post declared here would be
 * one call site for every provider's EPs), its connection management and its state.
 *
 * <p><b>Why the lock stays the provider's.</b> {@link AbstractSrq} owns its object's lock and re-checks under it; an
 * EP cannot, because a state change is not one object's. Loopback's takes the fabric's connection lock, then the send
 * locks of both EPs of the connection (lower id first), then each receive lock; verbs' takes one lock per EP that its
 * connection and control halves share. A lock of the shell's per EP would be one more in loopback's order, taken
 * before the fabric's by the shell and after it by a peer's disconnect. So {@link #implDisconnect},
 * {@link #implModify} and the other hooks take the provider's locks and check {@code requireOpen} under them.
 *
 * @param <I> the provider's IA class
 */
public abstract class AbstractEp<I extends AbstractIa<I, ?, ?, ?, ?>> extends AbstractHandle<I> implements DatEp {

    private final boolean withSrq;

    /**
     * Creates the shell's part of an EP ({@code dat_ep_create}, {@code dat_ep_create_with_srq}).
     *
     * @param ia the IA creating the EP
     * @param withSrq whether the EP receives from an SRQ ({@code dat_ep_create_with_srq})
     */
    protected AbstractEp(I ia, boolean withSrq) {
        super(ia);
        this.withSrq = withSrq;
    }

    @Override
    public final DatHandleType handleType() {
        return DatHandleType.EP;
    }

    @Override
    protected final DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_EP;
    }

    /** {@return {@code INVALID_STATE_EP_RESERVED}: what keeps an EP from being freed is the RSP reserving it} */
    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_EP_RESERVED;
    }

    @Override
    protected final String freeCall() {
        return "dat_ep_free";
    }

    /** {@code dat_ep_disconnect}: the flags must be given, then {@link #implDisconnect}. */
    @Override
    public final void disconnect(DatCloseFlags flags) {
        String call = "dat_ep_disconnect";
        requireOpen(call);
        if (flags == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": disconnect_flags is null");
        }
        implDisconnect(flags);
    }

    /**
     * Disconnects, no lock held: takes the EP's locks, checks it is still open, and ends or abandons the connection
     * as DAT says for its state (GRACEFUL lets queued requests finish, ABRUPT flushes them).
     *
     * @param flags GRACEFUL or ABRUPT
     */
    protected abstract void implDisconnect(DatCloseFlags flags);

    /**
     * {@code dat_ep_modify}: the attributes checked as at create ({@link AbstractIa#checkEpAttr}), then
     * {@link #implModify}.
     */
    @Override
    public final void modify(DatEpAttr newAttr) {
        String call = "dat_ep_modify";
        requireOpen(call);
        if (newAttr == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG3, call + ": ep_attr is null");
        }
        owner().checkEpAttr(call, newAttr, withSrq);
        implModify(newAttr);
    }

    /**
     * Applies {@code dat_ep_modify}, no lock held; the attributes are within the IA's limits. Takes the EP's locks,
     * checks it is still open, and refuses in a state other than UNCONNECTED (or TENTATIVE_CONNECTION_PENDING) and
     * what the EP's queues cannot take.
     *
     * @param newAttr the new attributes
     */
    protected abstract void implModify(DatEpAttr newAttr);

    /** {@code dat_ep_recv_query}: {@link DatArgs#recvQueryWhich}, then {@link #implRecvQuery}. */
    @Override
    public final DatEpRecvInfo recvQuery(int which) {
        requireOpen("dat_ep_recv_query");
        DatArgs.recvQueryWhich(which);
        return implRecvQuery(which);
    }

    /**
     * Counts the EP's receive buffers for {@code dat_ep_recv_query}; {@code which} is valid. The default is
     * {@code DAT_MODEL_NOT_SUPPORTED}, as {@code ep_recv_info_supported} 0 says.
     *
     * @param which the counts asked for
     * @return the counts, {@code DAT_VALUE_UNKNOWN} for one not asked for
     */
    protected DatEpRecvInfo implRecvQuery(int which) {
        throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, "dat_ep_recv_query: ep_recv_info_supported is 0;"
                + " provider " + owner().providerAttr().providerName() + " counts no receive buffers");
    }

    /** {@code dat_ep_set_watermark}: {@link #implSetWatermark}. */
    @Override
    public final void setWatermark(int softHighWatermark, int hardHighWatermark) {
        requireOpen("dat_ep_set_watermark");
        implSetWatermark(softHighWatermark, hardHighWatermark);
    }

    /**
     * Sets the EP's SRQ high watermarks. The default is {@code DAT_MODEL_NOT_SUPPORTED}: a provider whose
     * {@code srq_watermarks_supported} has SOFT_HIGH or HARD_HIGH overrides it.
     *
     * @param softHighWatermark the soft high watermark
     * @param hardHighWatermark the hard high watermark
     */
    protected void implSetWatermark(int softHighWatermark, int hardHighWatermark) {
        throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, "dat_ep_set_watermark: EP high watermarks are not"
                + " supported (srq_watermarks_supported has neither SOFT_HIGH nor HARD_HIGH)");
    }
}
