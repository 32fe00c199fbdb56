// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.Dat;
import dat.api.DatCr;
import dat.api.DatDtoStatus;
import dat.api.DatEvdFlags;
import dat.api.DatEvdParam;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatEventType;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiCqAttr;
import dat.provider.ofi.internal.ffm.FiCqDataEntry;
import dat.provider.ofi.internal.ffm.FiCqErrEntry;
import dat.provider.ofi.internal.ffm.FiException;
import dat.provider.ofi.internal.ffm.FiOpsCq;
import dat.provider.ofi.internal.ffm.FidCq;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.spi.AbstractCno;
import dat.spi.AbstractEvd;
import dat.spi.DatArgs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * An event dispatcher ({@code dat_evd_create}): a ring of preallocated {@link DatEvent}s (a DTO completion as its
 * fields, in arrays beside it), and, for an EVD that takes DTO completions, an {@code fi_cq} (format {@code
 * FI_CQ_FORMAT_DATA}) on each PZ's domain its EPs bind their queues to. The CQ is read under the IA's lock by the
 * progress step ({@link #drainCq}); each entry's operation context names the EP, the
 * connection generation, the queue and the slot ({@link OfiEpData#context}); the EP turns it into a DAT completion
 * queued here. A DTO completion holds its EP's slot until it is dequeued, as DAT counts it outstanding till then.
 * {@code dat_evd_wait} sleeps on this EVD's own condition of the IA's lock, signalled only when an event is queued here
 * while it sleeps: a consumer that busy-polls one EVD and a thread parked in {@code dat_evd_wait} on another (a
 * connection EVD) do not wake each other per completion, which on two cores costs more than the transfer.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiEvd extends AbstractEvd<OfiIa> {

    static final byte PLAIN = 0;
    static final byte REQUEST = 1;
    static final byte RECV = 2;

    private static final int BATCH = 16;
    /** How long {@code dat_evd_wait} reads its CQs itself before it sleeps on the IA's condition. */
    private static final long SPIN_NANOS = 50_000;
    /**
     * Polls in a row that may return what {@link #drainBeforeStep} found without the rest of the step: a consumer
     * whose every poll finds a message (a stream, or polls further apart than its messages) still takes the whole
     * step, with its clock reading and the IA's step when due ({@link OfiIa#stepIfDue}), at every fifth.
     */
    static final int QUICK_POLLS = 4;

    private final OfiIa ia;
    private DatEvent[] ring;
    private byte[] kinds;
    /**
     * A DTO completion's fields, by slot (its {@link #kinds} entry {@link #REQUEST} or {@link #RECV}): it is written
     * into the consumer's event once, when taken, rather than into the ring's and then copied from there.
     */
    private OfiEp[] dtoEp;
    private long[] dtoCookie;
    private DatDtoStatus[] dtoStatus;
    private long[] dtoLength;
    private int head;
    private int count;
    private boolean waitable = true;
    private boolean waiting;
    private long aborts;
    private final DatEvent polled = new DatEvent();
    /** The IA step ({@link OfiIa#steps}) that last read this EVD's CQs. Guarded by the IA's lock. */
    private long drainedIn = -1;
    /** When a consumer last read this EVD's CQs itself ({@link System#nanoTime()}). Guarded by the IA's lock. */
    private long polledAt = System.nanoTime() - 2 * OfiProgress.POLLED_NANOS;
    /** A dat_evd_wait sleeps on {@link #arrived}. Guarded by the IA's lock. */
    private boolean sleeping;
    /** What a sleeping {@code dat_evd_wait} waits on: an event queued here, an abort, the EVD's end. */
    private final Condition arrived;
    /** How often a sleeping {@code dat_evd_wait} woke up (OfiProgressTest). Guarded by the IA's lock. */
    private long wakes;
    /** A wait on the CQs' descriptors, where the fabric gives them; else {@code null}. */
    private final OfiFdWait fdWait;

    /**
     * One CQ per domain (a PZ's) whose endpoints this EVD takes completions from, made when the first of them binds:
     * a libfabric endpoint can only bind CQs of its own domain (sockets refuses others). Guarded by the IA's lock.
     */
    private final List<Cq> cqs = new ArrayList<>();
    private final Arena arena;
    private final int cqSize;
    private final MemorySegment entries;
    private final MemorySegment err;

    @SuppressWarnings("MustBeClosedChecker") // the arena belongs to the EVD: destroy() closes it with the CQ
    OfiEvd(OfiIa ia, int qlen, int flags, AbstractCno<OfiIa> cno) {
        super(ia, flags, cno, (flags & DatEvdFlags.ASYNC) != 0);
        this.ia = ia;
        this.arrived = ia.lock.newCondition();
        allocate(qlen);
        if ((flags & DatEvdFlags.DTO) != 0) {
            arena = Arena.ofShared();
            cqSize = Math.max(qlen, OfiIa.MIN_CQ);
            entries = arena.allocate(FiCqDataEntry.LAYOUT.byteSize() * BATCH, 8);
            err = arena.allocate(FiCqErrEntry.LAYOUT);
            fdWait = ia.waitsOnFds() ? OfiFdWait.open() : null;
            ia.cqEvds.add(this);
        } else {
            arena = null;
            cqSize = 0;
            entries = MemorySegment.NULL;
            err = MemorySegment.NULL;
            fdWait = null;
        }
    }

    /** A CQ of one domain, and its wait descriptor ({@code -1}: none). */
    private record Cq(long domain, MemorySegment cq, MemorySegment read, int waitFd) { }

    /**
     * {@return this EVD's CQ on {@code domain}, opened on first use} Under the IA's lock.
     *
     * @param call the DAT call that needs it, for the error
     * @param domain the {@code fid_domain} of the endpoint that binds it
     */
    MemorySegment cqFor(String call, MemorySegment domain) {
        if (arena == null) {
            throw new IllegalStateException("EVD without DTO flags has no CQ");
        }
        for (Cq c : cqs) {
            if (c.domain() == domain.address()) {
                return c.cq();
            }
        }
        try (Arena local = Arena.ofConfined()) {
            MemorySegment attr = local.allocate(FiCqAttr.LAYOUT);
            FiCqAttr.size(attr, cqSize);
            FiCqAttr.format(attr, LibFabric.FI_CQ_FORMAT_DATA);
            MemorySegment out = local.allocate(ADDRESS);
            int waitFd = -1;
            FiCqAttr.waitObj(attr, LibFabric.FI_WAIT_FD);
            if (fdWait != null && Fi.fi_cq_open(domain, attr, out) == 0) {
                MemorySegment fd = local.allocate(JAVA_INT);
                fd.set(JAVA_INT, 0, -1);
                MemorySegment opened = out.get(ADDRESS, 0).reinterpret(FidCq.SIZEOF);
                if (Fi.fi_control(opened, LibFabric.FI_GETWAIT, fd) == 0) {
                    waitFd = fd.get(JAVA_INT, 0);
                }
            } else {
                FiCqAttr.waitObj(attr, LibFabric.FI_WAIT_NONE);
                ia.fi.check("fi_cq_open", Fi.fi_cq_open(domain, attr, out));
            }
            MemorySegment cq = out.get(ADDRESS, 0).reinterpret(FidCq.SIZEOF);
            cqs.add(new Cq(domain.address(), cq, Fi.slot(cq, FidCq.OPS, FiOpsCq.READ), waitFd));
            watchCqs();
            return cq;
        } catch (FiException e) {
            throw OfiIa.resources(call, e);
        }
    }

    /** Points {@link #fdWait} at the CQs, when each has a wait descriptor; at none otherwise. */
    private void watchCqs() {
        if (fdWait == null) {
            return;
        }
        int n = 0;
        for (Cq c : cqs) {
            n += c.waitFd() >= 0 ? 1 : 0;
        }
        n = n == cqs.size() ? n : 0;
        MemorySegment[] fids = new MemorySegment[n];
        int[] fds = new int[n];
        for (int i = 0; i < n; i++) {
            fids[i] = cqs.get(i).cq();
            fds[i] = cqs.get(i).waitFd();
        }
        fdWait.watch(fids, fds);
    }

    /**
     * Closes this EVD's CQ on {@code domain}, if any, before the domain goes. Under the IA's lock; no endpoint of the
     * domain is left (the PZ's EPs are freed), so the CQ has nothing more to say.
     */
    void closeCqOn(MemorySegment domain) {
        for (int i = 0; i < cqs.size(); i++) {
            if (cqs.get(i).domain() == domain.address()) {
                drain(cqs.get(i), true);
                Fi.fi_close(cqs.remove(i).cq());
                watchCqs();
                return;
            }
        }
    }

    private void allocate(int qlen) {
        ring = new DatEvent[qlen];
        kinds = new byte[qlen];
        dtoEp = new OfiEp[qlen];
        dtoCookie = new long[qlen];
        dtoStatus = new DatDtoStatus[qlen];
        dtoLength = new long[qlen];
        for (int i = 0; i < qlen; i++) {
            ring[i] = new DatEvent();
        }
    }

    /**
     * Reads every completion the CQ holds and hands each to its EP. Under the IA's lock.
     *
     * @return whether it read any
     */
    boolean drainCq() {
        return drainCq(true);
    }

    /**
     * Reads this EVD's CQs: until a read finds none, or ({@code untilEmpty} false, a consumer's poll) until a read
     * returns less than a batch. Each read is a progress call of the fabric (on tcp an {@code epoll_wait}), so the
     * consumer's poll makes one where it took what the fabric had, as libfabric's own {@code fi_pingpong} does; its
     * next poll reads on. Under the IA's lock.
     *
     * @return whether it read any
     */
    private boolean drainCq(boolean untilEmpty) {
        if (arena == null || (isClosed() && this != ia.orphanCq)) {
            return false;
        }
        drainedIn = ia.steps;
        boolean found = false;
        for (int i = 0; i < cqs.size(); i++) {
            found |= drain(cqs.get(i), untilEmpty);
        }
        return found;
    }

    /** {@return whether this EVD's CQs were read in the IA's current step} Under the IA's lock. */
    boolean drainedThisStep() {
        return drainedIn == ia.steps;
    }

    /**
     * Progresses the endpoints bound to this EVD's CQs without taking a completion (a read of none, which libfabric's
     * CQs answer by running their endpoints' progress first). Under the IA's lock.
     */
    void progressCqs() {
        if (arena == null) {
            return;
        }
        for (int i = 0; i < cqs.size(); i++) {
            Cq c = cqs.get(i);
            Fi.cqRead(c.read(), c.cq().address(), entries.address(), 0);
        }
    }

    /** {@return whether a {@code dat_evd_wait} on this EVD is blocked in its poll (OfiFdWaitTest)} Under the lock. */
    boolean fdPolling() {
        return fdWait != null && fdWait.polling();
    }

    /** {@return how often a sleeping {@code dat_evd_wait} on this EVD woke up} Under the IA's lock. */
    long wakes() {
        return wakes;
    }

    /** Triggers the bound CNO if the EVD is enabled and not freed; on the progress thread, outside the IA's lock. */
    void fireCno() {
        if (!isClosed()) {
            triggerCno();
        }
    }

    /** {@return the events queued and not dequeued} Under the IA's lock. */
    int queued() {
        return count;
    }

    /**
     * {@return when a consumer last read this EVD's CQs itself, or {@link Long#MIN_VALUE} while a {@code dat_evd_wait}
     * sleeps on it (the progress thread reads its CQs then)} Under the IA's lock.
     */
    long polledAt() {
        return sleeping ? Long.MIN_VALUE : polledAt;
    }

    /**
     * The consumer's own progress: this EVD's CQs when it has any (its DTO completions, and for providers with
     * manual progress the progress of the endpoints bound to them), else the IA's whole step. Under the IA's lock.
     */
    private void consumerStep() {
        consumerStep(System.nanoTime(), false);
    }

    /**
     * @param drained whether {@link #drainBeforeStep} read the CQs in this poll and found nothing: the step reads
     *     them no second time (on tcp each read is an {@code epoll_wait})
     */
    private void consumerStep(long now, boolean drained) {
        if (cqs.isEmpty()) {
            ia.progressLocked();
        } else {
            polledAt = now;
            ia.consumerStepBegins(now);
            try {
                if (drained) {
                    // The step the drain began goes on: its CQ reads count as this step's (drainedThisStep).
                    drainedIn = ia.steps;
                } else {
                    ia.steps++;
                    drainCq(false);
                }
                ia.creditProgress(now);
            } finally {
                ia.consumerStepEnds();
            }
        }
    }

    /**
     * A {@code dat_evd_dequeue}'s first read of this EVD's CQs, before its clock reading and credit work: a poll that
     * finds a completion returns it at once (on a 64 B ofi-shm-shm-rdm round trip on one thread, a fifth of the CPU).
     * What the step would have done next waits for the consumer's next poll that finds nothing, which a consumer runs
     * out of events into, or for the poll after {@link #QUICK_POLLS} such polls in a row: the credit word read, held
     * sends released, a due advert written ({@link OfiIa#creditProgress}), and the IA's step when due ({@link
     * OfiIa#stepIfDue}); a consumer that stops polling leaves them to the progress thread, as it does after any
     * poll. An advert falling due here stamps its grace from the last consumer step's clock ({@link
     * OfiIa#consumerDrainBegins}). Under the IA's lock; a new step begins.
     *
     * @return whether it read the CQs
     */
    private boolean drainBeforeStep() {
        if (cqs.isEmpty() || arena == null || isClosed()) {
            return false;
        }
        ia.steps++;
        ia.consumerDrainBegins();
        try {
            drainCq(false);
        } finally {
            ia.consumerStepEnds();
        }
        return true;
    }

    private boolean drain(Cq c, boolean untilEmpty) {
        boolean found = false;
        while (true) {
            long n = Fi.cqRead(c.read(), c.cq().address(), entries.address(), BATCH);
            if (n > 0) {
                found = true;
                for (int i = 0; i < n; i++) {
                    // Offsets into the batch, not a slice and an address segment per entry: whether the JIT
                    // removes those allocations varied from one compilation to the next (OfiNoAllocationTest).
                    long at = i * FiCqDataEntry.SIZEOF;
                    completed(entries.get(JAVA_LONG, at + FiCqDataEntry.OP_CONTEXT), 0, 0,
                            entries.get(JAVA_LONG, at + FiCqDataEntry.LEN),
                            entries.get(JAVA_LONG, at + FiCqDataEntry.FLAGS),
                            entries.get(JAVA_LONG, at + FiCqDataEntry.DATA));
                }
                if (n < BATCH && !untilEmpty) {
                    return true;
                }
                continue;
            }
            if (n == -LibFabric.FI_EAVAIL) {
                err.fill((byte) 0);
                if (Fi.fi_cq_readerr(c.cq(), err) > 0) {
                    found = true;
                    completed(FiCqErrEntry.opContext(err).address(), FiCqErrEntry.err(err),
                            FiCqErrEntry.provErrno(err), FiCqErrEntry.len(err), 0, 0);
                    continue;
                }
            }
            return found;
        }
    }

    private void completed(long context, int error, int provErrno, long length, long flags, long data) {
        OfiEp ep = ia.epsByKey.get((int) (context >>> 32));
        if (OfiConfig.TRACE) {
            OfiConfig.trace("completion ctx 0x" + Long.toHexString(context) + " err " + error + " len " + length
                    + " ep " + ep);
        }
        if (ep != null) {
            ep.data.completed(context, error, provErrno, length, flags, data);
        }
    }

    /** {@return the ring's event to write a non-DTO event into, or {@code null} (see {@link #reserveSlot})} */
    private DatEvent reserve() {
        int slot = reserveSlot(PLAIN);
        return slot < 0 ? null : ring[slot];
    }

    /** {@return the slot of the next event, its kind set, or -1 when the EVD is freed or full (overflow reported)} */
    private int reserveSlot(byte kind) {
        if (isClosed()) {
            return -1;
        }
        if (count == ring.length) {
            OfiEvd async = ia.asyncEvd();
            if (async != this && async != null) {
                async.async(DatEventType.ASYNC_ERROR_EVD_OVERFLOW, this);
            }
            return -1;
        }
        // A compare rather than %: the length is the consumer's qlen, not a power of two, and a division per event
        // is avoidable.
        int slot = head + count;
        if (slot >= ring.length) {
            slot -= ring.length;
        }
        kinds[slot] = kind;
        return slot;
    }

    private void commit() {
        count++;
        // A "Waited" EVD does not notify its CNO: the waiter takes the event (uDAPL 1.2, dat_cno_wait).
        if (cno() != null && !waiting) {
            ia.cnoPending(this);
        }
        if (sleeping) {
            arrived.signal();
            if (fdWait != null) {
                fdWait.wake();
            }
        }
    }

    /** Queues a DTO completion; @return false when it is lost (the EVD full or freed) */
    boolean dto(OfiEp ep, long cookie, DatDtoStatus status, long length, byte kind) {
        int slot = reserveSlot(kind);
        if (slot < 0) {
            return false;
        }
        dtoEp[slot] = ep;
        dtoCookie[slot] = cookie;
        dtoStatus[slot] = status;
        dtoLength[slot] = length;
        commit();
        return true;
    }

    boolean connection(DatEventType type, OfiEp ep, byte[] privateData) {
        DatEvent e = reserve();
        if (e == null) {
            return false;
        }
        e.setConnectionEvent(type, this, ep, privateData);
        commit();
        return true;
    }

    boolean request(DatHandle servicePoint, long connQual, DatCr cr) {
        DatEvent e = reserve();
        if (e == null) {
            return false;
        }
        e.setConnectionRequest(this, servicePoint, connQual, cr);
        commit();
        return true;
    }

    void async(DatEventType type, DatHandle handle) {
        async(type, handle, 0);
    }

    /** Queues an asynchronous event with its {@code DatAsyncReason}. */
    void async(DatEventType type, DatHandle handle, int reason) {
        DatEvent e = reserve();
        if (e != null) {
            e.setAsyncEvent(type, this, handle, reason);
            commit();
        }
    }

    private void take(DatEvent into) {
        int slot = head;
        byte kind = kinds[slot];
        head = slot + 1 == ring.length ? 0 : slot + 1;
        count--;
        if (kind == PLAIN) {
            into.copyFrom(ring[slot]);
            into.nmore(count);
        } else {
            OfiEp ep = dtoEp[slot];
            into.setDtoCompletion(this, ep, dtoCookie[slot], dtoStatus[slot], dtoLength[slot]).nmore(count);
            ep.data.release(kind);
        }
    }

    @Override
    public int dequeue(DatEvent event) {
        ia.lock.lock();
        try {
            int check = checkDequeue(event);
            if (check != DatReturn.DAT_SUCCESS) {
                return check;
            }
            if (waiting) {
                return DatReturn.DAT_INVALID_STATE;
            }
            boolean wanted = ia.stepWanted();
            boolean drained = !wanted && count == 0 && ia.quickPolls < QUICK_POLLS && drainBeforeStep();
            if (!wanted && count > 0) {
                // An event is here, or the poll's first CQ read found one: no more progress is needed to return it,
                // and so no clock (a fifth of a polling consumer's time went to System.nanoTime on ofi-shm-shm-rdm)
                // and no credit work, which a later poll does (drainBeforeStep).
                if (drained) {
                    ia.quickPolls++;
                }
                ia.dequeued();
            } else {
                ia.quickPolls = 0;
                long now = System.nanoTime();
                ia.consumerPolled(now);
                ia.stepIfDue(now);
                if (count == 0) {
                    consumerStep(now, drained);
                    if (count == 0) {
                        return DatReturn.DAT_QUEUE_EMPTY;
                    }
                }
            }
            take(event);
            return DatReturn.DAT_SUCCESS;
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    public int poll(DatEventHandler handler, int limit) {
        return pollByDequeue(handler, limit, polled);
    }

    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        ia.lock.lock();
        try {
            int check = checkAwait(timeoutMicros, event);
            if (check != DatReturn.DAT_SUCCESS) {
                return check;
            }
            if (threshold < 1 || threshold > ring.length) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            // A CNO-bound EVD may be waited on: its waiter preempts the CNO (uDAPL 1.2, dat_cno_wait).
            if (!waitable || waiting) {
                return DatReturn.DAT_INVALID_STATE;
            }
            long deadline = timeoutMicros == Dat.DAT_TIMEOUT_INFINITE ? Long.MAX_VALUE
                    : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
            long abortsBefore = aborts;
            waiting = true;
            try {
                consumerStep();
                long spinUntil = System.nanoTime() + SPIN_NANOS;
                while (count < threshold) {
                    if (aborts != abortsBefore) {
                        return abortedWait();
                    }
                    long now = System.nanoTime();
                    long left = deadline - now;
                    if (left <= 0) {
                        event.nmore(count);
                        return DatReturn.DAT_TIMEOUT_EXPIRED;
                    }
                    if (now - spinUntil < 0 && ia.lock.getHoldCount() == 1) {
                        // A completion due within microseconds is read here rather than after a sleep.
                        ia.lock.unlock();
                        try {
                            Thread.onSpinWait();
                        } finally {
                            ia.lock.lock();
                        }
                        consumerStep();
                        continue;
                    }
                    // Asleep, the progress thread reads this EVD's CQs (polledAt) and wakes it when it queues an
                    // event here; where the CQs have wait descriptors the fabric wakes it itself (OfiFdWait).
                    sleeping = true;
                    ia.waiterSleeps();
                    try {
                        int blocked = fdWait != null && fdWait.watching() && ia.lock.getHoldCount() == 1
                                ? fdWait.block(ia, left) : OfiFdWait.CANNOT;
                        if (blocked == OfiFdWait.CANNOT) {
                            // The bound covers a step the thread skipped; short, it would take the lock from a
                            // polling consumer of another EVD too often.
                            arrived.awaitNanos(Math.min(left, 10_000_000));
                        } else if (Thread.currentThread().isInterrupted()) {
                            return DatReturn.DAT_INTERRUPTED_CALL;
                        }
                    } finally {
                        sleeping = false;
                        wakes++;
                    }
                    if (aborts != abortsBefore) {
                        // Freed (perhaps with its IA, whose fabric may be closed by now): libfabric is not touched.
                        return abortedWait();
                    }
                    ia.progressLocked();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return DatReturn.DAT_INTERRUPTED_CALL;
            } finally {
                waiting = false;
            }
            take(event);
            return DatReturn.DAT_SUCCESS;
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    public int postSoftwareEvent(long pointer) {
        ia.lock.lock();
        try {
            int check = checkPostSoftwareEvent();
            if (check != DatReturn.DAT_SUCCESS) {
                return check;
            }
            if (count == ring.length) {
                return DatReturn.DAT_QUEUE_FULL;
            }
            DatEvent e = reserve();
            e.setSoftwareEvent(this, pointer);
            commit();
            return DatReturn.DAT_SUCCESS;
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    protected void implSetUnwaitable(boolean unwaitable) {
        ia.lock.lock();
        try {
            waitable = !unwaitable;
            if (unwaitable) {
                aborts++;
                arrived.signalAll();
                if (fdWait != null) {
                    fdWait.wake();
                }
            }
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    protected void implResize(int evdMinQlen) {
        ia.lock.lock();
        try {
            requireOpen("dat_evd_resize");
            DatArgs.evdResizeState(evdMinQlen, count);
            DatEvent[] oldRing = ring;
            byte[] oldKinds = kinds;
            OfiEp[] oldEp = dtoEp;
            long[] oldCookie = dtoCookie;
            DatDtoStatus[] oldStatus = dtoStatus;
            long[] oldLength = dtoLength;
            int oldHead = head;
            allocate(evdMinQlen);
            for (int i = 0; i < count; i++) {
                int from = (oldHead + i) % oldRing.length;
                ring[i].copyFrom(oldRing[from]);
                kinds[i] = oldKinds[from];
                dtoEp[i] = oldEp[from];
                dtoCookie[i] = oldCookie[from];
                dtoStatus[i] = oldStatus[from];
                dtoLength[i] = oldLength[from];
            }
            head = 0;
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    public DatEvdParam query() {
        ia.lock.lock();
        try {
            requireOpen("dat_evd_query");
            return param(ring.length, !waitable);
        } finally {
            ia.lock.unlock();
        }
    }

    /** Under the lifecycle lock (the IA's lock). The CQ is closed: every EP bound to it is gone (dependsOn). */
    @Override
    protected void destroy() {
        markClosed();
        aborts++;
        arrived.signalAll();
        if (fdWait != null) {
            fdWait.close();
        }
        if (arena != null) {
            ia.cqEvds.remove(this);
            for (Cq c : cqs) {
                Fi.fi_close(c.cq());
            }
            cqs.clear();
            arena.close();
        }
    }
}
