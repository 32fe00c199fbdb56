// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.Dat;
import dat.api.DatCno;
import dat.api.DatCr;
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
import dat.spi.DatArgs;
import java.util.concurrent.TimeUnit;

/**
 * An event dispatcher ({@code dat_evd_create}): a ring of preallocated {@link DatEvent}s, so queuing and dequeuing
 * allocate nothing. A DTO completion holds its EP's queue slot until the consumer dequeues it, as DAT counts an
 * unreaped completion as outstanding. A full EVD loses the event and says so on the IA's async EVD.
 */
final class ExampleEvd extends ExampleHandle implements DatEvd {

    /** What a queued event releases when dequeued: nothing, a request slot or a receive slot of its EP. */
    static final byte PLAIN = 0;
    static final byte REQUEST = 1;
    static final byte RECV = 2;

    private final int flags;
    private DatEvent[] ring;
    private byte[] kinds;
    private int head;
    private int count;
    private boolean enabled = true;
    private boolean waitable = true;
    private boolean waiting;
    /** Bumped by {@link #setUnwaitable} and {@link #destroy}: a waiter that sees it move returns DAT_ABORT. */
    private long aborts;
    /** Reused by {@link #poll}, so polling allocates nothing either. */
    private final DatEvent polled = new DatEvent();

    ExampleEvd(ExampleIa ia, int qlen, int flags) {
        super(ia);
        this.flags = flags;
        allocate(qlen);
    }

    private void allocate(int qlen) {
        ring = new DatEvent[qlen];
        kinds = new byte[qlen];
        for (int i = 0; i < qlen; i++) {
            ring[i] = new DatEvent();
        }
    }

    int flags() {
        return flags;
    }

    /** {@return the next free slot to fill, or {@code null} when the EVD is full (the overflow is then reported)} */
    private DatEvent reserve(byte kind) {
        if (isClosed()) {
            return null;
        }
        if (count == ring.length) {
            ExampleEvd async = ia.asyncEvdInternal();
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
            ((ExampleEp) e.ep()).release(kind);
        }
    }

    @Override
    public int dequeue(DatEvent event) {
        Fabric.LOCK.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (event == null) {
                return DatReturn.DAT_INVALID_PARAMETER;
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
        if (handler == null || limit < 1) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        int handled = 0;
        while (handled < limit) {
            int rc = dequeue(polled);
            if (rc == DatReturn.DAT_QUEUE_EMPTY) {
                break;
            }
            if (rc != DatReturn.DAT_SUCCESS) {
                return handled > 0 ? handled : rc;
            }
            // Outside the lock: the handler may post, which takes it again.
            handler.onEvent(polled);
            handled++;
        }
        return handled;
    }

    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        Fabric.LOCK.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (event == null || timeoutMicros < 0 || threshold < 1 || threshold > ring.length) {
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
                        return DatReturn.DAT_ABORT;
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
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if ((flags & DatEvdFlags.SOFTWARE) == 0) {
                return DatReturn.DAT_INVALID_PARAMETER;
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
    public void enable() {
        setEnabled("dat_evd_enable", true);
    }

    @Override
    public void disable() {
        setEnabled("dat_evd_disable", false);
    }

    private void setEnabled(String call, boolean value) {
        Fabric.LOCK.lock();
        try {
            requireOpen(call);
            enabled = value;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public void setUnwaitable() {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_evd_set_unwaitable");
            waitable = false;
            aborts++;
            Fabric.CHANGED.signalAll();
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public void clearUnwaitable() {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_evd_clear_unwaitable");
            waitable = true;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public void resize(int evdMinQlen) {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_evd_resize");
            DatArgs.evdResize(ia.query(), evdMinQlen);
            if (evdMinQlen < count) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                        "dat_evd_resize: evd_qlen " + evdMinQlen + " is below the " + count + " queued events");
            }
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
    public void modifyCno(DatCno cno) {
        requireOpen("dat_evd_modify_cno");
        if (cno != null) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, "dat_evd_modify_cno: provider "
                    + ExampleProvider.NAME + " has no CNOs");
        }
    }

    @Override
    public DatEvdParam query() {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_evd_query");
            int state = (enabled ? DatEvdParam.STATE_ENABLED : DatEvdParam.STATE_DISABLED)
                    | (waitable ? DatEvdParam.STATE_WAITABLE : DatEvdParam.STATE_UNWAITABLE);
            return new DatEvdParam(ia, ring.length, state, null, flags);
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.EVD;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return (flags & DatEvdFlags.ASYNC) != 0 ? DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC
                : DatReturnSubtype.NO_SUBTYPE;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_EVD_IN_USE;
    }

    @Override
    protected String freeCall() {
        return "dat_evd_free";
    }

    /** The async EVD lives as long as its IA: {@code dat_ia_close} frees it. */
    @Override
    protected void checkFree() {
        if ((flags & DatEvdFlags.ASYNC) != 0) {
            throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_IN_USE,
                    "dat_evd_free: the async EVD belongs to IA " + ia.name() + "; dat_ia_close frees it");
        }
    }

    @Override
    protected void destroy() {
        markClosed();
        aborts++;
        Fabric.CHANGED.signalAll();
    }
}
