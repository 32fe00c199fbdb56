// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatCno;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvdFlags;
import dat.api.DatException;
import dat.api.DatIaAttr;
import dat.api.DatMemPriv;
import dat.api.DatProviderAttr;
import dat.api.DatPspFlags;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatSrqAttr;
import dat.spi.AbstractCno;
import dat.spi.AbstractHandle;
import dat.spi.AbstractIa;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A loopback IA ({@code dat_ia_open} ... {@code dat_ia_close}): the factory of every other object and the
 * owner of the context tables that turn {@code lmr_context} and {@code rmr_context} tags into regions. The DAT calls,
 * their checks and the free protocol are {@link AbstractIa}'s; this class builds the loopback objects.
 *
 * <p>Creation and free of objects are serialised by the IA's lifecycle lock, so "a parent with live children
 * refuses to close" is checked against a stable set of objects.
 */
final class LoopbackIa extends AbstractIa<LoopbackIa, LoopbackPz, LoopbackEvd, LoopbackSrq, LoopbackEp> {

    /** lmr_context to LMR, for local IOVs. */
    final ContextTable lmrContexts = new ContextTable();
    /** rmr_context to LMR or RMR, for RDMA by a peer. */
    final ContextTable rmrContexts = new ContextTable();
    /** Connection requests that arrived at this IA's listeners and are not yet consumed. */
    final Set<LoopbackCr> pendingCrs = ConcurrentHashMap.newKeySet();

    LoopbackIa(String name, InetAddress address, DatProviderAttr providerAttr, DatIaAttr iaAttr,
               int asyncEvdQlen) {
        super(name, address, providerAttr, iaAttr, new ReentrantLock());
        initAsyncEvd(new LoopbackEvd(this, asyncEvdQlen, null, DatEvdFlags.ASYNC, true));
    }

    /** dat_ia_close(ABRUPT): requests nobody answered are rejected, then the async EVD goes. */
    @Override
    protected void implCloseLocked() {
        for (LoopbackCr cr : new ArrayList<>(pendingCrs)) {
            cr.rejectQuietly();
        }
        asyncEvd().destroy();
    }

    @Override
    protected void implClosed() {
        LoopbackFabric.INSTANCE.release(name());
        // The IA's regions are freed: as for dat_lmr_free, no copy may still be moving bytes when close returns.
        LoopbackFabric.INSTANCE.quiesceDeliveries();
    }

    @Override
    protected void implFreed(AbstractHandle<LoopbackIa> h) {
        if (h instanceof LoopbackLmr) {
            // dat_lmr_free returns only when no transfer moves another byte into or out of the region.
            LoopbackFabric.INSTANCE.quiesceDeliveries();
        }
    }

    @Override
    protected LoopbackPz implCreatePz() {
        return new LoopbackPz(this);
    }

    @Override
    protected LoopbackEvd implCreateEvd(int evdMinQlen, AbstractCno<LoopbackIa> cno, int evdFlags) {
        return new LoopbackEvd(this, evdMinQlen, cno, evdFlags, false);
    }

    @Override
    protected LoopbackCno implCreateCno(DatCno.Agent agent) {
        return new LoopbackCno(this, agent);
    }

    /**
     * Alive and shared (DatMemory, checked by the shell): deliveries run on whichever thread posts. Its pages must
     * exist with the access granted ({@link Pages}), as an HCA's registration requires; the refusal is the code the
     * verbs provider gives for a failed {@code ibv_reg_mr}.
     */
    @Override
    protected LoopbackLmr implCreateLmr(LoopbackPz pz, MemorySegment region, int privileges) {
        boolean write = (privileges & (DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_WRITE)) != 0;
        String why = Pages.inaccessible(region.address(), region.byteSize(), write);
        if (why != null) {
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_MEMORY,
                    "dat_lmr_create: region_description [0x" + Long.toHexString(region.address()) + ", +"
                            + region.byteSize() + ") " + why + "; memory a transfer cannot touch is not registered");
        }
        return new LoopbackLmr(pz, region, privileges);
    }

    @Override
    protected LoopbackRmr implCreateRmr(LoopbackPz pz) {
        return new LoopbackRmr(pz);
    }

    @Override
    protected LoopbackLmr lmrOf(int lmrContext) {
        return lmrContexts.get(lmrContext) instanceof LoopbackLmr lmr ? lmr : null;
    }

    @Override
    protected LoopbackEp implCreateEp(String call, LoopbackPz pz, LoopbackEvd recvEvd, LoopbackEvd requestEvd,
                                      LoopbackEvd connectEvd, LoopbackSrq srq, DatEpAttr attr) {
        LoopbackEp ep = new LoopbackEp(pz, recvEvd, requestEvd, connectEvd, srq, attr);
        if (srq != null) {
            srq.attach(ep, call);
        }
        LoopbackFabric.INSTANCE.addEp(ep);
        return ep;
    }

    @Override
    protected LoopbackSrq implCreateSrq(LoopbackPz pz, DatSrqAttr attr) {
        return new LoopbackSrq(pz, attr.maxRecvDtos(), attr.maxRecvIov());
    }

    @Override
    protected LoopbackPsp implCreatePsp(String call, boolean any, long connQual, LoopbackEvd crEvd,
                                        DatPspFlags flags) {
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            long qual = any ? fabric.freeQualifier(address()) : connQual;
            LoopbackPsp psp = new LoopbackPsp(this, qual, crEvd, flags);
            fabric.listen(psp, call);
            return psp;
        } finally {
            fabric.connLock.unlock();
        }
    }

    @Override
    protected LoopbackRsp implCreateRsp(String call, long connQual, LoopbackEp ep, LoopbackEvd crEvd) {
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            if (ep.state() != DatEpState.UNCONNECTED) {
                throw ep.wrongState(call, "UNCONNECTED");
            }
            LoopbackRsp rsp = new LoopbackRsp(this, connQual, ep, crEvd);
            fabric.listen(rsp, call);
            ep.connection.reserve(rsp);
            return rsp;
        } finally {
            fabric.connLock.unlock();
        }
    }
}
