// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatAsyncReason;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatSrqParam;
import dat.api.DatSrqState;
import dat.api.Iov;
import dat.spi.AbstractSrq;
import dat.spi.Rings;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A shared receive queue ({@code dat_srq_create}): a FIFO of posted receive buffers any connected EP on it
 * takes from when a message arrives.
 *
 * <p>Descriptors: every slot of {@link #fifo} always holds one, and so does every EP on the SRQ (its
 * exchange descriptor). A post validates straight into the free slot at the FIFO's tail. A delivery
 * ({@link #claim}) takes the descriptor at the head and leaves the EP's exchange descriptor in the slot; the
 * EP fills the taken one, completes it, and keeps it as its next exchange descriptor. So a claimed buffer
 * needs no return trip under the lock, and copies never run under the SRQ lock: EPs on one SRQ deliver in
 * parallel. An EP delivers one message at a time (its peer's send lock), so its exchange descriptor is free
 * whenever it claims. {@link #spare} takes the validation of a post that finds the SRQ full, so a bad IOV is
 * reported before {@code DAT_INSUFFICIENT_RESOURCES}.
 *
 * <p>Accounting: a buffer is <em>outstanding</em> from {@code dat_srq_post_recv} until its completion is
 * reaped from a recv EVD (or is never queued: suppressed, no recv EVD, EVD overflow). Outstanding is
 * {@link #posts} (counted under the lock) minus {@link #reaps} (counted by whichever thread reaps, with one
 * atomic add and no lock). Reaps only lower it, so a check made under the lock ({@code outstanding < max} for
 * a post, {@code max >= outstanding} for a resize) stays true until the lock is released.
 *
 * <p>Waking senders: a delivery whose claim finds the FIFO empty marks its EP {@code recvWanted} and the SRQ
 * {@link #starved}, both in that critical section. The next post sees {@code starved} under the lock, and after
 * releasing it runs the peer of every EP still marked: the lock orders the marks before the poster's look at
 * them, and a later successful claim clears an EP's mark in the same way. Posts that no sender waits for skip
 * the scan, which costs a look at every EP.
 */
final class LoopbackSrq extends AbstractSrq<LoopbackIa, LoopbackPz> implements Reaper {

    private static final VarHandle REAPS;

    static {
        try {
            REAPS = MethodHandles.lookup().findVarHandle(LoopbackSrq.class, "reaps", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ContextTable lmrContexts;
    /** Where a post under {@link #lock} reads its triplets ({@link Dto#load}). */
    private final long[] triplet = Dto.tripletScratch();
    /** The shell's SRQ lock: it also guards the shell's size and low watermark, so resize checks them together. */
    private final ReentrantLock lock = srqLock();

    // Guarded by lock. fifo's length is a power of two and at least the size; [head, head + queued) is posted.
    private Dto[] fifo;
    private int mask;
    private int head;
    private int queued;
    private final Dto spare;
    /** Buffers posted since creation. */
    private long posts;
    /** Whether the low-watermark event is still to come for the current setting (it fires once per setting). */
    private boolean lowWatermarkArmed;
    /** A claim found the FIFO empty since the last post: the next post runs the waiting senders. */
    private boolean starved;

    /** Completions of this SRQ's buffers reaped since creation; added to atomically, by any thread. */
    private volatile long reaps;

    /** EPs created on this SRQ; copy-on-write under the IA lifecycle lock, read without a lock. */
    private volatile LoopbackEp[] eps = new LoopbackEp[0];
    /** Where the next wake-up scan starts, so no EP is always served last; a hint, races are harmless. */
    private int rotation;

    LoopbackSrq(LoopbackPz pz, int maxRecvDtos, int maxRecvIov) {
        super(pz, maxRecvDtos, maxRecvIov);
        this.lmrContexts = pz.ia().lmrContexts;
        this.fifo = descriptors(new Dto[0], maxRecvDtos);
        this.mask = fifo.length - 1;
        this.spare = new Dto(maxRecvIov);
    }

    /**
     * @return a FIFO of at least {@code capacity} slots (a power of two) holding the descriptors of {@code from}
     *     in their slots, then new ones
     */
    private Dto[] descriptors(Dto[] from, int capacity) {
        Dto[] to = new Dto[Rings.size(capacity)];
        int n = Math.min(from.length, to.length);
        System.arraycopy(from, 0, to, 0, n);
        for (int i = n; i < to.length; i++) {
            to[i] = new Dto(maxRecvIov());
        }
        return to;
    }

    /** {@return a descriptor for a new EP on this SRQ: its first exchange descriptor} */
    Dto exchangeDescriptor() {
        return new Dto(maxRecvIov());
    }

    /** {@return posted buffers not yet reaped; caller holds the lock (the value can then only go down)} */
    @Override
    protected int outstandingBuffers() {
        return (int) (posts - (long) REAPS.getAcquire(this));
    }

    /** Adds an EP; caller holds the IA lifecycle lock. */
    void attach(LoopbackEp ep, String call) {
        LoopbackEp[] now = eps;
        int limit = owner().iaAttr().maxEpPerSrq();
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
        int check = checkPostRecv(numSegments, localIov);
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        boolean wake;
        lock.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            // queued <= outstanding < size <= fifo.length: with room, the tail slot holds a free descriptor.
            boolean room = outstandingBuffers() < maxRecvDtos();
            int tail = (head + queued) & mask;
            Dto d = room ? fifo[tail] : spare;
            int status = d.load(lmrContexts, pz(), numSegments, localIov, DatMemPriv.LOCAL_WRITE, triplet);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (!room) {
                return DatReturn.DAT_INSUFFICIENT_RESOURCES;
            }
            d.op = Dto.RECV;
            d.cookie = userCookie;
            d.flags = 0;
            d.srq = this;
            queued++;
            posts++;
            wake = starved;
            starved = false;
        } finally {
            lock.unlock();
        }
        if (wake) {
            wakeSenders();
        }
        return DatReturn.DAT_SUCCESS;
    }

    /**
     * Lets senders blocked on an empty SRQ deliver. It cannot miss one: a sender's failed claim marks its EP and
     * the SRQ in the claim's critical section, so either that claim saw this post's buffer or this post saw the
     * SRQ starved and, after the lock, sees the EP's mark.
     */
    private void wakeSenders() {
        LoopbackEp[] list = eps;
        int n = list.length;
        if (n == 0) {
            return;
        }
        int start = Math.floorMod(rotation++, n);
        for (int k = 0; k < n; k++) {
            LoopbackEp ep = list[(start + k) % n];
            if (ep.data.recvWanted) {
                LoopbackEp peer = ep.peer;
                if (peer != null) {
                    peer.data.drain();
                }
            }
        }
    }

    /**
     * Takes the oldest buffer for an arriving message (the EP then holds it), leaving the EP's exchange
     * descriptor in its slot, and fires the low watermark when the SRQ drops below it.
     *
     * @param ep the receiving EP's data path; called by its peer's delivery
     * @return the buffer, which becomes the EP's exchange descriptor; {@code null} when the SRQ is empty (the EP
     *     is then marked, and the next post runs its peer's queue)
     */
    Dto claim(LoopbackEpData ep) {
        Dto d;
        boolean fire;
        lock.lock();
        try {
            if (queued == 0 || isClosed()) {
                starved = true;
                ep.recvWanted = true;
                return null;
            }
            d = fifo[head];
            fifo[head] = ep.srqExchange();
            ep.srqClaimed(d);
            head = (head + 1) & mask;
            queued--;
            fire = lowWatermarkArmed && queued < lowWatermark();
            if (fire) {
                // dat_srq_set_lw: one event per setting; low_watermark itself stays what the consumer set.
                lowWatermarkArmed = false;
            }
        } finally {
            lock.unlock();
        }
        if (fire) {
            lowWatermarkEvent();
        }
        return d;
    }

    /** A completion of this SRQ's buffer was reaped (or will never be queued): no longer outstanding. */
    @Override
    public void reaped() {
        // Exact call site type (see LoopbackEpData#freeRequestSlot): a void one costs an asType adapter.
        long _ = (long) REAPS.getAndAdd(this, 1L);
    }

    /** Grows the FIFO when the new size needs more slots; a shrink only lowers the limit posts are checked against. */
    @Override
    protected void implResize(int srqMaxRecvDto) {
        if (srqMaxRecvDto > fifo.length) {
            // Posted buffers move to the front in order; the free descriptors follow, then new ones.
            Dto[] ordered = new Dto[fifo.length];
            for (int i = 0; i < fifo.length; i++) {
                ordered[i] = fifo[(head + i) & mask];
            }
            fifo = descriptors(ordered, srqMaxRecvDto);
            mask = fifo.length - 1;
            head = 0;
        }
    }

    @Override
    protected boolean implSetLowWatermark(int lowWatermarkValue) {
        boolean below = lowWatermarkValue > 0 && queued < lowWatermarkValue;
        lowWatermarkArmed = lowWatermarkValue > 0 && !below;
        return below;
    }

    @Override
    protected void lowWatermarkEvent() {
        owner().asyncEvd().postAsync(DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK, this,
                DatAsyncReason.SRQ_LOW_WATERMARK_EVENT);
    }

    @Override
    public DatSrqParam query() {
        requireOpen("dat_srq_query");
        lock.lock();
        try {
            return new DatSrqParam(owner(), DatSrqState.OPERATIONAL, pz(), maxRecvDtos(), maxRecvIov(), lowWatermark(),
                    queued, outstandingBuffers());
        } finally {
            lock.unlock();
        }
    }
}
