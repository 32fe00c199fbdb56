// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.api.DatCno;
import dat.api.DatCnoParam;
import dat.api.DatEvd;
import dat.api.DatHandleType;
import dat.api.DatReturnSubtype;
import dat.spi.CnoCore;

/**
 * A consumer notification object ({@code dat_cno_create}). Software only: an EVD bound to it triggers it from
 * whichever thread queues a signalled event or, for completions, from the progress thread when the CQ's
 * completion channel fires (the EVD keeps its CQ armed while a CNO is bound).
 */
final class VerbsCno extends VerbsHandle implements DatCno {

    private final VerbsIa ia;
    private final CnoCore core;

    VerbsCno(VerbsIa ia, Agent agent) {
        this.ia = ia;
        this.core = new CnoCore(agent);
    }

    @Override
    VerbsIa owner() {
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
    void trigger(VerbsEvd evd) {
        core.trigger(evd);
    }

    @Override
    public DatEvd await(long timeoutMicros) {
        requireOpen("dat_cno_wait");
        return core.await(timeoutMicros);
    }

    @Override
    public void modifyAgent(Agent agent) {
        requireOpen("dat_cno_modify_agent");
        core.modifyAgent(agent);
    }

    @Override
    public DatCnoParam query() {
        requireOpen("dat_cno_query");
        return new DatCnoParam(ia, core.agent());
    }
}
