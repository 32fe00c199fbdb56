// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatSrq;
import dat.api.Iov;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The shell of a shared receive queue ({@code dat_srq_create}, {@code dat_srq_free}): its PZ and IOV limit, its size
 * and low watermark, the lock that guards them, the checks that open {@code dat_srq_post_recv}
 * ({@link #checkPostRecv}), and the whole protocol of {@code dat_srq_resize}, {@code dat_srq_set_lw} and the free.
 * The queue and its accounting are the provider's.
 *
 * <p><b>The lock.</b> The SRQ has one lock, {@link #srqLock()}, owned here as
 * {@code AbstractSelectableChannel.configureBlocking} owns its channel's: the provider guards its queue with the same
 * lock, and the shell takes it around what must not interleave. {@link #resize} and {@link #setLowWatermark} check the
 * arguments, run the provider's hook before the lock ({@link #beforeResize}, {@link #beforeSetLowWatermark}: where a
 * provider's lock order puts another lock before this one), take the lock, check again that the SRQ is open and that
 * the new value fits its state ({@code dat_srq_resize}: not below the outstanding buffers nor the low watermark;
 * {@code dat_srq_set_lw}: not above the size), and only then call {@link #implResize} or
 * {@link #implSetLowWatermark}, under the lock. The free ({@link #destroy}) marks the SRQ closed under the same lock
 * before {@link #implDestroy} releases anything. So a provider's hook never runs on a freed SRQ, however it is written:
 * a resize racing a free either finishes first or answers {@code DAT_INVALID_HANDLE}, a race no rule of the kit could
 * catch reliably if each provider had to get it right alone.
 *
 * @param <I> the provider's IA class
 * @param <P> its PZ class
 */
public abstract class AbstractSrq<I extends AbstractIa<I, ?, ?, ?, ?>, P extends AbstractPz<I>>
        extends AbstractHandle<I> implements DatSrq {

    private final P pz;
    private final int maxRecvIov;
    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock.
    private int maxRecvDtos;
    private int lowWatermark;

    /**
     * Creates the shell's part of an SRQ ({@code dat_srq_create}); its low watermark is {@code DAT_SRQ_LW_DEFAULT}.
     *
     * @param pz the PZ posted buffers must belong to
     * @param maxRecvDtos the size of the queue ({@code max_recv_dtos})
     * @param maxRecvIov the most segments a posted buffer may have
     */
    protected AbstractSrq(P pz, int maxRecvDtos, int maxRecvIov) {
        super(pz.owner());
        this.pz = pz;
        this.maxRecvDtos = maxRecvDtos;
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
     * {@return the SRQ's lock} The provider guards its queue and accounting with it (posts, deliveries, reaps it
     * counts under a lock, query); the shell holds it while it runs {@link #implResize}, {@link #implSetLowWatermark}
     * and marks the SRQ closed.
     */
    protected final ReentrantLock srqLock() {
        return lock;
    }

    /** {@return the size of the queue ({@code max_recv_dtos}); read with {@link #srqLock()} held} */
    protected final int maxRecvDtos() {
        return maxRecvDtos;
    }

    /** {@return the low watermark the consumer set, 0 when none; read with {@link #srqLock()} held} */
    protected final int lowWatermark() {
        return lowWatermark;
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

    /**
     * {@code dat_srq_resize}: {@link DatArgs#srqResize}, {@link #beforeResize}, then under {@link #srqLock()} the SRQ
     * still open and {@link DatArgs#srqResizeState} against {@link #outstandingBuffers} and the low watermark, then
     * {@link #implResize}; the new size holds once it returns.
     */
    @Override
    public final void resize(int srqMaxRecvDto) {
        String call = "dat_srq_resize";
        requireOpen(call);
        DatArgs.srqResize(owner().iaAttr(), srqMaxRecvDto);
        beforeResize();
        lock.lock();
        try {
            // A free may have run since the first look: only under the lock is "open" still true when the hook runs.
            requireOpen(call);
            // dat_srq_resize: never below the outstanding buffers (on the SRQ, held by EPs, or completed but not
            // reaped), so no buffer is lost, nor below the low watermark; the SRQ is unchanged on failure.
            DatArgs.srqResizeState(srqMaxRecvDto, outstandingBuffers(), lowWatermark);
            implResize(srqMaxRecvDto);
            maxRecvDtos = srqMaxRecvDto;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code dat_srq_set_lw}: {@link #beforeSetLowWatermark}, then under {@link #srqLock()} the SRQ still open,
     * {@link DatArgs#srqLowWatermark} against its size and {@link #implSetLowWatermark}; after the lock,
     * {@link #lowWatermarkEvent} when the SRQ is below the new watermark already (or, by {@link #recheckLowWatermark},
     * went below it while the watermark was armed).
     */
    @Override
    public final void setLowWatermark(int lowWatermark) {
        String call = "dat_srq_set_lw";
        requireOpen(call);
        beforeSetLowWatermark();
        boolean below;
        lock.lock();
        try {
            requireOpen(call);
            DatArgs.srqLowWatermark(lowWatermark, maxRecvDtos);
            below = implSetLowWatermark(lowWatermark);
            this.lowWatermark = lowWatermark;
        } finally {
            lock.unlock();
        }
        // The event goes to the async EVD without the SRQ lock: its queue takes locks of its own.
        if (below || recheckLowWatermark()) {
            lowWatermarkEvent();
        }
    }

    /**
     * Marks the SRQ closed under {@link #srqLock()}, so no resize or low-watermark hook runs from then on and every
     * call answers {@code DAT_INVALID_HANDLE}, then releases it ({@link #implDestroy}).
     */
    @Override
    protected final void destroy() {
        lock.lock();
        try {
            markClosed();
        } finally {
            lock.unlock();
        }
        implDestroy();
    }

    /**
     * Releases what the SRQ holds (a hardware queue, native memory); called once, closed already, with the IA's
     * lifecycle lock held and not the SRQ's. The default releases nothing.
     */
    protected void implDestroy() {
    }

    /**
     * {@return the buffers outstanding: posted and not yet reaped (on the SRQ, held by an EP, or completed but still
     * on a recv EVD)} Called with {@link #srqLock()} held; the count may only go down until it is released.
     */
    protected abstract int outstandingBuffers();

    /**
     * Runs at the start of {@code dat_srq_resize}, before {@link #srqLock()} is taken: the place for a provider
     * whose lock order takes another lock before the SRQ's. The default does nothing.
     */
    protected void beforeResize() {
    }

    /**
     * Runs at the start of {@code dat_srq_set_lw}, before {@link #srqLock()} is taken: the place for a provider
     * whose lock order takes another lock before the SRQ's (verbs moves what its CQs hold into their EVDs, taking
     * each EVD's lock and then this one). The default does nothing.
     */
    protected void beforeSetLowWatermark() {
    }

    /**
     * Arms the low watermark, with {@link #srqLock()} held; the SRQ is open and the value is within
     * {@code 0..max_recv_dtos}. 0 disarms; otherwise the event comes once, at the first drop below it. The shell
     * records the value ({@link #lowWatermark()}) once this returns.
     *
     * @param lowWatermark the new low watermark
     * @return whether the SRQ holds fewer buffers than {@code lowWatermark} already, so the event is due now (the
     *     shell then calls {@link #lowWatermarkEvent} after the lock); the watermark is then left disarmed
     */
    protected abstract boolean implSetLowWatermark(int lowWatermark);

    /**
     * After {@link #implSetLowWatermark} found the SRQ above the watermark, a second look without the lock, for a
     * provider whose count lags what the hardware took (verbs polls its CQs again). The default finds nothing.
     *
     * @return whether the watermark was crossed while armed and this call disarmed it, so the event is due now
     */
    protected boolean recheckLowWatermark() {
        return false;
    }

    /**
     * Posts {@code DAT_ASYNC_EVENT_SRQ_LOW_WATERMARK} naming this SRQ on the IA's async EVD; no lock held. The shell
     * calls it for {@code dat_srq_set_lw}; the provider too, when a delivery takes the SRQ below an armed watermark.
     */
    protected abstract void lowWatermarkEvent();

    /**
     * Resizes the SRQ, with {@link #srqLock()} held; the SRQ is open and the size is within {@code 1..max_recv_per_srq}
     * and not below the outstanding buffers or the low watermark. The shell records the size ({@link #maxRecvDtos()})
     * once this returns; a hook that throws leaves the SRQ unchanged.
     *
     * @param srqMaxRecvDto the new size
     */
    protected abstract void implResize(int srqMaxRecvDto);
}
