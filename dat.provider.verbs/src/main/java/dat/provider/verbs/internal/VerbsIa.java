// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

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
import dat.api.DatRmr;
import dat.api.DatRsp;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import dat.provider.verbs.internal.ffm.IbvCompChannel;
import dat.provider.verbs.internal.ffm.IbvContext;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.LibRdmacm;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.provider.verbs.internal.ffm.RdmaCmId;
import dat.provider.verbs.internal.ffm.RdmaEventChannel;
import dat.provider.verbs.internal.ffm.SockaddrIn;
import dat.provider.verbs.internal.ffm.SockaddrIn6;
import dat.spi.DatArgs;
import dat.spi.HandleSet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An interface adapter ({@code dat_ia_open}) over one port of an RDMA device.
 *
 * <p><b>Which verbs context.</b> The IA binds an rdma_cm id (the <em>anchor</em>) to its IP address and uses the
 * {@code ibv_context} librdmacm opened for it: a QP connected through rdma_cm must live on the context rdma_cm
 * resolves the address to, so PDs, CQs, SRQs, MRs and QPs are all created there.
 *
 * <p><b>Progress.</b> One platform thread per IA ({@link VerbsProgress}) waits in {@code poll(2)} on the
 * completion channel shared by every CQ of the IA, the rdma_cm event channel and the device's async fd. It turns
 * connection-manager events into DAT connection events, async events into DAT async events, and completion
 * notifications into wake-ups of EVD waiters and CNOs. It never polls a CQ: completions are taken by the
 * consumer's dequeue or wait, on the consumer's thread, so the data path has no hand-off.
 *
 * <p><b>Lifecycle.</b> Creation and free of every object of the IA are serialised by {@link #lifecycle}, which also
 * guards the dependency checks of {@link #free}. Connection-manager ids are named to the progress thread by a
 * key, never by a Java reference: an event for an object freed meanwhile finds no owner and is dropped.
 */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class VerbsIa extends VerbsHandle implements DatIa {

    final String name;
    final InetAddress address;
    final DatProviderAttr providerAttr;
    final DatIaAttr iaAttr;
    /** completion_flags_supported has SOLICITED_WAIT: sends may solicit. */
    final boolean solicitedSends;
    final VerbsPort port;
    final LibIbverbs verbs;
    final LibRdmacm cm;
    final ReentrantLock lifecycle = new ReentrantLock();
    /** IA-lifetime native memory: the anchor id's address, the progress thread's buffers. */
    final Arena arena = Arena.ofShared();
    /** The rdma_cm event channel every id of this IA reports to. */
    final MemorySegment cmChannel;
    /** The verbs context rdma_cm uses for {@link #address}. */
    final MemorySegment context;
    /** The completion channel of every CQ of this IA. */
    final MemorySegment compChannel;
    /** lkey to LMR, for the post-time checks of local segments. */
    final IntTable<VerbsLmr> lmrsByLkey = new IntTable<>();
    /** QP number to EP: how a completion finds its EP. */
    final IntTable<VerbsEp> epsByQpn = new IntTable<>();
    /** SRQ index to SRQ: how a receive completion finds its SRQ slot. */
    final IntTable<VerbsSrq> srqsByIndex = new IntTable<>();
    /** CQ key to EVD: how a completion-channel event finds its EVD. */
    final Map<Long, VerbsEvd> evdsByKey = new ConcurrentHashMap<>();
    /** rdma_cm id key to its owner (EP, PSP, RSP or CR). */
    final Map<Long, Object> cmOwners = new ConcurrentHashMap<>();
    private final AtomicLong keys = new AtomicLong();

    private final MemorySegment anchorId;
    private final VerbsEvd asyncEvd;
    private final VerbsProgress progress;
    private final HandleSet objects;
    private int nextSrqIndex;

    private VerbsIa(VerbsPort port, LibIbverbs verbs, LibRdmacm cm, DatProviderAttr providerAttr, DatIaAttr iaAttr,
                    int asyncQlen) {
        this.name = port.iaName();
        this.objects = new HandleSet(name);
        this.address = port.address();
        this.port = port;
        this.verbs = verbs;
        this.cm = cm;
        this.providerAttr = providerAttr;
        this.iaAttr = iaAttr;
        this.solicitedSends = (providerAttr.completionFlagsSupported() & DatCompletionFlags.SOLICITED_WAIT) != 0;
        MemorySegment channel = MemorySegment.NULL;
        MemorySegment anchor = MemorySegment.NULL;
        MemorySegment comp = MemorySegment.NULL;
        try {
            channel = cm.rdma_create_event_channel();
            MemorySegment idOut = arena.allocate(ADDRESS);
            cm.rdma_create_id(channel, idOut, MemorySegment.NULL, LibRdmacm.RDMA_PS_TCP);
            anchor = idOut.get(ADDRESS, 0).reinterpret(RdmaCmId.SIZE);
            cm.rdma_bind_addr(anchor, sockaddr(arena, address, 0));
            MemorySegment ctx = anchor.get(ADDRESS, RdmaCmId.VERBS);
            if (ctx.address() == 0) {
                throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                        "dat_ia_open: " + name + ": rdma_cm bound " + address.getHostAddress()
                                + " to no RDMA device; is the address on the device's netdev?");
            }
            this.context = ctx.reinterpret(IbvContext.SIZE);
            comp = verbs.ibv_create_comp_channel(context);
        } catch (NativeCallException e) {
            if (anchor.address() != 0) {
                cm.rdma_destroy_id(anchor);
            }
            if (channel.address() != 0) {
                cm.rdma_destroy_event_channel(channel);
            }
            arena.close();
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    "dat_ia_open: " + name + ": " + e.getMessage(), e);
        }
        this.cmChannel = channel;
        this.anchorId = anchor;
        this.compChannel = comp;
        this.asyncEvd = VerbsEvd.async(this, asyncQlen);
        this.progress = new VerbsProgress(this, channel.reinterpret(RdmaEventChannel.SIZE).get(JAVA_INT,
                RdmaEventChannel.FD), comp.reinterpret(IbvCompChannel.SIZE).get(JAVA_INT, IbvCompChannel.FD),
                context.get(JAVA_INT, IbvContext.ASYNC_FD));
        progress.start();
    }

    /**
     * {@code dat_ia_open} of one port.
     *
     * @param port the port, as the device scan found it
     * @param verbs libibverbs
     * @param cm librdmacm
     * @param asyncQlen the async EVD's queue length
     * @return the open IA
     */
    static VerbsIa open(VerbsPort port, LibIbverbs verbs, LibRdmacm cm, int asyncQlen) {
        if (asyncQlen < 1) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2,
                    "dat_ia_open: async_evd_qlen " + asyncQlen + " is below 1");
        }
        return new VerbsIa(port, verbs, cm, VerbsAttributes.providerAttr(port), VerbsAttributes.iaAttr(port),
                asyncQlen);
    }

    /**
     * {@return a {@code sockaddr_in} or {@code sockaddr_in6}}
     *
     * @param arena where the address lives
     * @param ip an IPv4 or IPv6 address
     * @param portNumber a TCP port-space port
     */
    static MemorySegment sockaddr(Arena arena, InetAddress ip, int portNumber) {
        byte[] raw = ip.getAddress();
        short netPort = Short.reverseBytes((short) portNumber);
        if (ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN) {
            netPort = (short) portNumber;
        }
        if (ip instanceof Inet4Address) {
            MemorySegment sa = arena.allocate(SockaddrIn.LAYOUT);
            sa.set(JAVA_SHORT, SockaddrIn.SIN_FAMILY, (short) LibRdmacm.AF_INET);
            sa.set(JAVA_SHORT, SockaddrIn.SIN_PORT, netPort);
            MemorySegment.copy(raw, 0, sa, JAVA_BYTE, SockaddrIn.SIN_ADDR, 4);
            return sa;
        }
        MemorySegment sa = arena.allocate(SockaddrIn6.LAYOUT);
        sa.set(JAVA_SHORT, SockaddrIn6.SIN6_FAMILY, (short) LibRdmacm.AF_INET6);
        sa.set(JAVA_SHORT, SockaddrIn6.SIN6_PORT, netPort);
        MemorySegment.copy(raw, 0, sa, JAVA_BYTE, SockaddrIn6.SIN6_ADDR, 16);
        return sa;
    }

    /** {@return the progress thread} */
    VerbsProgress progress() {
        return progress;
    }

    /** {@return a fresh key naming an object to the progress thread} */
    long newKey() {
        return keys.incrementAndGet();
    }

    @Override
    VerbsIa owner() {
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

    VerbsEvd async() {
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

    /**
     * {@code dat_ia_close}. GRACEFUL refuses while objects live; ABRUPT frees them in dependency order (EPs first,
     * so their flushes reach EVDs that still exist), then stops the progress thread and releases the anchor, the
     * channels and the IA's native memory.
     */
    @Override
    public void close(DatCloseFlags flags) {
        if (flags == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, "dat_ia_close: ia_flags is null");
        }
        lifecycle.lock();
        try {
            if (isClosed()) {
                return;
            }
            if (flags == DatCloseFlags.GRACEFUL) {
                objects.requireEmptyForGracefulClose();
            }
            objects.destroyAll(DatHandleType.CR, DatHandleType.RSP, DatHandleType.PSP, DatHandleType.EP,
                    DatHandleType.RMR, DatHandleType.LMR, DatHandleType.SRQ, DatHandleType.EVD, DatHandleType.CNO,
                    DatHandleType.PZ);
            for (Object owner : new ArrayList<>(cmOwners.values())) {
                if (owner instanceof VerbsCr cr) {
                    cr.rejectQuietly();
                }
            }
            markClosed();
        } finally {
            lifecycle.unlock();
        }
        progress.stop();
        asyncEvd.destroy();
        cm.rdma_destroy_id(anchorId);
        verbs.ibv_destroy_comp_channel(compChannel);
        cm.rdma_destroy_event_channel(cmChannel);
        arena.close();
    }

    /** {@code dat_*_free} of a child: refuses while another live object uses it. */
    void free(VerbsHandle h) {
        lifecycle.lock();
        try {
            objects.free(h);
        } finally {
            lifecycle.unlock();
        }
    }

    /** Adds a new object; caller holds {@link #lifecycle} and checked {@link #requireRoom}. */
    <T extends VerbsHandle> T register(T h) {
        return objects.register(h);
    }

    void requireRoom(DatHandleType type, int max, String call, String limit) {
        objects.requireRoom(type, max, call, limit);
    }

    /** Opens the lifecycle section of a create call: the IA must still be open. */
    void beginCreate(String call) {
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
     * @param type the verbs class expected
     * @param subtype the DAT_INVALID_HANDLE subtype
     * @param call the DAT call
     * @param arg the argument name
     * @return the object
     */
    <T extends VerbsHandle> T own(Object handle, Class<T> type, DatReturnSubtype subtype, String call, String arg) {
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

    VerbsEvd ownEvd(DatEvd evd, int flag, DatReturnSubtype subtype, String call, String arg) {
        VerbsEvd e = own(evd, VerbsEvd.class, subtype, call, arg);
        if ((e.flags & flag) == 0) {
            throw new DatException(DatReturn.INVALID_HANDLE, subtype, call + ": " + arg + " lacks the "
                    + flagName(flag) + " flag (evd_flags 0x" + Integer.toHexString(e.flags) + ")");
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

    /** A failed verbs call of a create: the resource it could not get. */
    static DatException resources(String call, NativeCallException e) {
        return new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                call + ": " + e.getMessage(), e);
    }

    @Override
    public DatPz createPz() {
        String call = "dat_pz_create";
        beginCreate(call);
        try {
            requireRoom(DatHandleType.PZ, iaAttr.maxPzs(), call, "max_pzs");
            return register(new VerbsPz(this));
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
            VerbsCno c = cno == null ? null
                    : own(cno, VerbsCno.class, DatReturnSubtype.INVALID_HANDLE_CNO, call, "cno_handle");
            requireRoom(DatHandleType.EVD, iaAttr.maxEvds(), call, "max_evds");
            return register(VerbsEvd.create(this, evdMinQlen, c, evdFlags));
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public DatCno createCno(DatCno.Agent agent) {
        beginCreate("dat_cno_create");
        try {
            return register(new VerbsCno(this, agent));
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public DatLmr createLmr(DatPz pz, MemorySegment region, int privileges) {
        String call = "dat_lmr_create";
        requireOpen(call);
        DatArgs.lmrCreate(iaAttr, region, privileges);
        beginCreate(call);
        try {
            VerbsPz p = own(pz, VerbsPz.class, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            requireRoom(DatHandleType.LMR, iaAttr.maxLmrs(), call, "max_lmrs");
            VerbsLmr lmr = new VerbsLmr(p, region, privileges);
            lmrsByLkey.put(lmr.lmrContext(), lmr);
            return register(lmr);
        } finally {
            lifecycle.unlock();
        }
    }

    /**
     * {@code dat_rmr_create}: a type 1 memory window ({@link VerbsRmr}) where the device has them
     * ({@code max_rmrs} > 0); otherwise {@code DAT_MODEL_NOT_SUPPORTED}, and a peer reaches an LMR through its own
     * {@code rmr_context}, the MR's rkey.
     */
    DatRmr createRmr(VerbsPz pz) {
        String call = "dat_rmr_create";
        requireOpen(call);
        beginCreate(call);
        try {
            VerbsPz p = own(pz, VerbsPz.class, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            if (iaAttr.maxRmrs() == 0) {
                throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": device " + port.device()
                        + " has no type 1 memory windows (max_rmrs 0); give the peer the LMR's rmr_context instead");
            }
            requireRoom(DatHandleType.RMR, iaAttr.maxRmrs(), call, "max_rmrs");
            return register(new VerbsRmr(p));
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

    /** lmr_sync_req is false: the HCA's DMA is coherent with the CPU caches, so only the arguments are checked. */
    private int lmrSync(Iov iov, int numSegments) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        if (numSegments < 0 || (numSegments > 0 && (iov == null || numSegments > iov.capacity()))) {
            return DatReturn.DAT_INVALID_PARAMETER;
        }
        try {
            for (int i = 0; i < numSegments; i++) {
                VerbsLmr lmr = lmrsByLkey.get(iov.lmrContext(i));
                if (lmr == null || lmr.isClosed() || !lmr.contains(iov.virtualAddress(i), iov.segmentLength(i))) {
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
        DatArgs.epAttr(call, iaAttr, providerAttr, a, srq != null);
        beginCreate(call);
        try {
            VerbsPz p = own(pz, VerbsPz.class, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            VerbsEvd recv = recvEvd == null ? null
                    : ownEvd(recvEvd, DatEvdFlags.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_RECV, call,
                    "recv_evd_handle");
            VerbsEvd request = requestEvd == null ? null
                    : ownEvd(requestEvd, DatEvdFlags.DTO, DatReturnSubtype.INVALID_HANDLE_EVD_REQUEST, call,
                    "request_evd_handle");
            VerbsEvd connect = connectEvd == null ? null
                    : ownEvd(connectEvd, DatEvdFlags.CONNECTION, DatReturnSubtype.INVALID_HANDLE_EVD_CONN, call,
                    "connect_evd_handle");
            VerbsSrq s = srq == null ? null
                    : own(srq, VerbsSrq.class, DatReturnSubtype.INVALID_HANDLE_SRQ, call, "srq_handle");
            if (s != null && s.pz != p && !providerAttr.srqEpPzDifferenceSupported()) {
                throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call
                        + ": the SRQ is on another PZ than the EP; srq_ep_pz_difference_supported is false");
            }
            requireRoom(DatHandleType.EP, iaAttr.maxEps(), call, "max_eps");
            VerbsEp ep = new VerbsEp(p, recv, request, connect, s, a);
            epsByQpn.put(ep.qpNum, ep);
            return register(ep);
        } finally {
            lifecycle.unlock();
        }
    }

    /** The attributes of {@code createEp(..., null)}: the builder's portable values. */
    static DatEpAttr defaultEpAttr(boolean withSrq) {
        DatEpAttr.Builder b = DatEpAttr.builder();
        if (withSrq) {
            b.recvCompletionFlags(DatCompletionFlags.UNSIGNALLED);
        }
        return b.build();
    }

    @Override
    public DatSrq createSrq(DatPz pz, DatSrqAttr attr) {
        String call = "dat_srq_create";
        requireOpen(call);
        if (!providerAttr.srqSupported()) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": device " + port.device()
                    + " has no SRQ (max_srq 0)");
        }
        DatArgs.srqCreate(iaAttr, attr);
        int maxSrqSge = port.deviceLimits().maxSrqSge();
        if (attr.maxRecvIov() > maxSrqSge) {
            // max_iov_segments_per_dto is the device's max_sge; its SRQs may take fewer (rxe: 32 and 27). Asking
            // past that is an attribute this IA cannot give, not a shortage that may pass.
            throw new DatException(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, call
                    + ": srq_attr.max_recv_iov " + attr.maxRecvIov() + " exceeds the " + maxSrqSge
                    + " segments device " + port.device() + " gives an SRQ receive (max_srq_sge)");
        }
        beginCreate(call);
        try {
            VerbsPz p = own(pz, VerbsPz.class, DatReturnSubtype.INVALID_HANDLE_PZ, call, "pz_handle");
            requireRoom(DatHandleType.SRQ, iaAttr.maxSrqs(), call, "max_srqs");
            int index = ++nextSrqIndex;
            VerbsSrq s = new VerbsSrq(p, index, attr.maxRecvDtos(), attr.maxRecvIov());
            srqsByIndex.put(index, s);
            return register(s);
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
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG4, call + ": psp_flags is null");
        }
        if (flags == DatPspFlags.PROVIDER) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call
                    + ": psp_flags PROVIDER needs a provider-created EP; ep_creator is NEVER");
        }
        if (!any) {
            VerbsPsp.checkQualifier(call, connQual);
        }
        beginCreate(call);
        try {
            VerbsEvd evd = ownEvd(crEvd, DatEvdFlags.CR, DatReturnSubtype.INVALID_HANDLE_EVD_CR, call,
                    "evd_handle");
            return register(new VerbsPsp(this, call, any ? 0 : connQual, evd, flags));
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public DatRsp createRsp(long connQual, DatEp ep, DatEvd crEvd) {
        String call = "dat_rsp_create";
        requireOpen(call);
        VerbsPsp.checkQualifier(call, connQual);
        beginCreate(call);
        try {
            VerbsEp e = own(ep, VerbsEp.class, DatReturnSubtype.INVALID_HANDLE_EP, call, "ep_handle");
            VerbsEvd evd = ownEvd(crEvd, DatEvdFlags.CR, DatReturnSubtype.INVALID_HANDLE_EVD_CR, call,
                    "evd_handle");
            if (e.state() != DatEpState.UNCONNECTED || e.connection.reservedBy() != null) {
                throw new DatException(DatReturn.INVALID_STATE, VerbsEp.stateSubtype(e.state()),
                        call + ": ep_handle is " + e.state()
                                + (e.connection.reservedBy() != null ? " and reserved by an RSP" : "")
                                + ", not UNCONNECTED");
            }
            VerbsRsp rsp = new VerbsRsp(this, connQual, e, evd);
            e.connection.reserve(rsp);
            return register(rsp);
        } finally {
            lifecycle.unlock();
        }
    }
}
