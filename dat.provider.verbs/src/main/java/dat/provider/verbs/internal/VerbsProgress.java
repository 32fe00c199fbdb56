// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import dat.api.DatAsyncReason;
import dat.api.DatDtoStatus;
import dat.api.DatEventType;
import dat.provider.verbs.internal.ffm.Errno;
import dat.provider.verbs.internal.ffm.IbvAsyncEvent;
import dat.provider.verbs.internal.ffm.IbvCq;
import dat.provider.verbs.internal.ffm.IbvQp;
import dat.provider.verbs.internal.ffm.IbvSrq;
import dat.provider.verbs.internal.ffm.LibC;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.provider.verbs.internal.ffm.LibRdmacm;
import dat.provider.verbs.internal.ffm.NativeCallException;
import dat.provider.verbs.internal.ffm.Pollfd;
import dat.provider.verbs.internal.ffm.RdmaCmEvent;
import dat.provider.verbs.internal.ffm.RdmaCmId;
import java.lang.foreign.MemorySegment;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The IA's progress thread: waits in {@code poll(2)} on the completion channel, the rdma_cm event channel and the
 * device's async fd, and turns what arrives into DAT events.
 *
 * <p>Every native event is copied and acknowledged <em>before</em> it is dispatched. {@code rdma_destroy_id},
 * {@code ibv_destroy_cq}, {@code ibv_destroy_qp} and {@code ibv_destroy_srq} wait until the events of their object
 * are acknowledged; a consumer thread freeing an object while holding that object's lock would otherwise
 * deadlock against this thread waiting for the same lock. Objects are found by key after the acknowledgement, so
 * an event for an object freed meanwhile finds nothing and is dropped.
 *
 * <p>The poll timeout (50 ms) bounds how late a connect timeout is reported and how long {@link #stop} waits;
 * there is no wake-up descriptor to close.
 */
// Restricted methods on purpose: reached only after VerbsProvider checked Module.isNativeAccessEnabled().
@SuppressWarnings("restricted")
final class VerbsProgress implements Runnable {

    private static final System.Logger LOG = System.getLogger("dat.provider.verbs");
    private static final int POLL_MILLIS = 50;
    private static final int CM = 0;
    private static final int COMP = 1;
    private static final int ASYNC = 2;

    /**
     * A copied connection-manager event.
     *
     * @param type {@code RDMA_CM_EVENT_*}
     * @param status the event's status (a negative errno, or the IB CM reject reason for REJECTED)
     * @param id the id the event is for
     * @param key that id's key (its context)
     * @param listenKey for a connect request, the listening id's key
     * @param privateData the peer's private data, decoded (see {@link CmWire#decode}); none for a reject
     * @param consumerReject a REJECTED event that the peer's consumer sent (see {@link CmWire#consumerReject})
     * @param responderResources the peer's responder resources
     * @param initiatorDepth the peer's initiator depth
     */
    record CmEvent(int type, int status, MemorySegment id, long key, long listenKey, byte[] privateData,
                   boolean consumerReject, int responderResources, int initiatorDepth) {
    }

    /** A connection of {@code ep} (its {@code epoch}) that a work completion in error broke. */
    private record Break(VerbsEp ep, long epoch, DatDtoStatus status) {
    }

    private final VerbsIa ia;
    private final MemorySegment fds;
    private final MemorySegment cqOut;
    private final MemorySegment contextOut;
    private final MemorySegment eventOut;
    private final MemorySegment asyncEvent;
    /** EPs with a connect in progress: their deadline is checked every round. */
    final Set<VerbsEp> connecting = ConcurrentHashMap.newKeySet();
    /** Connections a failed DTO broke, to be torn down on this thread (see {@link #breakLater}). */
    private final Queue<Break> breaks = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final AsyncTargets targets = new IaTargets();
    private volatile boolean running = true;

    VerbsProgress(VerbsIa ia, int cmFd, int compFd, int asyncFd) {
        this.ia = ia;
        this.fds = ia.arena.allocate(Pollfd.LAYOUT, 3);
        int[] fd = {cmFd, compFd, asyncFd};
        for (int i = 0; i < 3; i++) {
            // Non-blocking: a read that finds nothing after all (see LibC.setNonBlocking) returns EAGAIN instead of
            // holding this thread, and with it the IA's close, until the next event.
            LibC.setNonBlocking(fd[i]);
            Pollfd.fd(fds, i, fd[i]);
            Pollfd.events(fds, i, LibC.POLLIN);
        }
        this.cqOut = ia.arena.allocate(ADDRESS);
        this.contextOut = ia.arena.allocate(ADDRESS);
        this.eventOut = ia.arena.allocate(ADDRESS);
        this.asyncEvent = ia.arena.allocate(IbvAsyncEvent.LAYOUT);
        this.thread = Thread.ofPlatform().daemon().name("dat-verbs-" + ia.name()).unstarted(this);
    }

    void start() {
        thread.start();
    }

    /** Stops the thread and waits for it, so no native event is touched after the IA's channels are gone. */
    void stop() {
        running = false;
        if (Thread.currentThread() != thread) {
            boolean interrupted = false;
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        while (running) {
            try {
                int ready = LibC.poll(fds, 3, POLL_MILLIS);
                if (ready > 0) {
                    if (readable(COMP)) {
                        completion();
                    }
                    if (readable(CM)) {
                        connectionManager();
                    }
                    if (readable(ASYNC)) {
                        async();
                    }
                }
                for (Break b; (b = breaks.poll()) != null; ) {
                    b.ep().connection.dtoBroke(b.epoch(), b.status());
                }
                if (!connecting.isEmpty()) {
                    long now = System.nanoTime();
                    for (VerbsEp ep : connecting) {
                        ep.connection.checkConnectTimeout(now);
                    }
                }
            } catch (NativeCallException e) {
                if (e.errno() != Errno.EAGAIN) {
                    LOG.log(System.Logger.Level.WARNING, "verbs progress thread of " + ia.name() + ": " + e, e);
                }
            } catch (RuntimeException e) {
                // One bad event must not stop connection management for the whole IA.
                LOG.log(System.Logger.Level.WARNING, "verbs progress thread of " + ia.name() + ": " + e, e);
            }
        }
    }

    /**
     * A work completion in error (not a flush) was translated for {@code ep}'s connection {@code epoch}: the
     * connection is broken. The translating thread holds an EVD lock, and an EP's lock is taken before EVD locks
     * (a teardown posts its connection event), so the teardown happens here, within one poll round (50 ms).
     */
    void breakLater(VerbsEp ep, long epoch, DatDtoStatus status) {
        breaks.add(new Break(ep, epoch, status));
    }

    private boolean readable(int index) {
        return (Pollfd.revents(fds, index) & LibC.POLLIN) != 0;
    }

    private void completion() {
        ia.verbs.ibv_get_cq_event(ia.compChannel, cqOut, contextOut);
        MemorySegment cq = cqOut.get(ADDRESS, 0);
        long key = contextOut.get(ADDRESS, 0).address();
        ia.verbs.ibv_ack_cq_events(cq, 1);
        VerbsEvd evd = ia.evdsByKey.get(key);
        if (evd != null) {
            evd.notified();
        }
    }

    private void connectionManager() {
        ia.cm.rdma_get_cm_event(ia.cmChannel, eventOut);
        MemorySegment event = eventOut.get(ADDRESS, 0).reinterpret(RdmaCmEvent.SIZE);
        CmEvent copied;
        try {
            int type = RdmaCmEvent.event(event);
            int status = RdmaCmEvent.status(event);
            MemorySegment id = RdmaCmEvent.id(event).reinterpret(RdmaCmId.SIZE);
            MemorySegment listen = RdmaCmEvent.listenId(event);
            long key = RdmaCmId.context(id).address();
            long listenKey = listen.address() == 0 ? 0 : RdmaCmId.context(listen.reinterpret(RdmaCmId.SIZE)).address();
            MemorySegment data = RdmaCmEvent.paramConnPrivateData(event);
            int dataLength = Byte.toUnsignedInt(RdmaCmEvent.paramConnPrivateDataLen(event));
            byte[] raw = data.address() == 0 || dataLength == 0 ? new byte[0]
                    : data.reinterpret(dataLength).toArray(JAVA_BYTE);
            boolean rejected = type == LibRdmacm.RDMA_CM_EVENT_REJECTED;
            copied = new CmEvent(type, status, id, key, listenKey, rejected ? null : CmWire.decode(raw),
                    rejected && CmWire.consumerReject(status, raw),
                    Byte.toUnsignedInt(RdmaCmEvent.paramConnResponderResources(event)),
                    Byte.toUnsignedInt(RdmaCmEvent.paramConnInitiatorDepth(event)));
        } finally {
            ia.cm.rdma_ack_cm_event(event);
        }
        dispatch(copied);
    }

    private void dispatch(CmEvent e) {
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("cm event " + e.type() + " status " + e.status() + " id "
                    + Long.toHexString(e.id().address()) + " key " + e.key() + " listen key " + e.listenKey());
        }
        if (e.type() == LibRdmacm.RDMA_CM_EVENT_CONNECT_REQUEST) {
            Object listener = ia.cmOwners.get(e.listenKey() != 0 ? e.listenKey() : e.key());
            if (listener instanceof VerbsPsp psp && !psp.isClosed()) {
                psp.connectionRequest(e);
            } else if (listener instanceof VerbsRsp rsp && !rsp.isClosed()) {
                rsp.connectionRequest(e);
            } else {
                // The service point went away between the request and now: refuse the peer.
                VerbsCr.refuse(ia, e.id());
            }
            return;
        }
        Object owner = ia.cmOwners.get(e.key());
        if (owner instanceof VerbsEp ep) {
            ep.connection.cmEvent(e);
        } else if (owner instanceof VerbsCr cr) {
            cr.cmEvent(e);
        }
    }

    private void async() {
        ia.verbs.ibv_get_async_event(ia.context, asyncEvent);
        int type = IbvAsyncEvent.eventType(asyncEvent);
        MemorySegment element = IbvAsyncEvent.elementQp(asyncEvent);
        long srqKey = 0;
        int qpn = 0;
        long cqKey = 0;
        switch (type) {
            case LibIbverbs.IBV_EVENT_SRQ_LIMIT_REACHED, LibIbverbs.IBV_EVENT_SRQ_ERR ->
                    srqKey = IbvSrq.srqContext(element.reinterpret(IbvSrq.SIZE)).address();
            case LibIbverbs.IBV_EVENT_QP_FATAL, LibIbverbs.IBV_EVENT_QP_REQ_ERR, LibIbverbs.IBV_EVENT_QP_ACCESS_ERR,
                 LibIbverbs.IBV_EVENT_COMM_EST, LibIbverbs.IBV_EVENT_QP_LAST_WQE_REACHED ->
                    qpn = IbvQp.qpNum(element.reinterpret(IbvQp.SIZE));
            case LibIbverbs.IBV_EVENT_CQ_ERR ->
                    cqKey = IbvCq.cqContext(element.reinterpret(IbvCq.SIZE)).address();
            default -> {
            }
        }
        ia.verbs.ibv_ack_async_event(asyncEvent);
        if (VerbsConfig.TRACE) {
            VerbsConfig.trace("async event " + ia.verbs.ibv_event_type_str(type) + " qp " + qpn + " srq " + srqKey
                    + " cq " + cqKey);
        }
        route(type, qpn, (int) srqKey, cqKey, targets);
    }

    /**
     * What an acknowledged async event means for the IA's objects. Apart from reading the event, so that a test can
     * raise the events no soft device raises ({@code IBV_EVENT_SRQ_ERR}, {@code IBV_EVENT_DEVICE_FATAL}).
     *
     * @param type the {@code ibv_event_type}
     * @param qpn the QP number of a QP event
     * @param srqIndex the index of an SRQ event's SRQ (its context)
     * @param cqKey the key of a CQ event's EVD (its context)
     * @param to where the event goes
     */
    static void route(int type, int qpn, int srqIndex, long cqKey, AsyncTargets to) {
        switch (type) {
            case LibIbverbs.IBV_EVENT_SRQ_LIMIT_REACHED -> to.srqLimitReached(srqIndex);
            case LibIbverbs.IBV_EVENT_SRQ_ERR -> to.srqFailed(srqIndex);
            case LibIbverbs.IBV_EVENT_QP_FATAL, LibIbverbs.IBV_EVENT_QP_REQ_ERR,
                 LibIbverbs.IBV_EVENT_QP_ACCESS_ERR -> to.qpFailed(qpn, type);
            case LibIbverbs.IBV_EVENT_COMM_EST -> to.communicationEstablished(qpn);
            case LibIbverbs.IBV_EVENT_CQ_ERR -> to.cqFailed(cqKey);
            case LibIbverbs.IBV_EVENT_DEVICE_FATAL -> to.deviceFailed();
            default -> {
                // Port, GID, LID and SM changes and LAST_WQE_REACHED need no DAT event.
            }
        }
    }

    /** The IA's objects as async events reach them (see {@link #route}); objects already freed are skipped. */
    interface AsyncTargets {

        /** {@code IBV_EVENT_SRQ_LIMIT_REACHED}. */
        void srqLimitReached(int srqIndex);

        /** {@code IBV_EVENT_SRQ_ERR}: the SRQ is in error. */
        void srqFailed(int srqIndex);

        /** {@code IBV_EVENT_QP_FATAL}, {@code _REQ_ERR}, {@code _ACCESS_ERR}: the connection is broken. */
        void qpFailed(int qpn, int type);

        /** {@code IBV_EVENT_COMM_EST}. */
        void communicationEstablished(int qpn);

        /** {@code IBV_EVENT_CQ_ERR}: the CQ overran. */
        void cqFailed(long cqKey);

        /** {@code IBV_EVENT_DEVICE_FATAL}. */
        void deviceFailed();
    }

    /** This IA's objects, found by number or key. */
    private final class IaTargets implements AsyncTargets {

        @Override
        public void srqLimitReached(int srqIndex) {
            VerbsSrq srq = ia.srqsByIndex.get(srqIndex);
            if (srq != null) {
                srq.limitReached();
            }
        }

        @Override
        public void srqFailed(int srqIndex) {
            VerbsSrq srq = ia.srqsByIndex.get(srqIndex);
            if (srq != null) {
                srq.failed();
            }
        }

        @Override
        public void qpFailed(int qpn, int type) {
            VerbsEp ep = ia.epsByQpn.get(qpn);
            if (ep != null) {
                ep.connection.qpFailed(ia.verbs.ibv_event_type_str(type));
            }
        }

        @Override
        public void communicationEstablished(int qpn) {
            VerbsEp ep = ia.epsByQpn.get(qpn);
            if (ep != null) {
                ep.connection.communicationEstablished();
            }
        }

        @Override
        public void cqFailed(long cqKey) {
            VerbsEvd evd = ia.evdsByKey.get(cqKey);
            if (evd != null) {
                ia.asyncEvd().postAsync(DatEventType.ASYNC_ERROR_EVD_OVERFLOW, evd, DatAsyncReason.EVD_OVERFLOW_ERROR);
            }
        }

        @Override
        public void deviceFailed() {
            ia.asyncEvd().postAsync(DatEventType.ASYNC_ERROR_IA_CATASTROPHIC, ia, DatAsyncReason.IA_CATASTROPHIC_ERROR);
        }
    }
}
