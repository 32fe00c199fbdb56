// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.DatCloseFlags;
import dat.api.DatCno;
import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatLmr;
import dat.api.DatProviderAttr;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatRsp;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import dat.spi.DatArgs;
import dat.spi.HandleSet;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A loopback IA ({@code dat_ia_open} ... {@code dat_ia_close}): the factory of every other object and the
 * owner of the context tables that turn {@code lmr_context} and {@code rmr_context} tags into regions.
 *
 * <p>Creation and free of objects are serialised by {@link #lifecycle}, so "a parent with live children
 * refuses to close" is checked against a stable set of objects.
 */
final class LoopbackIa extends LoopbackHandle implements DatIa {

    final String name;
    final InetAddress address;
    final DatProviderAttr providerAttr;
    final DatIaAttr iaAttr;
    final ReentrantLock lifecycle = new ReentrantLock();
    /** lmr_context to LMR, for local IOVs. */
    final ContextTable lmrContexts = new ContextTable();
    /** rmr_context to LMR or RMR, for RDMA by a peer. */
    final ContextTable rmrContexts = new ContextTable();
    /** Connection requests that arrived at this IA's listeners and are not yet consumed. */
    final Set<LoopbackCr> pendingCrs = ConcurrentHashMap.newKeySet();

    private final LoopbackEvd asyncEvd;
    /** Guarded by {@link #lifecycle}; insertion order for readable messages. */
    private final HandleSet objects;

    LoopbackIa(String name, InetAddress address, DatProviderAttr providerAttr, DatIaAttr iaAttr,
               int asyncEvdQlen) {
        this.name = name;
        this.objects = new HandleSet(name);
        this.address = address;
        this.providerAttr = providerAttr;
        this.iaAttr = iaAttr;
        this.asyncEvd = new LoopbackEvd(this, asyncEvdQlen, null, DatEvdFlags.ASYNC, true);
    }

    @Override
    LoopbackIa owner() {
        return this;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_IA;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_IA_IN_USE;
    }

    @Override
    protected String freeCall() {
        return "dat_ia_close";
    }

    @Override
    protected void destroy() {
        throw new AssertionError("an IA is closed with close(flags)");
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.IA;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DatIaAttr query() {
        requireOpen("dat_ia_query");
        return iaAttr;
    }

    @Override
    public DatProviderAttr providerAttr() {
        requireOpen("dat_ia_query");
        return providerAttr;
    }

    @Override
    public DatEvd asyncEvd() {
        return asyncEvd;
    }

    LoopbackEvd async() {
        return asyncEvd;
    }

    @Override
    public InetAddress address() {
        return address;
    }

    @Override
    public void close() {
        close(DatCloseFlags.GRACEFUL);
    }

    @Override
    public void close(DatCloseFlags flags) {
        if (flags == null) {
            throw new DatException(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    "dat_ia_close: ia_flags is null");
        }
        lifecycle.lock();
        try {
            if (isClosed()) {
                return;
            }
            if (flags == DatCloseFlags.GRACEFUL) {
                objects.requireEmptyForGracefulClose();
            }
            // dat_ia_close(ABRUPT): EPs first, so their flushes reach EVDs that still exist.
            objects.destroyAll(DatHandleType.RSP, DatHandleType.PSP, DatHandleType.EP, DatHandleType.RMR,
                    DatHandleType.LMR, DatHandleType.SRQ, DatHandleType.EVD, DatHandleType.CNO, DatHandleType.PZ);
            for (LoopbackCr cr : new ArrayList<>(pendingCrs)) {
                cr.rejectQuietly();
            }
            asyncEvd.destroy();
            markClosed();
            LoopbackFabric.INSTANCE.release(name);
        } finally {
            lifecycle.unlock();
        }
        // The IA's regions are freed: as for dat_lmr_free, no copy may still be moving bytes when close returns.
        LoopbackFabric.INSTANCE.quiesceDeliveries();
    }

    /** {@code dat_*_free} of a child: refuses while another live object uses it. */
    void free(LoopbackHandle h) {
        lifecycle.lock();
        try {
            objects.free(h);
        } finally {
            lifecycle.unlock();
        }
        if (h instanceof LoopbackLmr) {
            // dat_lmr_free returns only when no transfer moves another byte into or out of the region.
            LoopbackFabric.INSTANCE.quiesceDeliveries();
        }
    }

    /** Adds a new object; caller holds {@link #lifecycle} and checked {@link #requireRoom}. */
    private <T extends LoopbackHandle> T register(T h) {
        return objects.register(h);
    }

    private void requireRoom(DatHandleType type, int max, String call, String limit) {
        objects.requireRoom(type, max, call, limit);
    }

    /** Opens the lifecycle section of a create call: the IA must still be open. */
    private void beginCreate(String call) {
        lifecycle.lock();
        if (isClosed()) {
            lifecycle.unlock();
            requireOpen(call);
        }
    }

    /**
     * Resolves a handle argument to this IA's open object of the given class.
     *
     * @param handle the consumer's handle
     * @param type the loopback class expected
     * @param subtype the DAT_INVALID_HANDLE subtype
     * @param call the DAT call
     * @param arg the argument name
     * @return the object
     */
    <T extends LoopbackHandle> T own(Object handle, Class<T> type, DatReturnSubtype subtype, String call,
                                     String arg) {
        String why;
        if (handle == null) {
            why = "is null";
        } else if (!type.isInstance(handle) || type.cast(handle).owner() != this) {
            why = "belongs to another IA or provider";
        } else if (type.cast(handle).isClosed()) {
            why = "is closed";
        } else {
            return type.cast(handle);
        }
        throw new DatException(DatReturn.INVALID_HANDLE, subtype, call + ": " + arg + " " + why);
    }

    private LoopbackEvd ownEvd(DatEvd evd, int flag, DatReturnSubtype subtype, String call, String arg) {
        LoopbackEvd e = own(evd, LoopbackEvd.class, subtype, call, arg);
        if ((e.flags & flag) == 0) {
            throw new DatException(DatReturn.INVALID_HANDLE, subtype,
                    call + ": " + arg + " lacks the " + flagName(flag) + " flag (evd_flags 0x"
                            + Integer.toHexString(e.flags) + ")");
        }
        return e;
    }

    private static String flagName(int flag) {
        return switch (flag) {
            case DatEvdFlags.DTO -> "DAT_EVD_DTO_FLAG";
            case DatEvdFlags.CONNECTION -> "DAT_EVD_CONNECTION_FLAG";
            case DatEvdFlags.CR -> "DAT_EVD_CR_FLAG";
            default -> "0x" + Integer.toHexString(flag);
        };
    }

    static DatException invalidParameter(DatReturnSubtype subtype, String message) {
        return DatArgs.invalidParameter(subtype, message);
    }

    @Override
    public DatPz createPz() {
        beginCreate("dat_pz_create");
        try {
            requireRoom(DatHandleType.PZ, iaAttr.maxPzs(), "dat_pz_create", "max_pzs");
            return register(new LoopbackPz(this));
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public DatEvd createEvd(int evdMinQlen, DatCno cno, int evdFlags) {
        String call = "dat_evd_create";
        requireOpen(call);
        DatArgs.evdCreate(iaAttr, evdMinQlen, evdFlags);
        beginCreate(call);
        try {
            LoopbackCno c = cno == null ? null
                    : own(cno, LoopbackCno.class, DatReturnSubtype.INVALID_HANDLE_CNO, call, "cno_handle");
            requireRoom(DatHandleType.EVD, iaAttr.maxEvds(), call, "max_evds");
            return register(new LoopbackEvd(this, evdMinQlen, c, evdFlags, false));
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public DatCno createCno(DatCno.Agent agent) {
        beginCreate("dat_cno_create");
        try {
            return register(new LoopbackCno(this, agent));
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public DatLmr createLmr(DatPz pz, MemorySegment region, int privileges) {
        String call = "dat_lmr_create";
        requireOpen(call);
        // Alive and shared (DatMemory): deliveries run on whichever thread posts.
        DatArgs.lmrCreate(iaAttr, region, privileges);
        beginCreate(call);
        try {
            LoopbackPz p = own(pz, LoopbackPz.class, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            requireRoom(DatHandleType.LMR, iaAttr.maxLmrs(), call, "max_lmrs");
            return register(new LoopbackLmr(p, region, privileges));
        } finally {
            lifecycle.unlock();
        }
    }

    /** Creates an RMR for {@link LoopbackPz#createRmr()}. */
    LoopbackRmr createRmr(LoopbackPz pz) {
        String call = "dat_rmr_create";
        beginCreate(call);
        try {
            own(pz, LoopbackPz.class, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            requireRoom(DatHandleType.RMR, iaAttr.maxRmrs(), call, "max_rmrs");
            return register(new LoopbackRmr(pz));
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public int lmrSyncRdmaRead(Iov localSegments, int numSegments) {
        return lmrSync(localSegments, numSegments);
    }

    @Override
    public int lmrSyncRdmaWrite(Iov localSegments, int numSegments) {
        return lmrSync(localSegments, numSegments);
    }

    /** lmr_sync_req is false: memory is coherent, so only the arguments are checked. */
    private int lmrSync(Iov iov, int numSegments) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if (numSegments < 0 || (numSegments > 0 && (iov == null || numSegments > iov.capacity()))) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        try {
            for (int i = 0; i < numSegments; i++) {
                if (!(lmrContexts.get(iov.lmrContext(i)) instanceof LoopbackLmr lmr) || lmr.isClosed()
                        || !lmr.contains(iov.virtualAddress(i), iov.segmentLength(i))) {
                    return DatReturn.DAT_INVALID_PARAMETER;
                }
            }
        } catch (IllegalStateException | WrongThreadException e) {
            // The IOV's own memory is closed or confined to another thread (DatMemory).
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        return DatReturn.DAT_SUCCESS;
    }

    @Override
    public DatEp createEp(DatPz pz, DatEvd recvEvd, DatEvd requestEvd, DatEvd connectEvd, DatEpAttr attr) {
        return newEp("dat_ep_create", pz, recvEvd, requestEvd, connectEvd, null, attr);
    }

    @Override
    public DatEp createEpWithSrq(DatPz pz, DatEvd recvEvd, DatEvd requestEvd, DatEvd connectEvd, DatSrq srq,
                                 DatEpAttr attr) {
        if (srq == null) {
            throw new DatException(DatReturn.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_SRQ,
                    "dat_ep_create_with_srq: srq_handle is null");
        }
        return newEp("dat_ep_create_with_srq", pz, recvEvd, requestEvd, connectEvd, srq, attr);
    }

    private DatEp newEp(String call, DatPz pz, DatEvd recvEvd, DatEvd requestEvd, DatEvd connectEvd, DatSrq srq,
                        DatEpAttr attr) {
        requireOpen(call);
        DatEpAttr a = attr != null ? attr : defaultEpAttr(srq != null);
        validateEpAttr(call, a, srq != null);
        beginCreate(call);
        try {
            LoopbackPz p = own(pz, LoopbackPz.class, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            LoopbackEvd recv = recvEvd == null ? null
                    : ownEvd(recvEvd, DatEvdFlags.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_RECV, call,
                    "recv_evd_handle");
            LoopbackEvd request = requestEvd == null ? null
                    : ownEvd(requestEvd, DatEvdFlags.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST, call,
                    "request_evd_handle");
            LoopbackEvd connect = connectEvd == null ? null
                    : ownEvd(connectEvd, DatEvdFlags.CONNECTION, DatReturnSubtype.INVALID_HANDLE_EVD_CONN, call,
                    "connect_evd_handle");
            LoopbackSrq s = srq == null ? null
                    : own(srq, LoopbackSrq.class, DatReturnSubtype.INVALID_HANDLE_SRQ, call, "srq_handle");
            requireRoom(DatHandleType.EP, iaAttr.maxEps(), call, "max_eps");
            LoopbackEp ep = new LoopbackEp(p, recv, request, connect, s, a);
            if (s != null) {
                s.attach(ep, call);
            }
            LoopbackFabric.INSTANCE.addEp(ep);
            return register(ep);
        } finally {
            lifecycle.unlock();
        }
    }

    /** The attributes of {@code createEp(..., null)}: the builder's portable values. */
    static DatEpAttr defaultEpAttr(boolean withSrq) {
        DatEpAttr.Builder b = DatEpAttr.builder();
        if (withSrq) {
            // DAT's default recv completion flag of an SRQ EP: every receive completes signalled.
            b.recvCompletionFlags(DatCompletionFlags.UNSIGNALLED);
        }
        return b.build();
    }

    /** Checks EP attributes against this IA's limits; the message names the DAT field. */
    void validateEpAttr(String call, DatEpAttr a, boolean withSrq) {
        DatArgs.epAttr(call, iaAttr, providerAttr, a, withSrq);
    }

    @Override
    public DatSrq createSrq(DatPz pz, DatSrqAttr attr) {
        String call = "dat_srq_create";
        requireOpen(call);
        DatArgs.srqCreate(iaAttr, attr);
        beginCreate(call);
        try {
            LoopbackPz p = own(pz, LoopbackPz.class, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            requireRoom(DatHandleType.SRQ, iaAttr.maxSrqs(), call, "max_srqs");
            return register(new LoopbackSrq(p, attr.maxRecvDtos(), attr.maxRecvIov()));
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public DatPsp createPsp(long connQual, DatEvd crEvd, DatPspFlags flags) {
        return newPsp("dat_psp_create", false, connQual, crEvd, flags);
    }

    @Override
    public DatPsp createPspAny(DatEvd crEvd, DatPspFlags flags) {
        return newPsp("dat_psp_create_any", true, 0, crEvd, flags);
    }

    private DatPsp newPsp(String call, boolean any, long connQual, DatEvd crEvd, DatPspFlags flags) {
        requireOpen(call);
        if (flags == null) {
            throw invalidParameter(DatReturnSubtype.INVALID_ARG4, call + ": psp_flags is null");
        }
        if (flags == DatPspFlags.PROVIDER) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call
                    + ": psp_flags PROVIDER needs a provider-created EP; ep_creator is NEVER");
        }
        beginCreate(call);
        try {
            LoopbackEvd evd = ownEvd(crEvd, DatEvdFlags.CR, DatReturnSubtype.INVALID_HANDLE_EVD_CR, call,
                    "evd_handle");
            LoopbackFabric fabric = LoopbackFabric.INSTANCE;
            fabric.connLock.lock();
            try {
                long qual = any ? fabric.freeQualifier(address) : connQual;
                LoopbackPsp psp = new LoopbackPsp(this, qual, evd, flags);
                fabric.listen(psp, call);
                return register(psp);
            } finally {
                fabric.connLock.unlock();
            }
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public DatRsp createRsp(long connQual, DatEp ep, DatEvd crEvd) {
        String call = "dat_rsp_create";
        requireOpen(call);
        beginCreate(call);
        try {
            LoopbackEp e = own(ep, LoopbackEp.class, DatReturnSubtype.INVALID_HANDLE_EP, call, "ep_handle");
            LoopbackEvd evd = ownEvd(crEvd, DatEvdFlags.CR, DatReturnSubtype.INVALID_HANDLE_EVD_CR, call,
                    "evd_handle");
            LoopbackFabric fabric = LoopbackFabric.INSTANCE;
            fabric.connLock.lock();
            try {
                if (e.state() != DatEpState.UNCONNECTED) {
                    throw new DatException(DatReturn.INVALID_STATE, LoopbackEp.stateSubtype(e.state()),
                            call + ": ep_handle is " + e.state() + ", not UNCONNECTED");
                }
                LoopbackRsp rsp = new LoopbackRsp(this, connQual, e, evd);
                fabric.listen(rsp, call);
                e.connection.reserve(rsp);
                return register(rsp);
            } finally {
                fabric.connLock.unlock();
            }
        } finally {
            lifecycle.unlock();
        }
    }
}
