// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatConnectFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatMemPriv;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatServiceType;
import dat.api.Iov;
import dat.provider.udapl.internal.ffm.DatStatus;
import dat.provider.udapl.internal.ffm.DatStructs;
import dat.provider.udapl.internal.ffm.LibDat2;
import dat.spi.AbstractEp;
import dat.spi.DatArgs;
import dat.spi.DtoArgs;
import dat.spi.LmrTriplet;
import dat.spi.ProviderHandle;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.net.InetAddress;

/**
 * An endpoint ({@code dat_ep_create}): the C EP. Its state is the C provider's ({@code dat_ep_query}); the bridge
 * keeps no state machine of its own, so what the kit sees of connections is OFA's behaviour. The posts check in
 * Java what would otherwise reach C as memory (the IOV against this IA's live LMRs, {@code dat.spi.DtoArgs}), write
 * DAT 2.0 triplets into scratch without allocating ({@link UdaplIov}) and run under the IA's lock, as does every
 * other call on the handle.
 */
final class UdaplEp extends AbstractEp<UdaplIa> {

    private static final StructLayout A = DatStructs.DAT_EP_ATTR;
    private static final StructLayout P = DatStructs.DAT_EP_PARAM;
    private static final long DAT_EP_FIELD_ALL = 0x7FFFFFFFL;
    private static final long RT_VA = offset(DatStructs.DAT_RMR_TRIPLET, "virtual_address");
    private static final long RT_LENGTH = offset(DatStructs.DAT_RMR_TRIPLET, "segment_length");
    private static final long RT_CONTEXT = offset(DatStructs.DAT_RMR_TRIPLET, "rmr_context");
    /** The DAT_EP_ATTR members {@code dat_ep_modify} can name, in C order, with their mask bits. */
    private static final String[] MODIFIABLE = {"service_type", "max_message_size", "max_rdma_size", "qos",
        "recv_completion_flags", "request_completion_flags", "max_recv_dtos", "max_request_dtos", "max_recv_iov",
        "max_request_iov", "max_rdma_read_in", "max_rdma_read_out", "srq_soft_hw", "max_rdma_read_iov",
        "max_rdma_write_iov"};

    /** The C handle. */
    final MemorySegment handle;
    final UdaplPz pz;
    final UdaplEvd recvEvd;
    final UdaplEvd requestEvd;
    final UdaplEvd connectEvd;
    private final UdaplIa ia;
    /** Scratch of the posts, under the IA's lock. */
    private final UdaplIov requestIov;
    private final UdaplIov recvIov;
    private final MemorySegment remote;
    private final LmrTriplet reader = new LmrTriplet();

    UdaplEp(UdaplIa ia, UdaplPz pz, UdaplEvd recvEvd, UdaplEvd requestEvd, UdaplEvd connectEvd, DatEpAttr attr) {
        super(ia, false);
        this.ia = ia;
        this.pz = pz;
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        try (Arena local = Arena.ofConfined()) {
            MemorySegment a = local.allocate(A);
            write(a, attr);
            MemorySegment out = local.allocate(ADDRESS);
            UdaplIa.check("dat_ep_create", ia.lib.epCreate(ia.handle, pz.handle, evd(recvEvd), evd(requestEvd),
                    evd(connectEvd), a, out));
            handle = UdaplIa.handleOut(out);
        }
        int requests = Math.max(attr.maxRequestIov(), Math.max(attr.maxRdmaReadIov(), attr.maxRdmaWriteIov()));
        int max = ia.iaAttr().maxIovSegmentsPerDto();
        this.requestIov = new UdaplIov(ia.arena, Math.max(requests, max));
        this.recvIov = new UdaplIov(ia.arena, Math.max(attr.maxRecvIov(), max));
        this.remote = ia.arena.allocate(DatStructs.DAT_RMR_TRIPLET);
    }

    private static MemorySegment evd(UdaplEvd e) {
        return e == null ? MemorySegment.NULL : e.handle;
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz || other == recvEvd || other == requestEvd || other == connectEvd;
    }

    /**
     * Under the IA's lock. A waiter on one of the EP's EVDs may be translating an event of this EP (reading private
     * data C keeps with the EP), so the EVDs' {@code use} locks are taken before C frees it.
     */
    @Override
    protected void destroy() {
        markClosed();
        ia.eps.remove(handle.address(), this);
        ia.untrack(handle.address());
        UdaplEvd[] evds = {connectEvd, recvEvd, requestEvd};
        int locked = 0;
        try {
            for (UdaplEvd e : evds) {
                if (e != null) {
                    e.use.lock();
                    locked++;
                }
            }
            int rc = ia.lib.epFree(handle);
            if (DatStatus.type(rc) == DatReturn.INVALID_STATE) {
                // OFA's dapl_ep_free refuses RESERVED, PASSIVE_ and TENTATIVE_CONNECTION_PENDING: the requests
                // waiting on this EP are answered and the connection abandoned, then the free is tried again.
                for (UdaplCr cr : ia.crs.values()) {
                    if (cr.reserved() == this) {
                        cr.rejectQuietly();
                    }
                }
                ia.lib.epDisconnect(handle, LibDat2.DAT_CLOSE_ABRUPT_FLAG);
                rc = ia.lib.epFree(handle);
            }
            ia.freed("dat_ep_free", rc);
            if (DatStatus.ok(rc)) {
                for (UdaplCr cr : ia.crs.values()) {
                    if (cr.reserved() == this) {
                        cr.epFreed();
                    }
                }
            }
        } finally {
            for (UdaplEvd e : evds) {
                if (e != null && locked-- > 0) {
                    e.use.unlock();
                }
            }
        }
    }

    // ------------------------------------------------------------------ attributes

    private static void setInt(MemorySegment s, String name, int v) {
        s.set(JAVA_INT, offset(A, name), v);
    }

    private static int getInt(MemorySegment s, String name) {
        return s.get(JAVA_INT, offset(A, name));
    }

    /** Writes jDAT EP attributes as a DAT 2.0 {@code DAT_EP_ATTR} (sizes checked to fit 32 bits). */
    static void write(MemorySegment a, DatEpAttr attr) {
        setInt(a, "service_type", attr.serviceType().value());
        setInt(a, "max_message_size", (int) attr.maxMessageSize());
        setInt(a, "max_rdma_size", (int) attr.maxRdmaSize());
        setInt(a, "qos", attr.qos().value());
        setInt(a, "recv_completion_flags", attr.recvCompletionFlags());
        setInt(a, "request_completion_flags", attr.requestCompletionFlags());
        setInt(a, "max_recv_dtos", attr.maxRecvDtos());
        setInt(a, "max_request_dtos", attr.maxRequestDtos());
        setInt(a, "max_recv_iov", attr.maxRecvIov());
        setInt(a, "max_request_iov", attr.maxRequestIov());
        setInt(a, "max_rdma_read_in", attr.maxRdmaReadIn());
        setInt(a, "max_rdma_read_out", attr.maxRdmaReadOut());
        setInt(a, "srq_soft_hw", attr.srqSoftHw());
        setInt(a, "max_rdma_read_iov", attr.maxRdmaReadIov());
        setInt(a, "max_rdma_write_iov", attr.maxRdmaWriteIov());
        setInt(a, "ep_transport_specific_count", 0);
        a.set(ADDRESS, offset(A, "ep_transport_specific"), MemorySegment.NULL);
        setInt(a, "ep_provider_specific_count", 0);
        a.set(ADDRESS, offset(A, "ep_provider_specific"), MemorySegment.NULL);
    }

    /** Reads a DAT 2.0 {@code DAT_EP_ATTR} as jDAT EP attributes. */
    static DatEpAttr read(MemorySegment a) {
        int qos = getInt(a, "qos");
        DatQos q = DatQos.BEST_EFFORT;
        for (DatQos v : DatQos.values()) {
            if (v.value() == qos) {
                q = v;
            }
        }
        return DatEpAttr.builder()
                .serviceType(DatServiceType.RC)
                .maxMessageSize(Integer.toUnsignedLong(getInt(a, "max_message_size")))
                .maxRdmaSize(Integer.toUnsignedLong(getInt(a, "max_rdma_size")))
                .qos(q)
                .recvCompletionFlags(getInt(a, "recv_completion_flags"))
                .requestCompletionFlags(getInt(a, "request_completion_flags"))
                .maxRecvDtos(getInt(a, "max_recv_dtos"))
                .maxRequestDtos(getInt(a, "max_request_dtos"))
                .maxRecvIov(getInt(a, "max_recv_iov"))
                .maxRequestIov(getInt(a, "max_request_iov"))
                .maxRdmaReadIn(getInt(a, "max_rdma_read_in"))
                .maxRdmaReadOut(getInt(a, "max_rdma_read_out"))
                .srqSoftHw(getInt(a, "srq_soft_hw"))
                .maxRdmaReadIov(getInt(a, "max_rdma_read_iov"))
                .maxRdmaWriteIov(getInt(a, "max_rdma_write_iov"))
                .build();
    }

    /** {@return a C {@code DAT_EP_STATE} as jDAT's} DAT 2.0's CONNECTED_SINGLE_PATH and _MULTI_PATH are CONNECTED. */
    static DatEpState state(int c) {
        DatEpState[] all = DatEpState.values();
        if (c >= 0 && c < all.length) {
            return all[c];
        }
        return c == all.length || c == all.length + 1 ? DatEpState.CONNECTED : DatEpState.DISCONNECTED;
    }

    /** {@code dat_ep_query} into {@code param}; IA lock held, EP open. */
    private void queryInto(MemorySegment param) {
        UdaplIa.check("dat_ep_query", ia.lib.epQuery(handle, DAT_EP_FIELD_ALL, param));
    }

    /** {@return the C state}; IA lock held, EP open. */
    DatEpState stateLocked() {
        try (Arena local = Arena.ofConfined()) {
            MemorySegment param = local.allocate(P);
            queryInto(param);
            return state(param.get(JAVA_INT, offset(P, "ep_state")));
        }
    }

    @Override
    public DatEpState state() {
        ia.lock.lock();
        try {
            requireOpen("dat_ep_get_status");
            return stateLocked();
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_ep_get_status}. */
    @Override
    public DatEpStatus getStatus() {
        ia.lock.lock();
        try (Arena local = Arena.ofConfined()) {
            requireOpen("dat_ep_get_status");
            MemorySegment st = local.allocate(JAVA_INT);
            MemorySegment in = local.allocate(JAVA_INT);
            MemorySegment outIdle = local.allocate(JAVA_INT);
            UdaplIa.check("dat_ep_get_status", ia.lib.epGetStatus(handle, st, in, outIdle));
            return new DatEpStatus(state(st.get(JAVA_INT, 0)), in.get(JAVA_INT, 0) != 0,
                    outIdle.get(JAVA_INT, 0) != 0);
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_ep_query}: everything C reports, its handles resolved to this IA's Java objects. */
    @Override
    public DatEpParam query() {
        ia.lock.lock();
        try (Arena local = Arena.ofConfined()) {
            requireOpen("dat_ep_query");
            MemorySegment p = local.allocate(P);
            queryInto(p);
            InetAddress remoteAddress = UdaplAttributes.sockaddr(p.get(ADDRESS, offset(P, "remote_ia_address_ptr")));
            DatEpAttr attr = read(p.asSlice(offset(P, "ep_attr"), A.byteSize()));
            return new DatEpParam(ia, state(p.get(JAVA_INT, offset(P, "ep_state"))), ia.address(),
                    p.get(JAVA_LONG, offset(P, "local_port_qual")), remoteAddress,
                    p.get(JAVA_LONG, offset(P, "remote_port_qual")), pz, recvEvd, requestEvd, connectEvd, null, attr);
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_ep_modify}: the members that differ from C's current ones, by their mask bits. */
    @Override
    protected void implModify(DatEpAttr newAttr) {
        ia.lock.lock();
        try (Arena local = Arena.ofConfined()) {
            requireOpen("dat_ep_modify");
            MemorySegment p = local.allocate(P);
            queryInto(p);
            MemorySegment a = p.asSlice(offset(P, "ep_attr"), A.byteSize());
            MemorySegment wanted = local.allocate(A);
            write(wanted, newAttr);
            long mask = 0;
            for (int k = 0; k < MODIFIABLE.length; k++) {
                int v = getInt(wanted, MODIFIABLE[k]);
                if (getInt(a, MODIFIABLE[k]) != v) {
                    mask |= 0x1000L << k;
                    setInt(a, MODIFIABLE[k], v);
                }
            }
            if (mask != 0) {
                UdaplIa.check("dat_ep_modify", ia.lib.epModify(handle, mask, p));
            }
        } finally {
            ia.lock.unlock();
        }
    }

    // ------------------------------------------------------------------ connections

    private static int timeout(long timeoutMicros) {
        return timeoutMicros >= Dat.DAT_TIMEOUT_INFINITE ? -1 : (int) timeoutMicros;
    }

    private static void checkConnect(String call, long timeoutMicros, DatQos qos, int connectFlags) {
        DatArgs.timeout(call, timeoutMicros, DatReturnSubtype.INVALID_ARG4);
        if (qos == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG7, call + ": qos is null");
        }
        if ((connectFlags & ~DatConnectFlags.MULTIPATH) != 0) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG8,
                    call + ": connect_flags 0x" + Integer.toHexString(connectFlags) + " has unknown bits");
        }
    }

    /** {@code dat_ep_connect}: the remote IA address as a C socket address, the qualifier as C maps it. */
    @Override
    public void connect(InetAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
                        DatQos qos, int connectFlags) {
        String call = "dat_ep_connect";
        requireOpen(call);
        if (remoteIaAddress == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": remote_ia_address is null");
        }
        checkConnect(call, timeoutMicros, qos, connectFlags);
        ia.checkPrivateData(call, privateData, DatReturnSubtype.INVALID_ARG6);
        ia.lock.lock();
        try (Arena local = Arena.ofConfined()) {
            requireOpen(call);
            MemorySegment sa = UdaplIa.sockaddr(local, remoteIaAddress);
            MemorySegment pd = UdaplIa.bytes(local, privateData);
            UdaplIa.check(call, ia.lib.epConnect(handle, sa, remoteConnQual, timeout(timeoutMicros),
                    privateData == null ? 0 : privateData.length, pd, qos.value(), connectFlags));
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_ep_dup_connect}. */
    @Override
    public void dupConnect(DatEp dupEp, long timeoutMicros, byte[] privateData, DatQos qos) {
        String call = "dat_ep_dup_connect";
        requireOpen(call);
        checkConnect(call, timeoutMicros, qos, DatConnectFlags.DEFAULT);
        ia.checkPrivateData(call, privateData, DatReturnSubtype.INVALID_ARG5);
        ia.lock.lock();
        try (Arena local = Arena.ofConfined()) {
            requireOpen(call);
            UdaplEp dup = own(dupEp, UdaplEp.class, DatReturnSubtype.INVALID_HANDLE_EP, call, "dup_ep_handle");
            MemorySegment pd = UdaplIa.bytes(local, privateData);
            UdaplIa.check(call, ia.lib.epDupConnect(handle, dup.handle, timeout(timeoutMicros),
                    privateData == null ? 0 : privateData.length, pd, qos.value()));
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    protected void implDisconnect(DatCloseFlags flags) {
        ia.lock.lock();
        try {
            requireOpen("dat_ep_disconnect");
            UdaplIa.check("dat_ep_disconnect", ia.lib.epDisconnect(handle, UdaplIa.closeFlag(flags)));
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_ep_reset}. */
    @Override
    public void reset() {
        ia.lock.lock();
        try {
            requireOpen("dat_ep_reset");
            UdaplIa.check("dat_ep_reset", ia.lib.epReset(handle));
        } finally {
            ia.lock.unlock();
        }
    }

    // ------------------------------------------------------------------ data path

    /**
     * The Java checks of a post, IA lock held: the EP open, the flags DAT defines, the IOV within its limit and
     * each segment within a live LMR of this EP's PZ with the privilege the transfer needs; then the triplets.
     */
    private int prepare(UdaplIov scratch, int n, Iov iov, int maxIov, int flags, int privilege) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if ((flags & ~DatCompletionFlags.POST_FLAGS) != 0) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        if (DtoArgs.iov(n, iov, maxIov) != DatReturn.DAT_SUCCESS) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        for (int s = 0; s < n; s++) {
            int rc = reader.read(iov, s);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            rc = DtoArgs.segment(ia.lmrOf(reader.lmrContext()), pz, privilege, reader.virtualAddress(),
                    reader.segmentLength());
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
        }
        return scratch.fill(iov, n);
    }

    private int remote(int rmrContext, long targetAddress, long length) {
        if (length < 0 || length > UdaplIov.MAX_SEGMENT) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        remote.set(JAVA_LONG, RT_VA, targetAddress);
        remote.set(JAVA_INT, RT_LENGTH, (int) length);
        remote.set(JAVA_INT, RT_CONTEXT, rmrContext);
        return DatReturn.DAT_SUCCESS;
    }

    /** {@code dat_ep_post_send}. */
    @Override
    public int postSend(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        ia.lock.lock();
        try {
            int rc = prepare(requestIov, numSegments, localIov, ia.iaAttr().maxIovSegmentsPerDto(), completionFlags,
                    DatMemPriv.LOCAL_READ);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            return UdaplIa.status(ia.lib.epPostSend(handle, numSegments, requestIov.triplets(), userCookie,
                    completionFlags));
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_ep_post_recv}. */
    @Override
    public int postRecv(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        ia.lock.lock();
        try {
            int rc = prepare(recvIov, numSegments, localIov, ia.iaAttr().maxIovSegmentsPerDto(), completionFlags,
                    DatMemPriv.LOCAL_WRITE);
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            return UdaplIa.status(ia.lib.epPostRecv(handle, numSegments, recvIov.triplets(), userCookie,
                    completionFlags));
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_ep_post_rdma_read}. */
    @Override
    public int postRdmaRead(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                            long segmentLength, int completionFlags) {
        ia.lock.lock();
        try {
            int rc = prepare(requestIov, numSegments, localIov, ia.iaAttr().maxIovSegmentsPerDto(), completionFlags,
                    DatMemPriv.LOCAL_WRITE);
            if (rc == DatReturn.DAT_SUCCESS) {
                rc = remote(rmrContext, targetAddress, segmentLength);
            }
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            return UdaplIa.status(ia.lib.epPostRdmaRead(handle, numSegments, requestIov.triplets(), userCookie,
                    remote, completionFlags));
        } finally {
            ia.lock.unlock();
        }
    }

    /** {@code dat_ep_post_rdma_write}. */
    @Override
    public int postRdmaWrite(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                             long segmentLength, int completionFlags) {
        ia.lock.lock();
        try {
            int rc = prepare(requestIov, numSegments, localIov, ia.iaAttr().maxIovSegmentsPerDto(), completionFlags,
                    DatMemPriv.LOCAL_READ);
            if (rc == DatReturn.DAT_SUCCESS) {
                rc = remote(rmrContext, targetAddress, segmentLength);
            }
            if (rc != DatReturn.DAT_SUCCESS) {
                return rc;
            }
            return UdaplIa.status(ia.lib.epPostRdmaWrite(handle, numSegments, requestIov.triplets(), userCookie,
                    remote, completionFlags));
        } finally {
            ia.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "UdaplEp[0x" + Long.toHexString(handle.address()) + (isClosed() ? ", closed]" : "]");
    }
}
