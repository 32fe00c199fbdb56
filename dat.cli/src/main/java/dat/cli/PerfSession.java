// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatCloseFlags;
import dat.api.DatConnectFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatProviderAttr;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.Iov;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * The DAT objects of one {@code dat perf} run, all on one IA: a PZ, two endpoints connected to each other through
 * a PSP (connect, connection request, accept) exactly as two processes would, and per endpoint a transmit and a
 * receive buffer, registered once and sized for the largest message. In a two-node run ({@link PerfPeer}) a session
 * holds one of the two sides and the other is on the peer's node. Everything is set up before any thread is
 * started and released by {@link #close()}: an abrupt {@code dat_ia_close} (which frees every object of the IA,
 * flushing outstanding DTOs), then the arena that owns the registered memory.
 */
final class PerfSession implements AutoCloseable {

    /** EVD queue length for DTO completions: above every queue depth this command asks for. */
    static final int DTO_EVD_QLEN = 4 * PerfPlan.MAX_WINDOW;
    /** Receive buffers the streaming receiver keeps posted: twice the window, so a full window never starves. */
    static final int RECV_DEPTH = 2 * PerfPlan.MAX_WINDOW;

    final DatIa ia;
    final DatIaAttr limits;
    final DatProviderAttr provider;
    /** Owns the registered buffers and IOVs; shared, as the client and the responder run on their own threads. */
    final Arena arena = Arena.ofShared();
    private final DatPz pz;
    /** The side that posts and measures; {@code null} on the serving node of a two-node run. */
    final Side client;
    /** The side that echoes, counts or is read from; {@code null} on the measuring node of a two-node run. */
    final Side server;
    private boolean closed;

    /** One endpoint with its EVDs and buffers; used by one thread at a time. */
    static final class Side {
        final DatEp ep;
        final DatEvd requestEvd;
        final DatEvd recvEvd;
        final DatEvd connectEvd;
        DatLmr txLmr;
        DatLmr rxLmr;
        MemorySegment tx;
        MemorySegment rx;
        Iov txIov;
        Iov rxIov;
        /** The other side's receive buffer, the target of RDMA writes and reads: its RMR context. */
        int peerRmrContext;
        /** The other side's receive buffer: its address. */
        long peerAddress;

        Side(DatEp ep, DatEvd requestEvd, DatEvd recvEvd, DatEvd connectEvd) {
            this.ep = ep;
            this.requestEvd = requestEvd;
            this.recvEvd = recvEvd;
            this.connectEvd = connectEvd;
        }
    }

    /**
     * Creates the PZ and both unconnected endpoints. On failure the IA is closed.
     *
     * @param ia the open IA; this session closes it
     * @param op the operation, which decides the RDMA read depth asked for
     */
    PerfSession(DatIa ia, PerfPlan.Op op) {
        this(ia, op, true, true);
    }

    /**
     * Creates the PZ and the sides asked for, unconnected. On failure the IA is closed.
     *
     * @param ia the open IA; this session closes it
     * @param op the operation, which decides the RDMA read depth asked for
     * @param withClient whether to create the measuring side
     * @param withServer whether to create the answering side
     */
    PerfSession(DatIa ia, PerfPlan.Op op, boolean withClient, boolean withServer) {
        this.ia = ia;
        try {
            this.limits = ia.query();
            this.provider = ia.providerAttr();
            this.pz = ia.createPz();
            DatEpAttr attr = requestedAttr(op);
            this.client = withClient ? side(attr) : null;
            this.server = withServer ? side(attr) : null;
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private DatEpAttr requestedAttr(PerfPlan.Op op) {
        int dtos = Math.max(1, limits.maxDtoPerEp());
        int reads = Math.max(0, Math.min(limits.maxRdmaReadOut(), limits.maxRdmaReadIn()));
        if (limits.maxRdmaReadPerEpOut() > 0) {
            reads = Math.min(reads, limits.maxRdmaReadPerEpOut());
        }
        if (limits.maxRdmaReadPerEpIn() > 0) {
            reads = Math.min(reads, limits.maxRdmaReadPerEpIn());
        }
        reads = Math.min(reads, op == PerfPlan.Op.READ ? PerfPlan.MAX_WINDOW : 1);
        return DatEpAttr.builder()
                .maxMessageSize(limits.maxMessageSize())
                .maxRdmaSize(limits.maxRdmaSize())
                .maxRequestDtos(Math.min(dtos, PerfPlan.MAX_WINDOW))
                .maxRecvDtos(Math.min(dtos, RECV_DEPTH))
                .maxRdmaReadOut(reads)
                .maxRdmaReadIn(reads)
                .build();
    }

    private Side side(DatEpAttr attr) {
        int qlen = Math.min(limits.maxEvdQlen(), DTO_EVD_QLEN);
        DatEvd request = ia.createEvd(qlen, null, DatEvdFlags.DTO);
        DatEvd recv = ia.createEvd(qlen, null, DatEvdFlags.DTO);
        DatEvd connect = ia.createEvd(Math.min(limits.maxEvdQlen(), 8), null, DatEvdFlags.CONNECTION);
        return new Side(ia.createEp(pz, recv, request, connect, attr), request, recv, connect);
    }

    /** {@return the attributes this session's first endpoint actually got ({@code dat_ep_query})} */
    DatEpAttr epAttr() {
        return (client != null ? client : server).ep.query().epAttr();
    }

    /**
     * Connects the client to the server through a PSP on this IA: {@code dat_ep_connect}, the connection request
     * on the CR EVD, {@code dat_cr_accept}, and both ESTABLISHED events.
     *
     * @param timeoutNanos how long to wait for each event
     * @throws PerfCommand.PerfException when an event does not come in time or is not the expected one
     */
    void connect(long timeoutNanos) {
        DatEvd crEvd = ia.createEvd(Math.min(limits.maxEvdQlen(), 8), null, DatEvdFlags.CR);
        try (DatPsp psp = ia.createPspAny(crEvd, DatPspFlags.CONSUMER)) {
            client.ep.connect(ia.address(), psp.connQual(), TimeUnit.NANOSECONDS.toMicros(timeoutNanos), null,
                    DatQos.BEST_EFFORT, DatConnectFlags.DEFAULT);
            DatEvent request = expect(crEvd, DatEventType.CONNECTION_REQUEST_EVENT, "the PSP", timeoutNanos);
            request.cr().accept(server.ep, null);
            expect(client.connectEvd, DatEventType.CONNECTION_EVENT_ESTABLISHED, "the connecting EP", timeoutNanos);
            expect(server.connectEvd, DatEventType.CONNECTION_EVENT_ESTABLISHED, "the accepting EP", timeoutNanos);
        } finally {
            crEvd.close();
        }
    }

    private static DatEvent expect(DatEvd evd, DatEventType type, String where, long timeoutNanos) {
        return expect(evd, type, "connecting the two endpoints", where, timeoutNanos);
    }

    /**
     * Waits for the next event of {@code evd}, which must be of {@code type} (a DTO completion must also have
     * succeeded). Not for the timed loops: it allocates.
     *
     * @param evd the EVD
     * @param type the event type expected
     * @param doing what the caller is doing, to begin the failure message
     * @param where which EVD, for the message
     * @param timeoutNanos how long to wait
     * @return the event
     * @throws PerfCommand.PerfException when no event comes in time or it is not the one expected
     */
    static DatEvent expect(DatEvd evd, DatEventType type, String doing, String where, long timeoutNanos) {
        DatEvent event = new DatEvent();
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            int rc = evd.dequeue(event);
            if (rc == DatReturn.DAT_SUCCESS) {
                if (event.type() != type || (type == DatEventType.DTO_COMPLETION
                        && event.dtoStatus() != DatDtoStatus.SUCCESS)) {
                    throw new PerfCommand.PerfException(doing + ": expected " + type + " on " + where + ", got "
                            + event);
                }
                return event;
            }
            if (rc != DatReturn.DAT_QUEUE_EMPTY) {
                throw new PerfCommand.PerfException(doing + ": dat_evd_dequeue on " + where + " returned "
                        + DatReturn.toString(rc));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new PerfCommand.PerfException(doing + ": no " + type + " on " + where + " within "
                        + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    /**
     * Allocates and registers each side's transmit and receive buffer, and one IOV per buffer.
     *
     * @param bytes the size of each buffer
     * @param remotePrivileges {@link DatMemPriv#REMOTE_READ} and/or {@link DatMemPriv#REMOTE_WRITE} for the receive
     *     buffers, as the operation needs
     */
    void allocate(long bytes, int remotePrivileges) {
        // Page alignment at least: large buffers then start on a page, as verbs HCAs prefer.
        long align = Math.max(4096, provider.optimalBufferAlignment());
        for (Side s : new Side[] {client, server}) {
            if (s == null) {
                continue;
            }
            s.tx = arena.allocate(bytes, align);
            s.rx = arena.allocate(bytes, align);
            s.txLmr = ia.createLmr(pz, s.tx, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
            s.rxLmr = ia.createLmr(pz, s.rx, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | remotePrivileges);
            s.txIov = Iov.allocate(arena, 1).set(0, s.txLmr, 0, bytes);
            s.rxIov = Iov.allocate(arena, 1).set(0, s.rxLmr, 0, bytes);
        }
        if (client != null && server != null) {
            client.peerRmrContext = server.rxLmr.rmrContext();
            client.peerAddress = server.rxLmr.address();
            server.peerRmrContext = client.rxLmr.rmrContext();
            server.peerAddress = client.rxLmr.address();
        }
    }

    /**
     * Closes the IA abruptly (every EP, EVD, LMR and PZ with it).
     *
     * @param releaseMemory whether to close the arena too: only once no thread can still touch the buffers
     */
    void close(boolean releaseMemory) {
        if (closed) {
            return;
        }
        try {
            ia.close(DatCloseFlags.ABRUPT);
        } finally {
            if (releaseMemory) {
                closed = true;
                arena.close();
            }
        }
    }

    @Override
    public void close() {
        close(true);
    }
}
