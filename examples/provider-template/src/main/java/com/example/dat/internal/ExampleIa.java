// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatCloseFlags;
import dat.api.DatCno;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatException;
import dat.api.DatHandle;
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

/**
 * An example IA ({@code dat_ia_open}): creates and owns every other object. Its {@link HandleSet} runs the free
 * protocol (an object in use by another cannot be freed; an abrupt close frees everything).
 */
final class ExampleIa extends ExampleHandle implements DatIa {

    /** The order in which an abrupt close destroys objects: users before what they use. */
    private static final DatHandleType[] DESTROY_ORDER = {DatHandleType.EP, DatHandleType.PSP, DatHandleType.RSP,
        DatHandleType.LMR, DatHandleType.EVD, DatHandleType.PZ};

    private final String name;
    private final DatProviderAttr providerAttr;
    private final DatIaAttr iaAttr;
    private final HandleSet objects;
    private final ExampleEvd asyncEvd;

    ExampleIa(String name, DatProviderAttr providerAttr, DatIaAttr iaAttr, int asyncEvdMinQlen) {
        super(null);
        this.name = name;
        this.providerAttr = providerAttr;
        this.iaAttr = iaAttr;
        this.objects = new HandleSet(name);
        // The async EVD belongs to the IA itself: not in the handle set, so a graceful close does not count it.
        this.asyncEvd = new ExampleEvd(this, asyncEvdMinQlen, DatEvdFlags.ASYNC);
    }

    HandleSet objects() {
        return objects;
    }

    ExampleEvd asyncEvdInternal() {
        return asyncEvd;
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
        markClosed();
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
        requireOpen("dat_ia_query");
        return asyncEvd;
    }

    @Override
    public InetAddress address() {
        requireOpen("dat_ia_query");
        return Fabric.ADDRESS;
    }

    /** {@code dat_ia_close(GRACEFUL)}, as jDAT's providers answer {@link AutoCloseable#close()}. */
    @Override
    public void close() {
        close(DatCloseFlags.GRACEFUL);
    }

    @Override
    public void close(DatCloseFlags flags) {
        if (flags == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, "dat_ia_close: ia_flags is null");
        }
        Fabric.LOCK.lock();
        try {
            if (isClosed()) {
                return;
            }
            if (flags == DatCloseFlags.GRACEFUL) {
                objects.requireEmptyForGracefulClose();
            }
            objects.destroyAll(DESTROY_ORDER);
            asyncEvd.destroy();
            markClosed();
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public DatPz createPz() {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_pz_create");
            objects.requireRoom(DatHandleType.PZ, iaAttr.maxPzs(), "dat_pz_create", "max_pzs");
            return objects.register(new ExamplePz(this));
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public DatEvd createEvd(int evdMinQlen, DatCno cno, int evdFlags) {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_evd_create");
            DatArgs.evdCreate(iaAttr, evdMinQlen, evdFlags);
            if (cno != null) {
                throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, "dat_evd_create: provider "
                        + ExampleProvider.NAME + " has no CNOs; pass DAT_HANDLE_NULL");
            }
            if ((evdFlags & DatEvdFlags.ASYNC) != 0) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG4,
                        "dat_evd_create: DAT_EVD_ASYNC_FLAG is the IA's own async EVD's; use dat_ia_query");
            }
            objects.requireRoom(DatHandleType.EVD, iaAttr.maxEvds(), "dat_evd_create", "max_evds");
            return objects.register(new ExampleEvd(this, evdMinQlen, evdFlags));
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public DatCno createCno(DatCno.Agent agent) {
        requireOpen("dat_cno_create");
        throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, "dat_cno_create: provider " + ExampleProvider.NAME
                + " has no CNOs; wait on an EVD with dat_evd_wait");
    }

    @Override
    public DatLmr createLmr(DatPz pz, MemorySegment region, int privileges) {
        Fabric.LOCK.lock();
        try {
            requireOpen("dat_lmr_create");
            ExamplePz zone = own(pz, ExamplePz.class, DatReturnSubtype.INVALID_HANDLE_PZ, "dat_lmr_create", "pz");
            // Alive and shared (DatMemory): data moves on whichever thread posts.
            DatArgs.lmrCreate(iaAttr, region, privileges);
            objects.requireRoom(DatHandleType.LMR, iaAttr.maxLmrs(), "dat_lmr_create", "max_lmrs");
            return objects.register(new ExampleLmr(this, zone, region, privileges));
        } finally {
            Fabric.LOCK.unlock();
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

    /** {@code lmr_sync_req} is false: memory is coherent; the call only checks that the segments are registered. */
    private int lmrSync(Iov segments, int count) {
        Fabric.LOCK.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (count < 1 || segments == null || count > segments.capacity()) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            for (int i = 0; i < count; i++) {
                ExampleLmr lmr = Fabric.memory(segments.lmrContext(i));
                if (lmr == null || lmr.ia != this
                        || !lmr.covers(segments.virtualAddress(i), segments.segmentLength(i))) {
                    return DatReturn.DAT_INVALID_PARAMETER;
                }
            }
            return DatReturn.DAT_SUCCESS;
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public DatEp createEp(DatPz pz, DatEvd recvEvd, DatEvd requestEvd, DatEvd connectEvd, DatEpAttr attr) {
        Fabric.LOCK.lock();
        try {
            String call = "dat_ep_create";
            requireOpen(call);
            ExamplePz zone = own(pz, ExamplePz.class, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz");
            ExampleEvd recv = evd(recvEvd, DatEvdFlags.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_RECV, call,
                    "recv_evd");
            ExampleEvd request = evd(requestEvd, DatEvdFlags.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST,
                    call, "request_evd");
            ExampleEvd connect = evd(connectEvd, DatEvdFlags.CONNECTION, DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                    call, "connect_evd");
            DatEpAttr resolved = attr == null ? DatEpAttr.builder().build() : attr;
            DatArgs.epAttr(call, iaAttr, providerAttr, resolved, false);
            objects.requireRoom(DatHandleType.EP, iaAttr.maxEps(), call, "max_eps");
            return objects.register(new ExampleEp(this, zone, recv, request, connect, resolved));
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public DatEp createEpWithSrq(DatPz pz, DatEvd recvEvd, DatEvd requestEvd, DatEvd connectEvd, DatSrq srq,
                                 DatEpAttr attr) {
        requireOpen("dat_ep_create_with_srq");
        throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, "dat_ep_create_with_srq: srq_supported is false");
    }

    @Override
    public DatSrq createSrq(DatPz pz, DatSrqAttr attr) {
        requireOpen("dat_srq_create");
        throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, "dat_srq_create: srq_supported is false");
    }

    @Override
    public DatPsp createPsp(long connQual, DatEvd crEvd, DatPspFlags flags) {
        return createPsp(connQual, false, crEvd, flags);
    }

    @Override
    public DatPsp createPspAny(DatEvd crEvd, DatPspFlags flags) {
        return createPsp(0, true, crEvd, flags);
    }

    private DatPsp createPsp(long connQual, boolean any, DatEvd crEvd, DatPspFlags flags) {
        String call = any ? "dat_psp_create_any" : "dat_psp_create";
        Fabric.LOCK.lock();
        try {
            requireOpen(call);
            ExampleEvd evd = evd(crEvd, DatEvdFlags.CR, DatReturnSubtype.INVALID_HANDLE_EVD_CR, call, "evd_handle");
            if (flags == null) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG4, call + ": psp_flags is null");
            }
            if (flags == DatPspFlags.PROVIDER) {
                throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call
                        + ": DAT_PSP_PROVIDER_FLAG needs a provider that creates EPs; ep_creator is NEVER");
            }
            long qual = any ? Fabric.freeQualifier() : connQual;
            ExamplePsp psp = new ExamplePsp(this, qual, evd, flags);
            if (!Fabric.listen(qual, psp)) {
                throw new DatException(DatReturn.CONN_QUAL_IN_USE, call + ": conn_qual " + qual
                        + " already has a PSP or RSP");
            }
            return objects.register(psp);
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    @Override
    public DatRsp createRsp(long connQual, DatEp ep, DatEvd crEvd) {
        String call = "dat_rsp_create";
        Fabric.LOCK.lock();
        try {
            requireOpen(call);
            ExampleEp endpoint = own(ep, ExampleEp.class, DatReturnSubtype.INVALID_HANDLE_EP, call, "ep_handle");
            ExampleEvd evd = evd(crEvd, DatEvdFlags.CR, DatReturnSubtype.INVALID_HANDLE_EVD_CR, call, "evd_handle");
            ExampleRsp rsp = new ExampleRsp(this, connQual, endpoint, evd);
            endpoint.reserve(call);
            if (!Fabric.listen(connQual, rsp)) {
                endpoint.unreserve();
                throw new DatException(DatReturn.CONN_QUAL_IN_USE, call + ": conn_qual " + connQual
                        + " already has a PSP or RSP");
            }
            return objects.register(rsp);
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    /**
     * @return the handle as this IA's object of that class
     * @throws DatException {@code DAT_INVALID_HANDLE} for null, a closed object or another IA's
     */
    <T extends ExampleHandle> T own(DatHandle handle, Class<T> type, DatReturnSubtype subtype, String call,
                                    String arg) {
        if (!type.isInstance(handle) || ((ExampleHandle) handle).ia != this || handle.isClosed()) {
            throw new DatException(DatReturn.INVALID_HANDLE, subtype, call + ": " + arg + " "
                    + (handle == null ? "is null" : handle.isClosed() ? "is closed" : "is not an object of IA " + name));
        }
        return type.cast(handle);
    }

    /** {@return the EVD, which must have the event kind, or {@code null} when none was given} */
    private ExampleEvd evd(DatEvd handle, int kind, DatReturnSubtype subtype, String call, String arg) {
        if (handle == null) {
            return null;
        }
        ExampleEvd evd = own(handle, ExampleEvd.class, subtype, call, arg);
        if ((evd.flags() & kind) == 0) {
            throw new DatException(DatReturn.INVALID_HANDLE, subtype, call + ": " + arg + " lacks the flag 0x"
                    + Integer.toHexString(kind) + " its events need (evd_flags 0x" + Integer.toHexString(evd.flags())
                    + ")");
        }
        return evd;
    }

    @Override
    public String toString() {
        return "ExampleIa[" + name + (isClosed() ? ", closed]" : "]");
    }
}
