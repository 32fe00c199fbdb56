// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatCompletionFlags;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatIa;
import dat.api.Iov;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The server side of {@code dat perf}, on its own platform thread: echoes pingpong messages (send: receive, re-post,
 * send back as many bytes as arrived; write: spin on the flag byte, RDMA-write the same tag back), or counts a
 * stream of sends and acknowledges each phase with an 8-byte count. Like the client, it allocates nothing in its
 * loops and busy-polls; it leaves them once it answered every iteration of the plan, or when the run aborts. On the
 * serving node of a two-node run, where no client runs beside it, it restarts the watchdog's clock per size.
 */
final class PerfResponder implements Runnable {

    private static final String WHO = "responder";
    private static final String SEND = "dat_ep_post_send";
    private static final String RECV = "dat_ep_post_recv";
    private static final String WRITE = "dat_ep_post_rdma_write";

    private final PerfPlan plan;
    private final PerfEngine engine;
    private final PerfEngine.Poller poller;
    private final DatIa ia;
    private final boolean lmrSync;
    private final PerfSession.Side side;
    private final int peerRmrContext;
    private final long peerAddress;
    /** Whether this worker times the sizes for the watchdog: when no client runs in this process. */
    private final boolean timesSizes;

    PerfResponder(PerfPlan plan, PerfEngine engine, PerfSession session) {
        this.plan = plan;
        this.engine = engine;
        this.poller = new PerfEngine.Poller(engine, PerfEngine.STOP, WHO);
        this.ia = session.ia;
        this.lmrSync = session.provider.lmrSyncReq();
        this.side = session.server;
        this.peerRmrContext = side.peerRmrContext;
        this.peerAddress = side.peerAddress;
        this.timesSizes = session.client == null;
    }

    @Override
    public void run() {
        try {
            if (plan.op() == PerfPlan.Op.WRITE) {
                writeEcho();
            } else if (plan.test() == PerfPlan.Test.PINGPONG) {
                sendEcho();
            } else {
                sink();
            }
        } catch (RuntimeException | Error e) {
            engine.fail(WHO + ": " + e);
        }
    }

    /**
     * As many times as the client sends (warm-up and timed, per size): wait for a message, send the same number of
     * bytes back, re-post the receive. The echo goes first: re-posting writes lines the client's delivery last read,
     * and the post's release would wait for them to come back to this core, inside the client's round trip. Two
     * receives are posted ({@link PerfEngine#prepost}), so one waits for the next message while the other is
     * re-posted. An echo's own completion is reaped after the next echo went: a provider that reports a send only
     * when the peer's receive took it (the ofi provider over a fabric that completes at transmit learns that from the
     * peer's next message) has it at the next message, and reaping it before answering put one more dequeue between
     * that message and its echo. So two echoes are outstanding at most (one, reaped at once, on an EP that holds a
     * single request), and the last of a size is reaped after it.
     */
    private void sendEcho() {
        DatEp ep = side.ep;
        DatEvd recvEvd = side.recvEvd;
        DatEvd requestEvd = side.requestEvd;
        Iov txIov = side.txIov;
        Iov rxIov = side.rxIov;
        long cookie = 0;
        int late = ep.query().epAttr().maxRequestDtos() >= 2 ? 1 : 0;
        for (int s = 0; s < plan.sizes().length; s++) {
            beginSize(s);
            int count = plan.warmups()[s] + plan.iters()[s];
            for (int i = 0; i < count; i++) {
                if (!poller.await(recvEvd, RECV)) {
                    return;
                }
                long length = poller.event.transferredLength();
                txIov.set(0, side.txLmr, 0, length);
                if (!poller.posted(ep.postSend(1, txIov, cookie, DatCompletionFlags.DEFAULT), SEND)
                        || !poller.posted(ep.postRecv(1, rxIov, cookie, DatCompletionFlags.DEFAULT), RECV)
                        || (i >= late && !poller.await(requestEvd, SEND))) {
                    return;
                }
                cookie++;
            }
            if (count > 0 && late == 1 && !poller.await(requestEvd, SEND)) {
                return;
            }
        }
    }

    private void beginSize(int s) {
        if (timesSizes) {
            engine.beginSize(s);
        }
    }

    /**
     * Per size, as many times as the client writes: wait for the flag to change, write the same tag back. The flag
     * is cleared once, before the last echo of the size, so the next size starts from 0 (see
     * PerfClient.writeRoundTrips); clearing it every time would write into the line the client writes next.
     */
    private void writeEcho() {
        DatEp ep = side.ep;
        DatEvd requestEvd = side.requestEvd;
        Iov txIov = side.txIov;
        MemorySegment tx = side.tx;
        MemorySegment rx = side.rx;
        int rmrContext = peerRmrContext;
        long target = peerAddress;
        for (int s = 0; s < plan.sizes().length; s++) {
            beginSize(s);
            long size = plan.sizes()[s];
            long flagAt = size - 1;
            int count = plan.warmups()[s] + plan.iters()[s];
            txIov.set(0, side.txLmr, 0, size);
            byte seen = 0;
            for (int i = 0; i < count; i++) {
                byte tag = poller.awaitChange(rx, flagAt, seen);
                if (tag == seen) {
                    return;
                }
                seen = tag;
                if (i == count - 1) {
                    PerfEngine.FLAG.setRelease(rx, flagAt, (byte) 0);
                }
                tx.set(ValueLayout.JAVA_BYTE, flagAt, tag);
                if (lmrSync && !poller.posted(ia.lmrSyncRdmaWrite(txIov, 1), "dat_lmr_sync_rdma_write")) {
                    return;
                }
                if (!poller.posted(ep.postRdmaWrite(1, txIov, i, rmrContext, target, size,
                        DatCompletionFlags.DEFAULT), WRITE) || !poller.await(requestEvd, WRITE)) {
                    return;
                }
            }
            tx.set(ValueLayout.JAVA_BYTE, flagAt, (byte) 0);
        }
    }

    /**
     * Per size and phase (warm-up, then timed): receive as many messages as the client streams, re-posting each
     * buffer as it completes, then acknowledge with the count received.
     */
    private void sink() {
        side.txIov.set(0, side.txLmr, 0, Long.BYTES);
        for (int s = 0; s < plan.sizes().length; s++) {
            beginSize(s);
            if (!sinkPhase(plan.warmups()[s], s) || !sinkPhase(plan.iters()[s], s)) {
                return;
            }
        }
    }

    /** {@return whether the phase ended (trivially, for no messages); {@code false} when halted or failed} */
    private boolean sinkPhase(int count, long cookie) {
        if (count == 0) {
            return true;
        }
        DatEp ep = side.ep;
        DatEvd recvEvd = side.recvEvd;
        Iov rxIov = side.rxIov;
        long received = 0;
        while (received < count) {
            if (!poller.await(recvEvd, RECV)
                    || !poller.posted(ep.postRecv(1, rxIov, received, DatCompletionFlags.DEFAULT), RECV)) {
                return false;
            }
            received++;
        }
        side.tx.set(ValueLayout.JAVA_LONG, 0, received);
        return poller.posted(ep.postSend(1, side.txIov, cookie, DatCompletionFlags.DEFAULT), SEND)
                && poller.await(side.requestEvd, SEND);
    }
}
