// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

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
import java.util.concurrent.TimeUnit;

/**
 * Connection management of one {@link ExampleEp}: {@code dat_ep_connect}, {@code dat_ep_dup_connect},
 * {@code dat_ep_disconnect}, {@code dat_ep_reset}, the establishment of {@code dat_cr_accept} and its rejection
 * ({@link ExampleCr} calls in), the reservation of {@code dat_rsp_create}, the connect timeout, connection events,
 * and teardown (also of a connection the data path broke).
 *
 * <p>This object keeps the connection's identity (the local and remote port qualifiers, the remote address) and
 * the pending request; the EP state and the peer, which the data path reads too, are {@link ExampleEp}'s, and are
 * written only here. Everything runs under {@link Fabric#LOCK}, which makes the transitions of both EPs of a
 * connection one atomic step.
 */
final class ExampleEpConnection {

    private final ExampleEp ep;

    long localPortQual;
    InetAddress remoteAddress;
    long remotePortQual;
    /** The request of a pending {@code dat_ep_connect}, and its timeout. */
    private ExampleCr pendingCr;
    private Future<?> connectTimeout;

    ExampleEpConnection(ExampleEp ep) {
        this.ep = ep;
    }

    /** {@code dat_ep_connect}. */
    void connect(InetAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
                 DatQos qos, int connectFlags) {
        Fabric.LOCK.lock();
        try {
            String call = "dat_ep_connect";
            ep.requireOpen(call);
            if (remoteIaAddress == null) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": remote_ia_address is null");
            }
            checkPrivateData(call, privateData, DatReturnSubtype.INVALID_ARG5);
            if (qos == null || (connectFlags & ~DatConnectFlags.MULTIPATH) != 0 || timeoutMicros < 0) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG6, call + ": qos " + qos
                        + ", connect_flags 0x" + Integer.toHexString(connectFlags) + ", timeout " + timeoutMicros
                        + ": a qos, only DAT_CONNECT_MULTIPATH_FLAG, and a timeout of at least 0 are valid");
            }
            if (qos != DatQos.BEST_EFFORT || (connectFlags & DatConnectFlags.MULTIPATH) != 0) {
                throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": provider " + ExampleProvider.NAME
                        + " offers only DAT_QOS_BEST_EFFORT on one path (qos " + qos + ", flags 0x"
                        + Integer.toHexString(connectFlags) + ")");
            }
            ep.requireState(call, DatEpState.UNCONNECTED);
            if (ep.connectEvd == null) {
                throw new DatException(DatReturn.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                        call + ": the EP has no connect EVD to report the outcome on");
            }
            ep.state = DatEpState.ACTIVE_CONNECTION_PENDING;
            localPortQual = Fabric.freeQualifier();
            remoteAddress = remoteIaAddress;
            remotePortQual = remoteConnQual;
            Fabric.Listener listener = remoteIaAddress.equals(Fabric.ADDRESS) ? Fabric.listener(remoteConnQual)
                    : null;
            if (listener == null) {
                refused(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED);
                return;
            }
            ExampleCr cr = new ExampleCr(listener, ep, localPortQual,
                    privateData == null ? new byte[0] : privateData.clone());
            if (!cr.arrive(listener, remoteConnQual)) {
                refused(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED);
                return;
            }
            pendingCr = cr;
            if (timeoutMicros != Dat.DAT_TIMEOUT_INFINITE) {
                connectTimeout = Fabric.TIMER.schedule(() -> timedOut(cr), timeoutMicros, TimeUnit.MICROSECONDS);
            }
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    private void timedOut(ExampleCr cr) {
        Fabric.LOCK.lock();
        try {
            if (pendingCr == cr && ep.state == DatEpState.ACTIVE_CONNECTION_PENDING) {
                cr.withdraw();
                refused(DatEventType.CONNECTION_EVENT_TIMED_OUT);
            }
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    /** A connection attempt ended without a connection: DISCONNECTED, with the event saying why. */
    void refused(DatEventType why) {
        endAttempt();
        ep.state = DatEpState.DISCONNECTED;
        ep.data.flush();
        ep.connectEvd.connection(why, ep, null);
    }

    private void endAttempt() {
        pendingCr = null;
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
            connectTimeout = null;
        }
    }

    /** {@code dat_ep_free} of an EP still connecting: the request is withdrawn, no event is posted. */
    void abandon() {
        pendingCr.withdraw();
        endAttempt();
    }

    /** {@return whether this EP still waits for the answer to {@code cr}} */
    boolean awaits(ExampleCr cr) {
        return !ep.isClosed() && pendingCr == cr && ep.state == DatEpState.ACTIVE_CONNECTION_PENDING;
    }

    /** {@code dat_cr_accept}: joins this requester and the accepting EP; both see ESTABLISHED. */
    void established(ExampleEp passive, long listenerQual, byte[] acceptData) {
        endAttempt();
        ep.peer = passive;
        passive.peer = ep;
        ep.state = DatEpState.CONNECTED;
        passive.state = DatEpState.CONNECTED;
        passive.connection.localPortQual = listenerQual;
        passive.connection.remoteAddress = Fabric.ADDRESS;
        passive.connection.remotePortQual = localPortQual;
        ep.connectEvd.connection(DatEventType.CONNECTION_EVENT_ESTABLISHED, ep, acceptData);
        if (passive.connectEvd != null) {
            passive.connectEvd.connection(DatEventType.CONNECTION_EVENT_ESTABLISHED, passive, null);
        }
    }

    /** Checks this EP may take {@code dat_cr_accept}: unconnected, or reserved by the RSP the request came through. */
    void requireAcceptable(String call, boolean reserved) {
        ep.requireState(call, reserved ? DatEpState.RESERVED : DatEpState.UNCONNECTED);
    }

    void reserve(String call) {
        ep.requireState(call, DatEpState.UNCONNECTED);
        ep.state = DatEpState.RESERVED;
    }

    void unreserve() {
        if (ep.state == DatEpState.RESERVED) {
            ep.state = DatEpState.UNCONNECTED;
        }
    }

    static void checkPrivateData(String call, byte[] data, DatReturnSubtype arg) {
        if (data != null && data.length > ExampleProvider.MAX_PRIVATE_DATA_SIZE) {
            throw DatArgs.invalidParameter(arg, call + ": private_data_size " + data.length
                    + " is above max_private_data_size " + ExampleProvider.MAX_PRIVATE_DATA_SIZE);
        }
    }

    /** {@code dat_ep_dup_connect}: a {@code dat_ep_connect} to where {@code dupEp} is connected. */
    void dupConnect(DatEp dupEp, long timeoutMicros, byte[] privateData, DatQos qos) {
        InetAddress address;
        long qual;
        Fabric.LOCK.lock();
        try {
            ep.requireOpen("dat_ep_dup_connect");
            ExampleEp dup = ep.ownEp(dupEp, "dat_ep_dup_connect", "dup_ep_handle");
            if (dup.state != DatEpState.CONNECTED) {
                throw DatArgs.epState("dat_ep_dup_connect", "dup_ep_handle", dup.state, "CONNECTED");
            }
            address = dup.connection.remoteAddress;
            qual = dup.connection.remotePortQual;
        } finally {
            Fabric.LOCK.unlock();
        }
        connect(address, qual, timeoutMicros, privateData, qos, DatConnectFlags.DEFAULT);
    }

    /**
     * {@code dat_ep_disconnect}, after the shell's checks. Both disconnects end the connection at once: nothing
     * here runs asynchronously that GRACEFUL could wait for.
     */
    void disconnect(DatCloseFlags flags) {
        Fabric.LOCK.lock();
        try {
            ep.requireOpen("dat_ep_disconnect");
            switch (ep.state) {
                case CONNECTED -> breakConnection(true, DatEventType.CONNECTION_EVENT_DISCONNECTED);
                case ACTIVE_CONNECTION_PENDING -> {
                    pendingCr.withdraw();
                    refused(DatEventType.CONNECTION_EVENT_DISCONNECTED);
                }
                case DISCONNECTED -> { }
                default -> ep.requireState("dat_ep_disconnect", DatEpState.CONNECTED);
            }
        } finally {
            Fabric.LOCK.unlock();
        }
    }

    /**
     * Ends a connection: both sides DISCONNECTED, their queued work FLUSHED. A graceful disconnect needs no
     * waiting here: every request that could run already ran, and what waits for a receive never will.
     *
     * @param notifySelf whether this EP gets its event (not when it is being freed)
     * @param event DISCONNECTED for a disconnect or a free, BROKEN when a DTO failed
     */
    void breakConnection(boolean notifySelf, DatEventType event) {
        ExampleEp other = ep.peer;
        ep.peer = null;
        ep.state = DatEpState.DISCONNECTED;
        ep.data.flush();
        if (notifySelf) {
            ep.connectEvd.connection(event, ep, null);
        }
        if (other != null) {
            other.peer = null;
            other.state = DatEpState.DISCONNECTED;
            other.data.flush();
            if (other.connectEvd != null) {
                other.connectEvd.connection(event, other, null);
            }
        }
    }

    /** {@code dat_ep_reset}: a DISCONNECTED EP is UNCONNECTED again, ready to connect anew. */
    void reset() {
        Fabric.LOCK.lock();
        try {
            ep.requireOpen("dat_ep_reset");
            ep.requireState("dat_ep_reset", DatEpState.DISCONNECTED);
            ep.state = DatEpState.UNCONNECTED;
            remoteAddress = null;
            remotePortQual = 0;
            localPortQual = 0;
        } finally {
            Fabric.LOCK.unlock();
        }
    }
}
