// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.api.Dat;
import dat.api.DatAsyncReason;
import dat.api.DatDtoStatus;
import dat.api.DatEvdFlags;
import dat.api.DatEvdParam;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.verbs.internal.ffm.IbvContextOps;
import dat.provider.verbs.internal.ffm.IbvOps;
import dat.provider.verbs.internal.ffm.IbvWc;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.spi.AbstractCno;
import dat.spi.AbstractEvd;
import dat.spi.DatArgs;
import dat.spi.IbWcStatus;
import dat.spi.Rings;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * An event dispatcher ({@code dat_evd_create}): a ring of preallocated {@link DatEvent} slots, fed by software
 * (connection, connection-request, async and software events) and, for an EVD with {@code DTO} or
 * {@code RMR_BIND} flags, by its own completion queue.
 *
 * <p><b>Completions are taken on the consumer's thread.</b> Dequeue and wait poll the CQ ({@code ibv_poll_cq}
 * through {@code ibv_context.ops}) into the ring only as far as they need, translating each work completion into
 * its slot in place: nothing allocates, and a completion left in the CQ still holds its request slot, so
 * "a request holds its slot until its completion is reaped" is exact. A completion that reached the ring carries
 * a release token (its work request id) that frees the slot when the event is handed to the consumer.
 *
 * <p><b>Waiting.</b> A waiter fills, then arms the CQ ({@code ibv_req_notify_cq}), fills again (a completion
 * that arrived between the first fill and the arm raised no notification), then sleeps on {@link #changed}. The
 * progress thread signals it when the completion channel fires, software producers when they queue. While a CNO
 * is bound and the EVD enabled the CQ is kept armed, so every completion reaches the CNO.
 *
 * <p><b>Signalling.</b> A receive of an EP whose recv completion flags are {@code SOLICITED_WAIT} completes
 * unsignalled unless its send was solicited (or it failed): it is queued and dequeued like any other, but a waiter
 * returns only when {@code threshold} events are queued and one of them is signalled. A verbs work completion does
 * not say whether its message was solicited, so jDAT's sender carries it in the message: a solicited send is
 * {@code IBV_WR_SEND_WITH_IMM} with {@link #SOLICITED} as immediate data and {@code IBV_SEND_SOLICITED} set. When
 * only such receive queues complete here (no request queue, no other receive queue, no CNO), the CQ is armed
 * solicited-only ({@code ibv_req_notify_cq(cq, 1)}): neither the progress thread nor a waiter wakes for an
 * unsolicited message. A peer that solicits without the immediate (another DAT implementation) is not recognised:
 * its receives count as unsignalled.
 *
 * <p><b>Overflow.</b> An event that finds the ring full is lost and {@code ASYNC_ERROR_EVD_OVERFLOW} goes to the
 * async EVD once per episode. The CQ is kept armed, and the progress thread moves completions into the ring when
 * it fires ({@link #notified}), so completions overflow as DAT says even when nobody dequeues. The CQ itself is
 * sized to hold the ring plus every work request of the EPs completing into it, so the HCA's CQ never overflows
 * (which would break every QP on it).
 *
 * <p>One lock guards the ring and the CQ: consumers on several threads (is_thread_safe) and the progress thread
 * meet here, and a lock nobody contends costs one CAS.
 */
final class VerbsEvd extends AbstractEvd<VerbsIa> {

    /** How many work completions one {@code ibv_poll_cq} takes at most. */
    private static final int BATCH = 16;
    /** The immediate data of a solicited send: "DSOL", as the wire carries it. */
    static final int SOLICITED = 0x4c4f5344;

    /** Made for an EP given no EVD: its completions are dropped, and its overflow is nobody's business. */
    private final boolean hidden;
    final long key;
    private final VerbsIa ia;
    /** Also taken by an EP that holds requests back behind a window bind ({@link VerbsEpData#postBind}). */
    final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ThreadLocal<DatEvent> pollEvent = ThreadLocal.withInitial(DatEvent::new);
    /** Where a completion lost to overflow is translated, to free its request slot; guarded by {@link #lock}. */
    private final DatEvent overflowEvent = new DatEvent();
    private final Arena arena;
    /** The CQ, or {@code NULL} for an EVD without DTO and RMR_BIND flags. */
    final MemorySegment cq;
    private final MemorySegment pollFn;
    private final MemorySegment notifyFn;
    private final MemorySegment wcs;

    // Guarded by lock. The slot arrays are a power of two long (Rings.size) so that indices wrap with a mask; the
    // consumer's evd_qlen, not their length, is what the ring may hold.
    private int qlen;
    private int mask;
    private DatEvent[] slots;
    private long[] tokens;
    /** Which queued events are unsignalled, and how many. */
    private boolean[] quiet;
    private int quietCount;
    /** Set by {@link #translate}: the completion it wrote is unsignalled. */
    private boolean translatedQuiet;
    /** Attached queues whose every completion is signalled, and receive queues of SOLICITED_WAIT EPs. */
    private int eagerQueues;
    private int solicitedQueues;
    private int head;
    private int count;
    private int cqCapacity;
    private boolean overflowing;
    private boolean armed;
    private Thread waiter;
    private long abortGeneration;
    private boolean unwaitable;
    /** Work requests of the EP queues completing here: the CQ must hold them all. */
    private int attachedDepth;

    @SuppressWarnings("MustBeClosedChecker") // the arena belongs to the EVD: destroy() closes it with the CQ
    private VerbsEvd(VerbsIa ia, int qlen, AbstractCno<VerbsIa> cno, int flags, boolean isAsync, boolean hidden) {
        super(ia, flags, cno, isAsync);
        this.ia = ia;
        this.hidden = hidden;
        this.key = ia.newKey();
        this.qlen = qlen;
        this.slots = newSlots(Rings.size(qlen));
        this.mask = slots.length - 1;
        this.tokens = new long[slots.length];
        this.quiet = new boolean[slots.length];
        if ((flags & (DatEvdFlags.DTO | DatEvdFlags.RMR_BIND)) != 0) {
            this.arena = Arena.ofShared();
            try {
                this.cq = ia.verbs.ibv_create_cq(ia.context, qlen, MemorySegment.ofAddress(key), ia.compChannel, 0);
            } catch (NativeCallException e) {
                arena.close();
                throw VerbsIa.resources("dat_evd_create", e);
            }
            this.cqCapacity = qlen;
            this.pollFn = IbvOps.function(ia.context, IbvContextOps.POLL_CQ);
            this.notifyFn = IbvOps.function(ia.context, IbvContextOps.REQ_NOTIFY_CQ);
            this.wcs = arena.allocate(IbvWc.LAYOUT, BATCH);
            ia.evdsByKey.put(key, this);
        } else {
            this.arena = null;
            this.cq = MemorySegment.NULL;
            this.pollFn = MemorySegment.NULL;
            this.notifyFn = MemorySegment.NULL;
            this.wcs = MemorySegment.NULL;
        }
    }

    private static DatEvent[] newSlots(int n) {
        DatEvent[] s = new DatEvent[n];
        for (int i = 0; i < n; i++) {
            s[i] = new DatEvent();
        }
        return s;
    }

    /** {@code dat_evd_create}; the caller checked the arguments and holds the IA lifecycle lock. */
    static VerbsEvd create(VerbsIa ia, int qlen, AbstractCno<VerbsIa> cno, int flags) {
        return armed(new VerbsEvd(ia, qlen, cno, flags, false, false));
    }

    /** The EVD of an EP created with a null request or recv EVD handle. */
    static VerbsEvd hidden(VerbsIa ia, int qlen) {
        return armed(new VerbsEvd(ia, qlen, null, DatEvdFlags.DTO, false, true));
    }

    private static VerbsEvd armed(VerbsEvd evd) {
        evd.lock.lock();
        try {
            evd.arm();
        } finally {
            evd.lock.unlock();
        }
        return evd;
    }

    /**
     * An EP queue of {@code depth} work requests completes into this EVD's CQ. The CQ grows to hold the ring plus
     * every such request: a verbs CQ that overflows breaks every QP on it, whereas DAT's overflow loses only the
     * completion that does not fit ({@link #notified}).
     */
    void attach(int depth, boolean solicitedOnly) {
        lock.lock();
        try {
            countQueue(solicitedOnly, 1);
            attachedDepth += depth;
            int want = qlen + attachedDepth;
            if (cq.address() != 0 && want > cqCapacity) {
                try {
                    ia.verbs.ibv_resize_cq(cq, want);
                } catch (NativeCallException e) {
                    attachedDepth -= depth;
                    countQueue(solicitedOnly, -1);
                    throw VerbsIa.resources("dat_ep_create", e);
                }
                cqCapacity = want;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The EP queue of {@link #attach} is gone. */
    void detach(int depth, boolean solicitedOnly) {
        lock.lock();
        try {
            attachedDepth -= depth;
            countQueue(solicitedOnly, -1);
        } finally {
            lock.unlock();
        }
    }

    /** An attached receive queue's EP changed its recv completion flags (dat_ep_modify). */
    void requalify(boolean solicitedOnlyBefore, boolean solicitedOnlyNow) {
        lock.lock();
        try {
            countQueue(solicitedOnlyBefore, -1);
            countQueue(solicitedOnlyNow, 1);
        } finally {
            lock.unlock();
        }
    }

    private void countQueue(boolean solicitedOnly, int delta) {
        if (solicitedOnly) {
            solicitedQueues += delta;
        } else {
            eagerQueues += delta;
        }
    }

    /** The IA's async EVD. */
    static VerbsEvd async(VerbsIa ia, int qlen) {
        return new VerbsEvd(ia, qlen, null, DatEvdFlags.ASYNC, true, false);
    }

    @Override
    protected void destroy() {
        lock.lock();
        try {
            markClosed();
            abortGeneration++;
            changed.signalAll();
            // Queued completions are never reaped now: give their slots back.
            while (count > 0) {
                long token = tokens[head];
                head = (head + 1) & mask;
                count--;
                release(token);
            }
        } finally {
            lock.unlock();
        }
        if (cq.address() != 0) {
            ia.evdsByKey.remove(key);
            // ibv_destroy_cq waits until every completion-channel event of the CQ is acknowledged; the progress
            // thread acknowledges before it looks for the EVD, so this cannot wait for a lock held here.
            try {
                ia.verbs.ibv_destroy_cq(cq);
            } catch (NativeCallException e) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                        "dat_evd_free: " + e.getMessage() + " (a QP still uses the CQ)", e);
            }
            arena.close();
        }
    }

    // ------------------------------------------------------------------ producers (software events)

    void postConnection(DatEventType type, VerbsEp ep, byte[] privateData) {
        postControl(e -> e.setConnectionEvent(type, this, ep, privateData));
    }

    void postConnectionRequest(DatHandle sp, long connQual, VerbsCr cr) {
        postControl(e -> e.setConnectionRequest(this, sp, connQual, cr));
    }

    void postAsync(DatEventType type, DatHandle handle, int reason) {
        postControl(e -> e.setAsyncEvent(type, this, handle, reason));
    }

    /** Queues a control-path event (connection, request, async): the capturing filler allocates, off the data path. */
    private void postControl(Consumer<DatEvent> fill) {
        boolean overflow = false;
        boolean waited;
        lock.lock();
        try {
            if (isClosed()) {
                return;
            }
            // A "Waited" EVD does not notify its CNO: the waiter takes the event (uDAPL 1.2, dat_cno_wait).
            waited = waiter != null;
            if (count == qlen) {
                overflow = !overflowing && !isAsync();
                overflowing = true;
            } else {
                int i = (head + count) & mask;
                fill.accept(slots[i]);
                tokens[i] = 0;
                quiet[i] = false;
                count++;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (overflow) {
            ia.asyncEvd().postAsync(DatEventType.ASYNC_ERROR_EVD_OVERFLOW, this, DatAsyncReason.EVD_OVERFLOW_ERROR);
        } else if (!waited) {
            triggerCno();
        }
    }

    @Override
    public int postSoftwareEvent(long pointer) {
        int check = checkPostSoftwareEvent();
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        boolean waited;
        lock.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            // dat_evd_post_se: a full queue refuses the event; it is not an overflow.
            if (count == qlen) {
                return DatReturn.DAT_QUEUE_FULL;
            }
            waited = waiter != null;
            int i = (head + count) & mask;
            slots[i].setSoftwareEvent(this, pointer);
            tokens[i] = 0;
            quiet[i] = false;
            count++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (!waited) {
            triggerCno();
        }
        return DatReturn.DAT_SUCCESS;
    }

    /**
     * The progress thread saw this EVD's CQ fire. It re-arms the CQ, then moves what the CQ holds into the ring, so
     * that DAT's overflow happens where DAT puts it: a completion that finds {@code evd_qlen} events queued is lost
     * and reported on the async EVD, even while the consumer is not looking. A consumer that keeps up takes its
     * completions from the CQ itself before this thread gets to them.
     */
    void notified() {
        boolean trigger;
        boolean overflow;
        lock.lock();
        try {
            armed = false;
            if (isClosed()) {
                return;
            }
            // Armed before polling: a completion that lands after the poll raises the next notification.
            arm();
            int before = count;
            fill(qlen);
            overflow = dropOverflow();
            if (count != before) {
                changed.signalAll();
            }
            trigger = cno() != null && enabled() && count != before && waiter == null;
        } finally {
            lock.unlock();
        }
        if (overflow && !hidden) {
            ia.asyncEvd().postAsync(DatEventType.ASYNC_ERROR_EVD_OVERFLOW, this, DatAsyncReason.EVD_OVERFLOW_ERROR);
        }
        if (trigger) {
            triggerCno();
        }
    }

    /**
     * With the ring full, drops what is left in the CQ (freeing the slots of the requests they complete). Caller
     * holds {@link #lock}.
     *
     * @return whether this opened an overflow episode, which the caller reports
     */
    private boolean dropOverflow() {
        if (count < qlen) {
            return false;
        }
        boolean opened = false;
        while (IbvOps.poll_cq(pollFn, cq, 1, wcs) > 0) {
            long token = translate(0, overflowEvent);
            if (token != 0) {
                release(token);
                opened |= !overflowing;
                overflowing = true;
            }
        }
        return opened;
    }

    // ------------------------------------------------------------------ the CQ (caller holds lock)

    /**
     * Arms the CQ for the next completion, or for the next solicited or failed one when nothing else completing
     * here could signal; caller holds {@link #lock}.
     */
    private void arm() {
        if (cq.address() != 0 && !armed && !isClosed()) {
            boolean solicitedOnly = eagerQueues == 0 && solicitedQueues > 0 && cno() == null;
            int rc = IbvOps.req_notify_cq(notifyFn, cq, solicitedOnly ? 1 : 0);
            armed = rc == 0;
        }
    }

    /** Whether a waiter for {@code threshold} events may return: that many queued, one of them signalled. */
    private boolean ready(int threshold) {
        return count >= threshold && count > quietCount;
    }

    /**
     * Moves completions from the CQ into the ring until it holds {@code want} events, the ring is full or the CQ
     * is empty. Caller holds {@link #lock}.
     */
    private void fill(int want) {
        if (cq.address() == 0 || isClosed()) {
            return;
        }
        while (count < want && count < qlen) {
            int n = IbvOps.poll_cq(pollFn, cq, Math.min(BATCH, qlen - count), wcs);
            if (n <= 0) {
                return;
            }
            for (int k = 0; k < n; k++) {
                                int i = (head + count) & mask;
                long token = translate(k, slots[i]);
                if (token != 0) {
                    tokens[i] = token;
                    quiet[i] = translatedQuiet;
                    quietCount += translatedQuiet ? 1 : 0;
                    count++;
                }
            }
        }
    }

    /** Fills as far as a waiter for {@code threshold} needs: everything there is while no signalled event is queued. */
    private void fillFor(int threshold) {
        fill(count > quietCount ? threshold : qlen);
    }

    /**
     * Writes one work completion into {@code slot}.
     *
     * @return the release token of a completion to report, 0 for one consumed here (a suppressed success, an
     *     internal signal, the completion of an object already freed)
     */
    private long translate(int wc, DatEvent slot) {
        translatedQuiet = false;
        long wrId = IbvWc.wrId(wcs, wc);
        int kind = WorkRequests.kind(wrId);
        int wcStatus = IbvWc.status(wcs, wc);
        DatDtoStatus status = IbWcStatus.toDat(wcStatus, kind != WorkRequests.SEND);
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("wc qp " + IbvWc.qpNum(wcs, wc) + " " + WorkRequests.describe(wrId)
                    + " status " + wcStatus + " opcode " + IbvWc.opcode(wcs, wc) + " byte_len "
                    + Integer.toUnsignedLong(IbvWc.byteLen(wcs, wc)) + " on EVD " + key);
        }
        if (kind == WorkRequests.SRQ) {
            VerbsSrq srq = ia.srqsByIndex.get(WorkRequests.owner(wrId));
            VerbsEp ep = ia.epsByQpn.get(IbvWc.qpNum(wcs, wc));
            arrived(ep, status);
            translatedQuiet = unsolicited(ep, status, wc);
            long token = srq == null ? 0 : srq.completed(wrId, status,
                    Integer.toUnsignedLong(IbvWc.byteLen(wcs, wc)), ep, this, slot);
            return broke(ep, token, status);
        }
        VerbsEp ep = ia.epsByQpn.get(WorkRequests.owner(wrId));
        if (ep == null) {
            return 0;
        }
        if (kind == WorkRequests.RECV) {
            arrived(ep, status);
            translatedQuiet = unsolicited(ep, status, wc);
        }
        long token = kind == WorkRequests.RECV
                ? ep.data.recvCompleted(wrId, status, Integer.toUnsignedLong(IbvWc.byteLen(wcs, wc)),
                        this, slot)
                : ep.data.requestCompleted(wrId, status, this, slot);
        return broke(ep, token, status);
    }

    /**
     * A completion the EP owned (a token: an error is always reported) with an error status breaks its connection;
     * a flush only where the EP still thinks it connected (see {@link VerbsEpConnection#dtoFailed}).
     */
    private static long broke(VerbsEp ep, long token, DatDtoStatus status) {
        if (token != 0 && ep != null && status != DatDtoStatus.SUCCESS) {
            ep.connection.dtoFailed(status);
        }
        return token;
    }

    /** Whether a receive completes unsignalled: a success on a SOLICITED_WAIT EP whose send did not solicit. */
    private boolean unsolicited(VerbsEp ep, DatDtoStatus status, int wc) {
        return ep != null && ep.solicitedWait && status == DatDtoStatus.SUCCESS
                && ((IbvWc.wcFlags(wcs, wc) & LibIbverbs.IBV_WC_WITH_IMM) == 0
                        || IbvWc.immData(wcs, wc) != SOLICITED);
    }

    /** A message landed for {@code ep} (a receive of its own or an SRQ buffer it took). */
    private static void arrived(VerbsEp ep, DatDtoStatus status) {
        if (ep != null && status == DatDtoStatus.SUCCESS) {
            ep.connection.messageArrived();
        }
    }

    /** Frees the request slot a reaped completion held. */
    private void release(long token) {
        if (token == 0) {
            return;
        }
        if (WorkRequests.kind(token) == WorkRequests.SRQ) {
            VerbsSrq srq = ia.srqsByIndex.get(WorkRequests.owner(token));
            if (srq != null) {
                srq.reaped();
            }
        } else {
            VerbsEp ep = ia.epsByQpn.get(WorkRequests.owner(token));
            if (ep != null) {
                ep.data.reaped(token);
            }
        }
    }

    /** Takes the head event into {@code event}; caller holds {@link #lock} and saw {@code count > 0}. */
    private long take(DatEvent event) {
        event.copyFrom(slots[head]);
        long token = tokens[head];
        quietCount -= quiet[head] ? 1 : 0;
        head = (head + 1) & mask;
        count--;
        overflowing = false;
        return token;
    }

    /**
     * Takes and drops every completion of a hidden EVD (one made for a null EVD handle): nobody reaps them, so
     * their slots are freed here.
     *
     * @return how many completions were dropped
     */
    int discardAll() {
        int dropped = 0;
        lock.lock();
        try {
            while (true) {
                fill(qlen);
                if (count == 0) {
                    return dropped;
                }
                while (count > 0) {
                    release(tokens[head]);
                    quietCount -= quiet[head] ? 1 : 0;
                    head = (head + 1) & mask;
                    count--;
                    dropped++;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code action} under this EVD's lock: no completion is translated meanwhile. */
    void locked(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    /** Moves what the CQ holds into the ring, so the completions it represents count as generated. */
    void takeCompletions() {
        lock.lock();
        try {
            takeCompletionsLocked();
        } finally {
            lock.unlock();
        }
    }

    /** {@link #takeCompletions} for a caller that holds {@link #lock}. */
    void takeCompletionsLocked() {
        int before = count;
        fill(qlen);
        if (count != before) {
            // A waiter whose notification this thread's poll consumed must look at the ring again.
            changed.signalAll();
        }
    }

    // ------------------------------------------------------------------ consumers

    @Override
    public int dequeue(DatEvent event) {
        int check = checkDequeue(event);
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        long token;
        lock.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (waiter != null) {
                return DatReturn.DAT_INVALID_STATE;
            }
            if (count == 0) {
                fill(1);
                if (count == 0) {
                    return DatReturn.DAT_QUEUE_EMPTY;
                }
            }
            token = take(event);
        } finally {
            lock.unlock();
        }
        release(token);
        return DatReturn.DAT_SUCCESS;
    }

    @Override
    public int poll(DatEventHandler handler, int limit) {
        // No lock is held while the handler runs: it may post, which may complete into this EVD.
        return pollByDequeue(handler, limit, pollEvent.get());
    }

    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        int check = checkAwait(timeoutMicros, event);
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        long token;
        lock.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (threshold < 1 || threshold > qlen) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            // A CNO-bound EVD may be waited on: its waiter preempts the CNO (uDAPL 1.2, dat_cno_wait).
            if (unwaitable || waiter != null) {
                return DatReturn.DAT_INVALID_STATE;
            }
            // dat_evd_wait: the threshold counts DTO completions; other EVDs wake on any event.
            int effective = (flags() & DatEvdFlags.DTO) != 0 ? threshold : 1;
            long generation = abortGeneration;
            long deadline = timeoutMicros == Dat.DAT_TIMEOUT_INFINITE ? Long.MAX_VALUE
                    : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
            waiter = Thread.currentThread();
            try {
                while (true) {
                    if (generation != abortGeneration) {
                        return abortedWait();
                    }
                    fillFor(effective);
                    if (!ready(effective)) {
                        arm();
                        // A completion between the fill and the arm raised no notification: look again.
                        fillFor(effective);
                    }
                    if (ready(effective)) {
                        token = take(event);
                        event.nmore(count);
                        break;
                    }
                    long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
                    if (left <= 0) {
                        return DatReturn.DAT_TIMEOUT_EXPIRED;
                    }
                    try {
                        if (left == Long.MAX_VALUE) {
                            changed.await();
                        } else {
                            changed.awaitNanos(left);
                        }
                    } catch (InterruptedException e) {
                        // Reported as DAT_INTERRUPTED_CALL: that is the consumer's notification.
                        return DatReturn.DAT_INTERRUPTED_CALL;
                    }
                }
            } finally {
                waiter = null;
            }
        } finally {
            lock.unlock();
        }
        release(token);
        return DatReturn.DAT_SUCCESS;
    }

    // ------------------------------------------------------------------ control

    @Override
    protected void implSetUnwaitable(boolean value) {
        lock.lock();
        try {
            unwaitable = value;
            if (value) {
                abortGeneration++;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    protected void implResize(int evdMinQlen) {
        String call = "dat_evd_resize";
        lock.lock();
        try {
            requireOpen(call);
            DatArgs.evdResizeState(evdMinQlen, count);
            if (cq.address() != 0 && evdMinQlen > cqCapacity) {
                try {
                    ia.verbs.ibv_resize_cq(cq, evdMinQlen);
                } catch (NativeCallException e) {
                    throw VerbsIa.resources(call, e);
                }
                cqCapacity = evdMinQlen;
            }
            DatEvent[] nextSlots = newSlots(Rings.size(evdMinQlen));
            long[] nextTokens = new long[nextSlots.length];
            boolean[] nextQuiet = new boolean[nextSlots.length];
            for (int k = 0; k < count; k++) {
                int i = (head + k) & mask;
                nextSlots[k].copyFrom(slots[i]);
                nextTokens[k] = tokens[i];
                nextQuiet[k] = quiet[i];
            }
            slots = nextSlots;
            tokens = nextTokens;
            quiet = nextQuiet;
            qlen = evdMinQlen;
            mask = nextSlots.length - 1;
            head = 0;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Bound under this EVD's lock, and the CQ armed at once: every completion must reach the CNO. */
    @Override
    protected void implModifyCno(AbstractCno<VerbsIa> newCno) {
        lock.lock();
        try {
            setCno(newCno);
            if (newCno != null) {
                arm();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public DatEvdParam query() {
        requireOpen("dat_evd_query");
        lock.lock();
        try {
            return param(qlen, unwaitable);
        } finally {
            lock.unlock();
        }
    }
}
