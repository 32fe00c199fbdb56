// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatCno;
import dat.api.DatCnoParam;
import dat.api.DatEvd;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The shell of a consumer notification object ({@code dat_cno_create}, {@code dat_cno_wait},
 * {@code dat_cno_modify_agent}, {@code dat_cno_query}, {@code dat_cno_free}), complete over a {@link CnoCore}: a
 * provider's CNO class only says, in its Javadoc, on which thread its EVDs trigger it. Enabled EVDs bound to the CNO
 * trigger it when a signalled event arrives ({@link AbstractEvd#triggerCno()}). A provider whose CNO lives below it
 * (a bridge to C uDAPL, where C triggers it) overrides the {@code impl} hooks instead.
 *
 * <p>What uDAPL 1.2 says of every CNO is kept here, around the hooks, so no provider can miss it: a CNO with a
 * thread in {@code dat_cno_wait} is not freed ({@code DAT_INVALID_STATE}), and a waiter the CNO's end unblocks
 * ({@code dat_ia_close}) returns a null EVD rather than an error.
 *
 * @param <I> the provider's IA class
 */
public abstract class AbstractCno<I extends AbstractIa<I, ?, ?, ?, ?>> extends AbstractHandle<I> implements DatCno {

    private final CnoCore core;
    /** Threads in {@code dat_cno_wait}: while there is one, {@code dat_cno_free} is refused. */
    private final AtomicInteger waiters = new AtomicInteger();

    /**
     * Creates the shell's part of a CNO ({@code dat_cno_create}).
     *
     * @param ia the IA creating the CNO
     * @param agent the agent, or {@code null} to queue triggers for {@link #await}
     */
    protected AbstractCno(I ia, Agent agent) {
        super(ia);
        this.core = new CnoCore(agent);
    }

    @Override
    public final DatHandleType handleType() {
        return DatHandleType.CNO;
    }

    @Override
    protected final DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_CNO;
    }

    @Override
    protected final DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_CNO_IN_USE;
    }

    @Override
    protected final String freeCall() {
        return "dat_cno_free";
    }

    /**
     * {@code dat_cno_free}: "A CNO cannot be deleted while it is referenced by an Event Dispatcher or while a thread
     * is blocked on it." The EVDs are the free protocol's ({@link AbstractEvd#dependsOn}); the waiters are counted
     * here. Under the IA's lifecycle lock.
     */
    @Override
    protected final void checkFree() {
        int n = waiters.get();
        if (n > 0) {
            throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_CNO_IN_USE,
                    "dat_cno_free: " + n + " thread(s) blocked in dat_cno_wait on the CNO");
        }
    }

    /**
     * Frees the CNO (its consumer's free, with no waiter, or {@code dat_ia_close}): a thread still in {@link #await}
     * returns a null EVD; then {@link #implFree}.
     */
    @Override
    protected final void destroy() {
        markClosed();
        core.close();
        implFree();
    }

    /** Releases what the provider holds for the CNO, once, marked closed and under the IA's lifecycle lock. */
    protected void implFree() {
    }

    /**
     * Called by an enabled EVD bound to this CNO, outside the EVD's locks: the agent runs on the caller's thread.
     *
     * @param evd the EVD that triggered
     */
    final void trigger(DatEvd evd) {
        core.trigger(evd);
    }

    /**
     * The last EVD bound to this CNO was freed ({@code dat_evd_free}), no lock held: "All the waiters on the CNO,
     * including the OS Wait Proxy Agent if it is associated with the CNO, are unblocked with the NULL handle". The
     * default tells the {@link CnoCore}; a bridge whose CNO lives in C overrides it (C unblocks its own waiters and
     * calls its agent as C decides).
     */
    protected void implAllEvdsFreed() {
        core.release();
    }

    /**
     * {@code dat_cno_wait}, counted as a waiter (so {@code dat_cno_free} refuses meanwhile). A wait the CNO's end
     * cut short ({@code dat_ia_close}) returns {@code null}, whatever the provider's wait answered.
     */
    @Override
    public final DatEvd await(long timeoutMicros) {
        waiters.incrementAndGet();
        try {
            requireOpen("dat_cno_wait");
            try {
                return implAwait(timeoutMicros);
            } catch (DatException e) {
                // Open when the wait began: the handle went while it waited, which unblocks it with no EVD.
                if (e.type() == DatReturn.INVALID_HANDLE && isClosed()) {
                    return null;
                }
                throw e;
            }
        } finally {
            waiters.decrementAndGet();
        }
    }

    /**
     * Waits for a trigger, the CNO checked open: the default waits on the {@link CnoCore}.
     *
     * @param timeoutMicros the consumer's timeout, not yet checked
     * @return the EVD that triggered, or {@code null} when the wait was unblocked without one
     * @throws DatException {@code DAT_QUEUE_EMPTY} on a timeout (uDAPL 1.2's answer), or as {@link #await}
     */
    protected DatEvd implAwait(long timeoutMicros) {
        return core.await(timeoutMicros);
    }

    /** {@code dat_cno_modify_agent}. */
    @Override
    public final void modifyAgent(Agent newAgent) {
        requireOpen("dat_cno_modify_agent");
        implModifyAgent(newAgent);
    }

    /**
     * Replaces the agent, the CNO checked open: the default replaces the {@link CnoCore}'s.
     *
     * @param newAgent the new agent, or {@code null}
     */
    protected void implModifyAgent(Agent newAgent) {
        core.modifyAgent(newAgent);
    }

    /** {@code dat_cno_query}. */
    @Override
    public final DatCnoParam query() {
        requireOpen("dat_cno_query");
        return new DatCnoParam(owner(), implAgent());
    }

    /** {@return the agent {@code dat_cno_query} reports, the CNO checked open: the default the core's} */
    protected Agent implAgent() {
        return core.agent();
    }
}
