// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

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
import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiException;
import dat.provider.ofi.internal.ffm.FiInfo;
import dat.provider.ofi.internal.ffm.FiOpsMsg;
import dat.provider.ofi.internal.ffm.FiOpsRma;
import dat.provider.ofi.internal.ffm.FidEp;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.provider.ofi.internal.rdm.RdmControl;
import dat.spi.DatArgs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Connection management of one {@link OfiEp}: the libfabric endpoint of each connection ({@code fi_endpoint}, bound
 * to the IA's EQ and to the CQs of the EP's EVDs, enabled, then {@code fi_connect} or {@code fi_accept} with the DAT
 * private data as {@code cm_data}), the events the EQ brings ({@link #onConnected}, {@link #onShutdown},
 * {@link #onError}), {@code dat_ep_disconnect}, {@code dat_ep_reset} and the connect timeout.
 *
 * <p>A libfabric endpoint lives for one connection: DAT's EP outlives it (reset, connect again), and the passive
 * side's endpoint can only be made from the connection request. When a connection ends jDAT closes the endpoint
 * ({@code fi_shutdown} first where it was connected), moves to the next generation, and flushes every slot itself,
 * so a flush never depends on the provider's; completions of the old generation are dropped.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiEpConnection {

    /** How long a local disconnect or free waits for the EP's RDMA writes to land ({@link #settleWrites}). */
    private static final long SETTLE_NANOS = 200_000_000L;

    private final OfiEp ep;
    private final OfiIa ia;
    private MemorySegment fid = MemorySegment.NULL;
    private int generation;
    MemorySegment fnSendmsg = MemorySegment.NULL;
    MemorySegment fnRecvmsg = MemorySegment.NULL;
    MemorySegment fnReadmsg = MemorySegment.NULL;
    MemorySegment fnWritemsg = MemorySegment.NULL;

    long localPortQual;
    InetAddress remoteAddress;
    long remotePortQual;
    private Future<?> connectTimeout;
    /** The RSP that reserved this EP, or {@code null}. */
    OfiRsp reservedBy;

    /** The connection over an {@code FI_EP_RDM} entry's association, {@code null} over {@code FI_EP_MSG}. */
    final OfiRdmLink rdm;

    OfiEpConnection(OfiEp ep) {
        this.ep = ep;
        this.ia = ep.owner();
        this.rdm = ia.rdm != null ? new OfiRdmLink(ep, this) : null;
    }

    MemorySegment fid() {
        return rdm != null ? rdm.fid() : fid;
    }

    /** {@return whether a send or RDMA to the peer may be posted: false for an RDM peer of this process gone} */
    boolean peerReachable() {
        return rdm == null || rdm.peerReachable();
    }

    /** An RDM connection's data endpoint closed: its completions from now on are an earlier generation's. */
    void nextGeneration() {
        generation++;
    }

    int generation() {
        return generation;
    }

    /** Makes, binds and enables the endpoint for one connection, then posts the receives waiting for it. */
    private void open(String call, MemorySegment info) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment domain = ep.pz.domain;
            OfiEvd tx = ep.requestEvd != null ? ep.requestEvd : ia.orphanCq;
            OfiEvd rx = ep.recvEvd != null ? ep.recvEvd : ia.orphanCq;
            MemorySegment txCq = tx.cqFor(call, domain);
            MemorySegment rxCq = rx.cqFor(call, domain);
            ia.fi.check("fi_endpoint", Fi.fi_endpoint(domain, info, out));
            MemorySegment e = out.get(ADDRESS, 0).reinterpret(FidEp.SIZEOF);
            try {
                ia.fi.check("fi_ep_bind(eq)", Fi.fi_ep_bind(e, ia.eq, 0));
                ia.bindCqs(e, txCq, rxCq);
                ia.fi.check("fi_enable", Fi.fi_enable(e));
            } catch (FiException ex) {
                Fi.fi_close(e);
                throw ex;
            }
            fid = e;
            fnSendmsg = Fi.slot(e, FidEp.MSG, FiOpsMsg.SENDMSG);
            fnRecvmsg = Fi.slot(e, FidEp.MSG, FiOpsMsg.RECVMSG);
            fnReadmsg = Fi.slot(e, FidEp.RMA, FiOpsRma.READMSG);
            fnWritemsg = Fi.slot(e, FidEp.RMA, FiOpsRma.WRITEMSG);
            ia.eqOwners.put(e.address(), ep);
        } catch (FiException e) {
            throw OfiIa.resources(call, e);
        }
        try {
            ep.data.credit.open(call);
        } catch (RuntimeException e) {
            closeFabricEndpoint(false);
            throw e;
        }
        if (!ep.data.postQueuedRecvs()) {
            closeFabricEndpoint(false);
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    call + ": the endpoint refused the receives posted before it existed");
        }
    }

    /**
     * Makes the active endpoint of a connect with the destination in its {@code fi_info}. libfabric's verbs provider
     * resolves the address and makes the queue pair in {@code fi_endpoint} ({@code vrb_create_ep}:
     * {@code rdma_resolve_addr(src, dest_addr)}, which refuses a NULL destination with EINVAL); tcp takes the
     * destination from {@code fi_connect} and ignores it here. The copy borrows {@code dest} and gives it back before
     * {@code fi_freeinfo}, which would free it.
     */
    private void openToward(String call, MemorySegment dest) {
        MemorySegment info = ia.fi.fi_dupinfo(ia.info).reinterpret(FiInfo.SIZEOF);
        try {
            FiInfo.destAddr(info, dest);
            FiInfo.destAddrlen(info, dest.byteSize());
            open(call, info);
        } finally {
            FiInfo.destAddr(info, MemorySegment.NULL);
            FiInfo.destAddrlen(info, 0);
            ia.fi.fi_freeinfo(info);
        }
    }

    /** Closes the libfabric endpoint (if any) and moves to the next generation. */
    private void closeFabricEndpoint(boolean shutdown) {
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
            connectTimeout = null;
        }
        if (fid.address() != 0) {
            ia.eqOwners.remove(fid.address());
            if (shutdown) {
                Fi.fi_shutdown(fid);
            }
            Fi.fi_close(fid);
            // The credit word only now: the endpoint's progress could write into it until the close.
            ep.data.credit.close();
            fid = MemorySegment.NULL;
            fnSendmsg = MemorySegment.NULL;
            fnRecvmsg = MemorySegment.NULL;
            fnReadmsg = MemorySegment.NULL;
            fnWritemsg = MemorySegment.NULL;
        }
        generation++;
    }

    /** {@code dat_ep_connect}. */
    void connect(InetAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
                 DatQos qos, int connectFlags) {
        ia.lock.lock();
        try {
            String call = "dat_ep_connect";
            ep.requireOpen(call);
            if (remoteIaAddress == null) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": remote_ia_address is null");
            }
            checkPrivateData(call, privateData, DatReturnSubtype.INVALID_ARG5);
            if (qos == null || (connectFlags & ~DatConnectFlags.MULTIPATH) != 0 || (timeoutMicros < 0
                    && timeoutMicros != Dat.DAT_TIMEOUT_INFINITE)) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG6, call + ": qos " + qos
                        + ", connect_flags 0x" + Integer.toHexString(connectFlags) + ", timeout " + timeoutMicros
                        + ": a qos, only DAT_CONNECT_MULTIPATH_FLAG, and a timeout of at least 0 are valid");
            }
            if (qos != DatQos.BEST_EFFORT || (connectFlags & DatConnectFlags.MULTIPATH) != 0) {
                throw new DatException(DatReturn.MODEL_NOT_SUPPORTED, call + ": the ofi provider offers only"
                        + " DAT_QOS_BEST_EFFORT on one path");
            }
            ep.requireState(call, DatEpState.UNCONNECTED);
            if (ep.connectEvd == null) {
                throw new DatException(DatReturn.INVALID_HANDLE, DatReturnSubtype.INVALID_HANDLE_EVD_CONN,
                        call + ": the EP has no connect EVD to report the outcome on");
            }
            if (remoteConnQual < 1 || remoteConnQual > 0xffff) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG3, call + ": remote_conn_qual "
                        + remoteConnQual + " is not a TCP port (1..65535)");
            }
            if (remoteIaAddress.getAddress().length != ia.address().getAddress().length) {
                throw DatArgs.invalidParameter(DatReturnSubtype.INVALID_ARG2, call + ": remote_ia_address "
                        + remoteIaAddress.getHostAddress() + " is not of IA " + ia.name() + "'s address family");
            }
            if (rdm != null) {
                remoteAddress = remoteIaAddress;
                remotePortQual = remoteConnQual;
                localPortQual = 0;
                rdm.connect(call, remoteIaAddress, remoteConnQual, timeoutMicros, privateData);
                return;
            }
            int rc;
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment addr = OfiIa.sockaddr(arena, remoteIaAddress, (int) remoteConnQual);
                openToward(call, addr);
                byte[] cm = OfiCredit.framed(ia) ? ep.data.credit.frame(privateData) : privateData;
                MemorySegment pd = data(arena, cm);
                rc = Fi.fi_connect(fid, addr, pd, cm == null ? 0 : cm.length);
            }
            if (rc != 0) {
                closeFabricEndpoint(false);
                throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                        call + ": fi_connect failed: " + ia.fi.fi_strerror(-rc) + " (" + rc + ")");
            }
            ep.state = DatEpState.ACTIVE_CONNECTION_PENDING;
            remoteAddress = remoteIaAddress;
            remotePortQual = remoteConnQual;
            localPortQual = localPort();
            if (timeoutMicros != Dat.DAT_TIMEOUT_INFINITE) {
                int gen = generation;
                connectTimeout = OfiIa.TIMER.schedule(() -> timedOut(gen), timeoutMicros, TimeUnit.MICROSECONDS);
            }
        } finally {
            ia.lock.unlock();
        }
    }

    private long localPort() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(128, 8);
            MemorySegment len = arena.allocate(JAVA_LONG);
            len.set(JAVA_LONG, 0, 128);
            return Fi.fi_getname(fid, sa, len) == 0 ? OfiIa.port(sa) : 0;
        }
    }

    static MemorySegment data(Arena arena, byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return MemorySegment.NULL;
        }
        MemorySegment s = arena.allocate(bytes.length);
        s.copyFrom(MemorySegment.ofArray(bytes));
        return s;
    }

    private void timedOut(int gen) {
        ia.lock.lock();
        try {
            if (gen == generation && ep.state == DatEpState.ACTIVE_CONNECTION_PENDING && !ep.isClosed()) {
                end(DatEventType.CONNECTION_EVENT_TIMED_OUT, null, false);
            }
        } finally {
            ia.lock.unlock();
        }
    }

    /** The endpoint goes, the EP is DISCONNECTED, its work flushed, and the event (if any) queued. */
    private void end(DatEventType event, byte[] data, boolean shutdown) {
        closeFabricEndpoint(shutdown);
        ep.state = DatEpState.DISCONNECTED;
        ep.data.flush();
        if (event != null && ep.connectEvd != null) {
            ep.connectEvd.connection(event, ep, data);
        }
    }

    /** {@code dat_cr_accept} on this EP: an endpoint made from the request, accepted with the private data. */
    void accept(String call, MemorySegment requestInfo, byte[] acceptData, long listenerQual, InetAddress peer,
                long peerPort, byte[] requestData) {
        open(call, requestInfo);
        int rc;
        byte[] cm = acceptData;
        if (OfiCredit.framed(ia)) {
            ep.data.credit.peer(requestData);
            cm = ep.data.credit.frame(acceptData);
        }
        try (Arena arena = Arena.ofConfined()) {
            rc = Fi.fi_accept(fid, data(arena, cm), cm == null ? 0 : cm.length);
        }
        if (rc != 0) {
            closeFabricEndpoint(false);
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    call + ": fi_accept failed: " + ia.fi.fi_strerror(-rc) + " (" + rc + ")");
        }
        ep.state = DatEpState.COMPLETION_PENDING;
        localPortQual = listenerQual;
        remoteAddress = peer;
        remotePortQual = peerPort;
    }

    /** {@code dat_cr_accept} on this EP of an RDM IA: the association's accept of {@code request}. */
    void acceptRdm(String call, RdmControl request, byte[] acceptData, long listenerQual, InetAddress peer,
                   long peerQual) {
        rdm.accept(call, request, acceptData, listenerQual);
        localPortQual = listenerQual;
        remoteAddress = peer;
        remotePortQual = peerQual;
    }

    // ---- EQ events, under the IA's lock ----

    /** FI_CONNECTED: the active side's event carries the accept's private data. */
    void onConnected(byte[] cmData) {
        if (ep.state == DatEpState.ACTIVE_CONNECTION_PENDING) {
            if (connectTimeout != null) {
                connectTimeout.cancel(false);
                connectTimeout = null;
            }
            byte[] data = cmData;
            if (rdm == null && OfiCredit.framed(ia)) {
                ep.data.credit.peer(cmData);
                data = OfiCredit.payload(cmData);
            }
            ep.state = DatEpState.CONNECTED;
            ep.connectEvd.connection(DatEventType.CONNECTION_EVENT_ESTABLISHED, ep, data);
        } else if (ep.state == DatEpState.COMPLETION_PENDING) {
            ep.state = DatEpState.CONNECTED;
            if (ep.connectEvd != null) {
                ep.connectEvd.connection(DatEventType.CONNECTION_EVENT_ESTABLISHED, ep, null);
            }
        }
    }

    /**
     * Reads the CQs this EP's completions go to, before an EQ event ends the connection: tcp disables an endpoint
     * (a truncated message, the peer gone) in the same progress call that reports the failed operation, and the
     * progress step reads the EQ first, so without this jDAT would flush an operation the provider had already
     * completed with its real status (the kit's oversized-message rule saw FLUSHED for LOCAL_LENGTH_ERR).
     */
    private void drainCompletions() {
        OfiEvd[] evds = {ep.recvEvd != null ? ep.recvEvd : ia.orphanCq,
            ep.requestEvd != null ? ep.requestEvd : ia.orphanCq};
        evds[0].drainCq();
        if (evds[1] != evds[0]) {
            evds[1].drainCq();
        }
    }

    /** FI_SHUTDOWN: the peer disconnected. */
    void onShutdown() {
        drainCompletions();
        if (ep.state == DatEpState.CONNECTED) {
            ep.data.peerLeft();
        }
        switch (ep.state) {
            case CONNECTED -> end(DatEventType.CONNECTION_EVENT_DISCONNECTED, null, false);
            case ACTIVE_CONNECTION_PENDING -> end(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED, null, false);
            case COMPLETION_PENDING -> end(DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, null, false);
            default -> closeFabricEndpoint(false);
        }
    }

    /** An EQ error entry for this EP's endpoint. */
    void onError(int err, byte[] errData) {
        if (ep.state == DatEpState.CONNECTED) {
            drainCompletions();
        }
        switch (ep.state) {
            case ACTIVE_CONNECTION_PENDING -> {
                DatEventType why;
                if (err == LibFabric.FI_ECONNREFUSED && OfiCr.isPeerReject(errData)) {
                    why = DatEventType.CONNECTION_EVENT_PEER_REJECTED;
                } else if (err == LibFabric.FI_ETIMEDOUT) {
                    why = DatEventType.CONNECTION_EVENT_TIMED_OUT;
                } else {
                    why = DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED;
                }
                end(why, null, false);
            }
            case COMPLETION_PENDING -> end(DatEventType.CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR, null, false);
            case CONNECTED -> end(DatEventType.CONNECTION_EVENT_BROKEN, null, false);
            default -> closeFabricEndpoint(false);
        }
    }

    /**
     * Ends the connection abruptly: a failed DTO, a freed LMR in use, a free of the EP.
     *
     * @param notify whether the EP's connect EVD gets the event
     * @param event the event
     */
    void breakConnection(boolean notify, DatEventType event) {
        if (rdm != null) {
            rdm.breakConnection(notify, event);
            return;
        }
        if (ep.state == DatEpState.CONNECTED || ep.state == DatEpState.ACTIVE_CONNECTION_PENDING
                || ep.state == DatEpState.COMPLETION_PENDING) {
            end(notify ? event : null, null, true);
        } else if (fid.address() != 0) {
            closeFabricEndpoint(true);
        }
    }

    /** {@code dat_ep_free}: any connection ends without an event; the endpoint goes. */
    void free() {
        if (rdm == null && ep.state == DatEpState.CONNECTED) {
            settleWrites();
        }
        breakConnection(false, null);
        if (reservedBy != null) {
            reservedBy = null;
        }
    }

    /** {@code dat_ep_disconnect}, after the shell's checks. */
    void disconnect(DatCloseFlags flags) {
        ia.lock.lock();
        try {
            ep.requireOpen("dat_ep_disconnect");
            if (rdm != null) {
                switch (ep.state) {
                    case CONNECTED, ACTIVE_CONNECTION_PENDING, COMPLETION_PENDING, DISCONNECT_PENDING ->
                            rdm.disconnect(flags == DatCloseFlags.ABRUPT);
                    case DISCONNECTED -> { }
                    default -> ep.requireState("dat_ep_disconnect", DatEpState.CONNECTED);
                }
                return;
            }
            switch (ep.state) {
                case CONNECTED, ACTIVE_CONNECTION_PENDING, COMPLETION_PENDING -> {
                    if (ep.state == DatEpState.CONNECTED) {
                        int gen = generation;
                        settleWrites();
                        if (gen != generation) {
                            // The steps ended the connection already (the peer's shutdown, a failed DTO).
                            return;
                        }
                        ep.data.lastAdvert();
                    }
                    end(DatEventType.CONNECTION_EVENT_DISCONNECTED, null, true);
                }
                case DISCONNECTED -> { }
                default -> ep.requireState("dat_ep_disconnect", DatEpState.CONNECTED);
            }
        } finally {
            ia.lock.unlock();
        }
    }

    /**
     * Before this side closes a connected endpoint ({@code dat_ep_disconnect}, {@code dat_ep_free}): the IA's progress
     * steps run, for at most {@link #SETTLE_NANOS}, until the RDMA writes the EP posted have completed. A write tcp
     * has put into the socket lands when the peer's progress reads it, whatever this side closes meanwhile: closed
     * at once, the endpoint left a write of a peer in this process to land after its FLUSHED completion, in memory the
     * consumer had back (the campaign's MEMORY invariant). A write asks delivery completion, so once it completed it
     * has landed; one still in the provider's queue when the time is up goes with the endpoint and lands nowhere.
     * Only from the consumer's calls: the steps read CQs, which a completion's own handling must not do again.
     */
    private void settleWrites() {
        if (fid.address() == 0) {
            return;
        }
        long mark = ep.data.lastOrder();
        int gen = generation;
        long until = System.nanoTime() + SETTLE_NANOS;
        while (gen == generation && ep.data.writesOpen(mark) && System.nanoTime() - until < 0) {
            ia.progressLocked();
        }
    }

    /** {@code dat_ep_dup_connect}: a {@code dat_ep_connect} to where {@code dupEp} is connected. */
    void dupConnect(DatEp dupEp, long timeoutMicros, byte[] privateData, DatQos qos) {
        InetAddress address;
        long qual;
        ia.lock.lock();
        try {
            ep.requireOpen("dat_ep_dup_connect");
            OfiEp dup = ep.ownEp(dupEp, "dat_ep_dup_connect", "dup_ep_handle");
            if (dup.state != DatEpState.CONNECTED) {
                throw DatArgs.epState("dat_ep_dup_connect", "dup_ep_handle", dup.state, "CONNECTED");
            }
            address = dup.connection.remoteAddress;
            qual = dup.connection.remotePortQual;
        } finally {
            ia.lock.unlock();
        }
        connect(address, qual, timeoutMicros, privateData, qos, DatConnectFlags.DEFAULT);
    }

    /** {@code dat_ep_reset}: DISCONNECTED to UNCONNECTED. */
    void reset() {
        ia.lock.lock();
        try {
            ep.requireOpen("dat_ep_reset");
            ep.requireState("dat_ep_reset", DatEpState.DISCONNECTED);
            ep.state = DatEpState.UNCONNECTED;
            remoteAddress = null;
            remotePortQual = 0;
            localPortQual = 0;
        } finally {
            ia.lock.unlock();
        }
    }

    void checkPrivateData(String call, byte[] data, DatReturnSubtype arg) {
        int max = OfiAttributes.maxPrivateData(ia.entry);
        if (data != null && data.length > max) {
            throw DatArgs.invalidParameter(arg, call + ": private_data_size " + data.length
                    + " is above max_private_data_size " + max);
        }
    }
}
