// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.Dat;
import dat.api.DatAsyncReason;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatSrqParam;
import dat.api.DatSrqState;
import dat.api.Iov;
import dat.spi.AbstractSrq;
import dat.spi.DtoArgs;
import dat.spi.LmrTriplet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A shared receive queue ({@code dat_srq_create}) kept by the provider: a pool of the consumer's buffers, each lent
 * to an EP on the SRQ when that EP's peer has a message for it, and posted then as one of that EP's own receives.
 *
 * <p><b>Why lent, not shared in the fabric.</b> Every fabric the SRQ runs on here has no hardware RNR: a message with
 * no receive waiting stops tcp's connection (its FIN and the acknowledgements of the other direction's RDMA writes
 * wait behind it), and shm keeps it as unexpected, to fill a receive posted after its sender's abrupt end flushed it.
 * So no message goes to any connection without a receive for it (OfiCredit), and an SRQ's buffers, counted by no
 * connection, would stall or outlive their senders. A lent buffer is counted by its connection like any receive: the
 * peer's sender, held for credit, writes how many sends it wants (OfiCredit#writeWant), the EP's progress lends that
 * many buffers as the pool has ({@link OfiEpData#lend}), and the advert lets the sends go. A buffer goes to a
 * connection only for a message its peer holds, as an RC queue pair's SRQ gives one to the message that arrives; a
 * sender that ends before sending leaves its buffers to come back ({@link #returned}). shm 1.17 offers no shared
 * receive context anyway ({@code max_ep_srx_ctx} 0), and tcp's left the SRQ stall of the campaign.
 *
 * <p><b>Counting.</b> A buffer is <em>available</em> from its post until a message fills it (pooled or lent), and
 * <em>outstanding</em> until its completion is reaped from the EVD (or, without EVD, at once): {@code
 * srq_info_supported} claims the outstanding count, and the low watermark compares the available count at each
 * completion. The order the pool lends in is its posting order; DAT promises none across connections.
 *
 * <p><b>Low watermark and resize.</b> libfabric has neither: the event comes once per setting when a completion takes
 * the available count below the watermark, or at {@code dat_srq_set_lw} when it is below already (after a progress
 * step moved what the CQs hold). A resize changes the limit posts are checked against and the slot arrays.
 *
 * <p><b>Locks.</b> The IA's lock, then the SRQ's ({@link #srqLock()}): a post and a lend take both (the LMR table and
 * the EPs are the IA's), the shell's resize and free take the SRQ's alone.
 */
final class OfiSrq extends AbstractSrq<OfiIa, OfiPz> {

    private static final byte FREE = 0;
    /** Posted, in the pool. */
    private static final byte POOLED = 1;
    /** Posted, lent to an EP. */
    private static final byte LENT = 2;

    private final OfiIa ia;
    private final ReentrantLock lock = srqLock();
    /** Names the SRQ (the IA's count of SRQs made). */
    final int key;
    private final LmrTriplet triplet = new LmrTriplet();
    private final int maxIov;

    // Guarded by lock.
    private byte[] state;
    /** A lent buffer whose region was freed: it is dropped, not pooled, when it comes back. */
    private boolean[] doomed;
    private long[] cookie;
    private int[] segments;
    private long[] address;
    private long[] length;
    private OfiLmr[] lmr;
    private OfiEp[] holder;
    private int[] free;
    private int freeCount;
    /** The pooled slots, oldest first: a ring of {@link #pooledCount} from {@link #pooledHead}. */
    private int[] pooled;
    private int pooledHead;
    private int pooledCount;
    /** Posted and not yet filled by a message (pooled or lent). */
    private int available;
    /** Posted and not yet reaped. */
    private int outstanding;
    private boolean lowWatermarkArmed;

    /** The EPs created on this SRQ; under the IA's lock. */
    final List<OfiEp> eps = new ArrayList<>();

    OfiSrq(OfiPz pz, int maxRecvDtos, int maxRecvIov, int key) {
        super(pz, maxRecvDtos, maxRecvIov);
        this.ia = pz.ia();
        this.key = key;
        this.maxIov = Math.max(1, maxRecvIov);
        grow(maxRecvDtos);
    }

    /** {@return the most segments a buffer of this SRQ has} */
    int maxIov() {
        return maxIov;
    }

    private void grow(int capacity) {
        int old = state == null ? 0 : state.length;
        if (capacity <= old) {
            return;
        }
        state = state == null ? new byte[capacity] : Arrays.copyOf(state, capacity);
        doomed = doomed == null ? new boolean[capacity] : Arrays.copyOf(doomed, capacity);
        cookie = cookie == null ? new long[capacity] : Arrays.copyOf(cookie, capacity);
        segments = segments == null ? new int[capacity] : Arrays.copyOf(segments, capacity);
        holder = holder == null ? new OfiEp[capacity] : Arrays.copyOf(holder, capacity);
        address = address == null ? new long[capacity * maxIov] : Arrays.copyOf(address, capacity * maxIov);
        length = length == null ? new long[capacity * maxIov] : Arrays.copyOf(length, capacity * maxIov);
        lmr = lmr == null ? new OfiLmr[capacity * maxIov] : Arrays.copyOf(lmr, capacity * maxIov);
        int[] f = new int[capacity];
        if (free != null) {
            System.arraycopy(free, 0, f, 0, freeCount);
        }
        free = f;
        for (int i = capacity - 1; i >= old; i--) {
            free[freeCount++] = i;
        }
        int[] ring = new int[capacity];
        for (int i = 0; i < pooledCount; i++) {
            ring[i] = pooled[(pooledHead + i) % pooled.length];
        }
        pooled = ring;
        pooledHead = 0;
    }

    @Override
    public int postRecv(int numSegments, Iov localIov, long userCookie) {
        int check = checkPostRecv(numSegments, localIov);
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        ia.lock.lock();
        try {
            lock.lock();
            try {
                if (isClosed()) {
                    return DatReturn.DAT_INVALID_HANDLE;
                }
                if (outstanding >= maxRecvDtos() || freeCount == 0) {
                    return DatReturn.DAT_INSUFFICIENT_RESOURCES;
                }
                int slot = free[freeCount - 1];
                int rc = load(slot, numSegments, localIov);
                if (rc != DatReturn.DAT_SUCCESS) {
                    Arrays.fill(lmr, slot * maxIov, slot * maxIov + maxIov, null);
                    return rc;
                }
                freeCount--;
                cookie[slot] = userCookie;
                segments[slot] = numSegments;
                doomed[slot] = false;
                pool(slot);
                available++;
                outstanding++;
            } finally {
                lock.unlock();
            }
            // A peer may be held for this buffer already.
            for (int i = 0; i < eps.size(); i++) {
                eps.get(i).data.lend();
            }
            return DatReturn.DAT_SUCCESS;
        } finally {
            ia.lock.unlock();
        }
    }

    /** Reads the consumer's triplets into the slot; checks each against the SRQ's PZ. */
    private int load(int slot, int n, Iov localIov) {
        for (int s = 0; s < n; s++) {
            int rc = triplet.read(localIov, s);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            OfiLmr l = ia.lmrs.get(triplet.lmrContext());
            rc = DtoArgs.segment(l, pz(), DatMemPriv.LOCAL_WRITE, triplet.virtualAddress(), triplet.segmentLength());
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            int i = slot * maxIov + s;
            address[i] = triplet.virtualAddress();
            length[i] = triplet.segmentLength();
            lmr[i] = l;
        }
        return DatReturn.DAT_SUCCESS;
    }

    private void pool(int slot) {
        state[slot] = POOLED;
        holder[slot] = null;
        pooled[(pooledHead + pooledCount) % pooled.length] = slot;
        pooledCount++;
    }

    /**
     * Lends the oldest pooled buffer to {@code ep}. Under the IA's lock.
     *
     * @return its slot, or -1 when the pool is empty
     */
    int lend(OfiEp ep) {
        lock.lock();
        try {
            if (pooledCount == 0) {
                return -1;
            }
            int slot = pooled[pooledHead];
            pooledHead = (pooledHead + 1) % pooled.length;
            pooledCount--;
            state[slot] = LENT;
            holder[slot] = ep;
            return slot;
        } finally {
            lock.unlock();
        }
    }

    /** {@return the segments of a buffer} */
    int segments(int slot) {
        return segments[slot];
    }

    /** {@return segment {@code s} of a buffer: its address, length and region through the arrays' index} */
    int segmentIndex(int slot, int s) {
        return slot * maxIov + s;
    }

    long address(int index) {
        return address[index];
    }

    long length(int index) {
        return length[index];
    }

    OfiLmr lmr(int index) {
        return lmr[index];
    }

    long cookie(int slot) {
        return cookie[slot];
    }

    /**
     * A lent buffer comes back unfilled (its connection ended, or the post failed): to the pool, or dropped when its
     * region was freed meanwhile. Under the IA's lock.
     */
    void returned(int slot) {
        lock.lock();
        try {
            if (state[slot] != LENT) {
                return;
            }
            if (doomed[slot] || isClosed()) {
                release(slot);
                available--;
                outstanding--;
            } else {
                pool(slot);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A message filled a lent buffer (or failed into it): the slot is free again and no longer available. Under the
     * IA's lock.
     */
    void completed(int slot) {
        boolean fire;
        lock.lock();
        try {
            if (state[slot] != LENT) {
                return;
            }
            release(slot);
            available--;
            fire = lowWatermarkArmed && available < lowWatermark() && !isClosed();
            if (fire) {
                lowWatermarkArmed = false;
            }
        } finally {
            lock.unlock();
        }
        if (fire) {
            lowWatermarkEvent();
        }
    }

    private void release(int slot) {
        state[slot] = FREE;
        holder[slot] = null;
        doomed[slot] = false;
        Arrays.fill(lmr, slot * maxIov, slot * maxIov + maxIov, null);
        free[freeCount++] = slot;
    }

    /** A completion of this SRQ's buffer was reaped (or never queued): no longer outstanding. */
    void reaped() {
        lock.lock();
        try {
            outstanding--;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code dat_lmr_free} of {@code region}, under the IA's lock: pooled buffers on it go with it (as a posted
     * receive does whose MR is deregistered); an EP holding one lent may be copying a message into it, so its
     * connection breaks (closing its endpoint stops that), and the buffer is dropped when it comes back.
     *
     * @return whether a buffer of the SRQ used the region
     */
    boolean lmrFreed(OfiLmr region) {
        List<OfiEp> holders = new ArrayList<>();
        boolean used = false;
        lock.lock();
        try {
            for (int slot = 0; slot < state.length; slot++) {
                if (state[slot] == FREE || !uses(slot, region)) {
                    continue;
                }
                used = true;
                if (state[slot] == POOLED) {
                    release(slot);
                    available--;
                    outstanding--;
                } else {
                    doomed[slot] = true;
                    if (!holders.contains(holder[slot])) {
                        holders.add(holder[slot]);
                    }
                }
            }
            // The pool's ring keeps the buffers still pooled, in their order.
            int kept = 0;
            for (int i = 0; i < pooledCount; i++) {
                int slot = pooled[(pooledHead + i) % pooled.length];
                if (state[slot] == POOLED) {
                    pooled[(pooledHead + kept++) % pooled.length] = slot;
                }
            }
            pooledCount = kept;
        } finally {
            lock.unlock();
        }
        for (OfiEp ep : holders) {
            ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
        }
        return used;
    }

    private boolean uses(int slot, OfiLmr region) {
        for (int s = 0; s < maxIov; s++) {
            if (lmr[slot * maxIov + s] == region) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected int outstandingBuffers() {
        return outstanding;
    }

    @Override
    protected void implResize(int srqMaxRecvDto) {
        grow(srqMaxRecvDto);
    }

    /** Moves what the CQs hold first, so buffers that messages filled are off the SRQ before the comparison. */
    @Override
    protected void beforeSetLowWatermark() {
        ia.lock.lock();
        try {
            ia.progressLocked();
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    protected boolean implSetLowWatermark(int lowWatermarkValue) {
        boolean below = lowWatermarkValue > 0 && available < lowWatermarkValue;
        lowWatermarkArmed = lowWatermarkValue > 0 && !below;
        return below;
    }

    @Override
    protected void lowWatermarkEvent() {
        ia.lock.lock();
        try {
            ia.asyncEvd().async(DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK, this,
                    DatAsyncReason.SRQ_LOW_WATERMARK_EVENT);
        } finally {
            ia.lock.unlock();
        }
    }

    /** The shell marked it closed under the SRQ lock and no EP is on it (they depend on it): the pool goes. */
    @Override
    protected void implDestroy() {
        ia.srqs.remove(this);
        Arrays.fill(lmr, null);
        Arrays.fill(holder, null);
    }

    @Override
    public DatSrqParam query() {
        requireOpen("dat_srq_query");
        lock.lock();
        try {
            return new DatSrqParam(ia, DatSrqState.OPERATIONAL, pz(), maxRecvDtos(), maxRecvIov(), lowWatermark(),
                    Dat.DAT_VALUE_UNKNOWN, outstanding);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "OfiSrq[" + key + (isClosed() ? ", closed]" : "]");
    }
}
