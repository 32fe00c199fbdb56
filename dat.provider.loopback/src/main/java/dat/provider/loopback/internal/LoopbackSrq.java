package dat.provider.loopback.internal;

import dat.api.DatAsyncReason;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatSrq;
import dat.api.DatSrqParam;
import dat.api.DatSrqState;
import dat.api.Iov;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A shared receive queue ({@code dat_srq_create}): a FIFO of posted receive buffers any connected EP on it
 * takes from when a message arrives, plus a pool of preallocated descriptors.
 *
 * <p>Accounting (all under {@link #lock}): a buffer is <em>outstanding</em> from {@code dat_srq_post_recv}
 * until its completion is reaped from a recv EVD (or is never queued: suppressed, no recv EVD, EVD overflow).
 * {@code queued} buffers are on the SRQ. The pool holds one descriptor more than the queue size: a post
 * validates into a spare before it knows whether the queue is full.
 *
 * <p>A buffer is taken under the lock and filled after it is released ({@link #claim}, then
 * {@link #release}): copies never run under the SRQ lock, so EPs on one SRQ deliver in parallel.
 */
final class LoopbackSrq extends LoopbackHandle implements DatSrq, Reaper {

    final LoopbackPz pz;
    final int maxRecvIov;
    private final ReentrantLock lock = new ReentrantLock();

    // Guarded by lock.
    private Dto[] fifo;
    private int head;
    private int queued;
    private Dto[] free;
    private int freeCount;
    private Dto spare;
    private int allocated;
    private int max;
    private int outstanding;
    private int lowWatermark;
    /** Whether the low-watermark event is still to come for the current setting (it fires once per setting). */
    private boolean lowWatermarkArmed;

    /** EPs created on this SRQ; copy-on-write under the IA lifecycle lock, read without a lock. */
    private volatile LoopbackEp[] eps = new LoopbackEp[0];
    /** Where the next wake-up scan starts, so no EP is always served last; a hint, races are harmless. */
    private int rotation;

    LoopbackSrq(LoopbackPz pz, int maxRecvDtos, int maxRecvIov) {
        this.pz = pz;
        this.maxRecvIov = maxRecvIov;
        this.max = maxRecvDtos;
        this.fifo = new Dto[maxRecvDtos];
        this.free = new Dto[maxRecvDtos];
        for (int i = 0; i < maxRecvDtos; i++) {
            free[i] = new Dto(maxRecvIov);
        }
        this.freeCount = maxRecvDtos;
        this.allocated = maxRecvDtos;
        this.spare = new Dto(maxRecvIov);
    }

    @Override
    LoopbackIa owner() {
        return pz.ia();
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_SRQ;
    }

    @Override
    DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_SRQ_IN_USE;
    }

    @Override
    String freeCall() {
        return "dat_srq_free";
    }

    @Override
    boolean dependsOn(LoopbackHandle other) {
        return other == pz;
    }

    @Override
    void destroy() {
        lock.lock();
        try {
            markClosed();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.SRQ;
    }

    /** Adds an EP; caller holds the IA lifecycle lock. */
    void attach(LoopbackEp ep, String call) {
        LoopbackEp[] now = eps;
        int limit = owner().iaAttr.maxEpPerSrq();
        if (now.length >= limit) {
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ,
                    call + ": the SRQ already has max_ep_per_srq " + limit + " EPs");
        }
        LoopbackEp[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = ep;
        eps = next;
    }

    /** Removes an EP; caller holds the IA lifecycle lock. */
    void detach(LoopbackEp ep) {
        LoopbackEp[] now = eps;
        LoopbackEp[] next = new LoopbackEp[Math.max(0, now.length - 1)];
        int j = 0;
        for (LoopbackEp e : now) {
            if (e != ep && j < next.length) {
                next[j++] = e;
            }
        }
        eps = j == next.length ? next : Arrays.copyOf(next, j);
    }

    @Override
    public int postRecv(int numSegments, Iov localIov, long userCookie) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if (numSegments < 0 || numSegments > maxRecvIov
                || (numSegments > 0 && (localIov == null || numSegments > localIov.capacity()))) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        lock.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            Dto d = spare;
            int status = d.load(owner().lmrContexts, pz, numSegments, localIov, DatMemPriv.LOCAL_WRITE);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (outstanding >= max) {
                return DatReturn.DAT_INSUFFICIENT_RESOURCES;
            }
            d.op = Dto.RECV;
            d.cookie = userCookie;
            d.flags = 0;
            d.srq = this;
            fifo[(head + queued) % fifo.length] = d;
            queued++;
            outstanding++;
            // outstanding < max <= allocated before this post, so the pool still has a descriptor.
            spare = free[--freeCount];
            free[freeCount] = null;
        } finally {
            lock.unlock();
        }
        wakeSenders();
        return DatReturn.DAT_SUCCESS;
    }

    /**
     * Lets senders blocked on an empty SRQ deliver. The check of each peer's queue after publishing the
     * buffer cannot miss a sender: a sender counts its request before it takes the SRQ lock to claim, so
     * either it sees this buffer or this thread sees its count.
     */
    private void wakeSenders() {
        LoopbackEp[] list = eps;
        int n = list.length;
        if (n == 0) {
            return;
        }
        int start = Math.floorMod(rotation++, n);
        for (int k = 0; k < n; k++) {
            LoopbackEp peer = list[(start + k) % n].peer;
            if (peer != null && peer.hasPendingRequests()) {
                peer.drain();
            }
        }
    }

    /**
     * Takes the oldest buffer for an arriving message (the EP then holds it), and fires the low watermark
     * when the SRQ drops below it.
     *
     * @return the buffer, or {@code null} when the SRQ is empty
     */
    Dto claim() {
        Dto d;
        boolean fire;
        lock.lock();
        try {
            if (queued == 0 || isClosed()) {
                return null;
            }
            d = fifo[head];
            fifo[head] = null;
            head = (head + 1) % fifo.length;
            queued--;
            fire = lowWatermarkArmed && queued < lowWatermark;
            if (fire) {
                // dat_srq_set_lw: one event per setting; low_watermark itself stays what the consumer set.
                lowWatermarkArmed = false;
            }
        } finally {
            lock.unlock();
        }
        if (fire) {
            owner().async().postAsync(DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK, this,
                    DatAsyncReason.SRQ_LOW_WATERMARK_EVENT);
        }
        return d;
    }

    /** Returns a descriptor to the pool once its completion has been written; it stays outstanding. */
    void release(Dto d) {
        lock.lock();
        try {
            d.srq = null;
            free[freeCount++] = d;
        } finally {
            lock.unlock();
        }
    }

    /** A completion of this SRQ's buffer was reaped (or will never be queued): no longer outstanding. */
    @Override
    public void reaped() {
        lock.lock();
        try {
            outstanding--;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void resize(int srqMaxRecvDto) {
        String call = "dat_srq_resize";
        requireOpen(call);
        int limit = owner().iaAttr.maxRecvPerSrq();
        if (srqMaxRecvDto < 1) {
            throw LoopbackIa.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": srq_max_recv_dto "
                    + srqMaxRecvDto + " is below 1");
        }
        if (srqMaxRecvDto > limit) {
            // A size the IA cannot give is a resource limit, not a malformed argument (DatSrq#resize).
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_SRQ, call
                    + ": srq_max_recv_dto " + srqMaxRecvDto + " is above max_recv_per_srq " + limit);
        }
        lock.lock();
        try {
            requireOpen(call);
            // dat_srq_resize: never below the outstanding buffers (on the SRQ, held by EPs, or completed but
            // not reaped), so no buffer is ever lost; the SRQ is unchanged on failure.
            if (srqMaxRecvDto < outstanding) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
                        call + ": srq_max_recv_dto " + srqMaxRecvDto + " is below the " + outstanding
                                + " outstanding buffers");
            }
            if (srqMaxRecvDto < lowWatermark) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
                        call + ": srq_max_recv_dto " + srqMaxRecvDto + " is below the low watermark "
                                + lowWatermark);
            }
            if (srqMaxRecvDto > fifo.length) {
                Dto[] next = new Dto[srqMaxRecvDto];
                for (int i = 0; i < queued; i++) {
                    next[i] = fifo[(head + i) % fifo.length];
                }
                fifo = next;
                head = 0;
            }
            if (srqMaxRecvDto > allocated) {
                free = Arrays.copyOf(free, srqMaxRecvDto);
                for (int i = allocated; i < srqMaxRecvDto; i++) {
                    free[freeCount++] = new Dto(maxRecvIov);
                }
                allocated = srqMaxRecvDto;
            }
            // Shrinking keeps the arrays: only the limit posts are checked against moves.
            max = srqMaxRecvDto;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void setLowWatermark(int lowWatermarkValue) {
        String call = "dat_srq_set_lw";
        requireOpen(call);
        boolean fire;
        lock.lock();
        try {
            requireOpen(call);
            if (lowWatermarkValue < 0 || lowWatermarkValue > max) {
                throw LoopbackIa.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": low_watermark "
                        + lowWatermarkValue + " is outside 0..max_recv_dtos " + max);
            }
            fire = lowWatermarkValue > 0 && queued < lowWatermarkValue;
            lowWatermark = lowWatermarkValue;
            lowWatermarkArmed = lowWatermarkValue > 0 && !fire;
        } finally {
            lock.unlock();
        }
        if (fire) {
            owner().async().postAsync(DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK, this,
                    DatAsyncReason.SRQ_LOW_WATERMARK_EVENT);
        }
    }

    @Override
    public DatSrqParam query() {
        requireOpen("dat_srq_query");
        lock.lock();
        try {
            return new DatSrqParam(owner(), DatSrqState.OPERATIONAL, pz, max, maxRecvIov, lowWatermark, queued,
                    outstanding);
        } finally {
            lock.unlock();
        }
    }
}
