// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.Dat;
import dat.api.DatCno;
import dat.api.DatEvd;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The provider-independent half of a consumer notification object ({@code dat_cno_create}): the agent, and the
 * wait for the first EVD that triggers. A provider's CNO delegates to one of these and adds its handle
 * bookkeeping; its EVDs call {@link #trigger} when an enabled EVD bound to the CNO receives a signalled event.
 */
public final class CnoCore {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition triggered = lock.newCondition();
    private volatile DatCno.Agent agent;
    /** The first EVD that triggered since the last wait returned; guarded by {@link #lock}. */
    private DatEvd pending;
    /** Guarded by {@link #lock}. */
    private boolean closed;
    /** Bumped by {@link #release} and {@link #close}: a waiter that sees it move returns no EVD; guarded by lock. */
    private long releases;

    /**
     * Creates the core of one CNO.
     *
     * @param agent the agent called on each trigger, or {@code null} to queue triggers for {@link #await}
     */
    public CnoCore(DatCno.Agent agent) {
        this.agent = agent;
    }

    /** {@return the current agent, or {@code null}} */
    public DatCno.Agent agent() {
        return agent;
    }

    /**
     * {@code dat_cno_modify_agent}.
     *
     * @param newAgent the new agent, or {@code null}
     */
    public void modifyAgent(DatCno.Agent newAgent) {
        this.agent = newAgent;
    }

    /**
     * Called by an enabled EVD bound to the CNO, outside the EVD's locks: the agent runs on the caller's thread.
     *
     * @param evd the EVD that triggered
     */
    public void trigger(DatEvd evd) {
        DatCno.Agent a = agent;
        if (a != null) {
            a.triggered(evd);
            return;
        }
        lock.lock();
        try {
            if (pending == null) {
                pending = evd;
            }
            triggered.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Unblocks every waiter with no EVD, and calls the agent, if any, with none: the last EVD bound to the CNO was
     * freed ({@code dat_evd_free}), so nothing can trigger it any more. Called with no lock held.
     */
    public void release() {
        DatCno.Agent a = agent;
        lock.lock();
        try {
            releases++;
            triggered.signalAll();
        } finally {
            lock.unlock();
        }
        if (a != null) {
            a.triggered(null);
        }
    }

    /**
     * The CNO is gone ({@code dat_ia_close}): every waiter returns no EVD, as when its last EVD is freed; a later
     * wait fails with {@code DAT_INVALID_HANDLE}.
     */
    public void close() {
        lock.lock();
        try {
            closed = true;
            releases++;
            triggered.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code dat_cno_wait}.
     *
     * @param timeoutMicros how long to wait, up to {@link Dat#DAT_TIMEOUT_INFINITE}
     * @return the first EVD that triggered, or {@code null} when the wait was unblocked without one: the last EVD
     *     bound to the CNO was freed ({@link #release}), or the CNO with its IA ({@link #close})
     * @throws DatException {@code DAT_QUEUE_EMPTY} on a timeout, {@code DAT_INTERRUPTED_CALL},
     *     {@code DAT_INVALID_HANDLE} when the CNO was closed before, {@code DAT_INVALID_PARAMETER} for a bad
     *     timeout
     */
    public DatEvd await(long timeoutMicros) {
        String call = "dat_cno_wait";
        DatArgs.timeout(call, timeoutMicros, DatReturnSubtype.INVALID_ARG2);
        long deadline = timeoutMicros == Dat.DAT_TIMEOUT_INFINITE ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
        lock.lock();
        try {
            if (closed) {
                throw new DatException(DatReturn.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO,
                        call + ": the CNO handle is closed");
            }
            long releasesBefore = releases;
            while (true) {
                if (pending != null) {
                    DatEvd evd = pending;
                    pending = null;
                    return evd;
                }
                if (releases != releasesBefore) {
                    // uDAPL 1.2: waiters are unblocked with a null evd_handle once no EVD can trigger the CNO.
                    return null;
                }
                long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (left <= 0) {
                    // uDAPL 1.2's dat_cno_wait names DAT_QUEUE_EMPTY for "timed out without a notification".
                    throw new DatException(DatReturn.QUEUE_EMPTY,
                            call + ": no EVD triggered within " + timeoutMicros + " us");
                }
                if (left == Long.MAX_VALUE) {
                    triggered.await();
                } else {
                    triggered.awaitNanos(left);
                }
            }
        } catch (InterruptedException e) {
            // Reported as DAT_INTERRUPTED_CALL, which is how DAT hands the interrupt back to the consumer.
            throw new DatException(DatReturn.INTERRUPTED_CALL, DatReturnSubtype.SUB_INTERRUPTED,
                    call + ": the waiting thread was interrupted", e);
        } finally {
            lock.unlock();
        }
    }
}
