// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatCno;
import dat.api.DatCnoParam;
import dat.api.DatEvd;
import dat.api.DatHandleType;
import dat.api.DatReturnSubtype;

/**
 * The shell of a consumer notification object ({@code dat_cno_create}, {@code dat_cno_wait},
 * {@code dat_cno_modify_agent}, {@code dat_cno_query}, {@code dat_cno_free}), complete over a {@link CnoCore}: a
 * provider's CNO class only says, in its Javadoc, on which thread its EVDs trigger it. Enabled EVDs bound to the CNO
 * trigger it when a signalled event arrives ({@link AbstractEvd#triggerCno()}). A provider whose CNO lives below it
 * (a bridge to C uDAPL, where C triggers it) overrides the {@code impl} hooks instead.
 *
 * @param <I> the provider's IA class
 */
public abstract class AbstractCno<I extends AbstractIa<I, ?, ?, ?, ?>> extends AbstractHandle<I> implements DatCno {

    private final CnoCore core;

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

    /** Frees the CNO: a thread in {@link #await} fails with {@code DAT_INVALID_HANDLE}; then {@link #implFree}. */
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

    /** {@code dat_cno_wait}. */
    @Override
    public final DatEvd await(long timeoutMicros) {
        requireOpen("dat_cno_wait");
        return implAwait(timeoutMicros);
    }

    /**
     * Waits for a trigger, the CNO checked open: the default waits on the {@link CnoCore}.
     *
     * @param timeoutMicros the consumer's timeout, not yet checked
     * @return the EVD that triggered
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
