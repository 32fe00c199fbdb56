package dat.provider.loopback.internal;

import dat.api.Dat;
import dat.api.DatAsyncReason;
import dat.api.DatCno;
import dat.api.DatDtoStatus;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvdParam;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatHandle;
import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An event dispatcher ({@code dat_evd_create}): a fixed ring of preallocated {@link DatEvent} slots. Posting
 * an event writes a slot in place and dequeuing copies it out, so neither allocates.
 *
 * <p>Overflow: an event that finds the ring full is lost, and {@link DatEventType#ASYNC_ERROR_EVD_OVERFLOW}
 * (reason {@link DatAsyncReason#EVD_OVERFLOW_ERROR}, handle this EVD) goes to the IA's async EVD once per
 * overflow episode: again only after a dequeue has made room.
 *
 * <p>Signalling: every slot records whether its event is signalled. Unsignalled completions (an
 * {@code UNSIGNALLED} request, or a receive on a {@code SOLICITED_WAIT} EP whose send was not solicited) are
 * queued and dequeued like any other, but a waiter wakes only when at least {@code threshold} events are
 * queued and one of them is signalled, so they never wake it by themselves.
 */
final class LoopbackEvd extends LoopbackHandle implements DatEvd {

    final int flags;
    final boolean isAsync;
    private final LoopbackIa ia;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ready = lock.newCondition();
    /** Serialises {@link #poll} callers, which share {@link #pollEvent}. */
    private final ReentrantLock pollLock = new ReentrantLock();
    private final DatEvent pollEvent = new DatEvent();

    // Guarded by lock.
    private DatEvent[] slots;
    private boolean[] signalled;
    /**
     * Who hears that a completion was reaped: the SRQ its receive buffer came from (the buffer stops being
     * outstanding) or the EP whose request slot it holds.
     */
    private Reaper[] reaperOf;
    private int head;
    private int count;
    private int signalledCount;
    private boolean overflowed;
    private boolean waiting;
    private int waitThreshold;
    private boolean unwaitable;
    private long abortGeneration;

    private volatile boolean enabled = true;
    private volatile LoopbackCno cno;

    LoopbackEvd(LoopbackIa ia, int qlen, LoopbackCno cno, int flags, boolean isAsync) {
        this.ia = ia;
        this.flags = flags;
        this.isAsync = isAsync;
        this.cno = cno;
        allocate(qlen);
    }

    private void allocate(int qlen) {
        slots = new DatEvent[qlen];
        for (int i = 0; i < qlen; i++) {
            slots[i] = new DatEvent();
        }
        signalled = new boolean[qlen];
        reaperOf = new Reaper[qlen];
    }

    @Override
    LoopbackIa owner() {
        return ia;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return isAsync ? DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC : DatReturnSubtype.INVALID_HANDLE1;
    }

    @Override
    DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_EVD_IN_USE;
    }

    @Override
    String freeCall() {
        return "dat_evd_free";
    }

    @Override
    boolean dependsOn(LoopbackHandle other) {
        return other == cno;
    }

    @Override
    public void close() {
        if (isAsync && !isClosed()) {
            throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_ASYNC,
                    "dat_evd_free: the async EVD is freed by dat_ia_close");
        }
        super.close();
    }

    @Override
    void destroy() {
        int reap = 0;
        Reaper[] reapFrom;
        lock.lock();
        try {
            markClosed();
            abortGeneration++;
            ready.signalAll();
            reapFrom = new Reaper[count];
            for (int i = 0; i < count; i++) {
                int slot = (head + i) % slots.length;
                if (reaperOf[slot] != null) {
                    reapFrom[reap++] = reaperOf[slot];
                    reaperOf[slot] = null;
                }
            }
            count = 0;
            signalledCount = 0;
        } finally {
            lock.unlock();
        }
        for (int i = 0; i < reap; i++) {
            reapFrom[i].reaped();
        }
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.EVD;
    }

    // ---- producers (any thread; allocation-free) ----

    /**
     * Opens a post: takes the lock and returns the slot to fill, or -1 (lock released) when the EVD is closed
     * or full. Fullness starts an overflow episode.
     */
    private int begin() {
        lock.lock();
        if (isClosed()) {
            lock.unlock();
            return -1;
        }
        if (count == slots.length) {
            boolean report = !overflowed;
            overflowed = true;
            lock.unlock();
            if (report && !isAsync) {
                ia.async().postAsync(DatEventType.ASYNC_ERROR_EVD_OVERFLOW, this, DatAsyncReason.EVD_OVERFLOW_ERROR);
            }
            return -1;
        }
        return (head + count) % slots.length;
    }

    /** Commits slot {@code i} opened by {@link #begin()}, releases the lock, wakes and triggers. */
    private void commit(int i, boolean sig, Reaper reaper) {
        signalled[i] = sig;
        reaperOf[i] = reaper;
        count++;
        if (sig) {
            signalledCount++;
        }
        if (waiting && count >= waitThreshold && signalledCount > 0) {
            ready.signal();
        }
        LoopbackCno c = cno;
        lock.unlock();
        if (sig && c != null && enabled) {
            c.trigger(this);
        }
    }

    /**
     * Posts a DTO completion.
     *
     * @param reaper told when the event is reaped (at once when it cannot be queued), or {@code null}
     * @return whether the event was queued
     */
    boolean postDto(LoopbackEp ep, long cookie, DatDtoStatus status, long length, boolean sig, Reaper reaper) {
        int i = begin();
        if (i < 0) {
            if (reaper != null) {
                reaper.reaped();
            }
            return false;
        }
        slots[i].setDtoCompletion(this, ep, cookie, status, length);
        commit(i, sig, reaper);
        return true;
    }

    boolean postBind(LoopbackRmr rmr, long cookie, DatDtoStatus status, boolean sig, Reaper reaper) {
        int i = begin();
        if (i < 0) {
            if (reaper != null) {
                reaper.reaped();
            }
            return false;
        }
        slots[i].setRmrBindCompletion(this, rmr, cookie, status);
        commit(i, sig, reaper);
        return true;
    }

    boolean postConnection(DatEventType type, LoopbackEp ep, byte[] privateData) {
        int i = begin();
        if (i < 0) {
            return false;
        }
        slots[i].setConnectionEvent(type, this, ep, privateData);
        commit(i, true, null);
        return true;
    }

    boolean postConnectionRequest(DatHandle sp, long connQual, LoopbackCr cr) {
        int i = begin();
        if (i < 0) {
            return false;
        }
        slots[i].setConnectionRequest(this, sp, connQual, cr);
        commit(i, true, null);
        return true;
    }

    boolean postAsync(DatEventType type, DatHandle handle, int reason) {
        int i = begin();
        if (i < 0) {
            return false;
        }
        slots[i].setAsyncEvent(type, this, handle, reason);
        commit(i, true, null);
        return true;
    }

    @Override
    public int postSoftwareEvent(long pointer) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if ((flags & DatEvdFlags.SOFTWARE) == 0) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        lock.lock();
        if (isClosed()) {
            lock.unlock();
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if (count == slots.length) {
            // dat_evd_post_se: a full queue refuses the event; it is not an overflow.
            lock.unlock();
            return DatReturn.DAT_QUEUE_FULL;
        }
        int i = (head + count) % slots.length;
        slots[i].setSoftwareEvent(this, pointer);
        commit(i, true, null);
        return DatReturn.DAT_SUCCESS;
    }

    // ---- consumers ----

    /** Moves the head event into {@code into}; caller holds the lock and checked {@code count > 0}. */
    private Reaper take(DatEvent into) {
        into.copyFrom(slots[head]);
        Reaper reaper = reaperOf[head];
        reaperOf[head] = null;
        if (signalled[head]) {
            signalledCount--;
        }
        head = (head + 1) % slots.length;
        count--;
        overflowed = false;
        return reaper;
    }

    @Override
    public int dequeue(DatEvent event) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if (event == null) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        Reaper reaper;
        lock.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (waiting) {
                return DatReturn.DAT_INVALID_STATE;
            }
            if (count == 0) {
                return DatReturn.DAT_QUEUE_EMPTY;
            }
            reaper = take(event);
        } finally {
            lock.unlock();
        }
        if (reaper != null) {
            reaper.reaped();
        }
        return DatReturn.DAT_SUCCESS;
    }

    @Override
    public int poll(DatEventHandler handler, int limit) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if (handler == null || limit < 1) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        pollLock.lock();
        try {
            int handled = 0;
            while (handled < limit) {
                Reaper reaper;
                lock.lock();
                try {
                    if (isClosed() || waiting) {
                        if (handled == 0) {
                            return isClosed() ? DatReturn.DAT_INVALID_HANDLE : DatReturn.DAT_INVALID_STATE;
                        }
                        break;
                    }
                    if (count == 0) {
                        break;
                    }
                    reaper = take(pollEvent);
                } finally {
                    lock.unlock();
                }
                if (reaper != null) {
                    reaper.reaped();
                }
                // Outside the EVD lock: the handler may post, which may complete into this EVD.
                handler.onEvent(pollEvent);
                handled++;
            }
            return handled;
        } finally {
            pollLock.unlock();
        }
    }

    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if (event == null || timeoutMicros < 0 || timeoutMicros > Dat.DAT_TIMEOUT_INFINITE) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        Reaper reaper;
        lock.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (threshold < 1 || threshold > slots.length) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            if (unwaitable || cno != null || waiting) {
                return DatReturn.DAT_INVALID_STATE;
            }
            // dat_evd_wait: the threshold counts DTO completions; other EVDs wake on any event.
            int effective = (flags & DatEvdFlags.DTO) != 0 ? threshold : 1;
            long generation = abortGeneration;
            long deadline = timeoutMicros == Dat.DAT_TIMEOUT_INFINITE ? Long.MAX_VALUE
                    : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
            waiting = true;
            waitThreshold = effective;
            try {
                while (count < effective || signalledCount == 0) {
                    if (generation != abortGeneration) {
                        return DatReturn.DAT_ABORT;
                    }
                    long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
                    if (left <= 0) {
                        return DatReturn.DAT_TIMEOUT_EXPIRED;
                    }
                    if (left == Long.MAX_VALUE) {
                        ready.await();
                    } else {
                        ready.awaitNanos(left);
                    }
                }
                if (generation != abortGeneration) {
                    return DatReturn.DAT_ABORT;
                }
            } catch (InterruptedException e) {
                // The interrupt is reported as DAT_INTERRUPTED_CALL: that is the consumer's notification.
                return DatReturn.DAT_INTERRUPTED_CALL;
            } finally {
                waiting = false;
            }
            reaper = take(event);
            event.nmore(count);
        } finally {
            lock.unlock();
        }
        if (reaper != null) {
            reaper.reaped();
        }
        return DatReturn.DAT_SUCCESS;
    }

    // ---- control ----

    @Override
    public void enable() {
        requireOpen("dat_evd_enable");
        enabled = true;
    }

    @Override
    public void disable() {
        requireOpen("dat_evd_disable");
        enabled = false;
    }

    @Override
    public void setUnwaitable() {
        requireOpen("dat_evd_set_unwaitable");
        lock.lock();
        try {
            unwaitable = true;
            abortGeneration++;
            ready.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void clearUnwaitable() {
        requireOpen("dat_evd_clear_unwaitable");
        lock.lock();
        try {
            unwaitable = false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void resize(int evdMinQlen) {
        String call = "dat_evd_resize";
        requireOpen(call);
        int max = ia.iaAttr.maxEvdQlen();
        if (evdMinQlen < 1 || evdMinQlen > max) {
            throw LoopbackIa.invalidParameter(DatReturnSubtype.INVALID_ARG2,
                    call + ": evd_min_qlen " + evdMinQlen + " is outside 1..max_evd_qlen " + max);
        }
        lock.lock();
        try {
            requireOpen(call);
            if (evdMinQlen < count) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                        call + ": evd_min_qlen " + evdMinQlen + " is below the " + count + " queued events");
            }
            DatEvent[] oldSlots = slots;
            boolean[] oldSignalled = signalled;
            Reaper[] oldReapers = reaperOf;
            allocate(evdMinQlen);
            for (int i = 0; i < count; i++) {
                int from = (head + i) % oldSlots.length;
                slots[i].copyFrom(oldSlots[from]);
                signalled[i] = oldSignalled[from];
                reaperOf[i] = oldReapers[from];
            }
            head = 0;
            if (count < slots.length) {
                overflowed = false;
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void modifyCno(DatCno newCno) {
        String call = "dat_evd_modify_cno";
        requireOpen(call);
        ia.lifecycle.lock();
        try {
            LoopbackCno c = newCno == null ? null
                    : ia.own(newCno, LoopbackCno.class, DatReturnSubtype.INVALID_HANDLE_CNO, call, "cno_handle");
            requireOpen(call);
            this.cno = c;
        } finally {
            ia.lifecycle.unlock();
        }
    }

    @Override
    public DatEvdParam query() {
        requireOpen("dat_evd_query");
        lock.lock();
        try {
            int state = (enabled ? DatEvdParam.STATE_ENABLED : DatEvdParam.STATE_DISABLED)
                    | (unwaitable ? DatEvdParam.STATE_UNWAITABLE : DatEvdParam.STATE_WAITABLE);
            return new DatEvdParam(ia, slots.length, state, cno, flags);
        } finally {
            lock.unlock();
        }
    }
}
