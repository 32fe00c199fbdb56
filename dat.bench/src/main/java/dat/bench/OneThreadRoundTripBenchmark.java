// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import dat.api.DatCompletionFlags;
import dat.api.DatEvent;
import dat.api.DatMemPriv;
import dat.api.Iov;
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
 * A send/recv round trip with both endpoints on the benchmark's one thread: what a provider's data path costs in CPU
 * per message, without the cross-core hand-off, the scheduler or a second process. Meant for the fabric providers,
 * whose two-process ping-pong ({@code dat perf pingpong}) mixes that cost with the wake-ups of two busy-polling
 * processes on a two-core machine: {@code -Ddat.bench.ia=ofi-shm-shm-rdm} (or any IA whose EPs connect to each other
 * inside one process). On loopback it measures the same path as {@link SingleThreadLatencyBenchmark#sendRecv} twice.
 *
 * <p>Each side's send is completed by the other side's reply: a provider whose send completes only when the peer's
 * receive took it (the ofi provider over tcp and shm) learns that from the reply's receiver credits, so the reply's
 * own send completion is taken one round trip later, after the next message carried the credit back.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m", "--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class OneThreadRoundTripBenchmark {

    private static final String SEND = "dat_ep_post_send";
    private static final String RECV = "dat_ep_post_recv";

    /** Message size in bytes. */
    @Param({"64"})
    public int size;

    private BenchSession session;
    private BenchSession.Side ping;
    private BenchSession.Side pong;
    private Iov pingTx;
    private Iov pingRx;
    private Iov pongTx;
    private Iov pongRx;
    private long cookie;
    private boolean replied;
    private final DatEvent event = new DatEvent();

    /** Opens the IA, connects the pair, registers the buffers and posts each side's first receive. */
    @Setup(Level.Trial)
    public void setUp() {
        session = BenchSession.open(opened -> {
            var attr = opened.epAttr(size, 4, 4);
            ping = opened.side(attr, 8);
            pong = opened.side(attr, 8);
            opened.connect(ping, pong);
            int local = DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE;
            pingTx = opened.iov(opened.buffer(size, local), size);
            pingRx = opened.iov(opened.buffer(size, local), size);
            pongTx = opened.iov(opened.buffer(size, local), size);
            pongRx = opened.iov(opened.buffer(size, local), size);
            Spin.check(ping.ep().postRecv(1, pingRx, 0, DatCompletionFlags.DEFAULT), RECV);
            Spin.check(pong.ep().postRecv(1, pongRx, 0, DatCompletionFlags.DEFAULT), RECV);
        });
    }

    /** Closes the IA abruptly, then frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        session.close();
    }

    /**
     * Ping sends, pong takes it, re-posts its receive and replies, ping takes the reply and re-posts; then each
     * side's earliest send completion that its peer's credit has made due.
     *
     * @return the reply's length
     */
    @Benchmark
    public long roundTrip() {
        long c = cookie++;
        Spin.check(ping.ep().postSend(1, pingTx, c, DatCompletionFlags.DEFAULT), SEND);
        expect(Spin.completion(pong.recvEvd(), event, RECV, null));
        if (replied) {
            Spin.completion(pong.requestEvd(), event, SEND, null);
        }
        Spin.check(pong.ep().postRecv(1, pongRx, c, DatCompletionFlags.DEFAULT), RECV);
        Spin.check(pong.ep().postSend(1, pongTx, c, DatCompletionFlags.DEFAULT), SEND);
        replied = true;
        long received = expect(Spin.completion(ping.recvEvd(), event, RECV, null));
        Spin.check(ping.ep().postRecv(1, pingRx, c, DatCompletionFlags.DEFAULT), RECV);
        Spin.completion(ping.requestEvd(), event, SEND, null);
        return received;
    }

    /**
     * One {@code dat_evd_dequeue} that finds nothing, on the receive EVD of a connected endpoint with a receive
     * posted: what each turn of a consumer's polling loop costs while it waits for a message. Halving it on
     * ofi-shm-shm-rdm did not shorten a two-process ping-pong (CHANGELOG, twenty-first session): a turn's CPU is not
     * where that round trip's time goes.
     *
     * @return the dequeue's status ({@code DAT_QUEUE_EMPTY})
     */
    @Benchmark
    public int emptyDequeue() {
        return ping.recvEvd().dequeue(event);
    }

    private long expect(long received) {
        if (received != size) {
            throw new IllegalStateException("received " + received + " bytes, expected " + size);
        }
        return received;
    }
}
