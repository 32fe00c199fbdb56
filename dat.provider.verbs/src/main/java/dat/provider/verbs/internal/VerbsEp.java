// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpParam;
import dat.api.DatEpRecvInfo;
import dat.api.DatEpState;
import dat.api.DatEpStatus;
import dat.api.DatException;
import dat.api.DatQos;
import dat.api.DatReturnSubtype;
import dat.api.Iov;
import dat.provider.verbs.internal.ffm.IbvQp;
import dat.provider.verbs.internal.ffm.IbvQpAttr;
import dat.provider.verbs.internal.ffm.IbvQpInitAttr;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.spi.AbstractEp;
import dat.spi.DatArgs;
import dat.spi.ProviderHandle;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An endpoint ({@code dat_ep_create}, {@code dat_ep_create_with_srq}, {@code dat_ep_free}): an RC QP that the
 * provider owns and moves through its states itself, connected with rdma_cm. This class is the handle, the QP and
 * the EP's state; each of the EP's other jobs is an object of its own, which the DatEp methods here hand their calls
 * to: {@link VerbsEpData} the data path (posts, request and receive slots, window binds in order),
 * {@link VerbsEpConnection} connection management, {@link VerbsEpControl} query and modify.
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
 * <h2>Locking</h2>
 * {@link #lock} guards the state, the connection and the posting bookkeeping (see {@link VerbsEpData} for how
 * completions, translated under their EVD's lock, see the slots, and {@link VerbsEpConnection} for the rdma_cm calls
 * made under this lock).
 */
final class VerbsEp extends AbstractEp<VerbsIa> {

    private static final int ACK_TIMEOUT = VerbsConfig.ackTimeout();

    final VerbsPz pz;
    final VerbsEvd recvEvd;
    final VerbsEvd requestEvd;
    final VerbsEvd connectEvd;
    final VerbsSrq srq;
    final long key;
    final int qpNum;
    private final VerbsIa ia;
    final ReentrantLock lock = new ReentrantLock();
    final Arena arena = Arena.ofShared();
    final MemorySegment qp;
    private final MemorySegment qpAttr;
    private final MemorySegment maskOut;
    /** The EVDs made for a null request or recv EVD handle: completions go nowhere, slots are freed at once. */
    final VerbsEvd hiddenRequestEvd;
    final VerbsEvd hiddenRecvEvd;
    /** The EVDs whose CQs the QP completes into (the consumer's, or the hidden ones). */
    final VerbsEvd sendCq;
    final VerbsEvd recvCq;
    private final int recvDepth;
    private final int sendDepth;
    /** The EP's other jobs (see the class comment): final classes, so the calls handed to them inline. */
    final VerbsEpConnection connection;
    final VerbsEpData data;
    private final VerbsEpControl control;

    /** Written by {@link VerbsEpConnection} under {@link #lock}; volatile for the readers that skip the lock. */
    volatile DatEpState state = DatEpState.UNCONNECTED;
    /** Replaced by dat_ep_modify ({@link VerbsEpControl}) under {@link #lock}, and read under it. */
    DatEpAttr attr;
    /** The recv completion flags are SOLICITED_WAIT: read by the EVDs translating this EP's receives. */
    volatile boolean solicitedWait;
    /**
     * The windows whose last bind completed through this EP ({@link VerbsRmr#connectionEnded}): they are replaced when
     * its connection ends. Added to by the translating thread, drained under {@link #lock}.
     */
    final Set<VerbsRmr> windows = ConcurrentHashMap.newKeySet();

    VerbsEp(VerbsPz pz, VerbsEvd recvEvd, VerbsEvd requestEvd, VerbsEvd connectEvd, VerbsSrq srq, DatEpAttr attr) {
        super(pz.ia(), srq != null);
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
        sendCq.attach(sendDepth, false);
        recvCq.attach(recvDepth, solicitedWait);
        try {
            MemorySegment init = arena.allocate(IbvQpInitAttr.LAYOUT);
            IbvQpInitAttr.qpContext(init, MemorySegment.ofAddress(key));
            IbvQpInitAttr.sendCq(init, sendCq.cq);
            IbvQpInitAttr.recvCq(init, recvCq.cq);
            IbvQpInitAttr.srq(init, srq == null ? MemorySegment.NULL : srq.srq);
            IbvQpInitAttr.capMaxSendWr(init, attr.maxRequestDtos());
            IbvQpInitAttr.capMaxRecvWr(init, srq == null ? attr.maxRecvDtos() : 0);
            IbvQpInitAttr.capMaxSendSge(init, sendIov);
            IbvQpInitAttr.capMaxRecvSge(init, srq == null ? attr.maxRecvIov() : 0);
            IbvQpInitAttr.qpType(init, LibIbverbs.IBV_QPT_RC);
            IbvQpInitAttr.sqSigAll(init, 0);
            this.qp = ia.verbs.ibv_create_qp(pz.pd, init);
        } catch (NativeCallException e) {
            sendCq.detach(sendDepth, false);
            recvCq.detach(recvDepth, solicitedWait);
            arena.close();
            throw VerbsIa.resources("dat_ep_create", e);
        }
        this.qpNum = IbvQp.qpNum(qp);
        this.qpAttr = arena.allocate(IbvQpAttr.LAYOUT);
        this.maskOut = arena.allocate(JAVA_INT);
        this.connection = new VerbsEpConnection(this);
        this.data = new VerbsEpData(this, sendIov);
        this.control = new VerbsEpControl(this);
        toInit();
        if (srq != null) {
            srq.attachCq(recvCq);
        }
        ia.cmOwners.put(key, this);
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.INVALID_STATE_EP_NOTREADY;
    }

    @Override
    protected boolean dependsOn(ProviderHandle other) {
        return other == pz || other == recvEvd || other == requestEvd || other == connectEvd || other == srq;
    }

    /** dat_ep_free: a connected or connecting EP is first disconnected abruptly, its work flushed. */
    @Override
    protected void destroy() {
        lock.lock();
        try {
            connection.freeLocked();
            markClosed();
            connection.dropIdLocked();
        } finally {
            lock.unlock();
        }
        ia.progress().connecting.remove(this);
        ia.cmOwners.remove(key);
        ia.epsByQpn.remove(qpNum);
        // No completion of this QP is translated from here on (the translating thread holds the EVD lock and finds
        // the EP by QP number): the windows it was binding are replaced, and nothing held is posted to the QP.
        sendCq.locked(data::abandonBinds);
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
        if (connection.dataArrived && state == DatEpState.PASSIVE_CONNECTION_PENDING) {
            lock.lock();
            try {
                connection.promoteLocked();
            } finally {
                lock.unlock();
            }
        }
        return state;
    }

    // ------------------------------------------------------------------ QP states

    /** RESET (if needed) to INIT on the IA's port, so receives can be posted before any connection. */
    void toInit() {
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("qp " + qpNum + " to RESET, INIT (EP " + state + ")");
        }
        qpAttr.fill((byte) 0);
        IbvQpAttr.qpState(qpAttr, LibIbverbs.IBV_QPS_RESET);
        ia.verbs.ibv_modify_qp(qp, qpAttr, LibIbverbs.IBV_QP_STATE);
        qpAttr.fill((byte) 0);
        IbvQpAttr.qpState(qpAttr, LibIbverbs.IBV_QPS_INIT);
        IbvQpAttr.portNum(qpAttr, (byte) ia.port.port());
        IbvQpAttr.qpAccessFlags(qpAttr, LibIbverbs.IBV_ACCESS_LOCAL_WRITE
                | LibIbverbs.IBV_ACCESS_REMOTE_WRITE | LibIbverbs.IBV_ACCESS_REMOTE_READ);
        ia.verbs.ibv_modify_qp(qp, qpAttr, LibIbverbs.IBV_QP_STATE | LibIbverbs.IBV_QP_PKEY_INDEX
                | LibIbverbs.IBV_QP_PORT | LibIbverbs.IBV_QP_ACCESS_FLAGS);
    }

    /** Moves the QP to {@code target} with the attributes rdma_cm derives for {@code id}'s connection. */
    void toConnected(MemorySegment id, int target) {
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("qp " + qpNum + " to " + (target == LibIbverbs.IBV_QPS_RTR ? "RTR" : "RTS"));
        }
        qpAttr.fill((byte) 0);
        IbvQpAttr.qpState(qpAttr, target);
        ia.cm.rdma_init_qp_attr(id, qpAttr, maskOut);
        int mask = maskOut.get(JAVA_INT, 0);
        if (target == LibIbverbs.IBV_QPS_RTS) {
            // The provider's ACK timeout, not rdma_cm's (see VerbsConfig.ackTimeout).
            IbvQpAttr.timeout(qpAttr, (byte) ACK_TIMEOUT);
            mask |= LibIbverbs.IBV_QP_TIMEOUT;
        }
        ia.verbs.ibv_modify_qp(qp, qpAttr, mask);
    }

    /** Moves the QP to ERROR: every posted work request completes flushed. */
    void toError() {
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("qp " + qpNum + " to ERROR (EP " + state + ")");
        }
        qpAttr.fill((byte) 0);
        IbvQpAttr.qpState(qpAttr, LibIbverbs.IBV_QPS_ERR);
        try {
            ia.verbs.ibv_modify_qp(qp, qpAttr, LibIbverbs.IBV_QP_STATE);
        } catch (NativeCallException e) {
            // Already in ERROR, or the device is gone: either way nothing more will execute.
        }
    }

    DatException wrongState(String call, String expected) {
        return DatArgs.epState(call, "ep_handle", state, expected);
    }

    // ------------------------------------------------------------------ data path (VerbsEpData)

    @Override
    public int postSend(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        return data.postSend(numSegments, localIov, userCookie, completionFlags);
    }

    @Override
    public int postRecv(int numSegments, Iov localIov, long userCookie, int completionFlags) {
        return data.postRecv(numSegments, localIov, userCookie, completionFlags);
    }

    @Override
    public int postRdmaRead(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                            long segmentLength, int completionFlags) {
        return data.postRdmaRead(numSegments, localIov, userCookie, rmrContext, targetAddress, segmentLength,
                completionFlags);
    }

    @Override
    public int postRdmaWrite(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                             long segmentLength, int completionFlags) {
        return data.postRdmaWrite(numSegments, localIov, userCookie, rmrContext, targetAddress, segmentLength,
                completionFlags);
    }

    // ------------------------------------------------------------------ connection management (VerbsEpConnection)

    @Override
    public void connect(InetAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
                        DatQos qos, int connectFlags) {
        connection.connect(remoteIaAddress, remoteConnQual, timeoutMicros, privateData, qos, connectFlags);
    }

    @Override
    public void dupConnect(DatEp dupEp, long timeoutMicros, byte[] privateData, DatQos qos) {
        connection.dupConnect(dupEp, timeoutMicros, privateData, qos);
    }

    @Override
    protected void implDisconnect(DatCloseFlags flags) {
        connection.disconnect(flags);
    }

    @Override
    public void reset() {
        connection.reset();
    }

    // ------------------------------------------------------------------ query and modify (VerbsEpControl)

    @Override
    public DatEpStatus getStatus() {
        return control.getStatus();
    }

    @Override
    public DatEpParam query() {
        return control.query();
    }

    @Override
    protected void implModify(DatEpAttr newAttr) {
        control.modify(newAttr);
    }

    @Override
    protected DatEpRecvInfo implRecvQuery(int which) {
        return control.recvQuery(which);
    }
}
