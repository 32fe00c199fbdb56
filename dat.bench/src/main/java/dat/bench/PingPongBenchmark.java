// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import dat.api.DatCompletionFlags;
import dat.api.DatEvent;
import dat.api.DatMemPriv;
import dat.api.Iov;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cross-thread ping-pong latency over one connected EP pair, fi_pingpong style: one invocation is one round trip,
 * sampled ({@link Mode#SampleTime}) so JMH prints the distribution (p50, p90, p99, p99.9, max) in nanoseconds.
 * <b>One-way latency = RTT / 2</b>: halve every figure.
 *
 * <p>A {@link Responder} on its own platform thread echoes every message:
 * <ul>
 * <li>{@code op=send}: the benchmark thread posts a send of {@code size} bytes, the responder dequeues its receive,
 *     re-posts it and sends the same number of bytes back; the benchmark thread dequeues the echo, re-posts its
 *     receive and reaps its send completion. Both receives are posted before the first message, so every send finds
 *     a buffer waiting.</li>
 * <li>{@code op=rdma_write}: the benchmark thread RDMA-writes {@code size} bytes into the responder's buffer, whose
 *     last byte carries a tag that changes every round; the responder spins on that byte, then writes the same
 *     number of bytes, tag included, back; each side reaps its own write completion.</li>
 * </ul>
 * The round trip thus includes each side's re-post and completion reaping, as any ping-pong loop does. Both threads
 * busy-wait (see {@link Spin}); on the 2-core test machine they take both cores, so expect noise from JIT and GC
 * threads in the tail percentiles. {@link SingleThreadLatencyBenchmark} is the same send path without the thread
 * hand-off.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class PingPongBenchmark {

    private static final String SEND = "dat_ep_post_send";
    private static final String RECV = "dat_ep_post_recv";
    private static final String WRITE = "dat_ep_post_rdma_write";

    /** The DTO bounced: {@code send} (send/recv) or {@code rdma_write}. */
    @Param({"send", "rdma_write"})
    public String op;

    /** Message size in bytes. */
    @Param({"8", "64", "512", "4096", "65536", "1048576"})
    public int size;

    private BenchSession session;
    private BenchSession.Side client;
    private Responder responder;
    private boolean write;
    private Iov txIov;
    private Iov rxIov;
    private MemorySegment tx;
    private MemorySegment rx;
    private int peerRmrContext;
    private long peerAddress;
    private long flagOffset;
    private byte tag;
    private long cookie;
    private boolean lmrSync;
    private final DatEvent event = new DatEvent();

    /** Opens the IA, connects the pair, registers the buffers, pre-posts the receives, starts the responder. */
    @Setup(Level.Trial)
    public void setUp() {
        write = switch (op) {
            case "send" -> false;
            case "rdma_write" -> true;
            default -> throw new IllegalArgumentException("op must be send or rdma_write, was " + op);
        };
        session = BenchSession.open();
        try {
            lmrSync = session.provider.lmrSyncReq();
            var attr = session.epAttr(size, 4, 4);
            client = session.side(attr, 8);
            BenchSession.Side server = session.side(attr, 8);
            session.connect(client, server);
            int rxPriv = DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_WRITE;
            BenchSession.Buffer clientTx = session.buffer(size, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
            BenchSession.Buffer clientRx = session.buffer(size, rxPriv);
            BenchSession.Buffer serverTx = session.buffer(size, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
            BenchSession.Buffer serverRx = session.buffer(size, rxPriv);
            txIov = session.iov(clientTx, size);
            rxIov = session.iov(clientRx, size);
            tx = clientTx.memory();
            rx = clientRx.memory();
            peerRmrContext = serverRx.lmr().rmrContext();
            peerAddress = serverRx.lmr().address();
            flagOffset = size - 1L;
            Iov serverTxIov = session.iov(serverTx, size);
            Iov serverRxIov = session.iov(serverRx, size);
            if (write) {
                responder = new WriteEcho(server, serverTx.memory(), serverTxIov, serverRx.memory(),
                        clientRx.lmr().rmrContext(), clientRx.lmr().address(), flagOffset, lmrSync ? session : null);
            } else {
                Spin.check(client.ep().postRecv(1, rxIov, 0, DatCompletionFlags.DEFAULT), RECV);
                // Two on the server: it answers before it re-posts the receive a message consumed (SendEcho).
                Spin.check(server.ep().postRecv(1, serverRxIov, 0, DatCompletionFlags.DEFAULT), RECV);
                Spin.check(server.ep().postRecv(1, serverRxIov, 1, DatCompletionFlags.DEFAULT), RECV);
                responder = new SendEcho(server, serverTxIov, serverRxIov);
            }
            responder.start("dat-bench-responder");
        } catch (RuntimeException | Error e) {
            tearDown();
            throw e;
        }
    }

    /** Stops the responder, then closes the IA abruptly and frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            if (responder != null) {
                responder.stop();
            }
        } finally {
            session.close();
        }
    }

    /**
     * One round trip.
     *
     * @return the echoed length ({@code send}) or tag ({@code rdma_write}), so the work cannot be eliminated
     */
    @Benchmark
    public long roundTrip() {
        return write ? writeRoundTrip() : sendRoundTrip();
    }

    private long sendRoundTrip() {
        long c = cookie++;
        Spin.check(client.ep().postSend(1, txIov, c, DatCompletionFlags.DEFAULT), SEND);
        long echoed = Spin.completion(client.recvEvd(), event, RECV, responder);
        Spin.check(client.ep().postRecv(1, rxIov, c, DatCompletionFlags.DEFAULT), RECV);
        Spin.completion(client.requestEvd(), event, SEND, responder);
        if (echoed != size) {
            throw new IllegalStateException("echo of " + echoed + " bytes, expected " + size);
        }
        return echoed;
    }

    private long writeRoundTrip() {
        byte t = nextTag(tag);
        tag = t;
        tx.set(ValueLayout.JAVA_BYTE, flagOffset, t);
        if (lmrSync) {
            Spin.check(session.ia.lmrSyncRdmaWrite(txIov, 1), "dat_lmr_sync_rdma_write");
        }
        Spin.check(client.ep().postRdmaWrite(1, txIov, cookie++, peerRmrContext, peerAddress, size,
                DatCompletionFlags.DEFAULT), WRITE);
        Spin.completion(client.requestEvd(), event, WRITE, responder);
        Spin.awaitByte(rx, flagOffset, t, "the echoed " + WRITE, responder);
        return t;
    }

    /** {@return the next tag: never 0 and never the previous one, so a stale byte is never taken for an echo} */
    static byte nextTag(byte previous) {
        return (byte) (previous == 127 ? 1 : previous + 1);
    }

    /**
     * Send echo: receive, send as many bytes back, then re-post the receive (two are posted, so one always waits):
     * re-posting first would put the stall of taking back the lines the client last read into the round trip.
     */
    private static final class SendEcho extends Responder {
        private final BenchSession.Side side;
        private final Iov txIov;
        private final Iov rxIov;
        private final DatEvent event = new DatEvent();

        SendEcho(BenchSession.Side side, Iov txIov, Iov rxIov) {
            this.side = side;
            this.txIov = txIov;
            this.rxIov = rxIov;
        }

        @Override
        void serve() {
            long cookie = 0;
            while (true) {
                long length = completion(side.recvEvd(), event, RECV);
                if (length < 0) {
                    return;
                }
                Spin.check(side.ep().postSend(1, txIov, cookie, DatCompletionFlags.DEFAULT), SEND);
                Spin.check(side.ep().postRecv(1, rxIov, cookie, DatCompletionFlags.DEFAULT), RECV);
                if (completion(side.requestEvd(), event, SEND) < 0) {
                    return;
                }
                cookie++;
            }
        }
    }

    /** RDMA-write echo: wait for a new tag in the last byte, write the same bytes back, reap the write. */
    private static final class WriteEcho extends Responder {
        private final BenchSession.Side side;
        private final MemorySegment tx;
        private final Iov txIov;
        private final MemorySegment rx;
        private final int peerRmrContext;
        private final long peerAddress;
        private final long flagOffset;
        private final BenchSession lmrSync;
        private final DatEvent event = new DatEvent();

        WriteEcho(BenchSession.Side side, MemorySegment tx, Iov txIov, MemorySegment rx, int peerRmrContext,
                  long peerAddress, long flagOffset, BenchSession lmrSync) {
            this.side = side;
            this.tx = tx;
            this.txIov = txIov;
            this.rx = rx;
            this.peerRmrContext = peerRmrContext;
            this.peerAddress = peerAddress;
            this.flagOffset = flagOffset;
            this.lmrSync = lmrSync;
        }

        @Override
        void serve() {
            long length = flagOffset + 1;
            byte seen = 0;
            long cookie = 0;
            while (true) {
                byte t = awaitChange(rx, flagOffset, seen);
                if (t == seen) {
                    return;
                }
                seen = t;
                tx.set(ValueLayout.JAVA_BYTE, flagOffset, t);
                if (lmrSync != null) {
                    Spin.check(lmrSync.ia.lmrSyncRdmaWrite(txIov, 1), "dat_lmr_sync_rdma_write");
                }
                Spin.check(side.ep().postRdmaWrite(1, txIov, cookie++, peerRmrContext, peerAddress, length,
                        DatCompletionFlags.DEFAULT), WRITE);
                if (completion(side.requestEvd(), event, WRITE) < 0) {
                    return;
                }
            }
        }
    }
}
