// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.api.Iov;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The measuring side of {@code dat perf}, run on its own platform thread.
 *
 * <p>Every timed loop works on objects made before it starts (the IOVs, one {@link dat.api.DatEvent}, the
 * registered buffers, the {@link LatencyHistogram} of fixed size, whatever the iteration count): a post, a
 * {@code dat_evd_dequeue} busy-poll with {@link Thread#onSpinWait()} (see {@link PerfEngine#SPINS_BEFORE_YIELD}), two
 * {@link System#nanoTime()} reads and a histogram count per sampled iteration, and nothing that allocates. Reading
 * the percentiles and building the result happen after the clock stops.
 *
 * <p>Latency: a sampled pingpong iteration is timed on its own, from just before the post to the moment the answer is
 * seen (the echo's receive completion, the flag byte of the peer's RDMA write, the RDMA read's completion). For
 * send and write the sample is a round trip, reported halved as the one-way latency, as fi_pingpong does; an RDMA
 * read is one transfer and reported whole. The mean comes from the wall time of the whole timed loop, which
 * fi_pingpong times alone: so only one iteration in {@link #sampleEvery} is sampled, enough for {@link #SAMPLES}
 * samples. A clock read took 32 ns on this project's machine (2026-11-28): two per round trip are about a seventh of
 * a loopback round trip and a twentieth of one on ofi/shm, which a mean with them in every iteration carried and
 * fi_pingpong's does not.
 */
final class PerfClient implements Runnable {

    private static final String WHO = "client";
    private static final String SEND = "dat_ep_post_send";
    private static final String RECV = "dat_ep_post_recv";
    private static final String WRITE = "dat_ep_post_rdma_write";
    private static final String READ = "dat_ep_post_rdma_read";

    private final PerfPlan plan;
    private final PerfEngine engine;
    private final PerfEngine.Poller poller;
    private final DatIa ia;
    private final boolean lmrSync;
    private final PerfSession.Side side;
    private final int peerRmrContext;
    private final long peerAddress;
    private final LatencyHistogram samples = new LatencyHistogram();
    /**
     * The fewest iterations of a size sampled, unless it has fewer: every one up to this many, then one in {@link
     * #sampleEvery}.
     */
    static final int SAMPLES = 10_000;
    /** One iteration in this many is sampled, for the size in flight (its warm-up too, so it runs the same code). */
    private int sampleEvery = 1;
    /** The write pingpong's last tag of the size in flight, 0 when the size starts. */
    private byte lastTag;

    PerfClient(PerfPlan plan, PerfEngine engine, PerfSession session) {
        this.plan = plan;
        this.engine = engine;
        this.poller = new PerfEngine.Poller(engine, PerfEngine.ABORT, WHO);
        this.ia = session.ia;
        this.lmrSync = session.provider.lmrSyncReq();
        this.side = session.client;
        this.peerRmrContext = side.peerRmrContext;
        this.peerAddress = side.peerAddress;
    }

    @Override
    public void run() {
        try {
            for (int s = 0; s < plan.sizes().length; s++) {
                engine.beginSize(s);
                PerfResult result = plan.test() == PerfPlan.Test.PINGPONG ? pingpong(s) : stream(s);
                if (result == null) {
                    return;
                }
                engine.complete(s, result);
            }
        } catch (RuntimeException | Error e) {
            engine.fail(WHO + ": " + e);
        }
    }

    private PerfResult pingpong(int s) {
        long size = plan.sizes()[s];
        int iters = plan.iters()[s];
        int warmup = plan.warmups()[s];
        long start;
        long end;
        sampleEvery = sampleEvery(iters);
        // The warm-up records too, and its samples are dropped: the timed loop then runs the very code the warm-up
        // compiled. A branch first taken when the clock started deoptimized the loop, and the first tens of
        // milliseconds of the timed part ran in slower code (seen with -XX:+PrintCompilation).
        switch (plan.op()) {
            case SEND -> {
                side.txIov.set(0, side.txLmr, 0, size);
                if (!sendRoundTrips(size, warmup)) {
                    return null;
                }
                samples.reset();
                start = System.nanoTime();
                if (!sendRoundTrips(size, iters)) {
                    return null;
                }
                end = System.nanoTime();
            }
            case WRITE -> {
                side.txIov.set(0, side.txLmr, 0, size);
                lastTag = 0;
                if (!writeRoundTrips(size, warmup)) {
                    return null;
                }
                samples.reset();
                start = System.nanoTime();
                if (!writeRoundTrips(size, iters)) {
                    return null;
                }
                end = System.nanoTime();
                // Keep the transmit buffer zero but for the flag of the size in flight, and clear the flag the last
                // echo left, once per size: the server writes nothing more of this size (see writeRoundTrips).
                side.tx.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
                PerfEngine.FLAG.setRelease(side.rx, size - 1, (byte) 0);
            }
            case READ -> {
                side.rxIov.set(0, side.rxLmr, 0, size);
                if (!reads(size, warmup)) {
                    return null;
                }
                samples.reset();
                start = System.nanoTime();
                if (!reads(size, iters)) {
                    return null;
                }
                end = System.nanoTime();
            }
            default -> throw new IllegalStateException("op " + plan.op());
        }
        int xfers = plan.xfersPerIter();
        long p50 = samples.percentile(0.50) / xfers;
        long p99 = samples.percentile(0.99) / xfers;
        return new PerfResult(size, iters, iters, iters, size * iters * xfers, end - start, (long) iters * xfers,
                p50, p99);
    }

    /** {@return one iteration in how many is sampled when a size has {@code iters} timed ones} */
    static int sampleEvery(int iters) {
        return Math.max(1, iters / SAMPLES);
    }

    /**
     * Send pingpong: post the message, spin for the echo on the receive EVD, stop the clock, re-post the receive
     * and reap the send's completion. One receive is posted before the first iteration, so it is always waiting.
     */
    private boolean sendRoundTrips(long size, int count) {
        DatEp ep = side.ep;
        DatEvd recvEvd = side.recvEvd;
        DatEvd requestEvd = side.requestEvd;
        Iov txIov = side.txIov;
        Iov rxIov = side.rxIov;
        int every = sampleEvery;
        for (int i = 0, untilSample = 0; i < count; i++, untilSample--) {
            boolean sampled = untilSample == 0;
            long t0 = sampled ? System.nanoTime() : 0;
            if (!poller.posted(ep.postSend(1, txIov, i, DatCompletionFlags.DEFAULT), SEND)
                    || !poller.await(recvEvd, RECV)) {
                return false;
            }
            if (sampled) {
                samples.record(System.nanoTime() - t0);
                untilSample = every;
            }
            if (poller.event.transferredLength() != size) {
                poller.fail("echo of a " + size + "-byte message was " + poller.event.transferredLength() + " bytes");
                return false;
            }
            if (!poller.posted(ep.postRecv(1, rxIov, i, DatCompletionFlags.DEFAULT), RECV)
                    || !poller.await(requestEvd, SEND)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Write pingpong, as ib_write_lat: put the next tag in the last byte of the transmit buffer, RDMA-write the
     * message into the server's receive buffer, spin until the server's write changes the last byte of ours to that
     * tag, stop the clock, reap the write's completion.
     *
     * <p>Only the writer writes a message's line. The receiver does not clear the flag it found: that store went
     * into the line the peer writes next, so the line crossed between the cores once more per message, which
     * neither ib_write_lat nor the C floor of bench/compare.sh pays. A receiver waits for the byte to change
     * instead: tags run 1..127 and each differs from the one before ({@link #lastTag} carries the sequence from the
     * warm-up into the timed loop). Why a stale flag can never be mistaken for an answer: both receive buffers hold
     * 0 at a size's flag when the size starts, since each side clears its own once per size, after its last message
     * of that size arrived and before the peer can write again (the client after the last echo, the server before
     * it echoes the last ping); the transmit buffers are zero but for the flag of the size in flight, and every write
     * moves exactly one message of that size, so it leaves 0 wherever another size's flag is.
     */
    private boolean writeRoundTrips(long size, int count) {
        DatEp ep = side.ep;
        DatEvd requestEvd = side.requestEvd;
        Iov txIov = side.txIov;
        MemorySegment tx = side.tx;
        MemorySegment rx = side.rx;
        long flagAt = size - 1;
        int rmrContext = peerRmrContext;
        long target = peerAddress;
        int every = sampleEvery;
        for (int i = 0, untilSample = 0; i < count; i++, untilSample--) {
            boolean sampled = untilSample == 0;
            byte previous = lastTag;
            byte tag = PerfEngine.nextTag(previous);
            lastTag = tag;
            tx.set(ValueLayout.JAVA_BYTE, flagAt, tag);
            if (lmrSync && !poller.posted(ia.lmrSyncRdmaWrite(txIov, 1), "dat_lmr_sync_rdma_write")) {
                return false;
            }
            long t0 = sampled ? System.nanoTime() : 0;
            if (!poller.posted(ep.postRdmaWrite(1, txIov, i, rmrContext, target, size, DatCompletionFlags.DEFAULT),
                    WRITE)) {
                return false;
            }
            byte answer = poller.awaitChange(rx, flagAt, previous);
            long t1 = sampled ? System.nanoTime() : 0;
            if (answer == previous) {
                return false;
            }
            if (sampled) {
                samples.record(t1 - t0);
                untilSample = every;
            }
            if (answer != tag) {
                poller.fail("the answer to tag " + tag + " carried tag " + answer);
                return false;
            }
            if (!poller.await(requestEvd, WRITE)) {
                return false;
            }
        }
        return true;
    }

    /** Read latency: post an RDMA read of the server's buffer and spin for its completion. */
    private boolean reads(long size, int count) {
        DatEp ep = side.ep;
        DatEvd requestEvd = side.requestEvd;
        Iov rxIov = side.rxIov;
        int rmrContext = peerRmrContext;
        long target = peerAddress;
        int every = sampleEvery;
        for (int i = 0, untilSample = 0; i < count; i++, untilSample--) {
            boolean sampled = untilSample == 0;
            long t0 = sampled ? System.nanoTime() : 0;
            if (!poller.posted(ep.postRdmaRead(1, rxIov, i, rmrContext, target, size, DatCompletionFlags.DEFAULT),
                    READ) || !poller.await(requestEvd, READ)) {
                return false;
            }
            if (sampled) {
                samples.record(System.nanoTime() - t0);
                untilSample = every;
            }
            if (lmrSync && !poller.posted(ia.lmrSyncRdmaRead(rxIov, 1), "dat_lmr_sync_rdma_read")) {
                return false;
            }
        }
        return true;
    }

    private PerfResult stream(int s) {
        long size = plan.sizes()[s];
        int iters = plan.iters()[s];
        int warmup = plan.warmups()[s];
        if (plan.op() == PerfPlan.Op.READ) {
            side.rxIov.set(0, side.rxLmr, 0, size);
        } else {
            side.txIov.set(0, side.txLmr, 0, size);
        }
        if (warmup > 0 && streamPhase(size, warmup) < 0) {
            return null;
        }
        long start = System.nanoTime();
        long acked = streamPhase(size, iters);
        long end = System.nanoTime();
        if (acked < 0) {
            return null;
        }
        return new PerfResult(size, iters, iters, acked, size * iters, end - start, iters, -1, -1);
    }

    /**
     * Streams {@code count} operations with at most {@link PerfPlan#window()} outstanding, reaping completions as
     * they come. Sends end with the receiver's acknowledgement, an 8-byte count of the messages it received,
     * which is what the sender returns; RDMA operations end with their last completion.
     *
     * @return operations acknowledged, or -1 when halted or failed
     */
    private long streamPhase(long size, int count) {
        DatEp ep = side.ep;
        DatEvd requestEvd = side.requestEvd;
        PerfPlan.Op op = plan.op();
        String call = op == PerfPlan.Op.SEND ? SEND : op == PerfPlan.Op.WRITE ? WRITE : READ;
        Iov txIov = side.txIov;
        Iov rxIov = side.rxIov;
        int rmrContext = peerRmrContext;
        long target = peerAddress;
        int window = plan.window();
        int posted = 0;
        int done = 0;
        int spins = 0;
        while (done < count) {
            while (posted < count && posted - done < window) {
                int rc = switch (op) {
                    case SEND -> ep.postSend(1, txIov, posted, DatCompletionFlags.DEFAULT);
                    case WRITE -> ep.postRdmaWrite(1, txIov, posted, rmrContext, target, size,
                            DatCompletionFlags.DEFAULT);
                    case READ -> ep.postRdmaRead(1, rxIov, posted, rmrContext, target, size,
                            DatCompletionFlags.DEFAULT);
                };
                if (rc == DatReturn.DAT_SUCCESS) {
                    posted++;
                } else if (rc == DatReturn.DAT_INSUFFICIENT_RESOURCES && posted > done) {
                    // The request queue is full until a completion is reaped: reap, then post again.
                    break;
                } else {
                    poller.posted(rc, call);
                    return -1;
                }
            }
            int rc = requestEvd.dequeue(poller.event);
            if (rc == DatReturn.DAT_SUCCESS) {
                if (!poller.completed(call)) {
                    return -1;
                }
                done++;
                spins = 0;
            } else if (rc != DatReturn.DAT_QUEUE_EMPTY) {
                poller.fail("dat_evd_dequeue after " + call + " returned " + DatReturn.toString(rc));
                return -1;
            } else if (poller.halted()) {
                return -1;
            } else {
                spins = PerfEngine.Poller.idle(spins);
            }
        }
        if (op != PerfPlan.Op.SEND) {
            return done;
        }
        if (!poller.await(side.recvEvd, RECV)) {
            return -1;
        }
        long acked = side.rx.get(ValueLayout.JAVA_LONG, 0);
        side.rxIov.set(0, side.rxLmr, 0, side.rxLmr.length());
        return poller.posted(side.ep.postRecv(1, side.rxIov, 0, DatCompletionFlags.DEFAULT), RECV) ? acked : -1;
    }
}
