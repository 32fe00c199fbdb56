// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatConnectFlags;
import dat.api.DatEp;
import dat.api.DatEpState;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.spi.DatArgs;
import java.net.InetAddress;
import java.util.concurrent.Future;

/**
 * Connection management of one {@link LoopbackEp}: {@code dat_ep_connect}, {@code dat_ep_dup_connect},
 * {@code dat_ep_disconnect}, {@code dat_ep_reset}, the establishment of {@code dat_cr_accept}, the reservation of
 * {@code dat_rsp_create}, connect timeouts, rejects and handoffs of the request, connection events, and teardown
 * (also of a connection the data path broke, or a graceful disconnect whose queue has drained).
 *
 * <p>Everything here runs under the fabric's connection lock ({@link LoopbackFabric#connLock}), which makes the
 * two-sided transitions atomic; the locks of the EPs are taken inside it in the order {@link LoopbackEp} gives.
 * The state words the data path reads ({@link LoopbackEp#state()}, {@link LoopbackEp#peer},
 * {@link LoopbackEp#connGen}, {@link LoopbackEp#broken}) are the EP's; this object keeps the connection's identity
 * and the pending request.
 */
final class LoopbackEpConnection {

    private final LoopbackEp ep;

    // Connection identity; guarded by the fabric's connection lock.
    InetAddress remoteAddress;
    long localQual;
    long remoteQual;
    private LoopbackCr pendingCr;
    private Future<?> timeoutTask;
    private LoopbackRsp reservedBy;

    LoopbackEpConnection(LoopbackEp ep) {
        this.ep = ep;
    }

    private static void lockPair(LoopbackEp a, LoopbackEp b) {
        if (b == null || b == a) {
            a.sendLock.lock();
        } else if (a.id < b.id) {
            a.sendLock.lock();
            b.sendLock.lock();
        } else {
            b.sendLock.lock();
            a.sendLock.lock();
        }
    }

    private static void unlockPair(LoopbackEp a, LoopbackEp b) {
        if (b != null && b != a) {
            b.sendLock.unlock();
        }
        a.sendLock.unlock();
    }

    /** Moves to DISCONNECTED, flushing everything. Caller holds the connection lock and sendLock. */
    private void disconnectLocked() {
        LoopbackEpData data = ep.data;
        ep.recvLock.lock();
        try {
            ep.setStateLocked(DatEpState.DISCONNECTED);
            data.flushRecvLocked();
            // The peer's waiting sends are flushed with this connection.
            data.recvWanted = false;
        } finally {
            ep.recvLock.unlock();
        }
        data.flushRequestsLocked();
        ep.peer = null;
        data.peerChanged(null);
        ep.broken = false;
    }

    /** Disconnects {@code a} and its peer; both get {@code event}. Caller holds the connection lock. */
    static void teardown(LoopbackEp a, DatEventType event) {
        LoopbackEp b = a.peer;
        lockPair(a, b);
        try {
            a.connection.disconnectLocked();
            if (b != null && b.peer == a) {
                b.connection.disconnectLocked();
            }
        } finally {
            unlockPair(a, b);
        }
        a.connection.postConnectionEvent(event, null);
        if (b != null) {
            b.connection.postConnectionEvent(event, null);
        }
    }

    private void postConnectionEvent(DatEventType type, byte[] privateData) {
        if (ep.connectEvd != null) {
            ep.connectEvd.postConnection(type, ep, privateData);
        }
    }

    /** Caller holds the connection lock. */
    private void toDisconnected() {
        ep.sendLock.lock();
        try {
            disconnectLocked();
        } finally {
            ep.sendLock.unlock();
        }
    }

    /** Abandons an active connect. Caller holds the connection lock. */
    private void cancelPending() {
        pendingCr = null;
        if (timeoutTask != null) {
            timeoutTask.cancel(false);
            timeoutTask = null;
        }
        toDisconnected();
    }

    /**
     * The data path's drain ended with the connection {@code broke}n, or with the request queue of a graceful
     * disconnect empty: tears the connection down unless it changed since the drain ({@code gen}). Called after
     * the drain released its send lock, since teardown takes the connection lock first.
     */
    void drained(boolean broke, long gen) {
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            if (ep.connGen != gen || ep.peer == null) {
                return;
            }
            if (broke) {
                teardown(ep, DatEventType.CONNECTION_EVENT_BROKEN);
            } else if (ep.state() == DatEpState.DISCONNECT_PENDING && ep.data.requestsIdle()) {
                teardown(ep, DatEventType.CONNECTION_EVENT_DISCONNECTED);
            }
        } finally {
            fabric.connLock.unlock();
        }
    }

    /** dat_ep_free's first step: a connected or connecting EP is disconnected abruptly. Connection lock held. */
    void abandonLocked() {
        DatEpState s = ep.state();
        if (s == DatEpState.CONNECTED || s == DatEpState.DISCONNECT_PENDING) {
            teardown(ep, DatEventType.CONNECTION_EVENT_DISCONNECTED);
        } else if (s == DatEpState.ACTIVE_CONNECTION_PENDING) {
            cancelPending();
        }
    }

    static byte[] privateData(String call, byte[] data) {
        if (data == null) {
            return null;
        }
        if (data.length > LoopbackConfig.MAX_PRIVATE_DATA_SIZE) {
            throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG4, call + ": private_data of "
                    + data.length + " bytes exceeds max_private_data_size " + LoopbackConfig.MAX_PRIVATE_DATA_SIZE);
        }
        return data.clone();
    }

    /** {@code dat_ep_connect}. */
    void connect(InetAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
                 DatQos qos, int connectFlags) {
        String call = "dat_ep_connect";
        ep.requireOpen(call);
        DatArgs.timeout(call, timeoutMicros, DatReturnSubtype.INVALID_ARG4);
        byte[] data = privateData(call, privateData);
        DatArgs.connectQos(call, qos, connectFlags);
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        if (remoteIaAddress == null || !fabric.isKnown(remoteIaAddress)) {
            throw new DatException(DatReturn.INVALID_ADDRESS, DatReturnSubtype.INVALID_ADDRESS_UNREACHABLE,
                    call + ": remote_ia_address " + remoteIaAddress + " is no loopback IA of this JVM");
        }
        fabric.connLock.lock();
        try {
            ep.requireOpen(call);
            if (ep.state() != DatEpState.UNCONNECTED) {
                throw ep.wrongState(call, "UNCONNECTED");
            }
            if (ep.connectEvd == null) {
                throw new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_EP_EVD_CONNECT,
                        call + ": the EP has no connect_evd_handle to report the outcome to");
            }
            localQual = fabric.nextPortQual();
            remoteAddress = remoteIaAddress;
            remoteQual = remoteConnQual;
            ep.setState(DatEpState.ACTIVE_CONNECTION_PENDING);
            ServicePoint sp = fabric.listener(remoteIaAddress, remoteConnQual);
            LoopbackCr cr = sp == null ? null : new LoopbackCr(sp, ep, data, ep.owner().address(), localQual);
            pendingCr = cr;
            if (cr == null || !sp.offer(cr)) {
                cancelPending();
                postConnectionEvent(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED, null);
                return;
            }
            if (timeoutMicros != Dat.DAT_TIMEOUT_INFINITE) {
                timeoutTask = fabric.schedule(() -> timedOut(cr), timeoutMicros);
            }
        } finally {
            fabric.connLock.unlock();
        }
    }

    private void timedOut(LoopbackCr cr) {
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            if (pendingCr == cr && ep.state() == DatEpState.ACTIVE_CONNECTION_PENDING && !ep.isClosed()) {
                timeoutTask = null;
                cancelPending();
                postConnectionEvent(DatEventType.CONNECTION_EVENT_TIMED_OUT, null);
            }
        } finally {
            fabric.connLock.unlock();
        }
    }

    /** The listener side refused {@code cr} (reject, close, no listener after handoff). Connection lock held. */
    void rejected(LoopbackCr cr, DatEventType event) {
        if (pendingCr == cr && ep.state() == DatEpState.ACTIVE_CONNECTION_PENDING && !ep.isClosed()) {
            cancelPending();
            postConnectionEvent(event, null);
        }
    }

    /** {@code cr} was handed off; the same request continues as {@code next}. Connection lock held. */
    void handedOff(LoopbackCr cr, LoopbackCr next) {
        if (pendingCr == cr) {
            pendingCr = next;
        }
    }

    /**
     * dat_cr_accept: connects {@code active} (still waiting for {@code cr}) and {@code passive}. If the
     * requester gave up meanwhile, the passive EP gets ACCEPT_COMPLETION_ERROR. Connection lock held.
     */
    static void accept(LoopbackCr cr, LoopbackEp active, LoopbackEp passive, byte[] acceptData, long listenQual) {
        LoopbackEpConnection ac = active.connection;
        LoopbackEpConnection pc = passive.connection;
        passive.setState(DatEpState.COMPLETION_PENDING);
        if (active.isClosed() || ac.pendingCr != cr || active.state() != DatEpState.ACTIVE_CONNECTION_PENDING) {
            pc.toDisconnected();
            pc.reservedBy = null;
            pc.postConnectionEvent(DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, null);
            return;
        }
        if (ac.timeoutTask != null) {
            ac.timeoutTask.cancel(false);
            ac.timeoutTask = null;
        }
        ac.pendingCr = null;
        pc.reservedBy = null;
        lockPair(active, passive);
        try {
            long gen = Math.max(active.connGen, passive.connGen) + 1;
            active.connGen = gen;
            passive.connGen = gen;
            active.peer = passive;
            passive.peer = active;
            active.data.peerChanged(passive);
            passive.data.peerChanged(active);
            pc.remoteAddress = active.owner().address();
            pc.remoteQual = ac.localQual;
            pc.localQual = listenQual;
            active.broken = false;
            passive.broken = false;
            active.setState(DatEpState.CONNECTED);
            passive.setState(DatEpState.CONNECTED);
        } finally {
            unlockPair(active, passive);
        }
        ac.postConnectionEvent(DatEventType.CONNECTION_EVENT_ESTABLISHED, acceptData);
        pc.postConnectionEvent(DatEventType.CONNECTION_EVENT_ESTABLISHED, cr.requestData());
    }

    /** dat_rsp_create: reserves this EP for {@code rsp}. Connection lock held, state checked. */
    void reserve(LoopbackRsp rsp) {
        reservedBy = rsp;
        ep.setState(DatEpState.RESERVED);
    }

    /** The RSP's request arrived. Connection lock held. */
    void passivePending() {
        ep.setState(DatEpState.PASSIVE_CONNECTION_PENDING);
    }

    /** The RSP went away or its request was rejected. Connection lock held. */
    void unreserve(LoopbackRsp rsp) {
        DatEpState s = ep.state();
        if (reservedBy == rsp && (s == DatEpState.RESERVED || s == DatEpState.PASSIVE_CONNECTION_PENDING)) {
            reservedBy = null;
            ep.setState(DatEpState.UNCONNECTED);
        }
    }

    /** The EP is freed: no RSP holds it any more. Connection lock held. */
    void dropReservation() {
        reservedBy = null;
    }

    boolean isReservedBy(LoopbackRsp rsp) {
        return reservedBy == rsp;
    }

    /** {@code dat_ep_dup_connect}. */
    void dupConnect(DatEp dupEp, long timeoutMicros, byte[] privateData, DatQos qos) {
        String call = "dat_ep_dup_connect";
        ep.requireOpen(call);
        if (!(dupEp instanceof LoopbackEp d) || d.isClosed()) {
            throw new DatException(DatReturn.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EP,
                    call + ": dup_ep_handle is not an open loopback EP");
        }
        InetAddress address;
        long qual;
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            if (d.state() != DatEpState.CONNECTED) {
                throw DatArgs.epState(call, "dup_ep_handle", d.state(), "CONNECTED");
            }
            address = d.connection.remoteAddress;
            qual = d.connection.remoteQual;
        } finally {
            fabric.connLock.unlock();
        }
        connect(address, qual, timeoutMicros, privateData, qos, DatConnectFlags.DEFAULT);
    }

    /** {@code dat_ep_disconnect}, after the shell's checks ({@link dat.spi.AbstractEp#disconnect}). */
    void disconnect(DatCloseFlags flags) {
        String call = "dat_ep_disconnect";
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            ep.requireOpen(call);
            switch (ep.state()) {
                case DISCONNECTED -> {
                }
                case ACTIVE_CONNECTION_PENDING -> {
                    cancelPending();
                    postConnectionEvent(DatEventType.CONNECTION_EVENT_DISCONNECTED, null);
                }
                case CONNECTED -> {
                    if (flags == DatCloseFlags.GRACEFUL) {
                        ep.sendLock.lock();
                        try {
                            if (ep.data.holdDisconnectLocked()) {
                                ep.setState(DatEpState.DISCONNECT_PENDING);
                                return;
                            }
                        } finally {
                            ep.sendLock.unlock();
                        }
                    }
                    teardown(ep, DatEventType.CONNECTION_EVENT_DISCONNECTED);
                }
                case DISCONNECT_PENDING -> {
                    if (flags == DatCloseFlags.ABRUPT) {
                        teardown(ep, DatEventType.CONNECTION_EVENT_DISCONNECTED);
                    }
                }
                default -> throw ep.wrongState(call,
                        "CONNECTED, DISCONNECT_PENDING, ACTIVE_CONNECTION_PENDING or DISCONNECTED");
            }
        } finally {
            fabric.connLock.unlock();
        }
    }

    /** {@code dat_ep_reset}. */
    void reset() {
        String call = "dat_ep_reset";
        ep.requireOpen(call);
        LoopbackFabric fabric = LoopbackFabric.INSTANCE;
        fabric.connLock.lock();
        try {
            ep.requireOpen(call);
            if (ep.state() == DatEpState.DISCONNECTED) {
                remoteAddress = null;
                remoteQual = 0;
                localQual = 0;
                ep.setState(DatEpState.UNCONNECTED);
            } else if (ep.state() != DatEpState.UNCONNECTED) {
                throw ep.wrongState(call, "DISCONNECTED or UNCONNECTED");
            }
        } finally {
            fabric.connLock.unlock();
        }
    }
}
