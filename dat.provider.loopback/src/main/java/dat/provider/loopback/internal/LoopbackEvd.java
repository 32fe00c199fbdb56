// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.Dat;
import dat.api.DatAsyncReason;
import dat.api.DatDtoStatus;
import dat.api.DatEvdFlags;
import dat.api.DatEvdParam;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatEventType;
import dat.api.DatHandle;
import dat.api.DatReturn;
import dat.spi.AbstractCno;
import dat.spi.AbstractEvd;
import dat.spi.DatArgs;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * An event dispatcher ({@code dat_evd_create}) over an {@link EventRing}: a fixed ring of preallocated
 * {@link DatEvent} slots that any number of threads post into and dequeue from without a lock. Posting writes a
 * slot in place and dequeuing copies it out, so neither allocates, whichever threads are involved.
 *
 * <p>Overflow: an event that finds the ring full is lost (its reaper is told at once), and
 * {@link DatEventType#ASYNC_ERROR_EVD_OVERFLOW} (reason {@link DatAsyncReason#EVD_OVERFLOW_ERROR}, handle this
 * EVD) goes to the IA's async EVD once per overflow episode: again only after a dequeue has made room.
 *
 * <p>Signalling: every slot records whether its event is signalled. Unsignalled completions (an
 * {@code UNSIGNALLED} request, or a receive on a {@code SOLICITED_WAIT} EP whose send was not solicited) are
 * queued and dequeued like any other, but a waiter returns only when at least {@code threshold} events are
 * queued and one of them is signalled, so they never complete a wait by themselves.
 *
 * <p>Waiting ({@code dat_evd_wait}) without lost wake-ups, and without costing producers anything while nobody
 * waits. The waiter registers ({@link #waiter}, then the WAITER flag in the ring's tail), then tests the queue
 * and parks. A producer whose claim saw the WAITER flag publishes with a volatile store, then reads tail and
 * head (volatile) and unparks the waiter when at least the threshold is claimed. Volatile accesses are totally
 * ordered (the JMM's synchronization order), so take the last such publish P of the events the waiter needs:
 * either the waiter's test came after P (and saw every event, P being last) or P's producer read tail and head
 * after the waiter's test, saw every claim (any later claim would publish after P) and so a count of at least the
 * threshold, and unparked it. Events claimed before the flag was set are waited for by the waiter before its
 * first test ({@link EventRing#awaitPublished}). As in AQS, an unpark that precedes a park makes it return at
 * once. Producers never check the condition's signalled half: a waiter woken too early tests again and parks.
 *
 * <p>Consumers: {@link #dequeue}, {@link #poll} and {@link #await} may run on any threads at once; each take
 * is a CAS on the ring's head. While a waiter is registered {@link #dequeue} and {@link #poll} return
 * {@code DAT_INVALID_STATE}; one that checked just before the waiter registered may still take an event, which
 * the waiter then does not see (as if that dequeue had come first).
 *
 * <p>Control ({@link #resize}, {@link #destroy}, unwaitable): serialised by {@link #control}. Resize seals the
 * ring (no claim or take succeeds, in-flight producers are waited for), copies it into a new ring and
 * publishes that with a volatile write of {@link #ring}; data-path callers that meet a sealed ring spin until
 * then. Free seals the ring for good and reaps what is still queued.
 */
final class LoopbackEvd extends AbstractEvd<LoopbackIa> {

    private static final VarHandle WAITER;

    static {
        try {
            WAITER = MethodHandles.lookup().findVarHandle(LoopbackEvd.class, "waiter", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Serialises resize, free and the unwaitable state; never taken on the data path. */
    private final ReentrantLock control = new ReentrantLock();
    /** Each polling thread's holder: poll may run on several threads at once. Allocated once per thread. */
    private final ThreadLocal<DatEvent> pollEvent = ThreadLocal.withInitial(DatEvent::new);

    private volatile EventRing ring;
    /** The thread blocked in {@link #await}, or null; set by CAS so there is at most one. */
    private volatile Thread waiter;
    /** The waiter's effective threshold; written before the WAITER flag, read by producers that saw it. */
    private volatile int waitThreshold;
    private volatile boolean unwaitable;
    /** Bumped (under {@link #control}) by set_unwaitable and free: a waiter that sees it move aborts. */
    private volatile long abortGeneration;

    LoopbackEvd(LoopbackIa ia, int qlen, AbstractCno<LoopbackIa> cno, int flags, boolean isAsync) {
        super(ia, flags, cno, isAsync);
        this.ring = new EventRing(this, qlen);
    }

    @Override
    @SuppressWarnings("NonAtomicVolatileUpdate") // abortGeneration is only written under control
    protected void destroy() {
        EventRing r;
        control.lock();
        try {
            // Closed before sealed: whoever meets the sealed ring reads the closed flag after the seal (a
            // volatile read of the word the seal wrote), so sees it and gives up instead of waiting.
            markClosed();
            abortGeneration++;
            r = ring;
            r.seal();
        } finally {
            control.unlock();
        }
        LockSupport.unpark(waiter);
        // Sealed for good: no take can commit any more, so these events are reaped here and only here.
        r.reapAll();
    }

    /** Spins while {@code r} is sealed by a resize that has not yet installed its new ring. */
    private void awaitResize(EventRing r) {
        for (int spins = 0; ring == r && r.sealed() && !isClosed(); spins++) {
            EventRing.backoff(spins);
        }
    }

    // ---- producers (any thread; lock-free, allocation-free) ----

    /**
     * Handles a failed {@link EventRing#claim}.
     *
     * @return true when the event is dropped (closed or full; an overflow episode opened by this call is
     *     reported), false when the caller must retry on the ring a resize installs
     */
    private boolean dropped(EventRing r, long claim) {
        if (claim == EventRing.SEALED_RING) {
            if (isClosed()) {
                return true;
            }
            awaitResize(r);
            return false;
        }
        if (claim == EventRing.FULL_FIRST && !isAsync()) {
            owner().asyncEvd().postAsync(DatEventType.ASYNC_ERROR_EVD_OVERFLOW, this,
                    DatAsyncReason.EVD_OVERFLOW_ERROR);
        }
        return true;
    }

    /**
     * Publishes a claimed, filled slot, then wakes the waiter, or else triggers the CNO if due: an event claimed
     * while a thread waits in {@code dat_evd_wait} is that waiter's, and a "Waited" EVD does not notify its CNO
     * (uDAPL 1.2, {@code dat_cno_wait}).
     */
    private void publish(EventRing r, long claim, boolean sig, Object reaper) {
        r.publish(claim, sig, reaper);
        if ((claim & EventRing.WAITER) != 0) {
            // Dekker, producer half (see the class comment): publish (volatile) -> read tail and head.
            Thread w = waiter;
            if (w != null && r.queued() >= waitThreshold) {
                LockSupport.unpark(w);
            }
        }
        if (sig && (claim & EventRing.WAITER) == 0) {
            triggerCno();
        }
    }

    /**
     * Posts a DTO completion.
     *
     * @param reaper told when the event is reaped (at once when it cannot be queued), or {@code null}
     * @return whether the event was queued
     */
    boolean postDto(LoopbackEp ep, long cookie, DatDtoStatus status, long length, boolean sig, Reaper reaper) {
        while (true) {
            EventRing r = ring;
            long claim = r.claim(true);
            if (claim >= 0) {
                r.fillDto(claim, ep, cookie, status, length);
                publish(r, claim, sig, reaper);
                return true;
            }
            if (dropped(r, claim)) {
                if (reaper != null) {
                    reaper.reaped();
                }
                return false;
            }
        }
    }

    /**
     * Posts the completion of a receive of {@code ep}'s own queue, naming its position in {@code ring}: the consumer
     * that takes it reads the cookie from the ring and frees the slot ({@link EventRing#take}).
     *
     * @return whether the event was queued; when not, the slot is freed here
     */
    boolean postRecv(LoopbackEp ep, RecvRing recvRing, long position, DatDtoStatus status, long length, boolean sig) {
        while (true) {
            EventRing r = ring;
            long claim = r.claim(true);
            if (claim >= 0) {
                r.fillRecv(claim, ep, position, status, length);
                publish(r, claim, sig, recvRing);
                return true;
            }
            if (dropped(r, claim)) {
                recvRing.release(position);
                return false;
            }
        }
    }

    boolean postBind(LoopbackRmr rmr, long cookie, DatDtoStatus status, boolean sig, Reaper reaper) {
        while (true) {
            EventRing r = ring;
            long claim = r.claim(true);
            if (claim >= 0) {
                r.slot(claim).setRmrBindCompletion(this, rmr, cookie, status);
                publish(r, claim, sig, reaper);
                return true;
            }
            if (dropped(r, claim)) {
                if (reaper != null) {
                    reaper.reaped();
                }
                return false;
            }
        }
    }

    boolean postConnection(DatEventType type, LoopbackEp ep, byte[] privateData) {
        return postControl(e -> e.setConnectionEvent(type, this, ep, privateData));
    }

    boolean postConnectionRequest(DatHandle sp, long connQual, LoopbackCr cr) {
        return postControl(e -> e.setConnectionRequest(this, sp, connQual, cr));
    }

    boolean postAsync(DatEventType type, DatHandle handle, int reason) {
        return postControl(e -> e.setAsyncEvent(type, this, handle, reason));
    }

    /**
     * Posts a control-path event (connection, connection request, asynchronous): always signalled, nothing to reap.
     * The capturing filler allocates, which is fine off the data path; {@link #postDto} and {@link #postBind} spell
     * the same loop out so the data path does not.
     */
    private boolean postControl(Consumer<DatEvent> fill) {
        while (true) {
            EventRing r = ring;
            long claim = r.claim(true);
            if (claim >= 0) {
                fill.accept(r.slot(claim));
                publish(r, claim, true, null);
                return true;
            }
            if (dropped(r, claim)) {
                return false;
            }
        }
    }

    @Override
    public int postSoftwareEvent(long pointer) {
        int check = checkPostSoftwareEvent();
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        while (true) {
            EventRing r = ring;
            // dat_evd_post_se: a full queue refuses the event; it is not an overflow.
            long claim = r.claim(false);
            if (claim >= 0) {
                r.slot(claim).setSoftwareEvent(this, pointer);
                publish(r, claim, true, null);
                return DatReturn.DAT_SUCCESS;
            }
            if (claim == EventRing.FULL) {
                return DatReturn.DAT_QUEUE_FULL;
            }
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            awaitResize(r);
        }
    }

    // ---- consumers (any threads; lock-free, allocation-free) ----

    /**
     * {@inheritDoc}
     *
     * <p>Lock-free: several threads may dequeue at once, each event going to exactly one of them. The holder's
     * content is undefined unless {@code DAT_SUCCESS} is returned (a consumer that loses a race for an event
     * may have copied it already).
     */
    @Override
    public int dequeue(DatEvent event) {
        int check = checkDequeue(event);
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        if (waiter != null) {
            return DatReturn.DAT_INVALID_STATE;
        }
        while (true) {
            EventRing r = ring;
            Reaper reaper = r.take(event);
            if (reaper == EventRing.EMPTY) {
                return DatReturn.DAT_QUEUE_EMPTY;
            }
            if (reaper != EventRing.SEALED_MARK) {
                if (reaper != EventRing.NO_REAPER) {
                    reaper.reaped();
                }
                return DatReturn.DAT_SUCCESS;
            }
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            awaitResize(r);
        }
    }

    @Override
    public int poll(DatEventHandler handler, int limit) {
        int check = checkPoll(handler, limit);
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        DatEvent holder = pollEvent.get();
        int handled = 0;
        while (handled < limit) {
            if (isClosed() || waiter != null) {
                if (handled == 0) {
                    return isClosed() ? DatReturn.DAT_INVALID_HANDLE : DatReturn.DAT_INVALID_STATE;
                }
                break;
            }
            EventRing r = ring;
            Reaper reaper = r.take(holder);
            if (reaper == EventRing.EMPTY) {
                break;
            }
            if (reaper == EventRing.SEALED_MARK) {
                awaitResize(r);
                continue;
            }
            if (reaper != EventRing.NO_REAPER) {
                reaper.reaped();
            }
            // No lock is held: the handler may post, which may complete into this EVD.
            handler.onEvent(holder);
            handled++;
        }
        return handled;
    }

    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        int check = checkAwait(timeoutMicros, event);
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        if (threshold < 1 || threshold > ring.capacity()) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        // A CNO-bound EVD may be waited on: its waiter preempts the CNO (uDAPL 1.2, dat_cno_wait).
        if (unwaitable) {
            return DatReturn.DAT_INVALID_STATE;
        }
        Thread me = Thread.currentThread();
        if (!WAITER.compareAndSet(this, (Thread) null, me)) {
            return DatReturn.DAT_INVALID_STATE;
        }
        // dat_evd_wait: the threshold counts DTO completions; other EVDs wake on any event.
        int effective = (flags() & DatEvdFlags.DTO) != 0 ? threshold : 1;
        waitThreshold = effective;
        Reaper reaper;
        try {
            // Registered (volatile) before reading the generation and the flag, while set_unwaitable writes the
            // flag and the generation before reading the waiter: either we see the flag, or it sees us and
            // unparks us, and we see the new generation.
            long generation = abortGeneration;
            if (unwaitable) {
                return DatReturn.DAT_INVALID_STATE;
            }
            if (!markWaiter()) {
                return DatReturn.DAT_ABORT;
            }
            long deadline = timeoutMicros == Dat.DAT_TIMEOUT_INFINITE ? Long.MAX_VALUE
                    : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
            while (true) {
                if (generation != abortGeneration) {
                    return abortedWait();
                }
                EventRing r = ring;
                if (r.ready(effective)) {
                    reaper = r.take(event);
                    if (reaper == EventRing.SEALED_MARK) {
                        awaitResize(r);
                        continue;
                    }
                    if (reaper != EventRing.EMPTY) {
                        event.nmore(r.queued());
                        break;
                    }
                    // A dequeue that checked before we registered took it: test again.
                    continue;
                }
                long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (left <= 0) {
                    return DatReturn.DAT_TIMEOUT_EXPIRED;
                }
                if (Thread.interrupted()) {
                    // Reported as DAT_INTERRUPTED_CALL: that is the consumer's notification.
                    return DatReturn.DAT_INTERRUPTED_CALL;
                }
                if (left == Long.MAX_VALUE) {
                    LockSupport.park(this);
                } else {
                    LockSupport.parkNanos(this, left);
                }
            }
        } finally {
            clearWaiter();
            waiter = null;
        }
        if (reaper != EventRing.NO_REAPER) {
            reaper.reaped();
        }
        return DatReturn.DAT_SUCCESS;
    }

    /**
     * Sets the WAITER flag on the current ring, then waits for events claimed before it to be published, so the
     * waiter's first test sees them (their producers did not see the flag and will not wake it).
     *
     * @return false when the EVD was freed
     */
    private boolean markWaiter() {
        while (true) {
            EventRing r = ring;
            long before = r.markWaiter();
            if (before != EventRing.SEALED_RING) {
                r.awaitPublished(before);
                return true;
            }
            if (isClosed()) {
                return false;
            }
            awaitResize(r);
        }
    }

    /** Clears the WAITER flag on whichever ring is current (a resize carries it over). */
    private void clearWaiter() {
        while (true) {
            EventRing r = ring;
            if (r.clearWaiter() || isClosed()) {
                return;
            }
            awaitResize(r);
        }
    }

    // ---- control ----

    @Override
    @SuppressWarnings("NonAtomicVolatileUpdate") // abortGeneration is only written under control
    protected void implSetUnwaitable(boolean value) {
        control.lock();
        try {
            unwaitable = value;
            if (value) {
                abortGeneration++;
            }
        } finally {
            control.unlock();
        }
        if (value) {
            // Read after the writes above (Dekker with await's register-then-check).
            LockSupport.unpark(waiter);
        }
    }

    @Override
    protected void implResize(int evdMinQlen) {
        String call = "dat_evd_resize";
        // Allocated before sealing, so producers and consumers are held up only by the copy.
        EventRing fresh = new EventRing(this, evdMinQlen);
        control.lock();
        try {
            requireOpen(call);
            EventRing old = ring;
            old.seal();
            int count = old.sealedCount();
            if (evdMinQlen < count) {
                old.unseal();
                DatArgs.evdResizeState(evdMinQlen, count);
            }
            old.moveTo(fresh);
            // Volatile write: whoever reads the new ring sees it filled (moveTo's plain stores come first).
            ring = fresh;
        } finally {
            control.unlock();
        }
        // A waiter parked on the old ring tests the new one.
        LockSupport.unpark(waiter);
    }

    @Override
    public DatEvdParam query() {
        requireOpen("dat_evd_query");
        control.lock();
        try {
            return param(ring.capacity(), unwaitable);
        } finally {
            control.unlock();
        }
    }
}
