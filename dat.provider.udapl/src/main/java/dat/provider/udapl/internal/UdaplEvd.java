// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;

import dat.api.DatEvdFlags;
import dat.api.DatEvdParam;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatReturn;
import dat.provider.udapl.internal.ffm.DatStatus;
import dat.provider.udapl.internal.ffm.DatStructs;
import dat.spi.AbstractCno;
import dat.spi.AbstractEvd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An event dispatcher ({@code dat_evd_create}, or the IA's async EVD): the C EVD, whose events
 * {@link UdaplEvents} translates into the consumer's {@link DatEvent}.
 *
 * <p><b>Locks.</b> {@code dat_evd_dequeue}, {@code dat_evd_post_se}, {@code dat_evd_resize}, {@code dat_evd_query}
 * and the unwaitable calls run under the IA's lock. {@code dat_evd_wait} must not hold it while C blocks, so it runs
 * in {@link UdaplWait} slices, each under this EVD's fair {@link #use} lock only, which it holds while C fills the
 * event scratch and the translation reads it; the EVD's free (and an EP's free) takes {@link #use} after marking the
 * EVD closed, so C never sees the handle of a freed EVD, and the next slice sees the EVD closed.
 */
final class UdaplEvd extends AbstractEvd<UdaplIa> {

    /** The async EVD's flags. */
    static final int ASYNC_FLAG = DatEvdFlags.ASYNC;

    /** DAT 2.0's {@code DAT_INVALID_HANDLE}, what a slice answers once the EVD is freed. */
    private static final int C_INVALID_HANDLE = 0x80050000;
    /**
     * DAT 2.0's {@code DAT_INVALID_STATE} with no subtype: what OFA's {@code dapl_evd_wait} returns to a waiter that
     * {@code dat_evd_set_unwaitable} woke ({@code udapl/dapl_evd_wait.c}), so a waiter the bridge finds made
     * unwaitable between two slices gets the same answer as one C woke inside a slice.
     */
    private static final int C_UNWAITABLE = 0x80070000;
    /** DAT 2.0's {@code DAT_TIMEOUT_EXPIRED}. */
    private static final int C_TIMEOUT = 0x800F0000;
    private static final long EVENT_NUMBER = offset(DatStructs.DAT_EVENT, "event_number");
    private static final long EVENT_DATA = offset(DatStructs.DAT_EVENT, "event_data");

    private static final System.Logger LOG = System.getLogger("dat.provider.udapl");

    /** The C handle. */
    final MemorySegment handle;
    private final UdaplIa ia;
    /** Guards the C wait and {@link #scratch}; fair, so a free is not starved by a waiter's next slice. */
    final ReentrantLock use = new ReentrantLock(true);
    /** Where C writes the event; read under {@link #use}. */
    private final MemorySegment scratch;
    private final MemorySegment nmore;
    /** The software event {@code dat_evd_post_se} posts; under the IA's lock. */
    private final MemorySegment posted;
    private final UdaplEvents.Refusal refusal = new UdaplEvents.Refusal();
    private final DatEvent polled = new DatEvent();
    private final AtomicBoolean waiting = new AtomicBoolean();
    private volatile boolean unwaitable;

    UdaplEvd(UdaplIa ia, MemorySegment handle, int flags, UdaplCno cno, boolean isAsync) {
        super(ia, flags, cno, isAsync);
        this.ia = ia;
        this.handle = handle;
        Arena arena = ia.arena;
        this.scratch = arena.allocate(DatStructs.DAT_EVENT);
        this.nmore = arena.allocate(ValueLayout.JAVA_INT);
        this.posted = arena.allocate(DatStructs.DAT_EVENT);
    }

    /** Under the IA's lock; waits out a C wait in progress (one slice at most), then frees the C EVD. */
    @Override
    protected void destroy() {
        markClosed();
        use.lock();
        try {
            ia.untrack(handle.address());
            if (!isAsync()) {
                ia.freed("dat_evd_free", ia.lib.evdFree(handle));
            }
        } finally {
            use.unlock();
        }
    }

    /**
     * Translates the event C wrote into {@link #scratch}; {@link #use} held.
     *
     * @return {@code DAT_SUCCESS}, {@code DAT_QUEUE_EMPTY} when it named a freed object (dropped), or
     *     {@code DAT_INTERNAL_ERROR} for an event DAT 1.2 cannot carry
     */
    private int translate(DatEvent event) {
        if (UdaplEvents.translate(scratch, this, ia, event, refusal)) {
            return DatReturn.DAT_SUCCESS;
        }
        if (refusal.unknownHandle()) {
            return DatReturn.DAT_QUEUE_EMPTY;
        }
        // The data path returns a status and cannot carry the reason: it goes to the log, so OFA's behaviour stays
        // visible rather than becoming a bare DAT_INTERNAL_ERROR.
        LOG.log(System.Logger.Level.WARNING, "dat_evd_dequeue/dat_evd_wait: an event C delivered is refused: "
                + refusal.reason());
        return DatReturn.DAT_INTERNAL_ERROR;
    }

    /** {@return why the last event was refused, or {@code null}} */
    String lastRefusal() {
        return refusal.reason();
    }

    /** {@code dat_evd_dequeue}. */
    @Override
    public int dequeue(DatEvent event) {
        int check = checkDequeue(event);
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        ia.lock.lock();
        use.lock();
        try {
            while (true) {
                if (isClosed()) {
                    return DatReturn.DAT_INVALID_HANDLE;
                }
                int rc = ia.lib.evdDequeue(handle, scratch);
                if (!DatStatus.ok(rc)) {
                    return UdaplIa.status(rc);
                }
                int t = translate(event);
                if (t != DatReturn.DAT_QUEUE_EMPTY) {
                    return t;
                }
            }
        } finally {
            use.unlock();
            ia.lock.unlock();
        }
    }

    /** {@link #dequeue} up to {@code limit} times. */
    @Override
    public int poll(DatEventHandler handler, int limit) {
        return pollByDequeue(handler, limit, polled);
    }

    /**
     * {@code dat_evd_wait} in {@link UdaplWait} slices; one waiter at a time ({@code DAT_INVALID_STATE} for a
     * second, as DAT says).
     */
    @Override
    public int await(long timeoutMicros, int threshold, DatEvent event) {
        int check = checkAwait(timeoutMicros, event);
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        if (!waiting.compareAndSet(false, true)) {
            return DatReturn.DAT_INVALID_STATE;
        }
        try {
            boolean[] first = {true};
            int[] translated = {DatReturn.DAT_SUCCESS};
            int rc = UdaplWait.await(slice -> {
                use.lock();
                try {
                    if (isClosed()) {
                        return C_INVALID_HANDLE;
                    }
                    if (!first[0] && unwaitable) {
                        return C_UNWAITABLE;
                    }
                    first[0] = false;
                    nmore.set(ValueLayout.JAVA_INT, 0, 0);
                    int c = ia.lib.evdWait(handle, slice, threshold, scratch, nmore);
                    if (DatStatus.ok(c)) {
                        translated[0] = translate(event);
                        if (translated[0] == DatReturn.DAT_QUEUE_EMPTY) {
                            // A dropped event of a freed object: wait on, as if it never came.
                            return C_TIMEOUT;
                        }
                    }
                    // After the translation, which resets the holder: dapl_evd_wait writes nmore on a timeout too.
                    event.nmore(nmore.get(ValueLayout.JAVA_INT, 0));
                    return c;
                } finally {
                    use.unlock();
                }
            }, timeoutMicros, UdaplWait.SLICE_MICROS);
            if (rc == DatReturn.DAT_INTERRUPTED_CALL) {
                return rc;
            }
            return DatStatus.ok(rc) ? translated[0] : UdaplIa.status(rc);
        } finally {
            waiting.set(false);
        }
    }

    /** {@code dat_evd_post_se}. */
    @Override
    public int postSoftwareEvent(long pointer) {
        ia.lock.lock();
        try {
            int check = checkPostSoftwareEvent();
            if (check != DatReturn.DAT_SUCCESS) {
                return check;
            }
            posted.fill((byte) 0);
            posted.set(ValueLayout.JAVA_INT, EVENT_NUMBER, DatStructs.DAT_SOFTWARE_EVENT);
            posted.set(ValueLayout.JAVA_LONG, EVENT_DATA, pointer);
            return UdaplIa.status(ia.lib.evdPostSe(handle, posted));
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    protected void implSetUnwaitable(boolean set) {
        ia.lock.lock();
        try {
            requireOpen(set ? "dat_evd_set_unwaitable" : "dat_evd_clear_unwaitable");
            if (set) {
                unwaitable = true;
                UdaplIa.check("dat_evd_set_unwaitable", ia.lib.evdSetUnwaitable(handle));
            } else {
                UdaplIa.check("dat_evd_clear_unwaitable", ia.lib.evdClearUnwaitable(handle));
                unwaitable = false;
            }
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_evd_enable}/{@code _disable} in C too: C decides whether the EVD triggers its CNO. */
    @Override
    protected void implEnable(boolean enable) {
        ia.lock.lock();
        try {
            String call = enable ? "dat_evd_enable" : "dat_evd_disable";
            requireOpen(call);
            UdaplIa.check(call, enable ? ia.lib.evdEnable(handle) : ia.lib.evdDisable(handle));
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_evd_modify_cno} in C, the IA's lock held (the shell's lifecycle lock). */
    @Override
    protected void implModifyCno(AbstractCno<UdaplIa> newCno) {
        MemorySegment c = newCno == null ? MemorySegment.NULL : ((UdaplCno) newCno).handle;
        UdaplIa.check("dat_evd_modify_cno", ia.lib.evdModifyCno(handle, c));
        setCno(newCno);
    }

    @Override
    protected void implResize(int evdMinQlen) {
        ia.lock.lock();
        try {
            requireOpen("dat_evd_resize");
            UdaplIa.check("dat_evd_resize", ia.lib.evdResize(handle, evdMinQlen));
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_evd_query}: the queue length C reports. */
    @Override
    public DatEvdParam query() {
        ia.lock.lock();
        try (Arena local = Arena.ofConfined()) {
            requireOpen("dat_evd_query");
            MemorySegment param = local.allocate(DatStructs.DAT_EVD_PARAM);
            UdaplIa.check("dat_evd_query", ia.lib.evdQuery(handle, 0x3f, param));
            int qlen = param.get(ValueLayout.JAVA_INT, offset(DatStructs.DAT_EVD_PARAM, "evd_qlen"));
            return param(qlen, unwaitable);
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "UdaplEvd[0x" + Integer.toHexString(flags()) + (isClosed() ? ", closed]" : "]");
    }
}
