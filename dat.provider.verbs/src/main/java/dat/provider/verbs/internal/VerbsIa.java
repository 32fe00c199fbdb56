// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dat.api.DatCno;
import dat.api.DatCompletionFlags;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatIaAttr;
import dat.api.DatProviderAttr;
import dat.api.DatPspFlags;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatSrqAttr;
import dat.provider.verbs.internal.ffm.IbvCompChannel;
import dat.provider.verbs.internal.ffm.IbvContext;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.LibRdmacm;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.provider.verbs.internal.ffm.RdmaCmId;
import dat.provider.verbs.internal.ffm.RdmaEventChannel;
import dat.provider.verbs.internal.ffm.SockaddrIn;
import dat.provider.verbs.internal.ffm.SockaddrIn6;
import dat.spi.AbstractCno;
import dat.spi.AbstractIa;
import dat.spi.DatArgs;
import dat.spi.IntTable;
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
 * <p><b>Lifecycle.</b> The DAT calls, their checks and the free protocol are {@link AbstractIa}'s: creation and free
 * of every object of the IA are serialised by its lifecycle lock, which also guards the dependency checks of a free.
 * Connection-manager ids are named to the progress thread by a key, never by a Java reference: an event for an
 * object freed meanwhile finds no owner and is dropped.
 */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class VerbsIa extends AbstractIa<VerbsIa, VerbsPz, VerbsEvd, VerbsSrq, VerbsEp> {

    /** completion_flags_supported has SOLICITED_WAIT: sends may solicit. */
    final boolean solicitedSends;
    final VerbsPort port;
    final LibIbverbs verbs;
    final LibRdmacm cm;
    /** IA-lifetime native memory: the anchor id's address, the progress thread's buffers. */
    final Arena arena = Arena.ofShared();
    /** The rdma_cm event channel every id of this IA reports to. */
    final MemorySegment cmChannel;
    /** The verbs context rdma_cm uses for {@link #address()}. */
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
    private final VerbsProgress progress;
    /** Guarded by the lifecycle lock. */
    private int nextSrqIndex;

    private VerbsIa(VerbsPort port, LibIbverbs verbs, LibRdmacm cm, DatProviderAttr providerAttr, DatIaAttr iaAttr,
                    int asyncQlen) {
        super(port.iaName(), port.address(), providerAttr, iaAttr, new ReentrantLock());
        this.port = port;
        this.verbs = verbs;
        this.cm = cm;
        this.solicitedSends = (providerAttr.completionFlagsSupported() & DatCompletionFlags.SOLICITED_WAIT) != 0;
        MemorySegment channel = MemorySegment.NULL;
        MemorySegment anchor = MemorySegment.NULL;
        MemorySegment comp = MemorySegment.NULL;
        try {
            channel = cm.rdma_create_event_channel();
            MemorySegment idOut = arena.allocate(ADDRESS);
            cm.rdma_create_id(channel, idOut, MemorySegment.NULL, LibRdmacm.RDMA_PS_TCP);
            anchor = idOut.get(ADDRESS, 0).reinterpret(RdmaCmId.SIZE);
            cm.rdma_bind_addr(anchor, sockaddr(arena, address(), 0));
            MemorySegment ctx = RdmaCmId.verbs(anchor);
            if (ctx.address() == 0) {
                throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                        "dat_ia_open: " + name() + ": rdma_cm bound " + address().getHostAddress()
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
                    "dat_ia_open: " + name() + ": " + e.getMessage(), e);
        }
        this.cmChannel = channel;
        this.anchorId = anchor;
        this.compChannel = comp;
        initAsyncEvd(VerbsEvd.async(this, asyncQlen));
        this.progress = new VerbsProgress(this, RdmaEventChannel.fd(channel.reinterpret(RdmaEventChannel.SIZE)),
                IbvCompChannel.fd(comp.reinterpret(IbvCompChannel.SIZE)), IbvContext.asyncFd(context));
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
            SockaddrIn.sinFamily(sa, (short) LibRdmacm.AF_INET);
            SockaddrIn.sinPort(sa, netPort);
            MemorySegment.copy(raw, 0, SockaddrIn.sinAddr(sa), JAVA_BYTE, 0, 4);
            return sa;
        }
        MemorySegment sa = arena.allocate(SockaddrIn6.LAYOUT);
        SockaddrIn6.sin6Family(sa, (short) LibRdmacm.AF_INET6);
        SockaddrIn6.sin6Port(sa, netPort);
        MemorySegment.copy(raw, 0, SockaddrIn6.sin6Addr(sa), JAVA_BYTE, 0, 16);
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

    /**
     * {@code dat_ia_close}, after the shell destroyed the IA's objects (EPs first, so their flushes reach EVDs that
     * still exist): requests nobody answered are rejected under the lifecycle lock; then the progress thread stops
     * and the anchor, the channels and the IA's native memory are released.
     */
    @Override
    protected void implCloseLocked() {
        for (Object owner : new ArrayList<>(cmOwners.values())) {
            if (owner instanceof VerbsCr cr) {
                cr.rejectQuietly();
            }
        }
    }

    @Override
    protected void implClosed() {
        progress.stop();
        asyncEvd().destroy();
        cm.rdma_destroy_id(anchorId);
        verbs.ibv_destroy_comp_channel(compChannel);
        cm.rdma_destroy_event_channel(cmChannel);
        arena.close();
    }

    /** A failed verbs call of a create: the resource it could not get. */
    static DatException resources(String call, NativeCallException e) {
        return new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                call + ": " + e.getMessage(), e);
    }

    @Override
    protected DatException unsupported(String call, DatHandleType kind) {
        return switch (kind) {
            case RMR -> new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": device " + port.device()
                    + " has no type 1 memory windows (max_rmrs 0); give the peer the LMR's rmr_context instead");
            case SRQ -> new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": device " + port.device()
                    + " has no SRQ (max_srq 0)");
            default -> super.unsupported(call, kind);
        };
    }

    @Override
    protected VerbsPz implCreatePz() {
        return new VerbsPz(this);
    }

    @Override
    protected VerbsEvd implCreateEvd(int evdMinQlen, AbstractCno<VerbsIa> cno, int evdFlags) {
        return VerbsEvd.create(this, evdMinQlen, cno, evdFlags);
    }

    @Override
    protected VerbsCno implCreateCno(DatCno.Agent agent) {
        return new VerbsCno(this, agent);
    }

    @Override
    protected VerbsLmr implCreateLmr(VerbsPz pz, MemorySegment region, int privileges) {
        VerbsLmr lmr = new VerbsLmr(pz, region, privileges);
        lmrsByLkey.put(lmr.lmrContext(), lmr);
        return lmr;
    }

    /**
     * {@code dat_rmr_create}: a type 1 memory window ({@link VerbsRmr}) where the device has them
     * ({@code max_rmrs} > 0); otherwise the shell answers {@code DAT_MODEL_NOT_SUPPORTED}, and a peer reaches an LMR
     * through its own {@code rmr_context}, the MR's rkey.
     */
    @Override
    protected VerbsRmr implCreateRmr(VerbsPz pz) {
        return new VerbsRmr(pz);
    }

    @Override
    protected VerbsLmr lmrOf(int lmrContext) {
        return lmrsByLkey.get(lmrContext);
    }

    @Override
    protected VerbsEp implCreateEp(String call, VerbsPz pz, VerbsEvd recvEvd, VerbsEvd requestEvd,
                                   VerbsEvd connectEvd, VerbsSrq srq, DatEpAttr attr) {
        VerbsEp ep = new VerbsEp(pz, recvEvd, requestEvd, connectEvd, srq, attr);
        epsByQpn.put(ep.qpNum, ep);
        return ep;
    }

    @Override
    protected void checkSrqCreate(DatSrqAttr attr) {
        super.checkSrqCreate(attr);
        int maxSrqSge = port.deviceLimits().maxSrqSge();
        if (attr.maxRecvIov() > maxSrqSge) {
            // max_iov_segments_per_dto is the device's max_sge; its SRQs may take fewer (rxe: 32 and 27). Asking
            // past that is an attribute this IA cannot give, not a shortage that may pass.
            throw new DatException(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3, "dat_srq_create"
                    + ": srq_attr.max_recv_iov " + attr.maxRecvIov() + " exceeds the " + maxSrqSge
                    + " segments device " + port.device() + " gives an SRQ receive (max_srq_sge)");
        }
    }

    @Override
    protected VerbsSrq implCreateSrq(VerbsPz pz, DatSrqAttr attr) {
        int index = ++nextSrqIndex;
        VerbsSrq s = new VerbsSrq(pz, index, attr.maxRecvDtos(), attr.maxRecvIov());
        srqsByIndex.put(index, s);
        return s;
    }

    /** The verbs provider's qualifiers are rdma_cm TCP ports. */
    @Override
    protected void checkConnQual(String call, long connQual) {
        VerbsPsp.checkQualifier(call, connQual);
    }

    @Override
    protected VerbsPsp implCreatePsp(String call, boolean any, long connQual, VerbsEvd crEvd, DatPspFlags flags) {
        return new VerbsPsp(this, call, any ? 0 : connQual, crEvd, flags);
    }

    @Override
    protected VerbsRsp implCreateRsp(String call, long connQual, VerbsEp ep, VerbsEvd crEvd) {
        if (ep.state() != DatEpState.UNCONNECTED || ep.connection.reservedBy() != null) {
            throw new DatException(DatReturn.INVALID_STATE, DatArgs.epStateSubtype(ep.state()),
                    call + ": ep_handle is " + ep.state()
                            + (ep.connection.reservedBy() != null ? " and reserved by an RSP" : "")
                            + ", not UNCONNECTED");
        }
        VerbsRsp rsp = new VerbsRsp(this, connQual, ep, crEvd);
        ep.connection.reserve(rsp);
        return rsp;
    }
}
