// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.spi.AbstractRsp;
import java.lang.foreign.MemorySegment;

/**
 * A reserved service point ({@code dat_rsp_create}): like a PSP, but it takes exactly one request, for the EP
 * reserved for it, and then stops listening.
 */
final class VerbsRsp extends AbstractRsp<VerbsIa, VerbsEvd, VerbsEp> {

    private final VerbsIa ia;
    private final long key;
    /** The listening id, {@code NULL} once the request arrived or the RSP was freed; guarded by {@code this}. */
    private MemorySegment id;
    private VerbsCr taken;

    VerbsRsp(VerbsIa ia, long connQual, VerbsEp ep, VerbsEvd crEvd) {
        super(ia, connQual, ep, crEvd);
        this.ia = ia;
        this.key = ia.newKey();
        this.id = VerbsPsp.listen(ia, "dat_rsp_create", key, connQual);
        ia.cmOwners.put(key, this);
    }

    @Override
    protected boolean reservesEp() {
        return ep().connection.reservedBy() == this;
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
        ep().connection.unreserve(this);
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
            if (isClosed() || taken != null || ep().isClosed()) {
                VerbsCr.refuse(ia, e.id());
                return;
            }
            cr = new VerbsCr(ia, this, connQual(), e);
            taken = cr;
            stopListening();
        }
        ep().connection.passivePending(this);
        crEvd().postConnectionRequest(this, connQual(), cr);
    }
}
