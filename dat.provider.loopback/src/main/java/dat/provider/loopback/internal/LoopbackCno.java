// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatCno;
import dat.api.DatCnoParam;
import dat.api.DatEvd;
import dat.api.DatHandleType;
import dat.api.DatReturnSubtype;
import dat.spi.CnoCore;

/**
 * A consumer notification object ({@code dat_cno_create}): enabled EVDs bound to it trigger it when a
 * signalled event arrives. With an agent, the agent is called on the thread that produced the event (the
 * posting thread: it must not block or post on the data path of the same connection); without one, a
 * thread in {@link #await} wakes with the EVD.
 */
final class LoopbackCno extends LoopbackHandle implements DatCno {

    private final LoopbackIa ia;
    private final CnoCore core;

    LoopbackCno(LoopbackIa ia, Agent agent) {
        this.ia = ia;
        this.core = new CnoCore(agent);
    }

    @Override
    LoopbackIa owner() {
        return ia;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_CNO;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_CNO_IN_USE;
    }

    @Override
    protected String freeCall() {
        return "dat_cno_free";
    }

    @Override
    protected void destroy() {
        markClosed();
        core.close();
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.CNO;
    }

    /** Called by an enabled EVD bound to this CNO, outside the EVD's lock. */
    void trigger(LoopbackEvd evd) {
        core.trigger(evd);
    }

    @Override
    public DatEvd await(long timeoutMicros) {
        requireOpen("dat_cno_wait");
        return core.await(timeoutMicros);
    }

    @Override
    public void modifyAgent(Agent newAgent) {
        requireOpen("dat_cno_modify_agent");
        core.modifyAgent(newAgent);
    }

    @Override
    public DatCnoParam query() {
        requireOpen("dat_cno_query");
        return new DatCnoParam(ia, core.agent());
    }
}
