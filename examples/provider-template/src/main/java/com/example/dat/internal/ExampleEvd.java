// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

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
import dat.spi.AbstractCno;
import dat.spi.AbstractEvd;
import dat.spi.DatArgs;
import java.util.concurrent.TimeUnit;

/**
 * An event dispatcher ({@code dat_evd_create}): a ring of preallocated {@link DatEvent}s, so queuing and dequeuing
 * allocate nothing. A DTO completion holds its EP's queue slot until the consumer dequeues it, as DAT counts an
 * unreaped completion as outstanding. A full EVD loses the event and says so on the IA's async EVD.
 *
 * <p>The shell ({@link AbstractEvd}) holds the flags and the enabled state, answers {@code dat_evd_enable},
 * {@code dat_evd_disable}, {@code dat_evd_modify_cno} and the free of the async EVD, and opens each call here with
 * its checks; this class keeps the queue and the wait.
 */
final class ExampleEvd extends AbstractEvd<ExampleIa> {

    /** What a queued event releases when dequeued: nothing, a request slot or a receive slot of its EP. */
    static final byte PLAIN = 0;
    static final byte REQUEST = 1;
    static final byte RECV = 2;

    private DatEvent[] ring;
    private byte[] kinds;
    private int head;
    private int count;
    private boolean waitable = true;
    private boolean waiting;
    /** Bumped by {@link #setUnwaitable} and {@link #destroy}: a waiter that sees it move ends. */
    private long aborts;
    /** Reused by {@link #poll}, so polling allocates nothing either. */
    private final DatEvent polled = new DatEvent();
    /** Triggers the bound CNO, on {@link Fabric#TIMER}'s thread: one instance, so a trigger allocates no task. */
    private final Runnable fireTask = this::fireCno;

    ExampleEvd(ExampleIa ia, int qlen, int flags, AbstractCno<ExampleIa> cno) {
        super(ia, flags, cno, (flags & DatEvdFlags.ASYNC) != 0);
        allocate(qlen);
    }

    private void allocate(int qlen) {
        ring = new DatEvent[qlen];
        kinds = new byte[qlen];
        for (int i = 0; i < qlen; i++) {
            ring[i] = new DatEvent();
        }
    }

    /** {@return the next free slot to fill, or {@code null} when the EVD is full (the overflow is then reported)} */
    private DatEvent reserve(byte kind) {
        if (isClosed()) {
            return null;
        }
        if (count == ring.length) {
            ExampleEvd async = owner().asyncEvd();
            if (async != this) {
                async.async(DatEventType.ASYNC_ERROR_EVD_OVERFLOW, this);
            }
            return null;
        }
        int slot = (head + count) % ring.length;
        kinds[slot] = kind;
        return ring[slot];
    }

    private void commit() {
        count++;
        Fabric.CHANGED.signalAll();
        // A "Waited" EVD does not notify its CNO: the waiter takes the event (uDAPL 1.2, dat_cno_wait).
        if (cno() != null && !waiting) {
            // The lock is held here and an agent may call DAT: the trigger runs on the timer's thread instead.
            Fabric.TIMER.execute(fireTask);
        }
    }

    /** Triggers the bound CNO if the EVD is still open and enabled; outside {@link Fabric#LOCK}. */
    private void fireCno() {
        if (!isClosed()) {
            triggerCno();
        }
    }

    /** Queues a DTO completion; @return false when the EVD was full and the completion is lost */
    boolean dto(ExampleEp ep, long cookie, DatDtoStatus status, long length, byte kind) {
        DatEvent e = reserve(kind);
        if (e == null) {
            return false;
        }
        e.setDtoCompletion(this, ep, cookie, status, length);
        commit();
        return true;
    }

    /** Queues a connection event; @return false when it was lost */
    boolean connection(DatEventType type, ExampleEp ep, byte[] privateData) {
        DatEvent e = reserve(PLAIN);
        if (e == null) {
            return false;
        }
        e.setConnectionEvent(type, this, ep, privateData);
        commit();
        return true;
    }

    /** Queues a connection request; @return false when it was lost */
    boolean request(DatHandle servicePoint, long connQual, DatCr cr) {
        DatEvent e = reserve(PLAIN);
        if (e == null) {
            return false;
        }
        e.setConnectionRequest(this, servicePoint, connQual, cr);
        commit();
        return true;
    }

    void async(DatEventType type, DatHandle handle) {
        DatEvent e = reserve(PLAIN);
        if (e != null) {
            e.setAsyncEvent(type, this, handle, 0);
            commit();
        }
    }

    /** Takes the head event into {@code into}, releasing its EP slot; the lock is held and the EVD not empty. */
    private void take(DatEvent into) {
        DatEvent e = ring[head];
        byte kind = kinds[head];
        into.copyFrom(e);
        head = (head + 1) % ring.length;
        count--;
        into.nmore(count);
        if (kind != PLAIN) {
            ((ExampleEp) e.ep()).data.release(kind);
        }
    }

    @Override
    public int dequeue(DatEvent event) {
        Fabric.LOCK.lock();
        try {
            int check = checkDequeue(event);
            if (check != DatReturn.DAT_SUCCESS) {
                return check;
            }
            if (waiting) {
                return DatReturn.DAT_INVALID_STATE;
            }
            if (count == 0) {
                return DatReturn.DAT_QUEUE_EMPTY;
            }
            take(event);
            return DatReturn.DAT_SUCCESS;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public int poll(DatEventHandler handler, int limit) {
        // dequeue takes and releases the lock per event: the handler runs outside it and may post.
        return pollByDequeue(handler, limit, polled);
    }

    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        Fabric.LOCK.lock();
        try {
            int check = checkAwait(timeoutMicros, event);
            if (check != DatReturn.DAT_SUCCESS) {
                return check;
            }
            if (threshold < 1 || threshold > ring.length) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            if (!waitable || waiting) {
                return DatReturn.DAT_INVALID_STATE;
            }
            long deadline = timeoutMicros == Dat.DAT_TIMEOUT_INFINITE ? Long.MAX_VALUE
                    : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
            long abortsBefore = aborts;
            waiting = true;
            try {
                while (count < threshold) {
                    if (aborts != abortsBefore) {
                        return abortedWait();
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        event.nmore(count);
                        return DatReturn.DAT_TIMEOUT_EXPIRED;
                    }
                    Fabric.CHANGED.awaitNanos(left);
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
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public int postSoftwareEvent(long pointer) {
        Fabric.LOCK.lock();
        try {
            int check = checkPostSoftwareEvent();
            if (check != DatReturn.DAT_SUCCESS) {
                return check;
            }
            if (count == ring.length) {
                return DatReturn.DAT_QUEUE_FULL;
            }
            DatEvent e = reserve(PLAIN);
            e.setSoftwareEvent(this, pointer);
            commit();
            return DatReturn.DAT_SUCCESS;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    protected void implSetUnwaitable(boolean unwaitable) {
        Fabric.LOCK.lock();
        try {
            waitable = !unwaitable;
            if (unwaitable) {
                aborts++;
                Fabric.CHANGED.signalAll();
            }
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    protected void implResize(int evdMinQlen) {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_evd_resize");
            DatArgs.evdResizeState(evdMinQlen, count);
            DatEvent[] oldRing = ring;
            byte[] oldKinds = kinds;
            int oldHead = head;
            allocate(evdMinQlen);
            for (int i = 0; i < count; i++) {
                int from = (oldHead + i) % oldRing.length;
                ring[i].copyFrom(oldRing[from]);
                kinds[i] = oldKinds[from];
            }
            head = 0;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public DatEvdParam query() {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_evd_query");
            return param(ring.length, !waitable);
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    protected void destroy() {
        markClosed();
        aborts++;
        Fabric.CHANGED.signalAll();
    }
}
