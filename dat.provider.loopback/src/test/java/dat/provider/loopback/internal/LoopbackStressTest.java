// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatLmr;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several senders, each on its own connection, into EPs sharing one SRQ, drained by one receiver thread that
 * reposts buffers as it reaps them. One connection is broken abruptly half way. Every message carries its
 * connection, sequence number and checksum: each must arrive exactly once, intact, in per-connection order,
 * and for every connection delivered + flushed = posted. Then one sender into an EP's own, very short receive
 * queue, so that sends keep waiting for receives another thread posts.
 */
class LoopbackStressTest {

    private static final int SENDERS = 4;
    private static final int MESSAGES = 20_000;
    private static final int MSG = 32;
    private static final int SRQ_SIZE = 64;
    private static final int WINDOW = 16;

    private static long checksum(MemorySegment s, long offset) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < 24; i++) {
            h = (h ^ (s.get(ValueLayout.JAVA_BYTE, offset + i) & 0xff)) * 0x100000001b3L;
        }
        return h;
    }

    @Test
    @Timeout(180)
    void everyMessageExactlyOnceInOrderAndNothingLostOnDisconnect() throws Exception {
        try (Loop a = new Loop("stress0"); Loop b = new Loop("stress1")) {
            DatSrq srq = b.ia.createSrq(b.pz, DatSrqAttr.of(SRQ_SIZE, 1));
            DatEvd recvEvd = b.ia.createEvd(4 * SRQ_SIZE, null, DatEvdFlags.DTO);
            DatEp[] servers = new DatEp[SENDERS];
            DatEp[] clients = new DatEp[SENDERS];
            DatEvd[] requestEvds = new DatEvd[SENDERS];
            for (int c = 0; c < SENDERS; c++) {
                servers[c] = b.ia.createEpWithSrq(b.pz, recvEvd, b.requestEvd, b.connectEvd, srq, null);
                requestEvds[c] = a.ia.createEvd(4 * WINDOW, null, DatEvdFlags.DTO);
                clients[c] = a.ia.createEp(a.pz, a.recvEvd, requestEvds[c], a.connectEvd,
                        DatEpAttr.builder().maxRequestDtos(WINDOW).build());
                a.connect(clients[c], b, servers[c]);
                servers[c].consumerContext(c);
            }
            DatLmr recvMem = b.lmr((long) SRQ_SIZE * MSG);
            Iov recvIov = b.iov(1);
            for (int slot = 0; slot < SRQ_SIZE; slot++) {
                assertEquals(DatReturn.DAT_SUCCESS, srq.postRecv(1, recvIov.set(0, recvMem, (long) slot * MSG, MSG),
                        slot));
            }

            long[] success = new long[SENDERS];
            long[] flushed = new long[SENDERS];
            int[] nextSeq = new int[SENDERS];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch halfway = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < SENDERS; c++) {
                int conn = c;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        send(a, clients[conn], requestEvds[conn], conn, success, flushed, halfway);
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                        halfway.countDown();
                    }
                }));
            }

            Thread receiver = Thread.ofPlatform().start(() -> {
                try {
                    receive(b, recvEvd, srq, recvMem, nextSeq);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                    halfway.countDown();
                }
            });

            Waits.await(halfway, "connection 0 to send half its messages");
            if (failure.get() != null) {
                receiver.interrupt();
                throw new AssertionError("a worker failed", failure.get());
            }
            clients[0].disconnect(DatCloseFlags.ABRUPT);
            for (int c = 0; c < SENDERS; c++) {
                Waits.join(threads.get(c), "the sender of connection " + c);
            }
            awaitDelivered(nextSeq, success, failure);
            receiver.interrupt();
            Waits.join(receiver, "the SRQ's receiver, interrupted");
            if (failure.get() != null) {
                throw new AssertionError("a worker failed", failure.get());
            }
            synchronized (success) {
                for (int c = 0; c < SENDERS; c++) {
                    assertEquals(MESSAGES, success[c] + flushed[c], "connection " + c
                            + ": delivered + flushed = posted");
                    assertEquals(success[c], nextSeq[c], "connection " + c + ": every successful send was received");
                }
                assertTrue(flushed[0] > 0, "the broken connection flushed its tail");
                for (int c = 1; c < SENDERS; c++) {
                    assertEquals(0, flushed[c]);
                }
            }
        }
    }

    /**
     * Connection {@code conn}'s sender: {@code MESSAGES} sends through a window of {@code WINDOW} slots, each
     * waiting for room on the request queue when it is full, then the wait for the last completions.
     */
    private static void send(Loop a, DatEp client, DatEvd requestEvd, int conn, long[] success, long[] flushed,
                             CountDownLatch halfway) {
        DatLmr mem = a.lmr((long) WINDOW * MSG);
        MemorySegment s = mem.segment();
        Iov iov = a.iov(1);
        DatEvent ev = new DatEvent();
        long done = 0;
        for (int seq = 0; seq < MESSAGES; seq++) {
            // The slot of seq - WINDOW may be rewritten only once that send completed.
            if (seq - done >= WINDOW) {
                Waits.Deadline window = windowDeadline(conn, seq);
                while (seq - done >= WINDOW) {
                    window.check();
                    done += reap(requestEvd, ev, conn, success, flushed);
                    Thread.onSpinWait();
                }
            }
            long off = (long) (seq % WINDOW) * MSG;
            s.set(ValueLayout.JAVA_INT_UNALIGNED, off, conn);
            s.set(ValueLayout.JAVA_INT_UNALIGNED, off + 4, seq);
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, off + 8, seq * 0x9E3779B97F4A7C15L);
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, off + 16, ~seq * 31L + conn);
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, off + 24, checksum(s, off));
            iov.set(0, mem, off, MSG);
            int rc;
            Waits.Deadline room = null;
            while ((rc = client.postSend(1, iov, seq, 0)) == DatReturn.DAT_INSUFFICIENT_RESOURCES) {
                if (room == null) {
                    room = Waits.deadline("room on connection " + conn + "'s request queue for send " + seq);
                }
                room.check();
                done += reap(requestEvd, ev, conn, success, flushed);
                Thread.onSpinWait();
            }
            assertEquals(DatReturn.DAT_SUCCESS, rc);
            done += reap(requestEvd, ev, conn, success, flushed);
            if (conn == 0 && seq == MESSAGES / 2) {
                halfway.countDown();
            }
        }
        long reaped = done;
        Waits.Deadline tail = Waits.deadline(Waits.BOUND, () -> "the last completions of connection "
                + conn + " (" + reaped + " of " + MESSAGES + " before the wait)");
        while (done < MESSAGES) {
            tail.check();
            done += reap(requestEvd, ev, conn, success, flushed);
            Thread.onSpinWait();
        }
    }

    /** The SRQ's one receiver: checks each message and gives its buffer back, until it is interrupted. */
    private static void receive(Loop b, DatEvd recvEvd, DatSrq srq, DatLmr recvMem, int[] nextSeq) {
        DatEvent ev = new DatEvent();
        Iov iov = b.iov(1);
        MemorySegment s = recvMem.segment();
        while (!Thread.currentThread().isInterrupted()) {
            if (recvEvd.dequeue(ev) != DatReturn.DAT_SUCCESS) {
                Thread.onSpinWait();
                continue;
            }
            int conn = (Integer) ev.ep().consumerContext();
            int slot = (int) ev.userCookie();
            long off = (long) slot * MSG;
            assertEquals(DatDtoStatus.SUCCESS, ev.dtoStatus());
            assertEquals(MSG, ev.transferredLength());
            assertEquals(conn, s.get(ValueLayout.JAVA_INT_UNALIGNED, off));
            assertEquals(checksum(s, off), s.get(ValueLayout.JAVA_LONG_UNALIGNED, off + 24), "checksum");
            int seq = s.get(ValueLayout.JAVA_INT_UNALIGNED, off + 4);
            synchronized (nextSeq) {
                assertEquals(nextSeq[conn], seq, "per-connection order, no loss, no duplicate");
                nextSeq[conn]++;
            }
            s.asSlice(off, MSG).fill((byte) 0);
            assertEquals(DatReturn.DAT_SUCCESS, srq.postRecv(1, iov.set(0, recvMem, off, MSG), slot));
        }
    }

    /**
     * Waits, up to 10 s, until the receiver has taken every message whose send completed successfully, or a worker
     * failed.
     */
    private static void awaitDelivered(int[] nextSeq, long[] success, AtomicReference<Throwable> failure)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline && failure.get() == null) {
            long delivered;
            long expected = 0;
            synchronized (nextSeq) {
                delivered = 0;
                for (int c = 0; c < SENDERS; c++) {
                    delivered += nextSeq[c];
                }
            }
            synchronized (success) {
                for (long v : success) {
                    expected += v;
                }
            }
            if (delivered == expected) {
                break;
            }
            Thread.sleep(1);
        }
    }

    /**
     * A sender thread and a receiver thread on one connection whose receive queue holds two buffers: most sends
     * find no receive and wait, and most receives are posted while a send waits, so both halves of the wake-up
     * (the sender's re-check, the poster's look at the recvWanted mark; see RecvRing) run all the time. A lost
     * wake-up leaves a send waiting for ever and the test times out; a buffer filled twice or out of order
     * fails the sequence check.
     */
    @Test
    @Timeout(180)
    void ownReceiveQueueUnderAConcurrentPosterLosesNoWakeup() throws Exception {
        int messages = 20_000;
        int depth = 2;
        try (Loop a = new Loop("stress2"); Loop b = new Loop("stress3")) {
            DatEp client = a.ep(DatEpAttr.builder().maxRequestDtos(WINDOW).build());
            DatEp server = b.ep(DatEpAttr.builder().maxRecvDtos(depth).build());
            a.connect(client, b, server);
            DatLmr recvMem = b.lmr((long) depth * MSG);
            Iov recvIov = b.iov(1);
            for (int slot = 0; slot < depth; slot++) {
                assertEquals(DatReturn.DAT_SUCCESS,
                        server.postRecv(1, recvIov.set(0, recvMem, (long) slot * MSG, MSG), slot, 0));
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicInteger received = new AtomicInteger();
            Thread receiver = Thread.ofPlatform().name("receiver").start(() -> {
                DatEvent ev = new DatEvent();
                Iov iov = b.iov(1);
                MemorySegment s = recvMem.segment();
                try {
                    Waits.Deadline next = null;
                    for (int seq = 0; seq < messages && failure.get() == null; ) {
                        if (b.recvEvd.dequeue(ev) != DatReturn.DAT_SUCCESS) {
                            if (next == null) {
                                next = Waits.deadline("the receive completion of message " + seq + " of " + messages);
                            }
                            next.check();
                            // Yield, not spin: on a machine with two busy cores the sender needs this one.
                            Thread.yield();
                            continue;
                        }
                        assertEquals(DatDtoStatus.SUCCESS, ev.dtoStatus());
                        long off = ev.userCookie() * MSG;
                        assertEquals(seq, s.get(ValueLayout.JAVA_INT_UNALIGNED, off), "order, no loss, no duplicate");
                        next = null;
                        seq++;
                        received.set(seq);
                        assertEquals(DatReturn.DAT_SUCCESS,
                                server.postRecv(1, iov.set(0, recvMem, off, MSG), ev.userCookie(), 0));
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            DatLmr mem = a.lmr((long) WINDOW * MSG);
            MemorySegment s = mem.segment();
            Iov iov = a.iov(1);
            DatEvent ev = new DatEvent();
            int done = 0;
            for (int seq = 0; seq < messages && failure.get() == null; seq++) {
                if (seq - done >= WINDOW) {
                    Waits.Deadline window = windowDeadline(0, seq);
                    while (seq - done >= WINDOW && failure.get() == null) {
                        window.check();
                        done += completions(a.requestEvd, ev);
                        Thread.yield();
                    }
                }
                long off = (long) (seq % WINDOW) * MSG;
                s.set(ValueLayout.JAVA_INT_UNALIGNED, off, seq);
                assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, iov.set(0, mem, off, MSG), seq, 0));
                done += completions(a.requestEvd, ev);
            }
            int sent = done;
            Waits.Deadline last = Waits.deadline(Waits.BOUND, () -> "the last send completions (" + sent + " of "
                    + messages + " before the wait)");
            while (done < messages && failure.get() == null) {
                last.check();
                done += completions(a.requestEvd, ev);
                Thread.yield();
            }
            Waits.join(receiver, "the receiver, at message " + received.get() + " of " + messages);
            if (failure.get() != null) {
                throw new AssertionError("a worker failed", failure.get());
            }
            assertEquals(messages, done, "every send completed");
        }
    }

    /** The wait for a free slot of the send window: the completion of send {@code seq - WINDOW}. */
    private static Waits.Deadline windowDeadline(int conn, int seq) {
        return Waits.deadline("the completion of send " + (seq - WINDOW) + " of connection " + conn
                + " (the window of " + WINDOW + " is full at send " + seq + ")");
    }

    private static int completions(DatEvd evd, DatEvent ev) {
        int n = 0;
        while (evd.dequeue(ev) == DatReturn.DAT_SUCCESS) {
            assertEquals(DatDtoStatus.SUCCESS, ev.dtoStatus(), ev::toString);
            n++;
        }
        return n;
    }

    private static int reap(DatEvd evd, DatEvent ev, int conn, long[] success, long[] flushed) {
        int n = 0;
        while (evd.dequeue(ev) == DatReturn.DAT_SUCCESS) {
            synchronized (success) {
                if (ev.dtoStatus() == DatDtoStatus.SUCCESS) {
                    success[conn]++;
                } else if (ev.dtoStatus() == DatDtoStatus.FLUSHED) {
                    flushed[conn]++;
                } else {
                    throw new AssertionError("unexpected completion " + ev);
                }
            }
            n++;
        }
        return n;
    }
}
