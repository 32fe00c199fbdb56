// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatConnectFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpState;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.verbs.internal.ffm.Errno;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.LibRdmacm;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.provider.verbs.internal.ffm.RdmaCmId;
import dat.provider.verbs.internal.ffm.RdmaConnParam;
import dat.spi.DatArgs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Connection management of a {@link VerbsEp}: {@code dat_ep_connect}, {@code dat_ep_dup_connect},
 * {@code dat_ep_disconnect}, {@code dat_ep_reset}, the EP's half of {@code dat_cr_accept} and of an RSP's
 * reservation ({@code dat_rsp_create}); and what rdma_cm and the QP report about the connection: the id's events,
 * connect timeouts, data that arrived before the CM called the connection established, a connection that a failed
 * DTO or a QP error broke. How the QP follows the connection: see {@link VerbsEp} ("Why the QP is not rdma_cm's").
 *
 * <h2>Locking</h2>
 * The EP's lock ({@link VerbsEp#lock}) guards the connection. The rdma_cm calls made under it never wait for the
 * progress thread, which acknowledges every event before it takes this lock.
 */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class VerbsEpConnection {

    /** How long rdma_cm may take to resolve an address or a route. */
    private static final int RESOLVE_MILLIS = 2000;
    /**
     * Transport retries before a request fails and the connection breaks. Not 7: rxe's completer never counts a
     * retry count of 7 down, so a peer that vanished without a word (its link cut, its node dead) left the requests
     * in flight forever; the fault suite saw 143 retries over a 10 s link outage and no break (on InfiniBand 7
     * means seven; only the RNR count gives 7 the meaning "forever").
     */
    private static final int TRANSPORT_RETRIES = 6;

    private final VerbsEp ep;
    // The EP's, copied.
    private final VerbsIa ia;
    private final ReentrantLock lock;
    private final MemorySegment connParam;
    private final MemorySegment privateDataBuffer;
    private final MemorySegment idOut;
    /**
     * Counts {@code dat_ep_reset}s: a DTO failure reported late (see {@link #dtoFailed}) breaks only the connection
     * it happened on, never one made after a reset. Written under lock.
     */
    private volatile long epoch;
    /** A message completed while PASSIVE_CONNECTION_PENDING (see {@link #promoteLocked}). */
    volatile boolean dataArrived;

    // Connection; guarded by lock.
    private MemorySegment cmId = MemorySegment.NULL;
    InetAddress remoteAddress;
    long remoteQual;
    long localQual;
    private byte[] connectData;
    private long connectDeadline;
    private VerbsRsp reservedBy;
    private byte[] requestData;

    VerbsEpConnection(VerbsEp ep) {
        this.ep = ep;
        this.ia = ep.owner();
        this.lock = ep.lock;
        this.connParam = ep.arena.allocate(RdmaConnParam.LAYOUT);
        this.privateDataBuffer = ep.arena.allocate(256);
        this.idOut = ep.arena.allocate(ADDRESS);
    }

    /** dat_ep_free's part: a connected or connecting EP is first disconnected abruptly, its work flushed. */
    void freeLocked() {
        DatEpState s = ep.state;
        if (s == DatEpState.CONNECTED || s == DatEpState.DISCONNECT_PENDING) {
            teardownLocked(DatEventType.CONNECTION_EVENT_DISCONNECTED, true);
        } else if (s == DatEpState.ACTIVE_CONNECTION_PENDING || s == DatEpState.PASSIVE_CONNECTION_PENDING) {
            teardownLocked(null, true);
        }
        reservedBy = null;
    }

    VerbsRsp reservedBy() {
        return reservedBy;
    }

    void connect(InetAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
                 DatQos qos, int connectFlags) {
        String call = "dat_ep_connect";
        ep.requireOpen(call);
        if (remoteIaAddress == null) {
            throw new DatException(DatReturn.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_MALFORMED,
                    call + ": remote_ia_address is null");
        }
        VerbsPsp.checkQualifier(call, remoteConnQual);
        DatArgs.timeout(call, timeoutMicros, DatReturnSubtype.INVALID_ARG4);
        byte[] data = VerbsCr.checkPrivateData(call, privateData);
        DatArgs.connectQos(call, qos, connectFlags);
        lock.lock();
        try {
            ep.requireOpen(call);
            if (ep.state != DatEpState.UNCONNECTED || reservedBy != null) {
                throw ep.wrongState(call, "UNCONNECTED");
            }
            if (ep.connectEvd == null) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_EVD_CONNECT,
                        call + ": the EP has no connect_evd_handle to report the outcome to");
            }
            try (Arena addresses = Arena.ofConfined()) {
                ia.cm.rdma_create_id(ia.cmChannel, idOut, MemorySegment.ofAddress(ep.key), LibRdmacm.RDMA_PS_TCP);
                cmId = idOut.get(ADDRESS, 0).reinterpret(RdmaCmId.SIZE);
                ia.cm.rdma_resolve_addr(cmId, VerbsIa.sockaddr(addresses, ia.address(), 0),
                        VerbsIa.sockaddr(addresses, remoteIaAddress, CmWire.port(remoteConnQual)), RESOLVE_MILLIS);
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
            ep.state = DatEpState.ACTIVE_CONNECTION_PENDING;
            ia.progress().connecting.add(ep);
        } finally {
            lock.unlock();
        }
    }

    /** Called by the progress thread every round while this EP connects. */
    void checkConnectTimeout(long now) {
        lock.lock();
        try {
            if (ep.state == DatEpState.ACTIVE_CONNECTION_PENDING && now - connectDeadline > 0
                    && connectDeadline != Long.MAX_VALUE) {
                teardownLocked(DatEventType.CONNECTION_EVENT_TIMED_OUT, false);
            } else if (ep.state != DatEpState.ACTIVE_CONNECTION_PENDING) {
                ia.progress().connecting.remove(ep);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A connection-manager event for this EP's id, from the progress thread. */
    void cmEvent(VerbsProgress.CmEvent e) {
        lock.lock();
        try {
            if (ep.isClosed() || e.id().address() != cmId.address()) {
                return;
            }
            switch (e.type()) {
                case LibRdmacm.RDMA_CM_EVENT_ADDR_RESOLVED -> ia.cm.rdma_resolve_route(cmId, RESOLVE_MILLIS);
                case LibRdmacm.RDMA_CM_EVENT_ROUTE_RESOLVED -> {
                    localQual = ia.cm.rdma_get_src_port(cmId);
                    fillConnParam(connectData, CmWire.REQ_FIELD, ep.attr.maxRdmaReadIn(), ep.attr.maxRdmaReadOut());
                    ia.cm.rdma_connect(cmId, connParam);
                }
                case LibRdmacm.RDMA_CM_EVENT_CONNECT_RESPONSE -> {
                    if (ep.state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                        ep.toConnected(cmId, LibIbverbs.IBV_QPS_RTR);
                        ep.toConnected(cmId, LibIbverbs.IBV_QPS_RTS);
                        ia.cm.rdma_establish(cmId);
                        established(e.privateData());
                    }
                }
                case LibRdmacm.RDMA_CM_EVENT_ESTABLISHED -> {
                    if (ep.state == DatEpState.PASSIVE_CONNECTION_PENDING
                            || ep.state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                        established(ep.state == DatEpState.PASSIVE_CONNECTION_PENDING ? requestData : e.privateData());
                    }
                }
                case LibRdmacm.RDMA_CM_EVENT_REJECTED -> {
                    if (ep.state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                        teardownLocked(e.consumerReject() ? DatEventType.CONNECTION_EVENT_PEER_REJECTED
                                : DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED, false);
                    }
                }
                case LibRdmacm.RDMA_CM_EVENT_ADDR_ERROR, LibRdmacm.RDMA_CM_EVENT_ROUTE_ERROR,
                     LibRdmacm.RDMA_CM_EVENT_UNREACHABLE, LibRdmacm.RDMA_CM_EVENT_CONNECT_ERROR -> {
                    if (ep.state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                        teardownLocked(-e.status() == Errno.ETIMEDOUT ? DatEventType.CONNECTION_EVENT_TIMED_OUT
                                : DatEventType.CONNECTION_EVENT_UNREACHABLE, false);
                    } else if (ep.state == DatEpState.PASSIVE_CONNECTION_PENDING) {
                        teardownLocked(DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, false);
                    } else if (ep.state == DatEpState.CONNECTED || ep.state == DatEpState.DISCONNECT_PENDING) {
                        teardownLocked(DatEventType.CONNECTION_EVENT_BROKEN, false);
                    }
                }
                case LibRdmacm.RDMA_CM_EVENT_DISCONNECTED -> {
                    if (ep.state == DatEpState.CONNECTED || ep.state == DatEpState.DISCONNECT_PENDING) {
                        teardownLocked(DatEventType.CONNECTION_EVENT_DISCONNECTED, true);
                    }
                }
                case LibRdmacm.RDMA_CM_EVENT_DEVICE_REMOVAL -> {
                    if (ep.state != DatEpState.DISCONNECTED && ep.state != DatEpState.UNCONNECTED) {
                        teardownLocked(DatEventType.CONNECTION_EVENT_BROKEN, false);
                    }
                }
                default -> {
                    // TIMEWAIT_EXIT, ADDR_CHANGE: nothing for DAT.
                }
            }
        } catch (NativeCallException ex) {
            if (ep.state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                teardownLocked(DatEventType.CONNECTION_EVENT_UNREACHABLE, false);
            } else if (ep.state == DatEpState.PASSIVE_CONNECTION_PENDING) {
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
        if (ep.state == DatEpState.PASSIVE_CONNECTION_PENDING) {
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
    void promoteLocked() {
        if (ep.state != DatEpState.PASSIVE_CONNECTION_PENDING || !dataArrived || ep.isClosed()) {
            return;
        }
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("qp " + ep.qpNum + ": data before ESTABLISHED, the connection is up");
        }
        established(requestData);
        try {
            ia.cm.rdma_notify(cmId, LibIbverbs.IBV_EVENT_COMM_EST);
        } catch (NativeCallException e) {
            // The CM established it meanwhile (EINVAL): nothing to add.
        }
    }

    private void established(byte[] privateData) {
        ep.state = DatEpState.CONNECTED;
        ia.progress().connecting.remove(ep);
        postConnectionEvent(DatEventType.CONNECTION_EVENT_ESTABLISHED, privateData);
    }

    /**
     * Writes {@link #connParam} for a connect ({@code field} {@link CmWire#REQ_FIELD}) or an accept
     * ({@link CmWire#REP_FIELD}). Caller holds lock.
     */
    private void fillConnParam(byte[] data, int field, int responderResources, int initiatorDepth) {
        connParam.fill((byte) 0);
        int length = CmWire.encode(data, field, privateDataBuffer);
        RdmaConnParam.privateData(connParam, privateDataBuffer);
        RdmaConnParam.privateDataLen(connParam, (byte) length);
        RdmaConnParam.responderResources(connParam, (byte) Math.min(255, responderResources));
        RdmaConnParam.initiatorDepth(connParam, (byte) Math.min(255, initiatorDepth));
        RdmaConnParam.flowControl(connParam, (byte) 1);
        RdmaConnParam.retryCount(connParam, (byte) TRANSPORT_RETRIES);
        // 7: retry forever while the receiver has no buffer posted, as a DAT send waits for a receive.
        RdmaConnParam.rnrRetryCount(connParam, (byte) 7);
        RdmaConnParam.srq(connParam, (byte) (ep.srq != null ? 1 : 0));
        RdmaConnParam.qpNum(connParam, ep.qpNum);
    }

    /**
     * dat_cr_accept onto this EP: moves the QP to RTR and RTS for the request's id and accepts. Called by the CR
     * with the arguments checked.
     */
    void accept(VerbsCr cr, byte[] acceptData) {
        String call = "dat_cr_accept";
        lock.lock();
        try {
            ep.requireOpen(call);
            boolean reserved = reservedBy != null && reservedBy == cr.rsp();
            if (!(ep.state == DatEpState.UNCONNECTED && reservedBy == null)
                    && !(reserved && ep.state == DatEpState.PASSIVE_CONNECTION_PENDING)) {
                throw ep.wrongState(call, "UNCONNECTED");
            }
            if (ep.connectEvd == null) {
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
            ep.state = DatEpState.PASSIVE_CONNECTION_PENDING;
            ia.cmOwners.put(cr.key(), ep);
            try {
                ep.toConnected(cr.id(), LibIbverbs.IBV_QPS_RTR);
                ep.toConnected(cr.id(), LibIbverbs.IBV_QPS_RTS);
                fillConnParam(acceptData, CmWire.REP_FIELD, CmWire.acceptResponderResources(ep.attr.maxRdmaReadIn(),
                        cr.responderResources()), CmWire.acceptInitiatorDepth(ep.attr.maxRdmaReadOut(),
                        cr.initiatorDepth()));
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
        ep.state = DatEpState.DISCONNECTED;
        ep.toError();
        // After the state: a window bind translated from now on sees DISCONNECTED (VerbsRmr#completed).
        for (Iterator<VerbsRmr> it = ep.windows.iterator(); it.hasNext(); ) {
            VerbsRmr window = it.next();
            it.remove();
            window.connectionEnded(ep);
        }
        ia.progress().connecting.remove(ep);
        if (event != null) {
            postConnectionEvent(event, null);
        }
    }

    /** Releases the current rdma_cm id. Caller holds lock; the progress thread never waits for it. */
    void dropIdLocked() {
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
        if (ep.connectEvd != null) {
            ep.connectEvd.postConnection(type, ep, privateData);
        }
    }

    /**
     * A work completion of this EP came back in error: DAT breaks the connection on a failed DTO, and
     * the HCA moved the QP to ERROR already, but nothing tells rdma_cm or the peer. Called by the translating thread
     * under an EVD lock, so the teardown is handed to the progress thread.
     */
    void dtoFailed(DatDtoStatus status) {
        DatEpState s = ep.state;
        // A flush is the work of a disconnect the EP knows of, except while it thinks itself CONNECTED: then the QP
        // left RTS unannounced, and the connection is as broken as after an error. rxe (6.1) does that: an RDMA read
        // through a window, posted after a window bind on the same QP, was flushed at once with nothing sent, the
        // QP still showing RTS (the TCK campaign, seed 0xec9c1700eac897fa, step 641); no event would ever follow.
        if (s == DatEpState.CONNECTED
                || (s == DatEpState.DISCONNECT_PENDING && status != DatDtoStatus.FLUSHED)) {
            ia.progress().breakLater(ep, epoch, status);
        }
    }

    /** The progress thread's half of {@link #dtoFailed}: the connection of {@code brokenEpoch}, if still up, ends. */
    void dtoBroke(long brokenEpoch, DatDtoStatus status) {
        lock.lock();
        try {
            if (brokenEpoch == epoch && !ep.isClosed()) {
                if (VerbsConfig.TRACE) {
                    VerbsConfig.trace("qp " + ep.qpNum + ": a DTO completed " + status + ", the connection is broken");
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
                VerbsConfig.trace("qp " + ep.qpNum + ": " + why + ", the connection is broken");
            }
            qpFailedLocked();
        } finally {
            lock.unlock();
        }
    }

    private void qpFailedLocked() {
        if (ep.state == DatEpState.CONNECTED || ep.state == DatEpState.DISCONNECT_PENDING) {
            teardownLocked(DatEventType.CONNECTION_EVENT_BROKEN, true);
        }
    }

    /** dat_rsp_create: reserves this EP for {@code rsp}. Caller holds the IA lifecycle lock, state checked. */
    void reserve(VerbsRsp rsp) {
        lock.lock();
        try {
            reservedBy = rsp;
            ep.state = DatEpState.RESERVED;
        } finally {
            lock.unlock();
        }
    }

    /** The RSP's request arrived: the reserved EP waits for the consumer's accept or reject. */
    void passivePending(VerbsRsp rsp) {
        lock.lock();
        try {
            if (reservedBy == rsp && ep.state == DatEpState.RESERVED) {
                ep.state = DatEpState.PASSIVE_CONNECTION_PENDING;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The RSP went away or its request was rejected. */
    void unreserve(VerbsRsp rsp) {
        lock.lock();
        try {
            if (reservedBy == rsp && (ep.state == DatEpState.RESERVED
                    || ep.state == DatEpState.PASSIVE_CONNECTION_PENDING)) {
                reservedBy = null;
                ep.state = DatEpState.UNCONNECTED;
            }
        } finally {
            lock.unlock();
        }
    }

    void dupConnect(DatEp dupEp, long timeoutMicros, byte[] privateData, DatQos qos) {
        String call = "dat_ep_dup_connect";
        ep.requireOpen(call);
        if (!(dupEp instanceof VerbsEp d) || d.isClosed() || d.owner() != ia) {
            throw new DatException(DatReturn.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    call + ": dup_ep_handle is not an open EP of this IA");
        }
        InetAddress address;
        long qual;
        d.lock.lock();
        try {
            if (d.state != DatEpState.CONNECTED) {
                throw DatArgs.epState(call, "dup_ep_handle", d.state, "CONNECTED");
            }
            address = d.connection.remoteAddress;
            qual = d.connection.remoteQual;
        } finally {
            d.lock.unlock();
        }
        connect(address, qual, timeoutMicros, privateData, qos, DatConnectFlags.DEFAULT);
    }

    void disconnect(DatCloseFlags flags) {
        String call = "dat_ep_disconnect";
        lock.lock();
        try {
            ep.requireOpen(call);
            switch (ep.state) {
                case DISCONNECTED -> {
                }
                case ACTIVE_CONNECTION_PENDING -> teardownLocked(DatEventType.CONNECTION_EVENT_DISCONNECTED, false);
                case CONNECTED -> {
                    if (flags == DatCloseFlags.GRACEFUL) {
                        // dat_ep_disconnect(GRACEFUL): the QP keeps running, so requests in flight complete; the
                        // peer's answer (RDMA_CM_EVENT_DISCONNECTED) finishes the disconnect.
                        try {
                            ia.cm.rdma_disconnect(cmId);
                            ep.state = DatEpState.DISCONNECT_PENDING;
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
                default -> throw ep.wrongState(call,
                        "CONNECTED, DISCONNECT_PENDING, ACTIVE_CONNECTION_PENDING or DISCONNECTED");
            }
        } finally {
            lock.unlock();
        }
    }

    @SuppressWarnings("NonAtomicVolatileUpdate") // epoch is written only here and only under lock
    void reset() {
        String call = "dat_ep_reset";
        ep.requireOpen(call);
        lock.lock();
        try {
            ep.requireOpen(call);
            if (ep.state == DatEpState.DISCONNECTED) {
                epoch++;
                dropIdLocked();
                ep.toInit();
                ep.data.resetLocked();
                remoteAddress = null;
                remoteQual = 0;
                localQual = 0;
                ep.state = DatEpState.UNCONNECTED;
            } else if (ep.state != DatEpState.UNCONNECTED) {
                throw ep.wrongState(call, "DISCONNECTED or UNCONNECTED");
            }
        } finally {
            lock.unlock();
        }
    }

}
