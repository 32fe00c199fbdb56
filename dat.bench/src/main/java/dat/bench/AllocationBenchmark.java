// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Allocation per data-path call, for {@code -prof gc}: {@code gc.alloc.rate.norm} is then the bytes allocated per
 * operation, which must be 0 (house style 7). Single-threaded, and each benchmark isolates one call as far as DAT
 * allows while staying sustainable (every queue returns to where it started after each operation):
 *
 * <table>
 * <caption>What one operation does</caption>
 * <tr><th>benchmark</th><th>calls per operation</th></tr>
 * <tr><td>{@code postRdmaWrite}</td><td>{@code dat_ep_post_rdma_write} with SUPPRESS (a successful DTO then posts no
 *     event, so nothing needs reaping)</td></tr>
 * <tr><td>{@code postRdmaRead}</td><td>{@code dat_ep_post_rdma_read} with SUPPRESS</td></tr>
 * <tr><td>{@code postSend}</td><td>{@code dat_ep_post_send} (SUPPRESS), delivered inside the call into a waiting
 *     receive (SUPPRESS), then {@code dat_ep_post_recv} (SUPPRESS) to replace that receive: a receive only leaves
 *     its queue when a send consumes it, so the two cannot be measured apart</td></tr>
 * <tr><td>{@code postRecv}</td><td>the same two calls the other way round: with no receive waiting, the send is
 *     queued, and the delivery runs inside {@code dat_ep_post_recv}</td></tr>
 * <tr><td>{@code srqPostRecv}</td><td>{@code dat_ep_post_send} (SUPPRESS) into a waiting SRQ buffer (the receiving
 *     EP has no receive EVD, so no event), then {@code dat_srq_post_recv} to replace it</td></tr>
 * <tr><td>{@code evdDequeue}</td><td>{@code dat_ep_post_rdma_write} (signalled) and {@code dat_evd_dequeue} of its
 *     completion: subtract {@code postRdmaWrite}</td></tr>
 * <tr><td>{@code evdPoll}</td><td>the same with {@code dat_evd_poll(handler, 1)}</td></tr>
 * <tr><td>{@code evdDequeueEmpty}, {@code evdPollEmpty}</td><td>the call on an empty EVD</td></tr>
 * <tr><td>{@code sendRecvSignalled}</td><td>the whole signalled send path: post send, dequeue the receive
 *     completion, re-post the receive, dequeue the send completion</td></tr>
 * </table>
 *
 * <p>Run: {@code java -jar dat.bench/target/benchmarks.jar AllocationBenchmark -prof gc}. Times are reported too
 * (ns/op), but the point is {@code gc.alloc.rate.norm}; a few thousandths of a byte per operation are JMH's own
 * per-iteration bookkeeping spread over millions of operations, not the provider. A real figure is traced with
 * JFR: {@code -prof jfr:dir=target/jfr}, then
 * {@code jfr print --events jdk.ObjectAllocationSample --stack-depth 64 target/jfr/<benchmark>/profile.jfr} and
 * look for frames in {@code dat.} packages.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
@State(Scope.Thread)
public class AllocationBenchmark {

    private static final int MESSAGE = 64;
    private static final String SEND = "dat_ep_post_send";
    private static final String RECV = "dat_ep_post_recv";
    private static final String SRQ_RECV = "dat_srq_post_recv";
    private static final String WRITE = "dat_ep_post_rdma_write";
    private static final String READ = "dat_ep_post_rdma_read";
    private static final String DEQUEUE = "dat_evd_dequeue";
    private static final String POLL = "dat_evd_poll";
    private static final int SUPPRESS = DatCompletionFlags.SUPPRESS;

    private BenchSession session;
    /** Receiver holds one suppressed receive between operations. */
    private DatEp sendA;
    private DatEp recvA;
    /** Receiver holds no receive between operations. */
    private DatEp sendB;
    private DatEp recvB;
    /** Receiver on an SRQ that holds one buffer between operations; no receive EVD. */
    private DatEp sendS;
    private DatSrq srq;
    /** Signalled pair: receiver holds one signalled receive between operations. */
    private DatEp sendC;
    private DatEp recvC;
    private DatEvd requestEvdA;
    private DatEvd requestEvdC;
    private DatEvd recvEvdC;
    private DatEvd emptyEvd;
    private Iov txIov;
    private Iov rxIov;
    private int remoteRmrContext;
    private long remoteAddress;
    private long cookie;
    private final DatEvent event = new DatEvent();
    private final Spin.Reaper reaper = new Spin.Reaper();

    /** Opens the IA and connects four pairs, each in the state its benchmarks keep. */
    @Setup(Level.Trial)
    public void setUp() {
        session = BenchSession.open(opened -> {
            var attr = opened.epAttr(MESSAGE, 4, 4);
            BenchSession.Side a = opened.side(attr, 8);
            BenchSession.Side a2 = opened.side(attr, 8);
            opened.connect(a, a2);
            sendA = a.ep();
            recvA = a2.ep();
            requestEvdA = a.requestEvd();

            BenchSession.Side b = opened.side(attr, 8);
            BenchSession.Side b2 = opened.side(attr, 8);
            opened.connect(b, b2);
            sendB = b.ep();
            recvB = b2.ep();

            srq = opened.ia.createSrq(opened.pz, DatSrqAttr.of(4, 1));
            BenchSession.Side s = opened.side(attr, 8);
            BenchSession.Side s2 = opened.side(attr, null, null, srq);
            opened.connect(s, s2);
            sendS = s.ep();

            BenchSession.Side c = opened.side(attr, 8);
            BenchSession.Side c2 = opened.side(attr, 8);
            opened.connect(c, c2);
            sendC = c.ep();
            recvC = c2.ep();
            requestEvdC = c.requestEvd();
            recvEvdC = c2.recvEvd();

            emptyEvd = opened.evd(8, DatEvdFlags.DTO);

            txIov = opened.iov(opened.buffer(MESSAGE, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE), MESSAGE);
            BenchSession.Buffer rx = opened.buffer(MESSAGE, DatMemPriv.ALL);
            rxIov = opened.iov(rx, MESSAGE);
            remoteRmrContext = rx.lmr().rmrContext();
            remoteAddress = rx.lmr().address();

            Spin.check(recvA.postRecv(1, rxIov, 0, SUPPRESS), RECV);
            Spin.check(srq.postRecv(1, rxIov, 0), SRQ_RECV);
            Spin.check(recvC.postRecv(1, rxIov, 0, DatCompletionFlags.DEFAULT), RECV);
        });
    }

    /** Closes the IA abruptly, then frees the memory. */
    @TearDown(Level.Trial)
    public void tearDown() {
        session.close();
    }

    /** {@return the status, {@code DAT_SUCCESS}} */
    @Benchmark
    public int postRdmaWrite() {
        int rc = sendA.postRdmaWrite(1, txIov, cookie++, remoteRmrContext, remoteAddress, MESSAGE, SUPPRESS);
        Spin.check(rc, WRITE);
        return rc;
    }

    /** {@return the status, {@code DAT_SUCCESS}} */
    @Benchmark
    public int postRdmaRead() {
        int rc = sendA.postRdmaRead(1, txIov, cookie++, remoteRmrContext, remoteAddress, MESSAGE, SUPPRESS);
        Spin.check(rc, READ);
        return rc;
    }

    /** {@return the statuses, {@code DAT_SUCCESS}} */
    @Benchmark
    public int postSend() {
        int rc = sendA.postSend(1, txIov, cookie++, SUPPRESS);
        Spin.check(rc, SEND);
        int rc2 = recvA.postRecv(1, rxIov, cookie, SUPPRESS);
        Spin.check(rc2, RECV);
        return rc | rc2;
    }

    /** {@return the statuses, {@code DAT_SUCCESS}} */
    @Benchmark
    public int postRecv() {
        int rc = sendB.postSend(1, txIov, cookie++, SUPPRESS);
        Spin.check(rc, SEND);
        int rc2 = recvB.postRecv(1, rxIov, cookie, SUPPRESS);
        Spin.check(rc2, RECV);
        return rc | rc2;
    }

    /** {@return the statuses, {@code DAT_SUCCESS}} */
    @Benchmark
    public int srqPostRecv() {
        int rc = sendS.postSend(1, txIov, cookie++, SUPPRESS);
        Spin.check(rc, SEND);
        int rc2 = srq.postRecv(1, rxIov, cookie);
        Spin.check(rc2, SRQ_RECV);
        return rc | rc2;
    }

    /** {@return the completion's length} */
    @Benchmark
    public long evdDequeue() {
        Spin.check(sendA.postRdmaWrite(1, txIov, cookie++, remoteRmrContext, remoteAddress, MESSAGE,
                DatCompletionFlags.DEFAULT), WRITE);
        int rc = requestEvdA.dequeue(event);
        Spin.check(rc, DEQUEUE);
        return Spin.completed(event, WRITE);
    }

    /** {@return the completion's length} */
    @Benchmark
    public long evdPoll() {
        Spin.check(sendA.postRdmaWrite(1, txIov, cookie++, remoteRmrContext, remoteAddress, MESSAGE,
                DatCompletionFlags.DEFAULT), WRITE);
        reaper.reset();
        int n = requestEvdA.poll(reaper, 1);
        reaper.verify(WRITE);
        if (n != 1) {
            throw new IllegalStateException(POLL + " returned " + DatReturn.toString(n) + ", expected 1 event");
        }
        return reaper.bytes;
    }

    /** {@return {@code DAT_QUEUE_EMPTY}} */
    @Benchmark
    public int evdDequeueEmpty() {
        int rc = emptyEvd.dequeue(event);
        if (rc != DatReturn.DAT_QUEUE_EMPTY) {
            throw new IllegalStateException(DEQUEUE + " on an empty EVD returned " + DatReturn.toString(rc));
        }
        return rc;
    }

    /** {@return 0 events} */
    @Benchmark
    public int evdPollEmpty() {
        int n = emptyEvd.poll(reaper, 1);
        if (n != 0) {
            throw new IllegalStateException(POLL + " on an empty EVD returned " + DatReturn.toString(n));
        }
        return n;
    }

    /** {@return the received length} */
    @Benchmark
    public long sendRecvSignalled() {
        long c = cookie++;
        Spin.check(sendC.postSend(1, txIov, c, DatCompletionFlags.DEFAULT), SEND);
        Spin.check(recvEvdC.dequeue(event), DEQUEUE);
        long received = Spin.completed(event, RECV);
        Spin.check(recvC.postRecv(1, rxIov, c, DatCompletionFlags.DEFAULT), RECV);
        Spin.check(requestEvdC.dequeue(event), DEQUEUE);
        Spin.completed(event, SEND);
        return received;
    }
}
