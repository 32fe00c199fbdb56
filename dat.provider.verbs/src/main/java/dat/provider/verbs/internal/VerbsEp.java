// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatConnectFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpRecvInfo;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatHandleType;
import dat.api.DatMemPriv;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.Iov;
import dat.provider.verbs.internal.ffm.Errno;
import dat.provider.verbs.internal.ffm.IbvContextOps;
import dat.provider.verbs.internal.ffm.IbvMwBind;
import dat.provider.verbs.internal.ffm.IbvOps;
import dat.provider.verbs.internal.ffm.IbvQp;
import dat.provider.verbs.internal.ffm.IbvQpAttr;
import dat.provider.verbs.internal.ffm.IbvQpCap;
import dat.provider.verbs.internal.ffm.IbvQpInitAttr;
import dat.provider.verbs.internal.ffm.IbvRecvWr;
import dat.provider.verbs.internal.ffm.IbvSendWr;
import dat.provider.verbs.internal.ffm.IbvSge;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.LibRdmacm;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.provider.verbs.internal.ffm.RdmaCmId;
import dat.provider.verbs.internal.ffm.RdmaConnParam;
import dat.spi.DatArgs;
import dat.spi.ProviderHandle;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An endpoint ({@code dat_ep_create}, {@code dat_ep_create_with_srq}): an RC QP that the provider owns and moves
 * through its states itself, connected with rdma_cm.
 *
 * <h2>Why the QP is not rdma_cm's</h2>
 * {@code rdma_create_qp} ties a QP to one {@code rdma_cm_id}, and the passive side's id is born with the
 * connection request, after the consumer may already have posted receives to the EP (DAT allows that in
 * UNCONNECTED). The QP is therefore created with {@code ibv_create_qp} and moved to INIT at once, so receives
 * can be posted; at connection time {@code rdma_init_qp_attr} supplies the path attributes for RTR and RTS on
 * whichever id carries the connection, and {@code rdma_connect}/{@code rdma_accept} name the QP by number.
 * The active side then sees {@code RDMA_CM_EVENT_CONNECT_RESPONSE}, moves the QP to RTR and RTS and calls
 * {@code rdma_establish}; the passive side moves its QP before {@code rdma_accept} and sees
 * {@code RDMA_CM_EVENT_ESTABLISHED}.
 *
 * <h2>Requests and their slots</h2>
 * A request holds one of {@code max_request_dtos} slots from its post until its completion is reaped (DatEp's
 * contract). Slots are a ring indexed by the post sequence, which the {@code wr_id} carries: send-queue completions
 * arrive in posting order, so a signalled completion for sequence {@code s} also completes every unsignalled request
 * before it. A request whose success is suppressed ({@code DAT_COMPLETION_SUPPRESS_FLAG}) is posted unsignalled,
 * except that every {@code max_request_dtos / 2}-th is signalled internally so the send queue always drains; its
 * slot is free when a later completion is polled. Errors are always reported: flushed work requests complete
 * signalled or not. Receives work the same way on their own ring.
 *
 * <h2>Window binds go out in order</h2>
 * A window bind is a local operation: soft-RoCE (rxe, Linux 6.1) executes it as soon as its requester reaches it,
 * and when an earlier request of the queue is then retried (an RNR NAK, a lost packet), rxe rewinds to that
 * request and executes the bind a second time; the window's key moved on at the first execution, so the second
 * fails and the requester stops, its later requests hanging or flushed while the QP still shows RTS (TCK rule
 * {@code optional_rmr_bind_inOrderBehindASendAwaitingItsReceive}). So a bind goes to the QP only when every request
 * posted before it has completed; until then it, and every request posted after it, are held in this EP's slots
 * (their work requests copied, nothing allocated) and posted in order by whichever thread translates the completion
 * that releases them ({@link #drainHeld}). Knowing that needs a completion for every request, so an EP that can
 * bind (its request EVD takes RMR_BIND events) signals every request and consumes suppressed successes itself.
 * Held requests are guarded by the send EVD's lock, which the translating thread holds.
 *
 * <h2>Locking</h2>
 * {@link #lock} guards the state, the connection and the posting bookkeeping. Completions are translated under
 * their EVD's lock; the slot arrays are written before {@link #reqPosted} (volatile) is advanced and read after it,
 * so the translating thread sees what the posting thread wrote. The rdma_cm calls made under {@link #lock} never
 * wait for the progress thread, which acknowledges every event before it takes this lock.
 */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class VerbsEp extends VerbsHandle implements DatEp {

    private static final System.Logger LOG = System.getLogger("dat.provider.verbs");
    /** Completion flags of RDMA requests and binds; a send may also solicit ({@code SOLICITED_WAIT}). */
    private static final int REQUEST_FLAGS = DatCompletionFlags.SUPPRESS | DatCompletionFlags.BARRIER_FENCE;
    private static final int RECV_FLAGS = DatCompletionFlags.SUPPRESS;
    private static final byte OP_SEND = 0;
    private static final byte OP_READ = 1;
    private static final byte OP_WRITE = 2;
    private static final byte OP_BIND = 3;
    /** How long rdma_cm may take to resolve an address or a route. */
    private static final int RESOLVE_MILLIS = 2000;
    /** rdma_cm's reject reason when the consumer rejected ({@code IB_CM_REJ_CONSUMER_DEFINED}). */
    private static final int REJECT_CONSUMER = 28;
    /**
     * Transport retries before a request fails and the connection breaks. Not 7: rxe's completer never counts a
     * retry count of 7 down, so a peer that vanished without a word (its link cut, its node dead) left the requests
     * in flight forever; the fault suite saw 143 retries over a 10 s link outage and no break (on InfiniBand 7
     * means seven; only the RNR count gives 7 the meaning "forever").
     */
    private static final int TRANSPORT_RETRIES = 6;
    private static final int ACK_TIMEOUT = VerbsConfig.ackTimeout();

    final VerbsPz pz;
    final VerbsEvd recvEvd;
    final VerbsEvd requestEvd;
    final VerbsEvd connectEvd;
    final VerbsSrq srq;
    final long key;
    final int qpNum;
    private final VerbsIa ia;
    private final ReentrantLock lock = new ReentrantLock();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment qp;
    private final MemorySegment postSendFn;
    private final MemorySegment postRecvFn;
    private final MemorySegment sendWr;
    private final MemorySegment sendSges;
    private final MemorySegment recvWr;
    private final MemorySegment recvSges;
    private final MemorySegment badWr;
    private final MemorySegment bindArgs;
    private final MemorySegment qpAttr;
    private final MemorySegment maskOut;
    private final MemorySegment connParam;
    private final MemorySegment privateDataBuffer;
    private final MemorySegment idOut;
    /** The EVDs made for a null request or recv EVD handle: completions go nowhere, slots are freed at once. */
    private final VerbsEvd hiddenRequestEvd;
    private final VerbsEvd hiddenRecvEvd;
    /** The EVDs whose CQs the QP completes into (the consumer's, or the hidden ones). */
    private final VerbsEvd sendCq;
    private final VerbsEvd recvCq;
    private final int recvDepth;
    private final int sendDepth;
    /** The request EVD takes RMR_BIND events, so binds may be posted: every request is signalled. */
    private final boolean mayBind;

    private volatile DatEpState state = DatEpState.UNCONNECTED;
    /**
     * Counts {@code dat_ep_reset}s: a DTO failure reported late (see {@link #dtoFailed}) breaks only the connection
     * it happened on, never one made after a reset. Written under lock.
     */
    private volatile long epoch;
    /** A message completed while PASSIVE_CONNECTION_PENDING (see {@link #promoteLocked}). */
    private volatile boolean dataArrived;
    private DatEpAttr attr;
    /** The recv completion flags are SOLICITED_WAIT: read by the EVDs translating this EP's receives. */
    volatile boolean solicitedWait;

    // Requests: written under lock before reqPosted advances; read by the request EVD after reading reqPosted.
    private long[] reqCookie;
    private long[] reqLength;
    private byte[] reqOp;
    private boolean[] reqReport;
    /** The window a bind in the slot binds; {@code null} for a DTO. */
    private VerbsRmr[] reqRmr;
    private volatile long reqPosted;
    /**
     * Next sequence whose completion the EVD has not seen; written by the request EVD's translation, and by a
     * reset under that EVD's lock.
     */
    private long reqCompleted;
    private int unsignalledRun;
    private final AtomicInteger reqUnreaped = new AtomicInteger();
    /** The first sequence of the current connection (see {@link #reset}); older completions hold no slot. */
    private volatile long reqEpochStart;

    // Requests held behind a window bind (see the class comment); guarded by the send EVD's lock.
    /** Requests from {@link #heldFrom} to {@link #reqPosted} are held; written under the send EVD's lock too. */
    private volatile boolean holding;
    private long heldFrom;
    /** Per request slot, room for its work request followed by its SGEs; made by the EP's first held request. */
    private MemorySegment[] heldWr;
    private MemorySegment drainBadWr;
    /** For the stand-in of a held request the QP refused ({@link #standIn}). */
    private MemorySegment standInWr;
    private MemorySegment standInAttr;

    // Receives, the same way (unused on an SRQ EP).
    private long[] recvCookie;
    private boolean[] recvReport;
    private volatile long recvPosted;
    /** Volatile: dat_ep_recv_query may read it on another thread while the recv EVD translates. */
    private volatile long recvCompleted;
    private final AtomicInteger recvUnreaped = new AtomicInteger();
    private volatile long recvEpochStart;

    // Connection; guarded by lock.
    private MemorySegment cmId = MemorySegment.NULL;
    private InetAddress remoteAddress;
    private long remoteQual;
    private long localQual;
    private byte[] connectData;
    private long connectDeadline;
    private VerbsRsp reservedBy;
    private byte[] requestData;

    VerbsEp(VerbsPz pz, VerbsEvd recvEvd, VerbsEvd requestEvd, VerbsEvd connectEvd, VerbsSrq srq, DatEpAttr attr) {
        this.pz = pz;
        this.ia = pz.ia();
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        this.srq = srq;
        this.key = ia.newKey();
        this.attr = attr;
        this.solicitedWait = attr.recvCompletionFlags() == DatCompletionFlags.SOLICITED_WAIT;
        int sendIov = Math.max(attr.maxRequestIov(), Math.max(attr.maxRdmaReadIov(), attr.maxRdmaWriteIov()));
        this.hiddenRequestEvd = requestEvd == null ? VerbsEvd.hidden(ia, attr.maxRequestDtos()) : null;
        this.hiddenRecvEvd = recvEvd == null && srq == null ? VerbsEvd.hidden(ia, attr.maxRecvDtos()) : null;
        this.sendCq = requestEvd != null ? requestEvd : hiddenRequestEvd;
        this.recvCq = recvEvd != null ? recvEvd : hiddenRecvEvd != null ? hiddenRecvEvd : sendCq;
        this.recvDepth = srq != null ? srq.capacity() : attr.maxRecvDtos();
        this.sendDepth = attr.maxRequestDtos();
        this.mayBind = requestEvd == null || (requestEvd.flags & DatEvdFlags.RMR_BIND) != 0;
        sendCq.attach(sendDepth, false);
        recvCq.attach(recvDepth, solicitedWait);
        try {
            MemorySegment init = arena.allocate(IbvQpInitAttr.LAYOUT);
            init.set(ADDRESS, IbvQpInitAttr.QP_CONTEXT, MemorySegment.ofAddress(key));
            init.set(ADDRESS, IbvQpInitAttr.SEND_CQ, sendCq.cq);
            init.set(ADDRESS, IbvQpInitAttr.RECV_CQ, recvCq.cq);
            init.set(ADDRESS, IbvQpInitAttr.SRQ, srq == null ? MemorySegment.NULL : srq.srq);
            long cap = IbvQpInitAttr.CAP;
            init.set(JAVA_INT, cap + IbvQpCap.MAX_SEND_WR, attr.maxRequestDtos());
            init.set(JAVA_INT, cap + IbvQpCap.MAX_RECV_WR, srq == null ? attr.maxRecvDtos() : 0);
            init.set(JAVA_INT, cap + IbvQpCap.MAX_SEND_SGE, sendIov);
            init.set(JAVA_INT, cap + IbvQpCap.MAX_RECV_SGE, srq == null ? attr.maxRecvIov() : 0);
            init.set(JAVA_INT, IbvQpInitAttr.QP_TYPE, LibIbverbs.IBV_QPT_RC);
            init.set(JAVA_INT, IbvQpInitAttr.SQ_SIG_ALL, 0);
            this.qp = ia.verbs.ibv_create_qp(pz.pd, init);
        } catch (NativeCallException e) {
            sendCq.detach(sendDepth, false);
            recvCq.detach(recvDepth, solicitedWait);
            arena.close();
            throw VerbsIa.resources("dat_ep_create", e);
        }
        this.qpNum = qp.get(JAVA_INT, IbvQp.QP_NUM);
        this.postSendFn = IbvOps.function(ia.context, IbvContextOps.POST_SEND);
        this.postRecvFn = IbvOps.function(ia.context, IbvContextOps.POST_RECV);
        this.sendWr = arena.allocate(IbvSendWr.LAYOUT);
        this.sendSges = arena.allocate(IbvSge.LAYOUT, sendIov);
        this.recvWr = arena.allocate(IbvRecvWr.LAYOUT);
        this.recvSges = arena.allocate(IbvSge.LAYOUT, Math.max(1, attr.maxRecvIov()));
        this.badWr = arena.allocate(ADDRESS);
        this.bindArgs = arena.allocate(IbvMwBind.LAYOUT);
        this.qpAttr = arena.allocate(IbvQpAttr.LAYOUT);
        this.maskOut = arena.allocate(JAVA_INT);
        this.connParam = arena.allocate(RdmaConnParam.LAYOUT);
        this.privateDataBuffer = arena.allocate(256);
        this.idOut = arena.allocate(ADDRESS);
        sendWr.set(ADDRESS, IbvSendWr.SG_LIST, sendSges);
        sendWr.set(JAVA_INT, IbvSendWr.IMM_DATA, VerbsEvd.SOLICITED);
        recvWr.set(ADDRESS, IbvRecvWr.SG_LIST, recvSges);
        sizeQueues(attr);
        toInit();
        if (srq != null) {
            srq.attachCq(recvCq);
        }
        ia.cmOwners.put(key, this);
    }

    private void sizeQueues(DatEpAttr a) {
        reqCookie = new long[a.maxRequestDtos()];
        reqLength = new long[a.maxRequestDtos()];
        reqOp = new byte[a.maxRequestDtos()];
        reqReport = new boolean[a.maxRequestDtos()];
        reqRmr = new VerbsRmr[a.maxRequestDtos()];
        recvCookie = new long[srq == null ? a.maxRecvDtos() : 0];
        recvReport = new boolean[srq == null ? a.maxRecvDtos() : 0];
        heldWr = null;
    }

    @Override
    VerbsIa owner() {
        return ia;
    }

    @Override
    protected DatReturnSubtype invalidHandleSubtype() {
        return DatReturnSubtype.INVALID_HANDLE_EP;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_EP_NOTREADY;
    }

    @Override
    protected String freeCall() {
        return "dat_ep_free";
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz || other == recvEvd || other == requestEvd || other == connectEvd || other == srq;
    }

    @Override
    public DatHandleType handleType() {
        return DatHandleType.EP;
    }

    /** dat_ep_free: a connected or connecting EP is first disconnected abruptly, its work flushed. */
    @Override
    protected void destroy() {
        lock.lock();
        try {
            DatEpState s = state;
            if (s == DatEpState.CONNECTED || s == DatEpState.DISCONNECT_PENDING) {
                teardownLocked(DatEventType.CONNECTION_EVENT_DISCONNECTED, true);
            } else if (s == DatEpState.ACTIVE_CONNECTION_PENDING || s == DatEpState.PASSIVE_CONNECTION_PENDING) {
                teardownLocked(null, true);
            }
            reservedBy = null;
            markClosed();
            dropIdLocked();
        } finally {
            lock.unlock();
        }
        ia.progress().connecting.remove(this);
        ia.cmOwners.remove(key);
        ia.epsByQpn.remove(qpNum);
        // No completion of this QP is translated from here on (the translating thread holds the EVD lock and finds
        // the EP by QP number): the windows it was binding are replaced, and nothing held is posted to the QP.
        sendCq.locked(this::abandonBinds);
        ia.verbs.ibv_destroy_qp(qp);
        if (srq != null) {
            srq.detachCq(recvCq);
        }
        sendCq.detach(sendDepth, false);
        recvCq.detach(recvDepth, solicitedWait);
        if (hiddenRequestEvd != null) {
            hiddenRequestEvd.destroy();
        }
        if (hiddenRecvEvd != null) {
            hiddenRecvEvd.destroy();
        }
        arena.close();
    }

    @Override
    public DatEpState state() {
        if (dataArrived && state == DatEpState.PASSIVE_CONNECTION_PENDING) {
            lock.lock();
            try {
                promoteLocked();
            } finally {
                lock.unlock();
            }
        }
        return state;
    }

    VerbsRsp reservedBy() {
        return reservedBy;
    }

    // ------------------------------------------------------------------ QP states

    /** RESET (if needed) to INIT on the IA's port, so receives can be posted before any connection. */
    private void toInit() {
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("qp " + qpNum + " to RESET, INIT (EP " + state + ")");
        }
        qpAttr.fill((byte) 0);
        qpAttr.set(JAVA_INT, IbvQpAttr.QP_STATE, LibIbverbs.IBV_QPS_RESET);
        ia.verbs.ibv_modify_qp(qp, qpAttr, LibIbverbs.IBV_QP_STATE);
        qpAttr.fill((byte) 0);
        qpAttr.set(JAVA_INT, IbvQpAttr.QP_STATE, LibIbverbs.IBV_QPS_INIT);
        qpAttr.set(JAVA_BYTE, IbvQpAttr.PORT_NUM, (byte) ia.port.port());
        qpAttr.set(JAVA_INT, IbvQpAttr.QP_ACCESS_FLAGS, LibIbverbs.IBV_ACCESS_LOCAL_WRITE
                | LibIbverbs.IBV_ACCESS_REMOTE_WRITE | LibIbverbs.IBV_ACCESS_REMOTE_READ);
        ia.verbs.ibv_modify_qp(qp, qpAttr, LibIbverbs.IBV_QP_STATE | LibIbverbs.IBV_QP_PKEY_INDEX
                | LibIbverbs.IBV_QP_PORT | LibIbverbs.IBV_QP_ACCESS_FLAGS);
    }

    /** Moves the QP to {@code target} with the attributes rdma_cm derives for {@code id}'s connection. */
    private void toConnected(MemorySegment id, int target) {
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("qp " + qpNum + " to " + (target == LibIbverbs.IBV_QPS_RTR ? "RTR" : "RTS"));
        }
        qpAttr.fill((byte) 0);
        qpAttr.set(JAVA_INT, IbvQpAttr.QP_STATE, target);
        ia.cm.rdma_init_qp_attr(id, qpAttr, maskOut);
        int mask = maskOut.get(JAVA_INT, 0);
        if (target == LibIbverbs.IBV_QPS_RTS) {
            // The provider's ACK timeout, not rdma_cm's (see VerbsConfig.ackTimeout).
            qpAttr.set(JAVA_BYTE, IbvQpAttr.TIMEOUT, (byte) ACK_TIMEOUT);
            mask |= LibIbverbs.IBV_QP_TIMEOUT;
        }
        ia.verbs.ibv_modify_qp(qp, qpAttr, mask);
    }

    /** Moves the QP to ERROR: every posted work request completes flushed. */
    private void toError() {
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("qp " + qpNum + " to ERROR (EP " + state + ")");
        }
        qpAttr.fill((byte) 0);
        qpAttr.set(JAVA_INT, IbvQpAttr.QP_STATE, LibIbverbs.IBV_QPS_ERR);
        try {
            ia.verbs.ibv_modify_qp(qp, qpAttr, LibIbverbs.IBV_QP_STATE);
        } catch (NativeCallException e) {
            // Already in ERROR, or the device is gone: either way nothing more will execute.
        }
    }

    // ------------------------------------------------------------------ data path

    /**
     * dat_ep_post_send / _rdma_write / _rdma_read: "The operation is valid for the Endpoint in the
     * DAT_EP_STATE_CONNECTED and DAT_EP_STATE_DISCONNECTED states" (in DISCONNECTED the QP is in ERROR, so the
     * request is flushed at once). Caller holds lock.
     */
    private int postableLocked() {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        promoteLocked();
        DatEpState s = state;
        return s == DatEpState.CONNECTED || s == DatEpState.DISCONNECTED ? DatReturn.DAT_SUCCESS
                : DatReturn.DAT_INVALID_STATE;
    }

    @Override
    public int postSend(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        lock.lock();
        try {
            int status = postableLocked();
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (numSegments < 0 || numSegments > attr.maxRequestIov()
                    || (numSegments > 0 && (localIov == null || numSegments > localIov.capacity()))) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            status = checkPostFlags(completionFlags, ia.solicitedSends
                    ? REQUEST_FLAGS | DatCompletionFlags.SOLICITED_WAIT
                    : REQUEST_FLAGS);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            long total = WorkRequests.load(ia, pz, numSegments, localIov, DatMemPriv.LOCAL_READ, sendSges);
            if (total < 0) {
                return (int) total;
            }
            if (total > attr.maxMessageSize()) {
                // The post_send page lists no DAT_LENGTH_ERROR: a message over max_message_size is a bad argument.
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            return postRequestLocked(OP_SEND, numSegments, userCookie, completionFlags, total, 0, 0);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int postRdmaWrite(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                             long segmentLength, int completionFlags) {
        return postRdma(OP_WRITE, numSegments, localIov, userCookie, rmrContext, targetAddress, segmentLength,
                completionFlags);
    }

    @Override
    public int postRdmaRead(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                            long segmentLength, int completionFlags) {
        return postRdma(OP_READ, numSegments, localIov, userCookie, rmrContext, targetAddress, segmentLength,
                completionFlags);
    }

    private int postRdma(byte op, int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                         long segmentLength, int completionFlags) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        boolean write = op == OP_WRITE;
        lock.lock();
        try {
            int status = postableLocked();
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            int maxIov = write ? attr.maxRdmaWriteIov() : attr.maxRdmaReadIov();
            if (numSegments < 0 || numSegments > maxIov
                    || (numSegments > 0 && (localIov == null || numSegments > localIov.capacity()))
                    || segmentLength < 0) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            status = checkPostFlags(completionFlags, REQUEST_FLAGS);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (!write && attr.maxRdmaReadOut() == 0) {
                // The connection was negotiated with no outstanding RDMA reads: the HCA would refuse it.
                return DatReturn.DAT_INVALID_STATE;
            }
            long total = WorkRequests.load(ia, pz, numSegments, localIov,
                    write ? DatMemPriv.LOCAL_READ : DatMemPriv.LOCAL_WRITE, sendSges);
            if (total < 0) {
                return (int) total;
            }
            long moved = write ? total : segmentLength;
            // "The size of the remote buffer is too small for the data of the local buffer" (and, for a read, the
            // local buffer too small for the remote data).
            if (moved > attr.maxRdmaSize() || (write ? segmentLength < total : total < segmentLength)) {
                return DatReturn.DAT_LENGTH_ERROR;
            }
            int used = write ? numSegments : WorkRequests.trim(sendSges, numSegments, segmentLength);
            return postRequestLocked(op, used, userCookie, completionFlags, moved, rmrContext, targetAddress);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A request's completion flags: bits outside {@code allowed} are a malformed argument. UNSIGNALLED is "only
     * valid if the Endpoint Request Completion Flags DAT_COMPLETION_UNSIGNALLED_FLAG" (no EP of this provider has
     * it); SOLICITED_WAIT only for a send, where completion_flags_supported grants it: the post pages list no
     * DAT_MODEL_NOT_SUPPORTED, and their code for a bad argument is DAT_INVALID_PARAMETER.
     */
    private static int checkPostFlags(int flags, int allowed) {
        return (flags & ~allowed) != 0 ? DatReturn.DAT_INVALID_PARAMETER : DatReturn.DAT_SUCCESS;
    }

    /** Takes a request slot and posts the work request whose SGEs are loaded. Caller holds lock. */
    private int postRequestLocked(byte op, int numSegments, long cookie, int flags, long length, int rkey,
                                  long remoteAddress) {
        if (!requestRoomLocked()) {
            return DatReturn.DAT_INSUFFICIENT_RESOURCES;
        }
        int capacity = reqCookie.length;
        long seq = reqPosted;
        int i = (int) (seq % capacity);
        boolean report = (flags & DatCompletionFlags.SUPPRESS) == 0;
        // Signal at least every capacity/2 requests, so unsignalled requests free their send-queue slots; every
        // request where a bind may follow (see the class comment).
        boolean signalled = report || mayBind || unsignalledRun + 1 >= Math.max(1, capacity / 2);
        unsignalledRun = signalled ? 0 : unsignalledRun + 1;
        reqCookie[i] = cookie;
        reqLength[i] = length;
        reqOp[i] = op;
        reqReport[i] = report;
        sendWr.set(JAVA_LONG, IbvSendWr.WR_ID, WorkRequests.id(WorkRequests.SEND, qpNum, seq));
        sendWr.set(JAVA_INT, IbvSendWr.NUM_SGE, numSegments);
        // A solicited send carries its solicitation as immediate data too: a work completion cannot tell it.
        boolean solicited = (flags & DatCompletionFlags.SOLICITED_WAIT) != 0;
        sendWr.set(JAVA_INT, IbvSendWr.OPCODE, op == OP_SEND
                ? (solicited ? LibIbverbs.IBV_WR_SEND_WITH_IMM : LibIbverbs.IBV_WR_SEND)
                : op == OP_WRITE ? LibIbverbs.IBV_WR_RDMA_WRITE : LibIbverbs.IBV_WR_RDMA_READ);
        sendWr.set(JAVA_INT, IbvSendWr.SEND_FLAGS, (signalled ? LibIbverbs.IBV_SEND_SIGNALED : 0)
                | ((flags & DatCompletionFlags.BARRIER_FENCE) != 0 ? LibIbverbs.IBV_SEND_FENCE : 0)
                | (solicited ? LibIbverbs.IBV_SEND_SOLICITED : 0));
        sendWr.set(JAVA_LONG, IbvSendWr.WR_RDMA_REMOTE_ADDR, remoteAddress);
        sendWr.set(JAVA_INT, IbvSendWr.WR_RDMA_RKEY, rkey);
        reqUnreaped.incrementAndGet();
        if (holding && hold(seq, i, numSegments)) {
            return DatReturn.DAT_SUCCESS;
        }
        // Volatile: publishes the slot to the thread that will translate its completion.
        reqPosted = seq + 1;
        int rc = IbvOps.post_send(postSendFn, qp, sendWr, badWr);
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("post_send qp " + qpNum + " seq " + seq + " op " + op + " in " + state + ": " + rc);
        }
        if (rc != 0) {
            reqPosted = seq;
            reqUnreaped.decrementAndGet();
            return postFailure(rc);
        }
        return DatReturn.DAT_SUCCESS;
    }

    /** Whether a request slot is free; an EP without a request EVD first drops what its hidden EVD holds. */
    private boolean requestRoomLocked() {
        int capacity = reqCookie.length;
        return reqUnreaped.get() < capacity
                || (hiddenRequestEvd != null && hiddenRequestEvd.discardAll() > 0 && reqUnreaped.get() < capacity);
    }

    /**
     * dat_rmr_bind and its unbind ({@code lmr == null}), posted on this EP's send queue: valid in CONNECTED only, on
     * an EP whose request EVD takes RMR_BIND events. A bind is always signalled: its completion settles the
     * window's key (see {@link VerbsRmr}).
     */
    int postBind(VerbsRmr rmr, VerbsLmr lmr, long offset, long length, int privileges, long cookie, int flags) {
        VerbsEp other = rmr.busyElsewhere(this);
        if (other != null) {
            // Before the EP lock: the other EP's EVD lock must not wait behind this EP's.
            other.sendCq.takeCompletions();
        }
        lock.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            promoteLocked();
            if (state != DatEpState.CONNECTED
                    || (requestEvd != null && (requestEvd.flags & DatEvdFlags.RMR_BIND) == 0)) {
                return DatReturn.DAT_INVALID_STATE;
            }
            int status = checkPostFlags(flags, REQUEST_FLAGS);
            if (status == DatReturn.DAT_SUCCESS) {
                status = rmr.check(lmr, offset, length, privileges, pz);
            }
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            if (!requestRoomLocked()) {
                return DatReturn.DAT_INSUFFICIENT_RESOURCES;
            }
            int contextBefore = rmr.rmrContext();
            status = rmr.prepare(this, lmr, offset, length, privileges);
            if (status != DatReturn.DAT_SUCCESS) {
                return status;
            }
            long seq = reqPosted;
            int i = (int) (seq % reqCookie.length);
            unsignalledRun = 0;
            reqCookie[i] = cookie;
            reqLength[i] = 0;
            reqOp[i] = OP_BIND;
            reqReport[i] = (flags & DatCompletionFlags.SUPPRESS) == 0;
            reqRmr[i] = rmr;
            long wrId = WorkRequests.id(WorkRequests.SEND, qpNum, seq);
            int sendFlags = LibIbverbs.IBV_SEND_SIGNALED
                    | ((flags & DatCompletionFlags.BARRIER_FENCE) != 0 ? LibIbverbs.IBV_SEND_FENCE : 0);
            reqUnreaped.incrementAndGet();
            sendCq.lock.lock();
            try {
                reqPosted = seq + 1;
                if (!holding) {
                    // What completed already counts: the bind goes now if nothing posted before it is outstanding.
                    sendCq.takeCompletionsLocked();
                    if (reqCompleted == seq) {
                        bindArgs.set(JAVA_LONG, IbvMwBind.WR_ID, wrId);
                        bindArgs.set(JAVA_INT, IbvMwBind.SEND_FLAGS, sendFlags);
                        int rc = rmr.execute(qp, bindArgs);
                        if (VerbsConfig.TRACE) {
                            VerbsConfig.trace("bind qp " + qpNum + " seq " + seq + ": " + rc);
                        }
                        if (rc != 0) {
                            reqPosted = seq;
                            reqUnreaped.decrementAndGet();
                            reqRmr[i] = null;
                            rmr.withdraw(contextBefore);
                            return postFailure(rc);
                        }
                        return DatReturn.DAT_SUCCESS;
                    }
                    if (heldWr == null) {
                        allocateHeld();
                    }
                    heldFrom = seq;
                    holding = true;
                }
                heldWr[i].set(JAVA_LONG, IbvSendWr.WR_ID, wrId);
                heldWr[i].set(JAVA_INT, IbvSendWr.SEND_FLAGS, sendFlags);
                if (VerbsConfig.TRACE) {
                    VerbsConfig.trace("bind qp " + qpNum + " seq " + seq + " held behind seq " + reqCompleted);
                }
                return DatReturn.DAT_SUCCESS;
            } finally {
                sendCq.lock.unlock();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Room for the work requests of held requests, one per request slot. Caller holds lock and the EVD's. */
    private void allocateHeld() {
        long wrSize = IbvSendWr.SIZE;
        long stride = wrSize + sendSges.byteSize();
        MemorySegment all = arena.allocate(stride * reqCookie.length, ADDRESS.byteAlignment());
        MemorySegment[] slots = new MemorySegment[reqCookie.length];
        for (int k = 0; k < slots.length; k++) {
            slots[k] = all.asSlice(k * stride, stride);
            slots[k].set(ADDRESS, IbvSendWr.SG_LIST, slots[k].asSlice(wrSize));
        }
        drainBadWr = arena.allocate(ADDRESS);
        standInWr = arena.allocate(IbvSendWr.LAYOUT);
        standInAttr = arena.allocate(IbvQpAttr.LAYOUT);
        heldWr = slots;
    }

    /**
     * Holds the request in slot {@code i}, whose work request and SGEs are loaded, behind those held already; or
     * answers {@code false} when nothing is held any more. Caller holds lock.
     */
    private boolean hold(long seq, int i, int numSegments) {
        sendCq.lock.lock();
        try {
            if (!holding) {
                return false;
            }
            MemorySegment wr = heldWr[i];
            // Everything but sg_list, which points at the slot's own SGEs (see allocateHeld).
            long sgList = IbvSendWr.SG_LIST;
            long afterSgList = sgList + ADDRESS.byteSize();
            MemorySegment.copy(sendWr, 0, wr, 0, sgList);
            MemorySegment.copy(sendWr, afterSgList, wr, afterSgList, IbvSendWr.SIZE - afterSgList);
            MemorySegment.copy(sendSges, 0, wr, IbvSendWr.SIZE, numSegments * IbvSge.SIZE);
            reqPosted = seq + 1;
            if (VerbsConfig.TRACE) {
                VerbsConfig.trace("post_send qp " + qpNum + " seq " + seq + " held behind a bind");
            }
            return true;
        } finally {
            sendCq.lock.unlock();
        }
    }

    /**
     * Posts the held requests in order as far as they may go: a bind only once every request before it completed.
     * Called by the thread that translated such a completion, under the send EVD's lock.
     */
    private void drainHeld() {
        int capacity = reqCookie.length;
        long posted = reqPosted;
        while (heldFrom < posted) {
            long seq = heldFrom;
            int i = (int) (seq % capacity);
            MemorySegment wr = heldWr[i];
            int rc;
            if (reqOp[i] == OP_BIND) {
                if (reqCompleted != seq) {
                    return;
                }
                bindArgs.set(JAVA_LONG, IbvMwBind.WR_ID, wr.get(JAVA_LONG, IbvSendWr.WR_ID));
                bindArgs.set(JAVA_INT, IbvMwBind.SEND_FLAGS, wr.get(JAVA_INT, IbvSendWr.SEND_FLAGS));
                rc = reqRmr[i] == null ? Errno.ENOMEM : reqRmr[i].execute(qp, bindArgs);
            } else {
                rc = IbvOps.post_send(postSendFn, qp, wr, drainBadWr);
            }
            if (VerbsConfig.TRACE) {
                VerbsConfig.trace("held seq " + seq + " op " + reqOp[i] + " posted to qp " + qpNum + ": " + rc);
            }
            heldFrom = seq + 1;
            if (rc != 0) {
                standIn(wr, rc);
            }
        }
        holding = false;
    }

    /**
     * The QP refused a held request the consumer was told succeeded (the slot accounting keeps the queue from
     * filling, so this is a device fault); it must still complete. The QP goes to ERROR, where a zero-length RDMA
     * write under the request's {@code wr_id} flushes in its place, and the flush breaks the connection.
     */
    private void standIn(MemorySegment wr, int rc) {
        LOG.log(System.Logger.Level.WARNING, "verbs qp " + qpNum + " refused a held request ("
                + Errno.describe(Math.abs(rc))
                + "): its completion is reported flushed and the connection breaks");
        standInAttr.set(JAVA_INT, IbvQpAttr.QP_STATE, LibIbverbs.IBV_QPS_ERR);
        try {
            ia.verbs.ibv_modify_qp(qp, standInAttr, LibIbverbs.IBV_QP_STATE);
        } catch (NativeCallException e) {
            // Already in ERROR, or the device is gone.
        }
        standInWr.fill((byte) 0);
        standInWr.set(JAVA_LONG, IbvSendWr.WR_ID, wr.get(JAVA_LONG, IbvSendWr.WR_ID));
        standInWr.set(JAVA_INT, IbvSendWr.OPCODE, LibIbverbs.IBV_WR_RDMA_WRITE);
        standInWr.set(JAVA_INT, IbvSendWr.SEND_FLAGS, LibIbverbs.IBV_SEND_SIGNALED);
        int again = IbvOps.post_send(postSendFn, qp, standInWr, drainBadWr);
        if (again != 0) {
            LOG.log(System.Logger.Level.ERROR, "verbs qp " + qpNum + " refused the stand-in too ("
                    + Errno.describe(Math.abs(again)) + "): a request's completion is lost");
        }
    }

    /**
     * The binds in flight or held on this EP will never have their completions seen (the EP is being reset or
     * freed): their windows are replaced, and nothing held is posted any more. Caller holds the send EVD's lock, so
     * no translation of them is under way.
     */
    private void abandonBinds() {
        holding = false;
        int capacity = reqRmr.length;
        for (long seq = reqCompleted; seq < reqPosted; seq++) {
            int i = (int) (seq % capacity);
            VerbsRmr rmr = reqRmr[i];
            if (rmr != null) {
                reqRmr[i] = null;
                rmr.abandon(this);
            }
        }
    }

    /**
     * @param rc what a post through {@code ibv_context.ops} returned: an errno, positive or (rxe) negated
     * @return its DAT code: a full queue is DAT_INSUFFICIENT_RESOURCES
     */
    static int postFailure(int rc) {
        return Math.abs(rc) == Errno.ENOMEM ? DatReturn.DAT_INSUFFICIENT_RESOURCES : DatReturn.DAT_INTERNAL_ERROR;
    }

    @Override
    public int postRecv(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        if (isClosed()) {
            return DatReturn.DAT_INVALID_HANDLE;
        }
        lock.lock();
        try {
            if (isClosed()) {
                return DatReturn.DAT_INVALID_HANDLE;
            }
            if (srq != null) {
                // dat_ep_post_recv on an EP created with an SRQ.
                return DatReturn.DAT_INVALID_STATE;
            }
            // "The operation is valid for all states of the Endpoint": before a connection the QP is in INIT and
            // keeps the receive; while a graceful disconnect is pending it still runs; see below for DISCONNECTED.
            DatEpState s = state;
            if (numSegments < 0 || numSegments > attr.maxRecvIov()
                    || (numSegments > 0 && (localIov == null || numSegments > localIov.capacity()))
                    || (completionFlags & ~RECV_FLAGS) != 0) {
                return DatReturn.DAT_INVALID_PARAMETER;
            }
            long total = WorkRequests.load(ia, pz, numSegments, localIov, DatMemPriv.LOCAL_WRITE, recvSges);
            if (total < 0) {
                return (int) total;
            }
            int capacity = recvCookie.length;
            if (recvUnreaped.get() >= capacity) {
                if (hiddenRecvEvd == null || hiddenRecvEvd.discardAll() == 0 || recvUnreaped.get() >= capacity) {
                    return DatReturn.DAT_INSUFFICIENT_RESOURCES;
                }
            }
            long seq = recvPosted;
            int i = (int) (seq % capacity);
            recvCookie[i] = userCookie;
            recvReport[i] = (completionFlags & DatCompletionFlags.SUPPRESS) == 0;
            recvWr.set(JAVA_LONG, IbvRecvWr.WR_ID, WorkRequests.id(WorkRequests.RECV, qpNum, seq));
            recvWr.set(JAVA_INT, IbvRecvWr.NUM_SGE, numSegments);
            recvUnreaped.incrementAndGet();
            recvPosted = seq + 1;
            int rc = IbvOps.post_recv(postRecvFn, qp, recvWr, badWr);
            if (VerbsConfig.TRACE) {
                VerbsConfig.trace("post_recv qp " + qpNum + " seq " + seq + " in " + s + ": " + rc);
            }
            if (rc != 0) {
                recvPosted = seq;
                recvUnreaped.decrementAndGet();
                return postFailure(rc);
            }
            if (s == DatEpState.DISCONNECTED) {
                // DAT flushes a receive posted in DISCONNECTED at once, and so must a QP in ERROR (IBA C10-42); but
                // soft-RoCE's user-space post_recv only writes the shared queue, with no doorbell, and its kernel
                // half drains a queue in ERROR only when something wakes it. Moving the QP to ERROR again (valid
                // from ERROR) wakes it; on an HCA that flushed the receive already it changes nothing.
                toError();
            }
            return DatReturn.DAT_SUCCESS;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A send-queue completion: writes its DTO event into {@code slot}. Called under the request EVD's lock.
     *
     * @return the release token, or 0 when the completion is not reported (a suppressed success)
     */
    long requestCompleted(long wrId, DatDtoStatus status, VerbsEvd evd, DatEvent slot) {
        long posted = reqPosted;
        int capacity = reqCookie.length;
        // Completions arrive in posting order: the unsignalled requests before this one succeeded silently.
        long seq = reqCompleted + Integer.toUnsignedLong(WorkRequests.sequence(wrId) - (int) reqCompleted);
        if (seq >= posted) {
            return 0;
        }
        int silent = (int) (seq - reqCompleted);
        if (silent > 0) {
            reqUnreaped.addAndGet(-silent);
        }
        reqCompleted = seq + 1;
        int i = (int) (seq % capacity);
        VerbsRmr rmr = reqRmr[i];
        if (rmr != null) {
            reqRmr[i] = null;
            if (!rmr.completed(status == DatDtoStatus.SUCCESS) && status == DatDtoStatus.SUCCESS) {
                // It went out under a key the consumer was not given (see VerbsRmr): a failed bind.
                status = DatDtoStatus.RMR_OPERATION_FAILED;
                dtoFailed(status);
            }
        }
        if (holding && reqCompleted == heldFrom) {
            drainHeld();
        }
        if (status == DatDtoStatus.SUCCESS && !reqReport[i]) {
            reqUnreaped.decrementAndGet();
            return 0;
        }
        if (rmr != null) {
            slot.setRmrBindCompletion(evd, rmr, reqCookie[i], status);
        } else {
            slot.setDtoCompletion(evd, this, reqCookie[i], status, status == DatDtoStatus.SUCCESS ? reqLength[i] : 0);
        }
        return wrId;
    }

    /**
     * A receive-queue completion: writes its DTO event into {@code slot}. Called under the recv EVD's lock.
     *
     * @return the release token, or 0 when the completion is not reported
     */
    long recvCompleted(long wrId, DatDtoStatus status, long byteLen, VerbsEvd evd, DatEvent slot) {
        long posted = recvPosted;
        long seq = recvCompleted + Integer.toUnsignedLong(WorkRequests.sequence(wrId) - (int) recvCompleted);
        if (seq >= posted) {
            return 0;
        }
        recvCompleted = seq + 1;
        int i = (int) (seq % recvCookie.length);
        if (status == DatDtoStatus.SUCCESS && !recvReport[i]) {
            recvUnreaped.decrementAndGet();
            return 0;
        }
        slot.setDtoCompletion(evd, this, recvCookie[i], status, status == DatDtoStatus.SUCCESS ? byteLen : 0);
        return wrId;
    }

    /** A reported completion of this EP was reaped: its slot is free. */
    void reaped(long token) {
        boolean recv = WorkRequests.kind(token) == WorkRequests.RECV;
        // A completion of the connection before a reset holds no slot: the reset let them all go.
        if (WorkRequests.sequence(token) - (int) (recv ? recvEpochStart : reqEpochStart) >= 0) {
            (recv ? recvUnreaped : reqUnreaped).decrementAndGet();
        }
    }

    // ------------------------------------------------------------------ connection management

    @Override
    public void connect(InetAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
                        DatQos qos, int connectFlags) {
        String call = "dat_ep_connect";
        requireOpen(call);
        if (remoteIaAddress == null) {
            throw new DatException(DatReturn.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_MALFORMED,
                    call + ": remote_ia_address is null");
        }
        VerbsPsp.checkQualifier(call, remoteConnQual);
        if (timeoutMicros < 0 || timeoutMicros > Dat.DAT_TIMEOUT_INFINITE) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG4,
                    call + ": timeout " + timeoutMicros + " is outside 0..DAT_TIMEOUT_INFINITE");
        }
        byte[] data = VerbsCr.checkPrivateData(call, privateData);
        if (qos == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG7, call + ": qos is null");
        }
        if (qos != DatQos.BEST_EFFORT) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED,
                    call + ": qos " + qos + " is not supported (dat_qos_supported is BEST_EFFORT)");
        }
        if ((connectFlags & ~DatConnectFlags.MULTIPATH) != 0) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG8,
                    call + ": connect_flags 0x" + Integer.toHexString(connectFlags) + " has unknown bits");
        }
        if (connectFlags == DatConnectFlags.MULTIPATH) {
            throw new DatException(DatReturn.MODEL_NOT_SUPPORTED,
                    call + ": connect_flags MULTIPATH, but supports_multipath is false");
        }
        lock.lock();
        try {
            requireOpen(call);
            if (state != DatEpState.UNCONNECTED || reservedBy != null) {
                throw wrongState(call, "UNCONNECTED");
            }
            if (connectEvd == null) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_EVD_CONNECT,
                        call + ": the EP has no connect_evd_handle to report the outcome to");
            }
            try (Arena addresses = Arena.ofConfined()) {
                ia.cm.rdma_create_id(ia.cmChannel, idOut, MemorySegment.ofAddress(key), LibRdmacm.RDMA_PS_TCP);
                cmId = idOut.get(ADDRESS, 0).reinterpret(RdmaCmId.SIZE);
                ia.cm.rdma_resolve_addr(cmId, VerbsIa.sockaddr(addresses, ia.address, 0),
                        VerbsIa.sockaddr(addresses, remoteIaAddress, (int) remoteConnQual), RESOLVE_MILLIS);
            } catch (NativeCallException e) {
                dropIdLocked();
                throw new DatException(DatReturn.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNREACHABLE,
                        call + ": " + remoteIaAddress.getHostAddress() + ": " + e.getMessage(), e);
            }
            remoteAddress = remoteIaAddress;
            remoteQual = remoteConnQual;
            connectData = data;
            connectDeadline = timeoutMicros == Dat.DAT_TIMEOUT_INFINITE ? Long.MAX_VALUE
                    : System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
            state = DatEpState.ACTIVE_CONNECTION_PENDING;
            ia.progress().connecting.add(this);
        } finally {
            lock.unlock();
        }
    }

    /** Called by the progress thread every round while this EP connects. */
    void checkConnectTimeout(long now) {
        lock.lock();
        try {
            if (state == DatEpState.ACTIVE_CONNECTION_PENDING && now - connectDeadline > 0
                    && connectDeadline != Long.MAX_VALUE) {
                teardownLocked(DatEventType.CONNECTION_EVENT_TIMED_OUT, false);
            } else if (state != DatEpState.ACTIVE_CONNECTION_PENDING) {
                ia.progress().connecting.remove(this);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A connection-manager event for this EP's id, from the progress thread. */
    void cmEvent(VerbsProgress.CmEvent e) {
        lock.lock();
        try {
            if (isClosed() || e.id().address() != cmId.address()) {
                return;
            }
            switch (e.type()) {
                case LibRdmacm.RDMA_CM_EVENT_ADDR_RESOLVED -> ia.cm.rdma_resolve_route(cmId, RESOLVE_MILLIS);
                case LibRdmacm.RDMA_CM_EVENT_ROUTE_RESOLVED -> {
                    localQual = ia.cm.rdma_get_src_port(cmId);
                    fillConnParam(connectData, attr.maxRdmaReadIn(), attr.maxRdmaReadOut());
                    ia.cm.rdma_connect(cmId, connParam);
                }
                case LibRdmacm.RDMA_CM_EVENT_CONNECT_RESPONSE -> {
                    if (state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                        toConnected(cmId, LibIbverbs.IBV_QPS_RTR);
                        toConnected(cmId, LibIbverbs.IBV_QPS_RTS);
                        ia.cm.rdma_establish(cmId);
                        established(e.privateData());
                    }
                }
                case LibRdmacm.RDMA_CM_EVENT_ESTABLISHED -> {
                    if (state == DatEpState.PASSIVE_CONNECTION_PENDING
                            || state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                        established(state == DatEpState.PASSIVE_CONNECTION_PENDING ? requestData : e.privateData());
                    }
                }
                case LibRdmacm.RDMA_CM_EVENT_REJECTED -> {
                    if (state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                        teardownLocked(e.status() == REJECT_CONSUMER ? DatEventType.CONNECTION_EVENT_PEER_REJECTED
                                : DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED, false);
                    }
                }
                case LibRdmacm.RDMA_CM_EVENT_ADDR_ERROR, LibRdmacm.RDMA_CM_EVENT_ROUTE_ERROR,
                     LibRdmacm.RDMA_CM_EVENT_UNREACHABLE, LibRdmacm.RDMA_CM_EVENT_CONNECT_ERROR -> {
                    if (state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                        teardownLocked(-e.status() == Errno.ETIMEDOUT ? DatEventType.CONNECTION_EVENT_TIMED_OUT
                                : DatEventType.CONNECTION_EVENT_UNREACHABLE, false);
                    } else if (state == DatEpState.PASSIVE_CONNECTION_PENDING) {
                        teardownLocked(DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, false);
                    } else if (state == DatEpState.CONNECTED || state == DatEpState.DISCONNECT_PENDING) {
                        teardownLocked(DatEventType.CONNECTION_EVENT_BROKEN, false);
                    }
                }
                case LibRdmacm.RDMA_CM_EVENT_DISCONNECTED -> {
                    if (state == DatEpState.CONNECTED || state == DatEpState.DISCONNECT_PENDING) {
                        teardownLocked(DatEventType.CONNECTION_EVENT_DISCONNECTED, true);
                    }
                }
                case LibRdmacm.RDMA_CM_EVENT_DEVICE_REMOVAL -> {
                    if (state != DatEpState.DISCONNECTED && state != DatEpState.UNCONNECTED) {
                        teardownLocked(DatEventType.CONNECTION_EVENT_BROKEN, false);
                    }
                }
                default -> {
                    // TIMEWAIT_EXIT, ADDR_CHANGE: nothing for DAT.
                }
            }
        } catch (NativeCallException ex) {
            if (state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                teardownLocked(DatEventType.CONNECTION_EVENT_UNREACHABLE, false);
            } else if (state == DatEpState.PASSIVE_CONNECTION_PENDING) {
                teardownLocked(DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, false);
            } else {
                teardownLocked(DatEventType.CONNECTION_EVENT_BROKEN, false);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A message of this EP's connection completed (the translating thread, under an EVD lock, so no EP lock here):
     * if the CM has not yet called the connection established, the EP's next call does (see
     * {@link #promoteLocked}).
     */
    void messageArrived() {
        if (state == DatEpState.PASSIVE_CONNECTION_PENDING) {
            dataArrived = true;
        }
    }

    /** {@code IBV_EVENT_COMM_EST} from the progress thread: the QP received before the CM's ESTABLISHED. */
    void communicationEstablished() {
        lock.lock();
        try {
            dataArrived = true;
            promoteLocked();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The passive side's first message can overtake the CM's RTU: its QP is RTS from before rdma_accept, so the data
     * lands while the EP is still PASSIVE_CONNECTION_PENDING. Once a message has arrived the connection is up: the
     * EP becomes CONNECTED with its ESTABLISHED event, before the consumer, holding that message's completion, can
     * find its posts refused, and {@code rdma_notify} makes the CM agree (or establish at all, if the RTU was lost);
     * the CM's own ESTABLISHED then finds the EP connected and is ignored. Caller holds lock.
     */
    private void promoteLocked() {
        if (state != DatEpState.PASSIVE_CONNECTION_PENDING || !dataArrived || isClosed()) {
            return;
        }
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("qp " + qpNum + ": data before ESTABLISHED, the connection is up");
        }
        established(requestData);
        try {
            ia.cm.rdma_notify(cmId, LibIbverbs.IBV_EVENT_COMM_EST);
        } catch (NativeCallException e) {
            // The CM established it meanwhile (EINVAL): nothing to add.
        }
    }

    private void established(byte[] privateData) {
        state = DatEpState.CONNECTED;
        ia.progress().connecting.remove(this);
        postConnectionEvent(DatEventType.CONNECTION_EVENT_ESTABLISHED, privateData);
    }

    /** Writes {@link #connParam} for a connect or an accept. Caller holds lock. */
    private void fillConnParam(byte[] data, int responderResources, int initiatorDepth) {
        connParam.fill((byte) 0);
        int length = VerbsCr.encodePrivateData(data, privateDataBuffer);
        connParam.set(ADDRESS, RdmaConnParam.PRIVATE_DATA, length == 0 ? MemorySegment.NULL : privateDataBuffer);
        connParam.set(JAVA_BYTE, RdmaConnParam.PRIVATE_DATA_LEN, (byte) length);
        connParam.set(JAVA_BYTE, RdmaConnParam.RESPONDER_RESOURCES, (byte) Math.min(255, responderResources));
        connParam.set(JAVA_BYTE, RdmaConnParam.INITIATOR_DEPTH, (byte) Math.min(255, initiatorDepth));
        connParam.set(JAVA_BYTE, RdmaConnParam.FLOW_CONTROL, (byte) 1);
        connParam.set(JAVA_BYTE, RdmaConnParam.RETRY_COUNT, (byte) TRANSPORT_RETRIES);
        // 7: retry forever while the receiver has no buffer posted, as a DAT send waits for a receive.
        connParam.set(JAVA_BYTE, RdmaConnParam.RNR_RETRY_COUNT, (byte) 7);
        connParam.set(JAVA_BYTE, RdmaConnParam.SRQ, (byte) (srq != null ? 1 : 0));
        connParam.set(JAVA_INT, RdmaConnParam.QP_NUM, qpNum);
    }

    /**
     * dat_cr_accept onto this EP: moves the QP to RTR and RTS for the request's id and accepts. Called by the CR
     * with the arguments checked.
     */
    void accept(VerbsCr cr, byte[] acceptData) {
        String call = "dat_cr_accept";
        lock.lock();
        try {
            requireOpen(call);
            boolean reserved = reservedBy != null && reservedBy == cr.rsp();
            if (!(state == DatEpState.UNCONNECTED && reservedBy == null)
                    && !(reserved && state == DatEpState.PASSIVE_CONNECTION_PENDING)) {
                throw wrongState(call, "UNCONNECTED");
            }
            if (connectEvd == null) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_EVD_CONNECT,
                        call + ": the EP has no connect_evd_handle to report the outcome to");
            }
            // Before rdma_accept: its ESTABLISHED event may be dispatched while this thread still returns from
            // the call, and must find this EP (it then waits for the lock, and sees the state set here).
            cmId = cr.id();
            remoteAddress = cr.remoteAddress();
            remoteQual = cr.remotePort();
            localQual = cr.localQual();
            requestData = cr.privateData();
            reservedBy = null;
            dataArrived = false;
            state = DatEpState.PASSIVE_CONNECTION_PENDING;
            ia.cmOwners.put(cr.key(), this);
            try {
                toConnected(cr.id(), LibIbverbs.IBV_QPS_RTR);
                toConnected(cr.id(), LibIbverbs.IBV_QPS_RTS);
                fillConnParam(acceptData, Math.min(attr.maxRdmaReadIn(), cr.initiatorDepth()),
                        Math.min(attr.maxRdmaReadOut(), cr.responderResources()));
                ia.cm.rdma_accept(cr.id(), connParam);
            } catch (NativeCallException e) {
                // The requester is gone or the device refused: the EP stays usable after a reset.
                teardownLocked(DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, false);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends the connection or the attempt: QP to ERROR (everything posted flushes), state DISCONNECTED, the id
     * released, the event posted. Caller holds lock.
     *
     * @param event the connection event to post, or {@code null}
     * @param sendDisconnect whether to tell the peer ({@code rdma_disconnect}) first
     */
    private void teardownLocked(DatEventType event, boolean sendDisconnect) {
        if (sendDisconnect && cmId.address() != 0) {
            try {
                ia.cm.rdma_disconnect(cmId);
            } catch (NativeCallException e) {
                // The peer went first, or the connection never completed: nothing to tell it.
            }
        }
        // DISCONNECTED before the QP errors: a consumer that reaps a flushed completion must find the EP
        // disconnected. Posts take this lock, so none slips in between.
        state = DatEpState.DISCONNECTED;
        toError();
        ia.progress().connecting.remove(this);
        if (event != null) {
            postConnectionEvent(event, null);
        }
    }

    /** Releases the current rdma_cm id. Caller holds lock; the progress thread never waits for it. */
    private void dropIdLocked() {
        if (cmId.address() != 0) {
            MemorySegment id = cmId;
            cmId = MemorySegment.NULL;
            try {
                ia.cm.rdma_destroy_id(id);
            } catch (NativeCallException e) {
                // Destroying is best effort: the id belongs to a connection that is over.
            }
        }
    }

    private void postConnectionEvent(DatEventType type, byte[] privateData) {
        if (connectEvd != null) {
            connectEvd.postConnection(type, this, privateData);
        }
    }

    /**
     * A work completion of this EP came back in error: DAT breaks the connection on a failed DTO, and
     * the HCA moved the QP to ERROR already, but nothing tells rdma_cm or the peer. Called by the translating thread
     * under an EVD lock, so the teardown is handed to the progress thread.
     */
    void dtoFailed(DatDtoStatus status) {
        DatEpState s = state;
        // A flush is the work of a disconnect the EP knows of, except while it thinks itself CONNECTED: then the QP
        // left RTS unannounced, and the connection is as broken as after an error. rxe (6.1) does that: an RDMA read
        // through a window, posted after a window bind on the same QP, was flushed at once with nothing sent, the
        // QP still showing RTS (the TCK campaign, seed 0xec9c1700eac897fa, step 641); no event would ever follow.
        if (s == DatEpState.CONNECTED
                || (s == DatEpState.DISCONNECT_PENDING && status != DatDtoStatus.FLUSHED)) {
            ia.progress().breakLater(this, epoch, status);
        }
    }

    /** The progress thread's half of {@link #dtoFailed}: the connection of {@code brokenEpoch}, if still up, ends. */
    void dtoBroke(long brokenEpoch, DatDtoStatus status) {
        lock.lock();
        try {
            if (brokenEpoch == epoch && !isClosed()) {
                if (VerbsConfig.TRACE) {
                    VerbsConfig.trace("qp " + qpNum + ": a DTO completed " + status + ", the connection is broken");
                }
                qpFailedLocked();
            }
        } finally {
            lock.unlock();
        }
    }

    /** An async QP error (fatal, request or access error): the connection is broken. */
    void qpFailed(String why) {
        lock.lock();
        try {
            if (VerbsConfig.TRACE) {
                VerbsConfig.trace("qp " + qpNum + ": " + why + ", the connection is broken");
            }
            qpFailedLocked();
        } finally {
            lock.unlock();
        }
    }

    private void qpFailedLocked() {
        if (state == DatEpState.CONNECTED || state == DatEpState.DISCONNECT_PENDING) {
            teardownLocked(DatEventType.CONNECTION_EVENT_BROKEN, true);
        }
    }

    /** dat_rsp_create: reserves this EP for {@code rsp}. Caller holds the IA lifecycle lock, state checked. */
    void reserve(VerbsRsp rsp) {
        lock.lock();
        try {
            reservedBy = rsp;
            state = DatEpState.RESERVED;
        } finally {
            lock.unlock();
        }
    }

    /** The RSP's request arrived: the reserved EP waits for the consumer's accept or reject. */
    void passivePending(VerbsRsp rsp) {
        lock.lock();
        try {
            if (reservedBy == rsp && state == DatEpState.RESERVED) {
                state = DatEpState.PASSIVE_CONNECTION_PENDING;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The RSP went away or its request was rejected. */
    void unreserve(VerbsRsp rsp) {
        lock.lock();
        try {
            if (reservedBy == rsp && (state == DatEpState.RESERVED
                    || state == DatEpState.PASSIVE_CONNECTION_PENDING)) {
                reservedBy = null;
                state = DatEpState.UNCONNECTED;
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void dupConnect(DatEp dupEp, long timeoutMicros, byte[] privateData, DatQos qos) {
        String call = "dat_ep_dup_connect";
        requireOpen(call);
        if (!(dupEp instanceof VerbsEp d) || d.isClosed() || d.owner() != ia) {
            throw new DatException(DatReturn.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    call + ": dup_ep_handle is not an open EP of this IA");
        }
        InetAddress address;
        long qual;
        d.lock.lock();
        try {
            if (d.state != DatEpState.CONNECTED) {
                throw new DatException(DatReturn.INVALID_STATE, DatArgs.epStateSubtype(d.state),
                        call + ": dup_ep_handle is " + d.state + ", not CONNECTED");
            }
            address = d.remoteAddress;
            qual = d.remoteQual;
        } finally {
            d.lock.unlock();
        }
        connect(address, qual, timeoutMicros, privateData, qos, DatConnectFlags.DEFAULT);
    }

    @Override
    public void disconnect(DatCloseFlags flags) {
        String call = "dat_ep_disconnect";
        requireOpen(call);
        if (flags == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": disconnect_flags is null");
        }
        lock.lock();
        try {
            requireOpen(call);
            switch (state) {
                case DISCONNECTED -> {
                }
                case ACTIVE_CONNECTION_PENDING -> teardownLocked(DatEventType.CONNECTION_EVENT_DISCONNECTED, false);
                case CONNECTED -> {
                    if (flags == DatCloseFlags.GRACEFUL) {
                        // dat_ep_disconnect(GRACEFUL): the QP keeps running, so requests in flight complete; the
                        // peer's answer (RDMA_CM_EVENT_DISCONNECTED) finishes the disconnect.
                        try {
                            ia.cm.rdma_disconnect(cmId);
                            state = DatEpState.DISCONNECT_PENDING;
                            return;
                        } catch (NativeCallException e) {
                            // The peer is gone: disconnect at once.
                        }
                    }
                    teardownLocked(DatEventType.CONNECTION_EVENT_DISCONNECTED, true);
                }
                case DISCONNECT_PENDING -> {
                    if (flags == DatCloseFlags.ABRUPT) {
                        teardownLocked(DatEventType.CONNECTION_EVENT_DISCONNECTED, false);
                    }
                }
                default -> throw wrongState(call,
                        "CONNECTED, DISCONNECT_PENDING, ACTIVE_CONNECTION_PENDING or DISCONNECTED");
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void reset() {
        String call = "dat_ep_reset";
        requireOpen(call);
        lock.lock();
        try {
            requireOpen(call);
            if (state == DatEpState.DISCONNECTED) {
                epoch++;
                dropIdLocked();
                toInit();
                // Everything posted before was flushed; completions not yet reaped no longer hold slots.
                // Sequences go on from where they were: a completion of the old connection still in a CQ then
                // falls before the new epoch and is dropped (dat_ep_reset may lose completions not yet dequeued),
                // instead of taking the slot of a DTO posted after the reset. The EVD locks order this against a
                // translation under way.
                sendCq.locked(() -> {
                    abandonBinds();
                    reqCompleted = reqPosted;
                    reqEpochStart = reqPosted;
                });
                recvCq.locked(() -> {
                    recvCompleted = recvPosted;
                    recvEpochStart = recvPosted;
                });
                unsignalledRun = 0;
                reqUnreaped.set(0);
                recvUnreaped.set(0);
                remoteAddress = null;
                remoteQual = 0;
                localQual = 0;
                state = DatEpState.UNCONNECTED;
            } else if (state != DatEpState.UNCONNECTED) {
                throw wrongState(call, "DISCONNECTED or UNCONNECTED");
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public DatEpStatus getStatus() {
        requireOpen("dat_ep_get_status");
        boolean recvIdle = srq != null || recvUnreaped.get() == 0;
        return new DatEpStatus(state, recvIdle, reqUnreaped.get() == 0);
    }

    @Override
    public DatEpParam query() {
        requireOpen("dat_ep_query");
        lock.lock();
        try {
            return new DatEpParam(ia, state, ia.address, localQual, remoteAddress, remoteQual, pz, recvEvd,
                    requestEvd, connectEvd, srq, attr);
        } finally {
            lock.unlock();
        }
    }

    /**
     * dat_ep_modify: the QP's queues are fixed at creation, so only attributes that fit the QP as created may
     * change, and only in UNCONNECTED with nothing posted.
     */
    @Override
    public void modify(DatEpAttr newAttr) {
        String call = "dat_ep_modify";
        requireOpen(call);
        if (newAttr == null) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG3, call + ": ep_attr is null");
        }
        DatArgs.epAttr(call, ia.iaAttr, ia.providerAttr, newAttr, srq != null);
        lock.lock();
        try {
            requireOpen(call);
            if (state != DatEpState.UNCONNECTED && state != DatEpState.TENTATIVE_CONNECTION_PENDING) {
                throw wrongState(call, "UNCONNECTED");
            }
            int sendIov = (int) (sendSges.byteSize() / IbvSge.SIZE);
            int recvIov = (int) (recvSges.byteSize() / IbvSge.SIZE);
            if (newAttr.maxRequestDtos() > reqCookie.length
                    || (srq == null && newAttr.maxRecvDtos() > recvCookie.length)
                    || Math.max(newAttr.maxRequestIov(), Math.max(newAttr.maxRdmaReadIov(), newAttr.maxRdmaWriteIov()))
                    > sendIov || (srq == null && newAttr.maxRecvIov() > recvIov)) {
                throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": the verbs QP's queues are sized at"
                        + " dat_ep_create; an EP cannot grow its max_*_dtos or max_*_iov (free it and create"
                        + " another)");
            }
            if (reqUnreaped.get() != 0 || recvUnreaped.get() != 0) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_NOTREADY,
                        call + ": work is posted on the EP; dat_ep_modify needs an idle EP");
            }
            boolean solicitedNow = newAttr.recvCompletionFlags() == DatCompletionFlags.SOLICITED_WAIT;
            if (solicitedNow != solicitedWait) {
                recvCq.requalify(solicitedWait, solicitedNow);
                solicitedWait = solicitedNow;
            }
            attr = newAttr;
            sizeQueues(newAttr);
        } finally {
            lock.unlock();
        }
    }

    /**
     * dat_ep_recv_query: DAT_MODEL_NOT_SUPPORTED, as {@code ep_recv_info_supported} 0 says. The call exists for EPs
     * on an SRQ ("provide Endpoint receive queue consumption on SRQ"), and there verbs cannot count: an RC QP takes
     * an SRQ buffer when a message's first packet arrives and says so only in the completion, so the buffer of a
     * message still arriving is invisible. Claiming the counts for the EPs with their own queues (whose counts the
     * consumer knows anyway) would select this provider for exactly the use it cannot serve.
     */
    @Override
    public DatEpRecvInfo recvQuery(int which) {
        String call = "dat_ep_recv_query";
        requireOpen(call);
        DatArgs.recvQueryWhich(which);
        throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": verbs does not report which SRQ buffer a QP"
                + " is filling, so the provider supports neither count (ep_recv_info_supported 0)");
    }

    /** dat_ep_set_watermark is not supported: {@code srq_watermarks_supported} has only the SRQ low watermark. */
    @Override
    public void setWatermark(int softHighWatermark, int hardHighWatermark) {
        requireOpen("dat_ep_set_watermark");
        throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, "dat_ep_set_watermark: EP high watermarks are not"
                + " supported (srq_watermarks_supported has neither SOFT_HIGH nor HARD_HIGH)");
    }

    static DatReturnSubtype stateSubtype(DatEpState s) {
        return DatArgs.epStateSubtype(s);
    }

    private DatException wrongState(String call, String expected) {
        return new DatException(DatReturn.INVALID_STATE, stateSubtype(state),
                call + ": ep_handle is " + state + ", not " + expected);
    }
}
