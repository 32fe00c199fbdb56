// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.api.DatHandleType;
import dat.api.DatReturnSubtype;
import dat.api.DatRsp;
import dat.api.DatRspParam;
import dat.spi.ProviderHandle;
import java.lang.foreign.MemorySegment;

/**
 * A reserved service point ({@code dat_rsp_create}): like a PSP, but it takes exactly one request, for the EP
 * reserved for it, and then stops listening.
 */
final class VerbsRsp extends VerbsHandle implements DatRsp {

    final VerbsEp ep;
    private final VerbsIa ia;
    private final long key;
    private final long connQual;
    private final VerbsEvd crEvd;
    /** The listening id, {@code NULL} once the request arrived or the RSP was freed; guarded by {@code this}. */
    private MemorySegment id;
    private VerbsCr taken;

    VerbsRsp(VerbsIa ia, long connQual, VerbsEp ep, VerbsEvd crEvd) {
        this.ia = ia;
        this.connQual = connQual;
        this.ep = ep;
        this.crEvd = crEvd;
        this.key = ia.newKey();
        this.id = VerbsPsp.listen(ia, "dat_rsp_create", key, connQual);
        ia.cmOwners.put(key, this);
    }

    @Override
    VerbsIa owner() {
        return ia;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_RSP;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    @Override
    protected String freeCall() {
        return "dat_rsp_free";
    }

    /** The CR EVD always; the EP while it is still reserved for this RSP. */
    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == crEvd || (other == ep && ep.connection.reservedBy() == this);
    }

    /** Stops listening; a reserved EP goes back to UNCONNECTED and a request not yet answered is rejected. */
    @Override
    protected void destroy() {
        VerbsCr pending;
        synchronized (this) {
            markClosed();
            stopListening();
            pending = taken;
        }
        if (pending != null && !pending.isClosed()) {
            pending.rejectQuietly();
        }
        ep.connection.unreserve(this);
    }

    /** Caller holds {@code this}. */
    private void stopListening() {
        ia.cmOwners.remove(key);
        if (id.address() != 0) {
            MemorySegment listening = id;
            id = MemorySegment.NULL;
            ia.cm.rdma_destroy_id(listening);
        }
    }

    /** The request arrived (progress thread): the RSP takes it and stops listening. */
    void connectionRequest(VerbsProgress.CmEvent e) {
        VerbsCr cr;
        synchronized (this) {
            if (isClosed() || taken != null || ep.isClosed()) {
                VerbsCr.refuse(ia, e.id());
                return;
            }
            cr = new VerbsCr(ia, this, connQual, e);
            taken = cr;
            stopListening();
        }
        ep.connection.passivePending(this);
        crEvd.postConnectionRequest(this, connQual, cr);
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.RSP;
    }

    @Override
    public long connQual() {
        return connQual;
    }

    @Override
    public DatRspParam query() {
        requireOpen("dat_rsp_query");
        return new DatRspParam(ia, connQual, crEvd, ep);
    }
}
