// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatMemPriv;
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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Message rate: {@value #MESSAGE}-byte sends posted <i>and</i> completed per second, in batches of {@value #BATCH}
 * (one invocation = {@value #BATCH} operations, so the score is messages per second). Per batch, on one thread:
 * post {@value #BATCH} sends (the loopback provider delivers each into a waiting receive on the posting thread),
 * reap the {@value #BATCH} receive completions with {@code dat_evd_poll}, re-post {@value #BATCH} receives, reap the
 * {@value #BATCH} send completions. Twice {@value #BATCH} receives stay posted, so a send never waits for a buffer,
 * and every queue is drained before the next batch, so none overflows.
 *
 * <ul>
 * <li>{@link #pair}: one connected EP pair, receives on the receiving EP's own queue.</li>
 * <li>{@link #srq}: {@code eps} connected pairs whose receiving EPs share one SRQ (and one receive EVD); the sends
 *     go round-robin over the pairs and the receives are re-posted to the SRQ ({@code dat_srq_post_recv}).</li>
 * </ul>
 * This is the provider's CPU cost per message with sender and receiver on one thread; it includes no thread
 * hand-off (see {@link PingPongBenchmark} for that).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
public class MessageRateBenchmark {

    /** Sends per invocation. */
    static final int BATCH = 64;
    /** Bytes per message. */
    static final int MESSAGE = 64;
    /** Receives kept posted. */
    static final int RECEIVES = 2 * BATCH;

    private static final String SEND = "dat_ep_post_send";
    private static final String RECV = "dat_ep_post_recv";
    private static final String SRQ_RECV = "dat_srq_post_recv";

    /** One connected pair with {@link #RECEIVES} receives posted on the receiving EP. */
    @State(Scope.Thread)
    public static class Pair {
        BenchSession session;
        DatEp sender;
        DatEp receiver;
        DatEvd requestEvd;
        DatEvd recvEvd;
        Iov txIov;
        Iov rxIov;
        BenchSession.Buffer rx;
        int nextRecv;
        final Spin.Reaper reaper = new Spin.Reaper();

        /** Opens the IA, connects the pair, posts the receives. */
        @Setup(Level.Trial)
        public void setUp() {
            session = BenchSession.open(opened -> {
                var attr = opened.epAttr(MESSAGE, 2 * BATCH, RECEIVES);
                BenchSession.Side a = opened.side(attr, 4 * BATCH);
                BenchSession.Side b = opened.side(attr, 4 * BATCH);
                opened.connect(a, b);
                sender = a.ep();
                receiver = b.ep();
                requestEvd = a.requestEvd();
                recvEvd = b.recvEvd();
                txIov = opened.iov(opened.buffer(MESSAGE, DatMemPriv.LOCAL_READ), MESSAGE);
                rx = opened.buffer((long) MESSAGE * RECEIVES, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
                rxIov = Iov.allocate(opened.arena, 1);
                for (int i = 0; i < RECEIVES; i++) {
                    postRecv();
                }
            });
        }

        /** Posts the next of the {@link #RECEIVES} buffers, in ring order (completions come back in order). */
        void postRecv() {
            int slot = nextRecv;
            nextRecv = slot + 1 == RECEIVES ? 0 : slot + 1;
            rxIov.set(0, rx.lmr(), (long) slot * MESSAGE, MESSAGE);
            Spin.check(receiver.postRecv(1, rxIov, slot, DatCompletionFlags.DEFAULT), RECV);
        }

        /** Closes the IA abruptly, then frees the memory. */
        @TearDown(Level.Trial)
        public void tearDown() {
            session.close();
        }
    }

    /** {@code eps} connected pairs whose receiving EPs share one SRQ holding {@link #RECEIVES} receives. */
    @State(Scope.Thread)
    public static class SrqGroup {
        /** Connected EP pairs on the one SRQ. */
        @Param({"1", "4", "16"})
        public int eps;

        BenchSession session;
        DatEp[] senders;
        DatSrq srq;
        DatEvd requestEvd;
        DatEvd recvEvd;
        Iov txIov;
        Iov rxIov;
        BenchSession.Buffer rx;
        int nextRecv;
        int nextSender;
        final Spin.Reaper reaper = new Spin.Reaper();

        /** Opens the IA, creates the SRQ, connects the pairs, posts the receives. */
        @Setup(Level.Trial)
        public void setUp() {
            session = BenchSession.open(opened -> {
                if (!opened.provider.srqSupported()) {
                    throw new IllegalStateException("IA " + opened.ia.name() + " has no SRQ (srq_supported false)");
                }
                var attr = opened.epAttr(MESSAGE, 2 * BATCH, 1);
                srq = opened.ia.createSrq(opened.pz, DatSrqAttr.of(RECEIVES, 1));
                requestEvd = opened.evd(4 * BATCH, DatEvdFlags.DTO);
                recvEvd = opened.evd(4 * BATCH, DatEvdFlags.DTO);
                senders = new DatEp[eps];
                for (int i = 0; i < eps; i++) {
                    BenchSession.Side a = opened.side(attr, requestEvd, null, null);
                    BenchSession.Side b = opened.side(attr, null, recvEvd, srq);
                    opened.connect(a, b);
                    senders[i] = a.ep();
                }
                txIov = opened.iov(opened.buffer(MESSAGE, DatMemPriv.LOCAL_READ), MESSAGE);
                rx = opened.buffer((long) MESSAGE * RECEIVES, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
                rxIov = Iov.allocate(opened.arena, 1);
                for (int i = 0; i < RECEIVES; i++) {
                    postRecv();
                }
            });
        }

        void postRecv() {
            int slot = nextRecv;
            nextRecv = slot + 1 == RECEIVES ? 0 : slot + 1;
            rxIov.set(0, rx.lmr(), (long) slot * MESSAGE, MESSAGE);
            Spin.check(srq.postRecv(1, rxIov, slot), SRQ_RECV);
        }

        /** {@return the next sender, round-robin} */
        DatEp nextSender() {
            int i = nextSender;
            nextSender = i + 1 == senders.length ? 0 : i + 1;
            return senders[i];
        }

        /** Closes the IA abruptly, then frees the memory. */
        @TearDown(Level.Trial)
        public void tearDown() {
            session.close();
        }
    }

    /**
     * One batch on one EP pair.
     *
     * @param p the pair
     * @return bytes received in the batch
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long pair(Pair p) {
        for (int i = 0; i < BATCH; i++) {
            Spin.check(p.sender.postSend(1, p.txIov, i, DatCompletionFlags.DEFAULT), SEND);
        }
        Spin.reap(p.recvEvd, p.reaper, BATCH, RECV);
        long bytes = p.reaper.bytes;
        for (int i = 0; i < BATCH; i++) {
            p.postRecv();
        }
        Spin.reap(p.requestEvd, p.reaper, BATCH, SEND);
        return bytes;
    }

    /**
     * One batch spread over the pairs of one SRQ.
     *
     * @param g the SRQ group
     * @return bytes received in the batch
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long srq(SrqGroup g) {
        for (int i = 0; i < BATCH; i++) {
            Spin.check(g.nextSender().postSend(1, g.txIov, i, DatCompletionFlags.DEFAULT), SEND);
        }
        Spin.reap(g.recvEvd, g.reaper, BATCH, SRQ_RECV);
        long bytes = g.reaper.bytes;
        for (int i = 0; i < BATCH; i++) {
            g.postRecv();
        }
        Spin.reap(g.requestEvd, g.reaper, BATCH, SEND);
        return bytes;
    }
}
