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

    /** Wakes every waiter, which then fails with {@code DAT_INVALID_HANDLE} ({@code dat_cno_free}). */
    public void close() {
        lock.lock();
        try {
            closed = true;
            triggered.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code dat_cno_wait}.
     *
     * @param timeoutMicros how long to wait, up to {@link Dat#DAT_TIMEOUT_INFINITE}
     * @return the first EVD that triggered
     * @throws DatException {@code DAT_TIMEOUT_EXPIRED}, {@code DAT_INTERRUPTED_CALL}, {@code DAT_INVALID_HANDLE}
     *     when the CNO is freed, {@code DAT_INVALID_PARAMETER} for a bad timeout
     */
    public DatEvd await(long timeoutMicros) {
        String call = "dat_cno_wait";
        DatArgs.timeout(call, timeoutMicros, DatReturnSubtype.INVALID_ARG2);
        long deadline = timeoutMicros == Dat.DAT_TIMEOUT_INFINITE ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
        lock.lock();
        try {
            while (true) {
                if (closed) {
                    throw new DatException(DatReturn.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_CNO,
                            call + ": the CNO handle is closed");
                }
                if (pending != null) {
                    DatEvd evd = pending;
                    pending = null;
                    return evd;
                }
                long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (left <= 0) {
                    throw new DatException(DatReturn.TIMEOUT_EXPIRED,
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
