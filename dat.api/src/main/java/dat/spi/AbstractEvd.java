// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.Dat;
import dat.api.DatCno;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvdParam;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;

/**
 * The shell of an event dispatcher ({@code dat_evd_create}): what every provider's EVD does the same way. It holds
 * the event flags, the bound CNO and the enabled state, and implements {@code dat_evd_enable},
 * {@code dat_evd_disable}, {@code dat_evd_modify_cno}, {@code dat_evd_resize}'s argument checks, the open checks of
 * {@code dat_evd_set_unwaitable} and {@code dat_evd_clear_unwaitable}, and
 * {@code dat_evd_free} (the async EVD refuses: {@code dat_ia_close} frees it). The queue itself, the wait, and the
 * data path are the provider's; its {@code dequeue}, {@code poll}, {@code await} and {@code postSoftwareEvent}
 * begin with the allocation-free checks here ({@link #checkDequeue} ...), and its producers call
 * {@link #triggerCno()} after queuing a signalled event.
 *
 * <p><b>Why the lock stays the provider's.</b> {@link AbstractSrq} owns its object's lock and re-checks under it; an
 * EVD cannot, because the providers do not agree on what a lock would guard. Loopback's queue is a lock-free ring:
 * producers and consumers never lock, and {@code dat_evd_resize} seals the ring under a control lock the data path
 * never takes, so a lock held here around {@link #implResize} would exclude nobody that touches the queue, and a
 * re-check under it would prove nothing. Verbs guards its CQ polls with a lock that an SRQ's translation takes before
 * the SRQ's own. So {@link #implResize} and {@link #implSetUnwaitable} take the provider's lock and check
 * {@code requireOpen} under it themselves.
 *
 * @param <I> the provider's IA class
 */
public abstract class AbstractEvd<I extends AbstractIa<I, ?, ?, ?, ?>> extends AbstractHandle<I> implements DatEvd {

    private final int flags;
    private final boolean isAsync;
    private volatile AbstractCno<I> cno;
    private volatile boolean enabled = true;

    /**
     * Creates the shell's part of an EVD ({@code dat_evd_create}, or the IA's async EVD).
     *
     * @param ia the IA creating the EVD
     * @param flags the event kinds ({@link DatEvdFlags})
     * @param cno the CNO to trigger, or {@code null}
     * @param isAsync whether this is the IA's async EVD, which {@code dat_ia_open} created and only
     *     {@code dat_ia_close} frees
     */
    protected AbstractEvd(I ia, int flags, AbstractCno<I> cno, boolean isAsync) {
        super(ia);
        this.flags = flags;
        this.cno = cno;
        this.isAsync = isAsync;
    }

    @Override
    public final DatHandleType handleType() {
        return DatHandleType.EVD;
    }

    @Override
    protected final DatReturnSubtype invalidHandleSubtype() {
        return isAsync ? DatReturnSubtype.INVALID_HANDLE_EVD_ASYNC : DatReturnSubtype.INVALID_HANDLE1;
    }

    @Override
    protected final DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_EVD_IN_USE;
    }

    @Override
    protected final String freeCall() {
        return "dat_evd_free";
    }

    /** The bound CNO: a CNO cannot be freed while an EVD triggers it. */
    @Override
    protected final boolean dependsOn(ProviderHandle other) {
        return other == cno;
    }

    /**
     * {@code dat_evd_free}. When it frees the last EVD bound to a CNO, the CNO's waiters (and its agent) are unblocked
     * with no EVD (uDAPL 1.2, {@code dat_cno_wait}), after the free, with no lock held.
     *
     * @throws DatException {@code DAT_INVALID_STATE} for the async EVD, which {@code dat_ia_close} frees
     */
    @Override
    public final void close() {
        if (isClosed()) {
            return;
        }
        if (isAsync) {
            throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EVD_ASYNC,
                    "dat_evd_free: the async EVD is freed by dat_ia_close");
        }
        AbstractCno<I> bound = cno;
        super.close();
        if (bound != null && owner().openAndUnused(bound)) {
            bound.implAllEvdsFreed();
        }
    }

    /** {@return the event kinds ({@code evd_flags})} */
    public final int flags() {
        return flags;
    }

    /** {@return whether this is the IA's async EVD} */
    protected final boolean isAsync() {
        return isAsync;
    }

    /** {@return the bound CNO, or {@code null}} */
    protected final AbstractCno<I> cno() {
        return cno;
    }

    /** {@return whether the EVD is enabled: only an enabled EVD triggers its CNO} */
    protected final boolean enabled() {
        return enabled;
    }

    /** Triggers the bound CNO if the EVD is enabled; call after queuing a signalled event, outside the EVD's locks. */
    protected final void triggerCno() {
        AbstractCno<I> c = cno;
        if (c != null && enabled) {
            c.trigger(this);
        }
    }

    /** {@code dat_evd_enable}. */
    @Override
    public final void enable() {
        requireOpen("dat_evd_enable");
        implEnable(true);
        enabled = true;
    }

    /** {@code dat_evd_disable}. */
    @Override
    public final void disable() {
        requireOpen("dat_evd_disable");
        implEnable(false);
        enabled = false;
    }

    /**
     * Tells the provider of {@code dat_evd_enable} or {@code dat_evd_disable} before the shell's flag changes: the
     * default does nothing, the flag being all a Java EVD needs; a bridge tells its C EVD.
     *
     * @param enable {@code true} for {@code dat_evd_enable}
     */
    protected void implEnable(boolean enable) {
    }

    /**
     * {@code dat_evd_modify_cno}: under the IA's lifecycle lock, so the CNO cannot be freed meanwhile, the new CNO
     * resolved to an open CNO of this IA, then {@link #implModifyCno}.
     */
    @Override
    public final void modifyCno(DatCno newCno) {
        String call = "dat_evd_modify_cno";
        requireOpen(call);
        owner().lifecycle().lock();
        try {
            AbstractCno<I> c = newCno == null ? null : owner().resolve(newCno, DatHandleType.CNO,
                    DatReturnSubtype.INVALID_HANDLE_CNO, call, "cno_handle");
            requireOpen(call);
            implModifyCno(c);
        } finally {
            owner().lifecycle().unlock();
        }
    }

    /** {@code dat_evd_set_unwaitable}: {@link #implSetUnwaitable} with {@code true}. */
    @Override
    public final void setUnwaitable() {
        requireOpen("dat_evd_set_unwaitable");
        implSetUnwaitable(true);
    }

    /** {@code dat_evd_clear_unwaitable}: {@link #implSetUnwaitable} with {@code false}. */
    @Override
    public final void clearUnwaitable() {
        requireOpen("dat_evd_clear_unwaitable");
        implSetUnwaitable(false);
    }

    /**
     * Makes the EVD unwaitable or waitable again. Setting it aborts a thread in {@code dat_evd_wait}
     * ({@code DAT_INVALID_STATE}, as uDAPL says) and refuses later waits (the same) until it is cleared; only a free
     * or the IA's close ends a wait with {@code DAT_ABORT}.
     *
     * @param unwaitable {@code true} for {@code dat_evd_set_unwaitable}, {@code false} to clear it
     */
    protected abstract void implSetUnwaitable(boolean unwaitable);

    /**
     * Binds the EVD to {@code newCno}, under the IA's lifecycle lock: the default sets it ({@link #setCno}); an EVD
     * whose wait depends on the CNO sets it under its own lock.
     *
     * @param newCno an open CNO of this IA, or {@code null}
     */
    protected void implModifyCno(AbstractCno<I> newCno) {
        setCno(newCno);
    }

    /**
     * Sets the CNO this EVD triggers.
     *
     * @param newCno the CNO to trigger from now on, or {@code null}
     */
    protected final void setCno(AbstractCno<I> newCno) {
        this.cno = newCno;
    }

    /**
     * {@code dat_evd_resize}: {@link DatArgs#evdResize}, then {@link #implResize}.
     */
    @Override
    public final void resize(int evdMinQlen) {
        String call = "dat_evd_resize";
        requireOpen(call);
        DatArgs.evdResize(owner().iaAttr(), evdMinQlen);
        implResize(evdMinQlen);
    }

    /**
     * Resizes the queue, no lock held; the argument is checked. Takes the EVD's lock, checks the EVD is still open
     * ({@code requireOpen("dat_evd_resize")}) and refuses a size below the queued events
     * ({@link DatArgs#evdResizeState}).
     *
     * @param evdMinQlen the new queue length, within {@code 1..max_evd_qlen}
     */
    protected abstract void implResize(int evdMinQlen);

    /**
     * The {@code dat_evd_query} answer.
     *
     * @param qlen the queue length
     * @param unwaitable whether {@code dat_evd_set_unwaitable} is in force
     * @return the parameters
     */
    protected final DatEvdParam param(int qlen, boolean unwaitable) {
        int state = (enabled ? DatEvdParam.STATE_ENABLED : DatEvdParam.STATE_DISABLED)
                | (unwaitable ? DatEvdParam.STATE_UNWAITABLE : DatEvdParam.STATE_WAITABLE);
        return new DatEvdParam(owner(), qlen, state, cno, flags);
    }

    // ------------------------------------------------------------------ data-path checks (allocation-free)

    /**
     * The checks that open {@code dat_evd_dequeue}.
     *
     * @param event the consumer's holder
     * @return {@code DAT_SUCCESS}, {@code DAT_INVALID_HANDLE} when freed, {@code DAT_INVALID_PARAMETER}
     */
    protected final int checkDequeue(DatEvent event) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        return event == null ? DatReturn.DAT_INVALID_PARAMETER : DatReturn.DAT_SUCCESS;
    }

    /**
     * The checks that open {@link DatEvd#poll}.
     *
     * @param handler the consumer's handler
     * @param limit how many events at most
     * @return {@code DAT_SUCCESS}, {@code DAT_INVALID_HANDLE} when freed, {@code DAT_INVALID_PARAMETER}
     */
    protected final int checkPoll(DatEventHandler handler, int limit) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        return handler == null || limit < 1 ? DatReturn.DAT_INVALID_PARAMETER : DatReturn.DAT_SUCCESS;
    }

    /**
     * {@link DatEvd#poll} as repeated {@link DatEvd#dequeue}, for a provider whose dequeue takes its own lock: the
     * handler runs outside it, so it may post (which takes the lock again). Returns as {@code poll} does: the count
     * handled, or the first error when none was.
     *
     * @param handler the consumer's handler
     * @param limit how many events at most
     * @param scratch the EVD's own holder the events pass through (one per EVD, so polling allocates nothing)
     * @return how many events the handler took, or a DAT return code
     */
    protected final int pollByDequeue(DatEventHandler handler, int limit, DatEvent scratch) {
        int check = checkPoll(handler, limit);
        if (check != DatReturn.DAT_SUCCESS) {
            return check;
        }
        int handled = 0;
        while (handled < limit) {
            int rc = dequeue(scratch);
            if (rc == DatReturn.DAT_QUEUE_EMPTY) {
                break;
            }
            if (rc != DatReturn.DAT_SUCCESS) {
                return handled > 0 ? handled : rc;
            }
            handler.onEvent(scratch);
            handled++;
        }
        return handled;
    }

    /**
     * The checks that open {@code dat_evd_wait} before the threshold (whose bound is the queue length).
     *
     * @param timeoutMicros the timeout, up to {@link Dat#DAT_TIMEOUT_INFINITE}
     * @param event the consumer's holder
     * @return {@code DAT_SUCCESS}, {@code DAT_INVALID_HANDLE} when freed, {@code DAT_INVALID_PARAMETER}
     */
    protected final int checkAwait(long timeoutMicros, DatEvent event) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if (event == null || timeoutMicros < 0 || timeoutMicros > Dat.DAT_TIMEOUT_INFINITE) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        return DatReturn.DAT_SUCCESS;
    }

    /**
     * {@return what a wait woken by {@code dat_evd_set_unwaitable}, a free or the IA's close answers}
     * uDAPL 1.2's {@code dat_evd_set_unwaitable}: "threads already blocked in dat_evd_wait() are awakened and return
     * with a DAT_INVALID_STATE error"; {@code dat_evd_wait}'s {@code DAT_ABORT} is for a wait its EVD's free or its
     * IA's close ended.
     */
    protected final int abortedWait() {
        return isClosed() ? DatReturn.DAT_ABORT : DatReturn.DAT_INVALID_STATE;
    }

    /**
     * The checks that open {@code dat_evd_post_se}.
     *
     * @return {@code DAT_SUCCESS}, {@code DAT_INVALID_HANDLE} when freed, {@code DAT_INVALID_PARAMETER} without
     *     the SOFTWARE flag
     */
    protected final int checkPostSoftwareEvent() {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        return (flags & DatEvdFlags.SOFTWARE) == 0 ? DatReturn.DAT_INVALID_PARAMETER : DatReturn.DAT_SUCCESS;
    }
}
