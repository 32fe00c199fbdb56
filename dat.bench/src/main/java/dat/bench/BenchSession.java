// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import dat.api.DatCloseFlags;
import dat.api.DatConnectFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatIaAttr;
import dat.api.DatLmr;
import dat.api.DatProviderAttr;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.Iov;
import dat.registry.DatRegistry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The DAT objects of one benchmark trial, all on one IA opened through {@link DatRegistry}: a PZ, endpoints
 * connected to each other through a PSP (connect, connection request, accept, both ESTABLISHED events) exactly as
 * two processes would, and registered buffers. Everything is made in {@code @Setup(Level.Trial)}, before the first
 * measured call, and released by {@link #close()}: an abrupt {@code dat_ia_close} (which frees every object of the
 * IA and flushes what is outstanding), then the arena that owns the registered memory, in that order because
 * registered memory must outlive its LMRs.
 */
final class BenchSession implements AutoCloseable {

    /** System property: the IA the benchmarks open. */
    static final String IA_PROPERTY = "dat.bench.ia";
    /** Default of {@link #IA_PROPERTY}: the loopback provider's first IA. */
    static final String IA_DEFAULT = "loopback0";
    /**
     * System property: the provider of that IA, the only one the registry asks for IAs, so that a benchmark on
     * loopback never loads a fabric's native library (the ofi provider is on the benchmarks' class path too).
     */
    static final String PROVIDER_PROPERTY = "dat.bench.provider";
    /** Default of {@link #PROVIDER_PROPERTY}. */
    static final String PROVIDER_DEFAULT = "loopback";
    /** The alignment of every buffer: a page, see {@link #buffer}. */
    static final long PAGE = 4096;

    final DatIa ia;
    final DatIaAttr limits;
    final DatProviderAttr provider;
    final DatPz pz;
    /** Shared: the ping-pong responder touches the buffers from its own thread. */
    final Arena arena = Arena.ofShared();
    private boolean closed;

    /** One endpoint and its EVDs (an EVD may be shared with other sides, or {@code null}). */
    record Side(DatEp ep, DatEvd requestEvd, DatEvd recvEvd, DatEvd connectEvd) {
    }

    /** A registered buffer: the LMR and the memory it covers. */
    record Buffer(DatLmr lmr, MemorySegment memory) {

        /** {@return an IOV of one triplet covering the first {@code length} bytes} */
        Iov iov(Arena arena, long length) {
            return Iov.allocate(arena, 1).set(0, lmr, 0, length);
        }
    }

    private BenchSession(DatIa ia) {
        this.ia = ia;
        try {
            this.limits = ia.query();
            this.provider = ia.providerAttr();
            this.pz = ia.createPz();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** {@return a session on the IA named by {@link #IA_PROPERTY}} */
    static BenchSession open() {
        DatRegistry registry = DatRegistry.builder().systemConfiguration()
                .onlyProvider(System.getProperty(PROVIDER_PROPERTY, PROVIDER_DEFAULT)).build();
        return new BenchSession(registry.open(System.getProperty(IA_PROPERTY, IA_DEFAULT)));
    }

    /**
     * {@return a session on the IA named by {@link #IA_PROPERTY}, after {@code setUp} made the trial's objects on it}
     * A set-up that throws closes the session first, so a failed trial leaves no IA open.
     *
     * @param setUp what the benchmark's {@code @Setup} makes on the session
     */
    static BenchSession open(Consumer<BenchSession> setUp) {
        BenchSession session = open();
        try {
            setUp.accept(session);
            return session;
        } catch (RuntimeException | Error e) {
            session.close();
            throw e;
        }
    }

    /**
     * {@return a new EVD}
     *
     * @param qlen wanted queue length, capped at {@code max_evd_qlen}
     * @param flags {@link DatEvdFlags}
     */
    DatEvd evd(int qlen, int flags) {
        return ia.createEvd(Math.min(qlen, limits.maxEvdQlen()), null, flags);
    }

    /**
     * Endpoint attributes for {@code messageBytes}-byte messages and RDMA, {@code requests} and {@code receives}
     * deep queues and one IOV segment.
     *
     * @param messageBytes the largest message or RDMA transfer
     * @param requests {@code max_request_dtos}
     * @param receives {@code max_recv_dtos}
     * @return the attributes
     */
    DatEpAttr epAttr(long messageBytes, int requests, int receives) {
        long bytes = Math.max(1, messageBytes);
        return DatEpAttr.builder()
                .maxMessageSize(Math.min(bytes, limits.maxMessageSize()))
                .maxRdmaSize(Math.min(bytes, limits.maxRdmaSize()))
                .maxRequestDtos(Math.min(requests, limits.maxDtoPerEp()))
                .maxRecvDtos(Math.min(receives, limits.maxDtoPerEp()))
                .maxRdmaReadIn(Math.min(1, limits.maxRdmaReadIn()))
                .maxRdmaReadOut(Math.min(1, limits.maxRdmaReadOut()))
                .build();
    }

    /**
     * Creates an unconnected endpoint with its own request, receive and connection EVDs.
     *
     * @param attr the EP attributes
     * @param evdQlen the DTO EVDs' queue length
     * @return the side
     */
    Side side(DatEpAttr attr, int evdQlen) {
        DatEvd request = evd(evdQlen, DatEvdFlags.DTO);
        DatEvd recv = evd(evdQlen, DatEvdFlags.DTO);
        return side(attr, request, recv, null);
    }

    /**
     * Creates an unconnected endpoint on given DTO EVDs (which other sides may share) with its own connection EVD.
     *
     * @param attr the EP attributes
     * @param requestEvd request completions, or {@code null}
     * @param recvEvd receive completions, or {@code null}
     * @param srq the SRQ to take receives from, or {@code null} for the EP's own receive queue
     * @return the side
     */
    Side side(DatEpAttr attr, DatEvd requestEvd, DatEvd recvEvd, DatSrq srq) {
        DatEvd connect = evd(8, DatEvdFlags.CONNECTION);
        DatEp ep = srq == null
                ? ia.createEp(pz, recvEvd, requestEvd, connect, attr)
                : ia.createEpWithSrq(pz, recvEvd, requestEvd, connect, srq, attr);
        return new Side(ep, requestEvd, recvEvd, connect);
    }

    /**
     * Connects {@code active} to {@code passive} through a PSP on this IA: {@code dat_ep_connect}, the connection
     * request on the CR EVD, {@code dat_cr_accept}, and both ESTABLISHED events.
     *
     * @param active the side that calls {@code dat_ep_connect}
     * @param passive the side handed to {@code dat_cr_accept}
     */
    void connect(Side active, Side passive) {
        DatEvd crEvd = evd(8, DatEvdFlags.CR);
        try (DatPsp psp = ia.createPspAny(crEvd, DatPspFlags.CONSUMER)) {
            active.ep().connect(ia.address(), psp.connQual(), TimeUnit.NANOSECONDS.toMicros(Spin.TIMEOUT_NANOS),
                    null, DatQos.BEST_EFFORT, DatConnectFlags.DEFAULT);
            expect(crEvd, DatEventType.CONNECTION_REQUEST_EVENT).cr().accept(passive.ep(), null);
            expect(active.connectEvd(), DatEventType.CONNECTION_EVENT_ESTABLISHED);
            expect(passive.connectEvd(), DatEventType.CONNECTION_EVENT_ESTABLISHED);
        } finally {
            crEvd.close();
        }
    }

    private static DatEvent expect(DatEvd evd, DatEventType type) {
        DatEvent event = new DatEvent();
        long deadline = System.nanoTime() + Spin.TIMEOUT_NANOS;
        while (true) {
            int rc = evd.dequeue(event);
            if (rc == DatReturn.DAT_SUCCESS) {
                if (event.type() != type) {
                    throw new IllegalStateException("connecting: expected " + type + ", got " + event);
                }
                return event;
            }
            if (rc != DatReturn.DAT_QUEUE_EMPTY) {
                throw new IllegalStateException("connecting: dat_evd_dequeue returned " + DatReturn.toString(rc));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("connecting: no " + type + " within "
                        + TimeUnit.NANOSECONDS.toMillis(Spin.TIMEOUT_NANOS) + " ms");
            }
            Thread.onSpinWait();
        }
    }

    /**
     * Registers {@code size} bytes of fresh native memory, page-aligned (which satisfies the provider's
     * {@code optimal_buffer_alignment}: DAT has it divide 256).
     *
     * <p>Why a page rather than the provider's alignment: two buffers aligned to 64 bytes sit at a distance modulo
     * 4 KiB that changes from one JMH fork to the next, and when the destination lies just above the source
     * (64 bytes on, modulo 4 KiB) every load of a copy falsely waits for an earlier store to the same page offset
     * ("4K aliasing"): {@code MemorySegment.copy} of 64 KiB measured 43.6 against 57.3 GB/s at distance 0 on this
     * project's machine, and the 64 KiB rdma_write series spread from 28 to 53 GB/s over five forks. Page-aligned
     * buffers are at distance 0 in every fork, for every series alike.
     *
     * @param size bytes
     * @param privileges {@link dat.api.DatMemPriv} flags
     * @return the buffer, zero-filled
     */
    Buffer buffer(long size, int privileges) {
        long align = Math.max(PAGE, provider.optimalBufferAlignment());
        MemorySegment memory = arena.allocate(size, align);
        return new Buffer(ia.createLmr(pz, memory, privileges), memory);
    }

    /**
     * {@return a one-triplet IOV}
     *
     * @param length bytes the IOV names
     * @param buffer the buffer it points into, from offset 0
     */
    Iov iov(Buffer buffer, long length) {
        return buffer.iov(arena, length);
    }

    /** Closes the IA abruptly (every EP, EVD, LMR and PZ with it), then frees the memory. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            ia.close(DatCloseFlags.ABRUPT);
        } finally {
            arena.close();
        }
    }
}
