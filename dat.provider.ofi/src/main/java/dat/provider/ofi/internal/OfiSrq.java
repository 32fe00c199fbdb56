// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.Dat;
import dat.api.DatAsyncReason;
import dat.api.DatEventType;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatSrqParam;
import dat.api.DatSrqState;
import dat.api.Iov;
import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiCqAttr;
import dat.provider.ofi.internal.ffm.FiCqDataEntry;
import dat.provider.ofi.internal.ffm.FiCqErrEntry;
import dat.provider.ofi.internal.ffm.FiException;
import dat.provider.ofi.internal.ffm.FiMsg;
import dat.provider.ofi.internal.ffm.FiOpsCq;
import dat.provider.ofi.internal.ffm.FiOpsEp;
import dat.provider.ofi.internal.ffm.FiOpsMsg;
import dat.provider.ofi.internal.ffm.FiRxAttr;
import dat.provider.ofi.internal.ffm.FidCq;
import dat.provider.ofi.internal.ffm.FidEp;
import dat.provider.ofi.internal.ffm.Iovec;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.spi.AbstractSrq;
import dat.spi.DtoArgs;
import dat.spi.LmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A shared receive queue ({@code dat_srq_create}): a libfabric shared receive context ({@code fi_srx_context}) on
 * its PZ's domain, which the endpoints of the EPs created on it bind ({@code fi_ep_bind}) instead of having a receive
 * queue of their own. tcp takes the oldest buffer of the context when a message's header arrives on any of them.
 *
 * <p><b>Which EP.</b> tcp reports a shared buffer's completion on the receive CQ of the endpoint that took it, with
 * the context the post gave and nothing naming the endpoint. So every EP on an SRQ binds its receives to a CQ of its
 * own ({@link OfiEpData#srqCq}), read by the progress step, and the EP that read it is the one that took the buffer.
 *
 * <p><b>Counting.</b> A buffer is <em>outstanding</em> from its post until its completion is reaped from the EVD (or,
 * lost or without EVD, never queued). tcp takes a buffer when a message's header arrives and says so only in the
 * completion, so the buffers still on the context are not known while a message is under way: {@code
 * srq_info_supported} claims only the outstanding count, and {@link #available} (posted, not yet completed) is what
 * the low watermark compares, at each completion.
 *
 * <p><b>Low watermark and resize.</b> libfabric has neither: the provider keeps both. The event comes once per
 * setting when a completion takes the available count below the watermark, or at {@code dat_srq_set_lw} when it is
 * below already (after a progress step moved what the CQs hold). The context is created with room for
 * {@code max_recv_per_srq} buffers (its buffer pool grows on demand up to that), so a resize only changes the limit
 * posts are checked against and the slot arrays.
 *
 * <p><b>Locks.</b> The IA's lock, then the SRQ's ({@link #srqLock()}): a post takes both (the LMR table is the IA's),
 * a completion arrives under the IA's lock and takes the SRQ's, the shell's resize and free take the SRQ's alone.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiSrq extends AbstractSrq<OfiIa, OfiPz> {

    private static final byte FREE = 0;
    private static final byte POSTED = 1;

    private final OfiIa ia;
    private final ReentrantLock lock = srqLock();
    /** Names the SRQ in its operation contexts (high 32 bits; the slot is the low 32). */
    final int key;
    /** The {@code fid_ep} of the shared receive context. */
    final MemorySegment srx;
    /** The CQ bound to the context: only {@code fi_cancel} reports to it (tcp reports a taken buffer elsewhere). */
    private final MemorySegment cancelCq;
    private final MemorySegment cancelRead;
    private final MemorySegment fnRecvmsg;
    private final MemorySegment fnCancel;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment iov;
    private final MemorySegment desc;
    private final MemorySegment msg;
    private final MemorySegment entries;
    private final MemorySegment err;
    private final LmrTriplet triplet = new LmrTriplet();
    private final int maxIov;

    // Guarded by lock.
    private byte[] state;
    private long[] cookie;
    private OfiLmr[] lmr;
    private int[] free;
    private int freeCount;
    /** Posted and not yet completed (on the context, or taken by an endpoint for a message under way). */
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
        MemorySegment context = MemorySegment.NULL;
        MemorySegment cq = MemorySegment.NULL;
        try (Arena local = Arena.ofConfined()) {
            MemorySegment out = local.allocate(ADDRESS);
            MemorySegment attr = local.allocate(FiRxAttr.LAYOUT);
            FiRxAttr.caps(attr, LibFabric.FI_MSG | LibFabric.FI_RECV);
            FiRxAttr.opFlags(attr, LibFabric.FI_COMPLETION);
            // The context's buffer pool is bounded by this size and grows on demand: room for every resize.
            FiRxAttr.size(attr, ia.iaAttr().maxRecvPerSrq());
            FiRxAttr.iovLimit(attr, maxIov);
            ia.fi.check("fi_srx_context", Fi.fi_srx_context(pz.domain, attr, out));
            context = out.get(ADDRESS, 0).reinterpret(FidEp.SIZEOF);
            MemorySegment cqAttr = local.allocate(FiCqAttr.LAYOUT);
            FiCqAttr.size(cqAttr, OfiIa.MIN_CQ);
            FiCqAttr.format(cqAttr, LibFabric.FI_CQ_FORMAT_DATA);
            FiCqAttr.waitObj(cqAttr, LibFabric.FI_WAIT_NONE);
            ia.fi.check("fi_cq_open", Fi.fi_cq_open(pz.domain, cqAttr, out));
            cq = out.get(ADDRESS, 0).reinterpret(FidCq.SIZEOF);
            ia.fi.check("fi_srx_bind(cq)", Fi.fi_ep_bind(context, cq, LibFabric.FI_RECV));
        } catch (FiException e) {
            OfiIa.closeQuietly(context);
            OfiIa.closeQuietly(cq);
            arena.close();
            throw OfiIa.resources("dat_srq_create", e);
        }
        this.srx = context;
        this.cancelCq = cq;
        this.cancelRead = Fi.slot(cq, FidCq.OPS, FiOpsCq.READ);
        this.fnRecvmsg = Fi.slot(context, FidEp.MSG, FiOpsMsg.RECVMSG);
        this.fnCancel = Fi.slot(context, FidEp.OPS, FiOpsEp.CANCEL);
        this.iov = arena.allocate(Iovec.LAYOUT.byteSize() * maxIov, 8);
        this.desc = arena.allocate(8L * maxIov, 8);
        this.msg = arena.allocate(FiMsg.LAYOUT);
        this.entries = arena.allocate(FiCqDataEntry.LAYOUT.byteSize() * 16, 8);
        this.err = arena.allocate(FiCqErrEntry.LAYOUT);
        grow(maxRecvDtos);
    }

    private void grow(int capacity) {
        int old = state == null ? 0 : state.length;
        if (capacity <= old) {
            return;
        }
        state = state == null ? new byte[capacity] : Arrays.copyOf(state, capacity);
        cookie = cookie == null ? new long[capacity] : Arrays.copyOf(cookie, capacity);
        lmr = lmr == null ? new OfiLmr[capacity * maxIov] : Arrays.copyOf(lmr, capacity * maxIov);
        int[] f = new int[capacity];
        if (free != null) {
            System.arraycopy(free, 0, f, 0, freeCount);
        }
        free = f;
        for (int i = capacity - 1; i >= old; i--) {
            free[freeCount++] = i;
        }
    }

    /** {@return the operation context of a slot} */
    private long context(int slot) {
        return (long) key << 32 | slot;
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
                int rc = load(numSegments, localIov);
                if (rc != DatReturn.DAT_SUCCESS) {
                    return rc;
                }
                if (outstanding >= maxRecvDtos() || freeCount == 0) {
                    return DatReturn.DAT_INSUFFICIENT_RESOURCES;
                }
                int slot = free[freeCount - 1];
                msg.set(JAVA_LONG, FiMsg.MSG_IOV, iov.address());
                msg.set(JAVA_LONG, FiMsg.DESC, desc.address());
                FiMsg.iovCount(msg, numSegments);
                FiMsg.addr(msg, 0);
                msg.set(JAVA_LONG, FiMsg.CONTEXT, context(slot));
                FiMsg.data(msg, 0);
                long posted = Fi.post(fnRecvmsg, srx.address(), msg.address(), LibFabric.FI_COMPLETION);
                if (posted != 0) {
                    // The context's pool holds max_recv_per_srq buffers, never fewer than the SRQ's size.
                    return DatReturn.DAT_INSUFFICIENT_RESOURCES;
                }
                freeCount--;
                state[slot] = POSTED;
                cookie[slot] = userCookie;
                for (int s = 0; s < maxIov; s++) {
                    lmr[slot * maxIov + s] = s < numSegments ? lmrs[s] : null;
                }
                available++;
                outstanding++;
                return DatReturn.DAT_SUCCESS;
            } finally {
                Arrays.fill(lmrs, null);
                lock.unlock();
            }
        } finally {
            ia.lock.unlock();
        }
    }

    /** The LMRs of the post being loaded; under {@link #lock}. */
    private OfiLmr[] lmrs = new OfiLmr[0];

    /** Reads the consumer's triplets into the native iov and descriptors; checks each against the SRQ's PZ. */
    private int load(int n, Iov localIov) {
        if (lmrs.length < maxIov) {
            lmrs = new OfiLmr[maxIov];
        }
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
            MemorySegment v = iov.asSlice(s * Iovec.LAYOUT.byteSize(), Iovec.LAYOUT.byteSize());
            v.set(JAVA_LONG, Iovec.IOV_BASE, triplet.virtualAddress());
            Iovec.iovLen(v, triplet.segmentLength());
            desc.setAtIndex(JAVA_LONG, s, l.desc);
            lmrs[s] = l;
        }
        return DatReturn.DAT_SUCCESS;
    }

    /**
     * An EP's CQ reported a buffer of this SRQ: the slot is free again and no longer available. Under the IA's lock.
     *
     * @param context the completion's operation context
     * @return the buffer's cookie, or {@code -1L} in {@code found[0] == false} when the context is none of ours
     */
    long completed(long context, boolean[] found) {
        int slot = (int) context;
        boolean fire;
        long c;
        lock.lock();
        try {
            if ((int) (context >>> 32) != key || slot < 0 || slot >= state.length || state[slot] != POSTED) {
                found[0] = false;
                return -1L;
            }
            found[0] = true;
            c = cookie[slot];
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
        return c;
    }

    private void release(int slot) {
        state[slot] = FREE;
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
     * {@code dat_lmr_free} of {@code region}, under the IA's lock: buffers on it still on the context are cancelled
     * (they are gone with the region, as is a posted receive whose MR is deregistered); when one was taken by an
     * endpoint already, the copy into it may be under way, so every connection on the SRQ breaks (closing the
     * endpoints stops it).
     *
     * @return whether a buffer of the SRQ used the region
     */
    boolean lmrFreed(OfiLmr region) {
        boolean used = false;
        lock.lock();
        try {
            for (int slot = 0; slot < state.length; slot++) {
                if (state[slot] == POSTED && uses(slot, region)) {
                    used = true;
                    Fi.cancel(fnCancel, srx.address(), context(slot));
                }
            }
            if (!used) {
                return false;
            }
            drainCancelled();
            boolean taken = false;
            for (int slot = 0; slot < state.length; slot++) {
                taken |= state[slot] == POSTED && uses(slot, region);
            }
            if (!taken) {
                return true;
            }
        } finally {
            lock.unlock();
        }
        for (OfiEp ep : List.copyOf(eps)) {
            ep.connection.breakConnection(true, DatEventType.CONNECTION_EVENT_BROKEN);
        }
        return true;
    }

    private boolean uses(int slot, OfiLmr region) {
        for (int s = 0; s < maxIov; s++) {
            if (lmr[slot * maxIov + s] == region) {
                return true;
            }
        }
        return false;
    }

    /** Frees the slots {@code fi_cancel} took back (their completions go nowhere: the consumer freed the region). */
    private void drainCancelled() {
        while (true) {
            long n = Fi.cqRead(cancelRead, cancelCq.address(), entries.address(), 16);
            if (n > 0) {
                for (int i = 0; i < n; i++) {
                    MemorySegment e = entries.asSlice(i * FiCqDataEntry.LAYOUT.byteSize(),
                            FiCqDataEntry.LAYOUT.byteSize());
                    dropCancelled(FiCqDataEntry.opContext(e).address());
                }
                continue;
            }
            if (n == -LibFabric.FI_EAVAIL) {
                err.fill((byte) 0);
                if (Fi.fi_cq_readerr(cancelCq, err) > 0) {
                    dropCancelled(FiCqErrEntry.opContext(err).address());
                    continue;
                }
            }
            return;
        }
    }

    private void dropCancelled(long context) {
        int slot = (int) context;
        if ((int) (context >>> 32) == key && slot >= 0 && slot < state.length && state[slot] == POSTED) {
            release(slot);
            available--;
            outstanding--;
        }
    }

    @Override
    protected int outstandingBuffers() {
        return outstanding;
    }

    /** The context was sized for max_recv_per_srq: only the limit and the slot arrays change. */
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

    /**
     * The shell marked it closed under the SRQ lock and no EP is on it (they depend on it): the context goes with
     * whatever is still posted to it, then the CQ.
     */
    @Override
    protected void implDestroy() {
        ia.srqs.remove(this);
        Fi.fi_close(srx);
        drainCancelled();
        Fi.fi_close(cancelCq);
        arena.close();
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
