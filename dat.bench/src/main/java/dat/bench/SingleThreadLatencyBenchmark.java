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
 * The pure provider path, without a second thread: the loopback provider delivers a send on the posting thread
 * when a receive is waiting, so one thread can post, let the receive complete, and dequeue both completions.
 * Sampled in nanoseconds per operation; compare with {@link PingPongBenchmark} ({@code RTT / 2}) to see what the
 * cross-thread hand-off costs.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class SingleThreadLatencyBenchmark {

    private static final String SEND = "dat_ep_post_send";
    private static final String RECV = "dat_ep_post_recv";
    private static final String WRITE = "dat_ep_post_rdma_write";

    /** Message size in bytes. */
    @Param({"8", "64", "512", "4096", "65536", "1048576"})
    public int size;

    private BenchSession session;
    private BenchSession.Side client;
    private BenchSession.Side server;
    private Iov txIov;
    private Iov rxIov;
    private int peerRmrContext;
    private long peerAddress;
    private long cookie;
    private final DatEvent event = new DatEvent();

    /** Opens the IA, connects the pair, registers the buffers and posts the first receive. */
    @Setup(Level.Trial)
    public void setUp() {
        session = BenchSession.open(opened -> {
            var attr = opened.epAttr(size, 4, 4);
            client = opened.side(attr, 8);
            server = opened.side(attr, 8);
            opened.connect(client, server);
            BenchSession.Buffer tx = opened.buffer(size, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
            BenchSession.Buffer rx = opened.buffer(size,
                    DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_WRITE);
            txIov = opened.iov(tx, size);
            rxIov = opened.iov(rx, size);
            peerRmrContext = rx.lmr().rmrContext();
            peerAddress = rx.lmr().address();
            Spin.check(server.ep().postRecv(1, rxIov, 0, DatCompletionFlags.DEFAULT), RECV);
        });
    }

    /** Closes the IA abruptly, then frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        session.close();
    }

    /**
     * Post a send, dequeue the peer's receive completion, re-post the receive, dequeue the send completion.
     *
     * @return the received length
     */
    @Benchmark
    public long sendRecv() {
        long c = cookie++;
        Spin.check(client.ep().postSend(1, txIov, c, DatCompletionFlags.DEFAULT), SEND);
        long received = Spin.completion(server.recvEvd(), event, RECV, null);
        Spin.check(server.ep().postRecv(1, rxIov, c, DatCompletionFlags.DEFAULT), RECV);
        Spin.completion(client.requestEvd(), event, SEND, null);
        if (received != size) {
            throw new IllegalStateException("received " + received + " bytes, expected " + size);
        }
        return received;
    }

    /**
     * Post an RDMA write into the peer's buffer and dequeue its completion.
     *
     * @return the written length
     */
    @Benchmark
    public long rdmaWrite() {
        Spin.check(client.ep().postRdmaWrite(1, txIov, cookie++, peerRmrContext, peerAddress, size,
                DatCompletionFlags.DEFAULT), WRITE);
        return Spin.completion(client.requestEvd(), event, WRITE, null);
    }
}
