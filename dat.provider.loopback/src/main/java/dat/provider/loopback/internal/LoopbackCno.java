package dat.provider.loopback.internal;

import dat.api.Dat;
import dat.api.DatCno;
import dat.api.DatCnoParam;
import dat.api.DatEvd;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A consumer notification object ({@code dat_cno_create}): enabled EVDs bound to it trigger it when a
 * signalled event arrives. With an agent, the agent is called on the thread that produced the event (the
 * posting thread: it must not block or post on the data path of the same connection); without one, a
 * thread in {@link #await} wakes with the EVD.
 */
final class LoopbackCno extends LoopbackHandle implements DatCno {

    private final LoopbackIa ia;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition triggered = lock.newCondition();
    private volatile Agent agent;
    /** The first EVD that triggered since the last wait returned; guarded by {@link #lock}. */
    private LoopbackEvd pending;

    LoopbackCno(LoopbackIa ia, Agent agent) {
        this.ia = ia;
        this.agent = agent;
    }

    @Override
    LoopbackIa owner() {
        return ia;
    }

    @Override
    DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_CNO;
    }

    @Override
    DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_CNO_IN_USE;
    }

    @Override
    String freeCall() {
        return "dat_cno_free";
    }

    @Override
    void destroy() {
        lock.lock();
        try {
            markClosed();
            triggered.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.CNO;
    }

    /** Called by an enabled EVD bound to this CNO, outside the EVD's lock. */
    void trigger(LoopbackEvd evd) {
        Agent a = agent;
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

    @Override
    public DatEvd await(long timeoutMicros) {
        String call = "dat_cno_wait";
        requireOpen(call);
        if (timeoutMicros < 0 || timeoutMicros > Dat.DAT_TIMEOUT_INFINITE) {
            throw new DatException(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    call + ": timeout " + timeoutMicros + " is outside 0..DAT_TIMEOUT_INFINITE");
        }
        long deadline = timeoutMicros == Dat.DAT_TIMEOUT_INFINITE ? Long.MAX_VALUE
                : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
        lock.lock();
        try {
            while (true) {
                requireOpen(call);
                if (pending != null) {
                    LoopbackEvd evd = pending;
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

    @Override
    public void modifyAgent(Agent newAgent) {
        requireOpen("dat_cno_modify_agent");
        this.agent = newAgent;
    }

    @Override
    public DatCnoParam query() {
        requireOpen("dat_cno_query");
        return new DatCnoParam(ia, agent);
    }
}
