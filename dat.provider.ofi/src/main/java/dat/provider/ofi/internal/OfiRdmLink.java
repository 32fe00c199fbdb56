// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dat.api.Dat;
import dat.api.DatEpState;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.provider.ofi.internal.ffm.Fi;
import dat.provider.ofi.internal.ffm.FiAvAttr;
import dat.provider.ofi.internal.ffm.FiException;
import dat.provider.ofi.internal.ffm.FiOpsRma;
import dat.provider.ofi.internal.ffm.FidAv;
import dat.provider.ofi.internal.ffm.FidEp;
import dat.provider.ofi.internal.ffm.LibFabric;
import dat.provider.ofi.internal.rdm.RdmAssociation;
import dat.provider.ofi.internal.rdm.RdmControl;
import dat.provider.ofi.internal.rdm.RdmControlPlane;
import dat.provider.ofi.internal.rdm.RdmEndpoint;
import dat.provider.ofi.internal.rdm.RdmProbe;
import dat.provider.ofi.internal.rdm.RdmTags;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The connection of one {@link OfiEp} over an {@code FI_EP_RDM} entry (docs/ofi-rdm-protocol.md): the EP's data
 * endpoint ({@code fi_endpoint} on the PZ's domain with an AV of its own, bound to the EP's EVDs' CQs as an {@code
 * FI_EP_MSG} endpoint is) and the {@link RdmAssociation} the IA's control plane runs. {@link OfiEpConnection} hands it
 * connect, accept, disconnect and breaks; {@link OfiEpData} posts on its endpoint, tagged with {@link #sendTag()} /
 * {@link #recvTag()}, to {@link #peer()}. The association's events become the EP's states and connection events; its
 * flush closes the data endpoint (the generation moves on, so the fabric's late completions are dropped) and flushes
 * the EP's queues. Under the IA's lock.
 */
// Restricted methods on purpose: reached only after OfiProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class OfiRdmLink {

    /** Keep-alive interval property, milliseconds. */
    static final String KEEPALIVE_PROPERTY = "dat.ofi.rdm.keepalive.ms";
    /** Peer-gone timeout property, milliseconds. */
    static final String PEER_TIMEOUT_PROPERTY = "dat.ofi.rdm.peer.timeout.ms";
    /** How long a closing IA waits for a live peer to take its name in, milliseconds (RdmControlPlane#close). */
    static final String LINGER_PROPERTY = "dat.ofi.rdm.linger.ms";

    /** Whether this thread runs the control plane's progress, where no CQ is being read. */
    private static final ThreadLocal<Boolean> IN_CONTROL = ThreadLocal.withInitial(() -> Boolean.FALSE);
    private static final int ANY_LOW = 20000;
    private static final int ANY_TRIES = 64;
    /** Progress rounds before an endpoint whose peer is in this process closes (see settleLocalPeer). */
    private static final int LOCAL_SETTLE_ROUNDS = 8;
    private static final long NO_FENCE = Long.MIN_VALUE;
    private static final long NO_PROBE = Long.MIN_VALUE;
    /**
     * How long an RDMA operation may stay open before its peer is asked whether its zone takes it: the target's IA
     * steps at least every 3 ms, and a write the target took is copied in that step (in segments, over a few).
     */
    static final long PROBE_NANOS = 100_000_000L;

    private final OfiEp ep;
    private final OfiIa ia;
    private final OfiEpConnection connection;
    private RdmAssociation association;
    private MemorySegment fid = MemorySegment.NULL;
    private MemorySegment av = MemorySegment.NULL;
    private byte[] name;
    private byte[] peerName;
    /** Whether {@link #peerName} is still reachable; under the IA's lock. */
    private RdmEndpoint.Reach peerReach;
    /** A fence the peer asked: the order of this EP's last request then; {@link #NO_FENCE} for none. */
    private long fenceMark = NO_FENCE;
    /** The oldest open RDMA operation's order when last looked at ({@link #probe}), since when, and whether asked. */
    private long probeOrder = NO_PROBE;
    private long probeSince;
    private boolean probed;
    private long peer = LibFabric.FI_ADDR_UNSPEC;
    private long sendTag;
    private long recvTag;
    private boolean active;
    /** Whether the end reports no event (dat_ep_free). */
    private boolean silent;
    /** The event the end reports instead of DISCONNECTED (a local break), or {@code null}. */
    private DatEventType endAs;

    OfiRdmLink(OfiEp ep, OfiEpConnection connection) {
        this.ep = ep;
        this.ia = ep.owner();
        this.connection = connection;
    }

    /** {@return the protocol's timeouts, from the system properties} */
    static RdmAssociation.Timeouts timeouts() {
        long keepAlive = TimeUnit.MILLISECONDS.toNanos(Long.getLong(KEEPALIVE_PROPERTY, 1000));
        long peerGone = TimeUnit.MILLISECONDS.toNanos(Long.getLong(PEER_TIMEOUT_PROPERTY, 5000));
        long linger = TimeUnit.MILLISECONDS.toNanos(Long.getLong(LINGER_PROPERTY, 30_000));
        return new RdmAssociation.Timeouts(keepAlive, peerGone, peerGone, peerGone, linger);
    }

    /** {@return an IA address as the protocol carries it: 16 bytes, IPv4 mapped} */
    static byte[] iaBytes(InetAddress address) {
        byte[] raw = address.getAddress();
        if (raw.length == 16) {
            return raw;
        }
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        System.arraycopy(raw, 0, mapped, 12, 4);
        return mapped;
    }

    /**
     * One RDM progress step of the IA: the control plane, then the graceful disconnects whose sends completed.
     *
     * @return whether a link changed
     */
    static boolean progress(OfiIa ia) {
        long now = System.nanoTime();
        IN_CONTROL.set(Boolean.TRUE);
        try {
            ia.rdm.progress(now);
        } finally {
            IN_CONTROL.set(Boolean.FALSE);
        }
        boolean found = false;
        // A copy, as a step may end a link; the IA's, so a step allocates no list (RdmControlPlane#progress).
        List<OfiRdmLink> links = ia.rdmLinksStepped;
        int from = links.size();
        for (int i = 0; i < ia.rdmLinks.size(); i++) {
            links.add(ia.rdmLinks.get(i));
        }
        try {
            for (int i = from; i < links.size(); i++) {
                OfiRdmLink l = links.get(i);
                if (l.association != null && l.association.state() == RdmAssociation.State.DISCONNECTING
                        && !l.ep.data.requestsPosted()) {
                    l.ep.data.lastAdvert();
                    l.association.sendsDrained();
                    found = true;
                }
                found |= l.answerFence();
                found |= l.probe(now);
            }
        } finally {
            RdmControlPlane.truncate(links, from);
        }
        return found;
    }

    /**
     * Opens the listen endpoint of a PSP or RSP at {@code port}, or at a free qualifier when it is 0
     * ({@code dat_psp_create_any}).
     *
     * @return the qualifier
     */
    static int listen(OfiIa ia, String call, int port, Consumer<RdmControl> onRequest) {
        if (port != 0) {
            listenAt(ia, call, port, onRequest, true);
            return port;
        }
        for (int tries = 0; tries < ANY_TRIES; tries++) {
            int p = ANY_LOW + OfiIa.RANDOM.nextInt(0x10000 - ANY_LOW);
            if (listenAt(ia, call, p, onRequest, false)) {
                return p;
            }
        }
        throw new DatException(DatReturn.CONN_QUAL_UNAVAILABLE, call + ": no free conn_qual found in "
                + ANY_TRIES + " tries");
    }

    private static boolean listenAt(OfiIa ia, String call, int port, Consumer<RdmControl> onRequest, boolean must) {
        String why;
        try {
            why = ia.rdm.listen(port, onRequest);
        } catch (FiException e) {
            // shm's fi_enable refuses a name the plane found free, when another endpoint took it meanwhile.
            why = e.getMessage();
        }
        if (why != null && must) {
            throw new DatException(DatReturn.CONN_QUAL_IN_USE, call + ": conn_qual " + port + " is in use on "
                    + ia.name() + " (" + why + ")");
        }
        return why == null;
    }

    long peer() {
        return peer;
    }

    long sendTag() {
        return sendTag;
    }

    long recvTag() {
        return recvTag;
    }

    /** {@return whether a send to the peer may be handed to libfabric (see RdmEndpoint.Reach)} */
    boolean peerReachable() {
        return peerReach != null && !peerReach.gone();
    }

    private static boolean isLocal(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** {@code dat_ep_connect} after the EP's checks: the data endpoint, then the request. */
    void connect(String call, InetAddress remote, long qualifier, long timeoutMicros, byte[] privateData) {
        ep.state = DatEpState.ACTIVE_CONNECTION_PENDING;
        if (!isLocal(remote)) {
            // shm reaches the processes of this host only: an address of another host is not reachable.
            ep.state = DatEpState.DISCONNECTED;
            ep.data.flush();
            ep.connectEvd.connection(DatEventType.CONNECTION_EVENT_UNREACHABLE, ep, null);
            return;
        }
        int serial = open(call);
        active = true;
        long timeout = timeoutMicros == Dat.DAT_TIMEOUT_INFINITE ? Long.MAX_VALUE
                : TimeUnit.MICROSECONDS.toNanos(timeoutMicros);
        associate();
        association.connect(serial, qualifier, ep.data.credit.frame(privateData), timeout, System.nanoTime());
    }

    /** {@code dat_cr_accept} on this EP: the data endpoint with its receives, the peer inserted, the accept. */
    void accept(String call, RdmControl request, byte[] acceptData, long listenerQual) {
        int serial = open(call);
        active = false;
        try {
            insertPeer(request.dataAddress());
        } catch (FiException e) {
            closeData();
            throw OfiIa.resources(call, e);
        }
        sendTag = RdmTags.data(request.senderTarget(), request.senderSerial());
        OfiCredit credit = ep.data.credit;
        credit.peer(request.privateData());
        credit.serials(serial, request.senderSerial());
        ep.state = DatEpState.COMPLETION_PENDING;
        associate();
        association.accept(request, serial, listenerQual, credit.frame(acceptData), System.nanoTime());
    }

    private void associate() {
        silent = false;
        endAs = null;
        fenceMark = NO_FENCE;
        probeOrder = NO_PROBE;
        association = ia.rdm.associate(ep.key, target(), name, ep.data.attr().maxRdmaReadIn(), this::event,
                this::flush, this::exchange);
        ia.rdmLinks.add(this);
    }

    private int target() {
        return RdmTags.epTarget(ep.key & RdmTags.MAX_ID);
    }

    /** Opens the data endpoint and posts the receives waiting for it; @return the connection's serial */
    private int open(String call) {
        int serial = ia.serials.next();
        recvTag = RdmTags.data(target(), serial);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment domain = ep.pz.domain;
            MemorySegment avAttr = arena.allocate(FiAvAttr.LAYOUT);
            FiAvAttr.type(avAttr, LibFabric.FI_AV_UNSPEC);
            FiAvAttr.count(avAttr, 4);
            ia.fi.check("fi_av_open", Fi.fi_av_open(domain, avAttr, out));
            av = out.get(ADDRESS, 0).reinterpret(FidAv.SIZEOF);
            OfiEvd tx = ep.requestEvd != null ? ep.requestEvd : ia.orphanCq;
            OfiEvd rx = ep.recvEvd != null ? ep.recvEvd : ia.orphanCq;
            MemorySegment txCq = tx.cqFor(call, domain);
            MemorySegment rxCq = rx.cqFor(call, domain);
            MemorySegment e = RdmEndpoint.enabled(ia.fi, domain, ia.info, RdmEndpoint.STALE_NAMES, d -> {
                ia.fi.check("fi_ep_bind(av)", Fi.fi_ep_bind(d, av, 0));
                ia.bindCqs(d, txCq, rxCq);
            });
            fid = e;
            MemorySegment buf = arena.allocate(RdmControl.MAX_ADDRESS);
            MemorySegment len = arena.allocate(JAVA_LONG);
            len.set(JAVA_LONG, 0, RdmControl.MAX_ADDRESS);
            ia.fi.check("fi_getname", Fi.fi_getname(e, buf, len));
            long n = len.get(JAVA_LONG, 0);
            if (n <= 0 || n > RdmControl.MAX_ADDRESS) {
                ia.fi.check("fi_getname", -LibFabric.FI_EINVAL);
            }
            name = buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
            RdmEndpoint.opened(name);
            connection.fnSendmsg = Fi.tsendmsgOp(e);
            connection.fnRecvmsg = Fi.trecvmsgOp(e);
            connection.fnReadmsg = Fi.slot(e, FidEp.RMA, FiOpsRma.READMSG);
            connection.fnWritemsg = Fi.slot(e, FidEp.RMA, FiOpsRma.WRITEMSG);
        } catch (FiException e) {
            closeData();
            throw OfiIa.resources(call, e);
        }
        try {
            // The delivery count (OfiCredit): before the receives waiting for the endpoint are posted and counted.
            ep.data.credit.open(call);
        } catch (RuntimeException e) {
            closeData();
            throw e;
        }
        ep.data.credit.serials(serial, 0);
        if (!ep.data.postQueuedRecvs()) {
            closeData();
            throw new DatException(DatReturn.INSUFFICIENT_RESOURCES, DatReturnSubtype.RESOURCE_DEVICE,
                    call + ": the endpoint refused the receives posted before it existed");
        }
        return serial;
    }

    MemorySegment fid() {
        return fid;
    }

    private void insertPeer(byte[] address) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(address.length + 1L);
            a.copyFrom(MemorySegment.ofArray(address));
            MemorySegment out = arena.allocate(JAVA_LONG);
            int rc = Fi.fi_av_insert(av, a, 1, out, 0);
            ia.fi.check("fi_av_insert", rc == 1 ? 0 : rc < 0 ? rc : -LibFabric.FI_EINVAL);
            peer = out.get(JAVA_LONG, 0);
            peerName = address.clone();
            peerReach = new RdmEndpoint.Reach(address);
        }
    }

    /**
     * Both ends of a connection inside this process progress before one end's endpoint closes. shm 1.17 reaches an
     * endpoint of the same process through that endpoint's own mapping, which the close removes, and a transfer
     * between the two moves in steps of both sides' progress: an RDMA write asking delivery completion goes through
     * the target's segment buffers, which the writer frees when the target has copied the data out; a send's answer
     * is written into the sender's region. A close between two such steps left the other side to touch unmapped
     * memory (SIGSEGV in {@code smr_progress_resp_entry}: OfiShmEarlyCloseTest). So the IA's CQs are read for their
     * progress only (no completion taken) for {@link #LOCAL_SETTLE_ROUNDS} rounds, in whatever order: each round
     * moves every unfinished transfer a step on both sides. A peer in another IA of the process is that IA's to
     * progress (docs/ofi.md, "Open").
     */
    private void settleLocalPeer() {
        for (int round = 0; round < LOCAL_SETTLE_ROUNDS; round++) {
            for (int i = 0; i < ia.cqEvds.size(); i++) {
                ia.cqEvds.get(i).progressCqs();
            }
            ia.orphanCq.progressCqs();
        }
    }

    /** Closes the data endpoint and its AV; the connection's generation moves on. */
    private void closeData() {
        if (name != null) {
            RdmEndpoint.closing(name);
            name = null;
        }
        if (fid.address() != 0) {
            if (peerName != null && RdmEndpoint.local(peerName)) {
                settleLocalPeer();
            }
            Fi.fi_close(fid);
            fid = MemorySegment.NULL;
        }
        if (av.address() != 0) {
            Fi.fi_close(av);
            av = MemorySegment.NULL;
        }
        // The word only now: the endpoint's progress could write into it until the close.
        ep.data.credit.close();
        connection.fnSendmsg = MemorySegment.NULL;
        connection.fnRecvmsg = MemorySegment.NULL;
        connection.fnReadmsg = MemorySegment.NULL;
        connection.fnWritemsg = MemorySegment.NULL;
        peer = LibFabric.FI_ADDR_UNSPEC;
        peerName = null;
        peerReach = null;
        connection.nextGeneration();
    }

    // ---- the association's port ----

    private void event(DatEventType type, byte[] privateData) {
        if (type == DatEventType.CONNECTION_EVENT_ESTABLISHED) {
            if (active) {
                try {
                    insertPeer(association.peerData());
                } catch (FiException e) {
                    // The peer's address is refused: the connection cannot carry data, it breaks at once.
                    association.sendFailed();
                    return;
                }
                sendTag = association.sendTag();
                OfiCredit credit = ep.data.credit;
                credit.peer(privateData);
                credit.serials((int) recvTag, (int) sendTag);
            }
            ep.state = DatEpState.CONNECTED;
            if (ep.connectEvd != null) {
                ep.connectEvd.connection(type, ep, active ? OfiCredit.payload(privateData) : null);
            }
            return;
        }
        ep.state = DatEpState.DISCONNECTED;
        ia.rdmLinks.remove(this);
        ia.rdm.forget(ep.key);
        DatEventType reported = endAs != null && type == DatEventType.CONNECTION_EVENT_DISCONNECTED ? endAs : type;
        if (!silent && ep.connectEvd != null) {
            ep.connectEvd.connection(reported, ep, null);
        }
    }

    /**
     * A {@code FENCE} of the peer (it frees a region this EP may write into), a {@code CHECK} (an RDMA operation of
     * the peer toward this EP has not completed), or the answer to this side's.
     *
     * <p>shm copies an RDMA write into its target in the target's progress, after checking the key, and one sent in
     * segments (SAR, which a write asking delivery takes) over several steps: the target's {@code fi_close} stops the
     * writes it has not checked, and the ones under way finish. This side answers a {@code FENCE} once every write it
     * had posted when the fence came completed, which asks delivery: then nothing of it is left to land
     * (docs/ofi-rdm-protocol.md, "dat_lmr_free"). A write or read that fails that check is dropped by shm without a
     * word to its sender; the sender's {@code CHECK} learns it from this side's zone ("Remote protection").
     */
    private void exchange(RdmControl m) {
        switch (m.type()) {
            case FENCE -> {
                fenceMark = ep.data.lastOrder();
                answerFence();
            }
            case FENCE_ACK -> ep.data.credit.fenced(0);
            case CHECK -> {
                RdmProbe p = RdmProbe.decode(m.privateData());
                if (p != null && p.verdict() == RdmProbe.ASKED) {
                    association.exchange(RdmControl.Type.CHECK_ACK, p.answer(takes(p)).encode());
                }
            }
            case CHECK_ACK -> {
                RdmProbe p = RdmProbe.decode(m.privateData());
                if (p != null && p.verdict() == RdmProbe.REFUSED && p.order() == probeOrder) {
                    // The operation can never complete: it fails as an RC one with a remote access error does.
                    ep.data.refuse(p.order());
                }
            }
            default -> {
            }
        }
    }

    /**
     * {@return whether this EP's zone takes the probe's operation as shm checks it (ofi_mr_map_verify): a
     * registration of the key with the remote access, covering the range} The zone's keys are its domain's.
     */
    private boolean takes(RdmProbe p) {
        OfiLmr lmr = ep.pz.keys.get(p.key());
        int access = p.read() ? DatMemPriv.REMOTE_READ : DatMemPriv.REMOTE_WRITE;
        return lmr != null && (lmr.privileges() & access) != 0 && lmr.contains(p.address(), p.length());
    }

    /**
     * The oldest RDMA operation of this EP open for {@link #PROBE_NANOS}: asks the peer whether its zone takes it,
     * once (an operation the zone takes completes with the target's progress).
     *
     * @return whether a {@code CHECK} went
     */
    private boolean probe(long now) {
        if (association == null || association.state() != RdmAssociation.State.CONNECTED) {
            return false;
        }
        int slot = ep.data.oldestOpenRma();
        long order = slot < 0 ? NO_PROBE : ep.data.requestOrder(slot);
        if (order != probeOrder) {
            probeOrder = order;
            probeSince = now;
            probed = false;
            return false;
        }
        if (slot < 0 || probed || now - probeSince < PROBE_NANOS) {
            return false;
        }
        probed = true;
        return association.exchange(RdmControl.Type.CHECK, ep.data.probe(slot).encode());
    }

    /** {@return whether a pending fence of the peer was answered now, its writes done} */
    private boolean answerFence() {
        if (fenceMark == NO_FENCE || association == null || ep.data.writesOpen(fenceMark)) {
            return false;
        }
        fenceMark = NO_FENCE;
        association.exchange(RdmControl.Type.FENCE_ACK, null);
        return true;
    }

    /**
     * {@code dat_lmr_free} of a region of this EP's zone the peer may write (OfiLmr#fence): a {@code FENCE} to the
     * peer, whose answer completes the fence ({@link OfiCredit#fenced}).
     *
     * @return whether it went
     */
    boolean startFence() {
        if (association == null || !association.exchange(RdmControl.Type.FENCE, null)) {
            return false;
        }
        ep.data.credit.fenceSent();
        return true;
    }

    private void flush() {
        if (IN_CONTROL.get() && fid.address() != 0) {
            // The peer's DISCONNECT came on the control endpoints, which are not ordered with the data endpoints:
            // a message the peer sent before it is in the data endpoint's queue, read here before the flush.
            // Not again from a flush the drain itself causes (another EP's DTO error): drains do not nest.
            IN_CONTROL.set(Boolean.FALSE);
            try {
                (ep.recvEvd != null ? ep.recvEvd : ia.orphanCq).drainCq();
            } finally {
                IN_CONTROL.set(Boolean.TRUE);
            }
        }
        if (fid.address() != 0) {
            // The peer is told what landed, and its last advert (written before its DISCONNECT, or before its
            // DISCONNECT_ACK) completes the sends it took before the rest are flushed.
            ep.data.lastAdvert();
            ep.data.peerLeft();
        }
        closeData();
        ep.data.flush();
    }

    // ---- calls of OfiEpConnection ----

    private boolean live() {
        return association != null && switch (association.state()) {
            case REQUESTED, ACCEPTING, CONNECTED, DISCONNECTING -> true;
            default -> false;
        };
    }

    /** {@code dat_ep_disconnect}: graceful waits for the posted requests, then says DISCONNECT. */
    void disconnect(boolean abrupt) {
        if (!live()) {
            return;
        }
        boolean pending = ep.data.requestsPosted();
        if ((abrupt || !pending) && association.state() == RdmAssociation.State.CONNECTED) {
            // The DISCONNECT may leave now: the peer's sends that landed are told first.
            ep.data.lastAdvert();
            if (!live()) {
                return;
            }
        }
        boolean connected = association.state() == RdmAssociation.State.CONNECTED;
        association.disconnect(abrupt, pending, System.nanoTime());
        if (connected && live()) {
            ep.state = DatEpState.DISCONNECT_PENDING;
        }
    }

    /**
     * Ends the connection from this side: a failed DTO, a freed LMR in use, a free of the EP. The peer is told
     * ({@code DISCONNECT}); the EP's event is {@code event}, or none.
     */
    void breakConnection(boolean notify, DatEventType event) {
        if (live()) {
            silent = !notify || event == null;
            if (event != DatEventType.CONNECTION_EVENT_DISCONNECTED) {
                endAs = event;
            }
            RdmAssociation.State s = association.state();
            if (s == RdmAssociation.State.REQUESTED && event == DatEventType.CONNECTION_EVENT_BROKEN) {
                association.sendFailed();
            } else {
                ep.data.lastAdvert();
                association.disconnect(true, false, System.nanoTime());
            }
        } else if (fid.address() != 0) {
            closeData();
        }
    }
}
