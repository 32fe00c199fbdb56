// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.api.Dat;
import dat.api.DatAsyncReason;
import dat.api.DatDtoStatus;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatSrqParam;
import dat.api.DatSrqState;
import dat.api.Iov;
import dat.provider.verbs.internal.ffm.IbvContextOps;
import dat.provider.verbs.internal.ffm.IbvOps;
import dat.provider.verbs.internal.ffm.IbvRecvWr;
import dat.provider.verbs.internal.ffm.IbvSge;
import dat.provider.verbs.internal.ffm.IbvSrqAttr;
import dat.provider.verbs.internal.ffm.IbvSrqInitAttr;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.spi.AbstractSrq;
import dat.spi.LmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A shared receive queue ({@code dat_srq_create}): an {@code ibv_srq}.
 *
 * <p><b>Counting.</b> A buffer is <em>outstanding</em> from its post until its completion is reaped from the EVD
 * (or, unposted, never); dat_srq_resize refuses to go below that count, so no buffer is ever lost. It is
 * <em>available</em> until its completion is taken from the CQ: a message the HCA has placed but nobody has polled
 * yet still counts, which is why {@code srq_info_supported} claims only the outstanding count.
 *
 * <p><b>Low watermark.</b> {@code IBV_SRQ_LIMIT}: the HCA raises {@code IBV_EVENT_SRQ_LIMIT_REACHED} once when the
 * number of posted receives drops below the limit, and disarms it; the progress thread turns that into
 * {@code DAT_ASYNC_EVENT_SRQ_LOW_WATERMARK} on the async EVD. A limit set while the SRQ is already below it fires at
 * once, as dat_srq_set_lw says: buffers the HCA filled are off the SRQ whether or not anybody polled them, so the
 * CQs of the SRQ's EPs are polled before the comparison (and again after arming, for a message that landed in
 * between); the HCA, armed after the fact, would never report them.
 *
 * <p><b>Resize.</b> Growing beyond the queue the HCA allocated uses {@code ibv_modify_srq(IBV_SRQ_MAX_WR)}; a device
 * that cannot resize answers {@code DAT_INSUFFICIENT_RESOURCES}. Shrinking only lowers the limit posts are checked
 * against: the HCA's queue stays as large as it was.
 */
final class VerbsSrq extends AbstractSrq<VerbsIa, VerbsPz> {

    final int index;
    /** The {@code struct ibv_srq *}. */
    final MemorySegment srq;
    private final VerbsIa ia;
    /** The shell's SRQ lock: it also guards the shell's size and low watermark, so resize checks them together. */
    private final ReentrantLock lock = srqLock();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment postFn;
    private final MemorySegment wr;
    private final MemorySegment sges;
    private final MemorySegment badWr;
    private final MemorySegment attr;
    /** Where posts read the consumer's triplets; used under {@link #lock}. */
    private final LmrTriplet triplet = new LmrTriplet();

    // Guarded by lock.
    private long[] cookies;
    private int[] free;
    private int freeCount;
    private int hardwareCapacity;
    private int available;
    private int outstanding;
    private boolean lowWatermarkArmed;
    /** {@code IBV_EVENT_SRQ_ERR} came ({@link #failed}). */
    private boolean inError;
    /** The CQs its EPs' receives complete on, once per EP: dat_srq_set_lw polls them before it compares. */
    private final CopyOnWriteArrayList<VerbsEvd> cqs = new CopyOnWriteArrayList<>();

    VerbsSrq(VerbsPz pz, int index, int maxRecvDtos, int maxRecvIov) {
        super(pz, maxRecvDtos, maxRecvIov);
        this.ia = pz.ia();
        this.index = index;
        try {
            MemorySegment init = arena.allocate(IbvSrqInitAttr.LAYOUT);
            IbvSrqInitAttr.srqContext(init, MemorySegment.ofAddress(index));
            IbvSrqInitAttr.attrMaxWr(init, maxRecvDtos);
            IbvSrqInitAttr.attrMaxSge(init, maxRecvIov);
            this.srq = ia.verbs.ibv_create_srq(pz.pd, init);
            // The HCA may round the queue up; it reports what it allocated.
            this.hardwareCapacity = Math.max(maxRecvDtos, IbvSrqInitAttr.attrMaxWr(init));
        } catch (NativeCallException e) {
            arena.close();
            throw VerbsIa.resources("dat_srq_create", e);
        }
        this.postFn = IbvOps.function(ia.context, IbvContextOps.POST_SRQ_RECV);
        this.wr = arena.allocate(IbvRecvWr.LAYOUT);
        this.sges = arena.allocate(IbvSge.LAYOUT, maxRecvIov);
        this.badWr = arena.allocate(ADDRESS);
        this.attr = arena.allocate(IbvSrqAttr.LAYOUT);
        IbvRecvWr.sgList(wr, sges);
        this.cookies = new long[maxRecvDtos];
        this.free = new int[maxRecvDtos];
        for (int i = 0; i < maxRecvDtos; i++) {
            free[i] = maxRecvDtos - 1 - i;
        }
        this.freeCount = maxRecvDtos;
    }

    /** The shell marked it closed under the SRQ lock: no post or resize reaches the queue destroyed here. */
    @Override
    protected void implDestroy() {
        ia.srqsByIndex.remove(index);
        ia.verbs.ibv_destroy_srq(srq);
        arena.close();
    }

    @Override
    public int postRecv(int numSegments, Iov localIov, long userCookie) {
        int check = checkPostRecv(numSegments, localIov);
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        lock.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            long total = WorkRequests.load(ia, pz(), numSegments, localIov, DatMemPriv.LOCAL_WRITE, sges, triplet);
            if (total < 0) {
                return (int) total;
            }
            if (outstanding >= maxRecvDtos()) {
                return DatReturn.DAT_INSUFFICIENT_RESOURCES;
            }
            int slot = free[freeCount - 1];
            cookies[slot] = userCookie;
            IbvRecvWr.wrId(wr, WorkRequests.id(WorkRequests.SRQ, index, slot));
            IbvRecvWr.numSge(wr, numSegments);
            int rc = IbvOps.post_srq_recv(postFn, srq, wr, badWr);
            if (rc != 0) {
                return VerbsEpData.postFailure(rc);
            }
            freeCount--;
            available++;
            outstanding++;
        } finally {
            lock.unlock();
        }
        return DatReturn.DAT_SUCCESS;
    }

    /**
     * A receive of this SRQ completed: writes its DTO event for {@code ep} into {@code slot}. Called by the EVD
     * that polled it.
     *
     * @return the release token (the buffer stays outstanding until the event is reaped)
     */
    long completed(long wrId, DatDtoStatus status, long byteLen, VerbsEp ep, VerbsEvd evd, DatEvent slot) {
        long cookie;
        lock.lock();
        try {
            int s = WorkRequests.sequence(wrId);
            cookie = cookies[s];
            free[freeCount++] = s;
            available--;
        } finally {
            lock.unlock();
        }
        slot.setDtoCompletion(evd, ep, cookie, status, status == DatDtoStatus.SUCCESS ? byteLen : 0);
        return wrId;
    }

    /** {@return how many receives the SRQ holds at most now, for sizing the CQs of EPs created on it} */
    int capacity() {
        lock.lock();
        try {
            return maxRecvDtos();
        } finally {
            lock.unlock();
        }
    }

    /** A completion of this SRQ's buffer was reaped: no longer outstanding. */
    void reaped() {
        lock.lock();
        try {
            outstanding--;
        } finally {
            lock.unlock();
        }
    }

    /** {@return posted buffers not yet reaped; caller holds the lock} */
    @Override
    protected int outstandingBuffers() {
        return outstanding;
    }

    /** Grows the HCA's queue beyond what it allocated; a shrink only lowers the limit posts are checked against. */
    @Override
    protected void implResize(int srqMaxRecvDto) {
        if (srqMaxRecvDto > hardwareCapacity) {
            IbvSrqAttr.maxWr(attr, srqMaxRecvDto);
            try {
                ia.verbs.ibv_modify_srq(srq, attr, LibIbverbs.IBV_SRQ_MAX_WR);
            } catch (NativeCallException e) {
                throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ,
                        "dat_srq_resize: the device could not grow the SRQ to " + srqMaxRecvDto + ": "
                                + e.getMessage(), e);
            }
            hardwareCapacity = srqMaxRecvDto;
        }
        if (srqMaxRecvDto > cookies.length) {
            int old = cookies.length;
            cookies = Arrays.copyOf(cookies, srqMaxRecvDto);
            free = Arrays.copyOf(free, srqMaxRecvDto);
            for (int i = old; i < srqMaxRecvDto; i++) {
                free[freeCount++] = i;
            }
        }
    }

    /** Before the SRQ lock: a translation of a completion holds its EVD's lock and then takes this one. */
    @Override
    protected void beforeSetLowWatermark() {
        takeCompletions();
    }

    @Override
    protected boolean implSetLowWatermark(int lowWatermarkValue) {
        boolean below = lowWatermarkValue > 0 && available < lowWatermarkValue;
        boolean arm = lowWatermarkValue > 0 && !below;
        // IBV_SRQ_LIMIT 0 disarms; otherwise the HCA reports the first drop below the limit, once.
        IbvSrqAttr.srqLimit(attr, arm ? lowWatermarkValue : 0);
        try {
            ia.verbs.ibv_modify_srq(srq, attr, LibIbverbs.IBV_SRQ_LIMIT);
        } catch (NativeCallException e) {
            throw new DatException(DatReturn.INTERNAL_ERROR, DatReturnSubtype.NO_SUBTYPE, "dat_srq_set_lw: "
                    + e.getMessage(), e);
        }
        lowWatermarkArmed = arm;
        return below;
    }

    /** A message may have taken a buffer between the first poll and the arming: poll again, then compare. */
    @Override
    protected boolean recheckLowWatermark() {
        takeCompletions();
        return belowWhileArmed();
    }

    @Override
    protected void lowWatermarkEvent() {
        ia.asyncEvd().postAsync(DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK, this,
                DatAsyncReason.SRQ_LOW_WATERMARK_EVENT);
    }

    /** Moves what the CQs of this SRQ's EPs hold into their EVDs, so the buffers they filled stop being available. */
    private void takeCompletions() {
        for (VerbsEvd cq : cqs) {
            cq.takeCompletions();
        }
    }

    /**
     * A message took a buffer between the first poll and the arming, so the HCA will not report it: the watermark
     * is below now, and fires here instead (disarmed, so the HCA's event, if it comes after all, is dropped).
     */
    private boolean belowWhileArmed() {
        lock.lock();
        try {
            if (!lowWatermarkArmed || available >= lowWatermark() || isClosed()) {
                return false;
            }
            lowWatermarkArmed = false;
            IbvSrqAttr.srqLimit(attr, 0);
            try {
                ia.verbs.ibv_modify_srq(srq, attr, LibIbverbs.IBV_SRQ_LIMIT);
            } catch (NativeCallException e) {
                // Disarming is best effort: limitReached sees lowWatermarkArmed false and drops a late event.
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** An EP on this SRQ completes its receives on {@code cq}. */
    void attachCq(VerbsEvd cq) {
        cqs.add(cq);
    }

    /** The EP that {@link #attachCq attached} {@code cq} is freed. */
    void detachCq(VerbsEvd cq) {
        cqs.remove(cq);
    }

    /**
     * The progress thread saw {@code IBV_EVENT_SRQ_ERR}: the HCA moved the SRQ to its error state, and flushes what
     * was posted. dat_srq_query reports {@code DAT_SRQ_STATE_ERROR} from now on, and the async EVD gets
     * {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR} naming the SRQ, reason {@code DAT_SRQ_TRANSFER_TO_ERROR}, once.
     * Posting stays valid ("for all states of the Shared Receive Queue"); the HCA flushes what is posted.
     */
    void failed() {
        boolean first;
        lock.lock();
        try {
            first = !inError && !isClosed();
            inError = true;
        } finally {
            lock.unlock();
        }
        if (first) {
            ia.asyncEvd().postAsync(DatEventType.ASYNC_ERROR_PROVIDER_INTERNAL_ERROR, this,
                    DatAsyncReason.SRQ_TRANSFER_TO_ERROR);
        }
    }

    /** The progress thread saw {@code IBV_EVENT_SRQ_LIMIT_REACHED}. */
    void limitReached() {
        boolean fire;
        lock.lock();
        try {
            // dat_srq_set_lw: one event per setting; low_watermark itself stays what the consumer set.
            fire = lowWatermarkArmed && !isClosed();
            lowWatermarkArmed = false;
        } finally {
            lock.unlock();
        }
        if (fire) {
            lowWatermarkEvent();
        }
    }

    @Override
    public DatSrqParam query() {
        requireOpen("dat_srq_query");
        lock.lock();
        try {
            DatSrqState state = inError ? DatSrqState.ERROR : DatSrqState.OPERATIONAL;
            return new DatSrqParam(ia, state, pz(), maxRecvDtos(), maxRecvIov(), lowWatermark(),
                    Dat.DAT_VALUE_UNKNOWN, outstanding);
        } finally {
            lock.unlock();
        }
    }
}
