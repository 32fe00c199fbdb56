// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.Iov;
import java.lang.foreign.Arena;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Who reads a CQ: the consumer that polls it, on its own thread, and the progress thread only the CQs nobody polls
 * (and the EQs). With the thread stopped, the test takes its steps itself, so what each step reads is exact.
 */
class OfiProgressTest {

    private static final long TIMEOUT = 10_000_000;

    @Test
    void theProgressThreadLeavesTheCqsAConsumerPollsAndThePollingConsumerNeedsNoThread() throws InterruptedException {
        OfiIa ia = (OfiIa) new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            DatEvd recvs = ia.createEvd(64, null, DatEvdFlags.DTO);
            TcpPair pair = TcpPair.connect(ia, pz, recvs);
            DatEvd requests = pair.requests();
            DatEp active = pair.active();
            DatEp passive = pair.passive();
            DatEvent e = new DatEvent();

            ia.progressThread().stop();
            DatLmr lmr = ia.createLmr(pz, arena.allocate(4096, 64), DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
            // Larger than tcp's inject size: the send writes a completion into the request CQ (OfiEpData#injects).
            int size = 1024;
            assertEquals(DatReturn.DAT_SUCCESS, passive.postRecv(1, Iov.allocate(arena, 1).set(0, lmr, 0, size), 7,
                    0));
            // The consumer polls the request EVD: from now on its CQ is the consumer's.
            long polled = System.nanoTime();
            assertEquals(DatReturn.DAT_QUEUE_EMPTY, requests.dequeue(e));
            assertEquals(DatReturn.DAT_SUCCESS, active.postSend(1, Iov.allocate(arena, 1).set(0, lmr, 2048, size), 8,
                    0));
            OfiEvd ofiRequests = (OfiEvd) requests;
            OfiEvd ofiRecvs = (OfiEvd) recvs;
            long deadline = System.nanoTime() + 5_000_000_000L;
            long settled = Long.MAX_VALUE;
            while (true) {
                ia.lock.lock();
                try {
                    // Steps of the thread within the consumer's window: the receive CQ (nobody polls it) is read,
                    // and its progress carries the send's acknowledgement into the request CQ, which stays unread.
                    ia.backgroundStep(polled);
                    if (ofiRecvs.queued() == 1 && settled == Long.MAX_VALUE) {
                        settled = System.nanoTime() + 50_000_000L;
                    }
                    if (System.nanoTime() - settled > 0) {
                        assertEquals(0, ofiRequests.queued(), "the thread read the CQ its consumer polls");
                        // The IA is busy: the thread's next step comes after its shortest sleep.
                        assertTrue(ia.leftToConsumer(), "the step says it left a CQ to its consumer");
                        break;
                    }
                } finally {
                    ia.lock.unlock();
                }
                assertTrue(System.nanoTime() < deadline, "the receive never completed in the thread's steps");
            }
            // The consumer's own read finds the send's completion, with no thread.
            deadline = System.nanoTime() + 5_000_000_000L;
            int rc;
            while ((rc = requests.dequeue(e)) == DatReturn.DAT_QUEUE_EMPTY) {
                assertTrue(System.nanoTime() < deadline, "the polling consumer never saw its send complete");
            }
            assertEquals(DatReturn.DAT_SUCCESS, rc);
            assertEquals(8, e.userCookie());
            assertSame(DatDtoStatus.SUCCESS, e.dtoStatus());
            assertEquals(DatReturn.DAT_SUCCESS, recvs.await(TIMEOUT, 1, e));
            assertEquals(7, e.userCookie());
            aSleepingWaitsCqIsReadByTheThread(ia, active, passive, requests, recvs, lmr, arena);
            // A step outside the window reads every CQ again.
            assertEquals(DatReturn.DAT_SUCCESS, passive.postRecv(1, Iov.allocate(arena, 1).set(0, lmr, 0, 64), 9, 0));
            assertEquals(DatReturn.DAT_SUCCESS, active.postSend(1, Iov.allocate(arena, 1).set(0, lmr, 2048, 64), 10,
                    0));
            deadline = System.nanoTime() + 5_000_000_000L;
            while (true) {
                ia.lock.lock();
                try {
                    ia.backgroundStep(System.nanoTime() + 1);
                    assertTrue(!ia.leftToConsumer(), "a step outside the window left a CQ");
                    if (ofiRequests.queued() == 1 && ofiRecvs.queued() == 1) {
                        break;
                    }
                } finally {
                    ia.lock.unlock();
                }
                assertTrue(System.nanoTime() < deadline, "the thread's steps never read the request CQ");
            }
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * A consumer that finds a message at each poll still takes the IA's own step (connection events, keep-alives)
     * every {@link OfiProgress#STEP_NANOS} while the thread leaves it to the consumer's polls, though every message
     * here is in the socket before the poll that takes it. A poll that read its CQs alone and did the rest of the step
     * only when the read found something once skipped the IA's step there, and never took it.
     */
    @Test
    void aConsumerThatFindsAMessageAtEachPollStillTakesTheIasStep() {
        OfiIa ia = (OfiIa) new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            int messages = 8;
            Receiving r = Receiving.posted(ia, arena, messages);
            DatEvd recvs = r.recvs();
            DatEvent e = new DatEvent();
            // As the thread does while it sees a consumer poll.
            ia.delegate(true);
            assertEquals(DatReturn.DAT_QUEUE_EMPTY, recvs.dequeue(e));
            long stepped = steppedAt(ia);
            int firstPolls = 0;
            for (int i = 0; i < messages; i++) {
                r.send(arena, i);
                LockSupport.parkNanos(2 * OfiProgress.STEP_NANOS);
                long deadline = System.nanoTime() + 5_000_000_000L;
                int polls = 1;
                int rc;
                while ((rc = recvs.dequeue(e)) == DatReturn.DAT_QUEUE_EMPTY) {
                    polls++;
                    assertTrue(System.nanoTime() < deadline, "message " + i + " never arrived");
                }
                assertEquals(DatReturn.DAT_SUCCESS, rc);
                assertEquals(i, e.userCookie());
                firstPolls += polls == 1 ? 1 : 0;
            }
            assertTrue(firstPolls > 0, "no message was taken by the poll after it arrived");
            assertTrue(steppedAt(ia) - stepped > 0, "no IA step in " + messages + " polls 2 ms apart");
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * A poll whose first CQ read finds a message returns it without the rest of the step (the clock reading, the
     * credit work, the IA's step when due), which on a 64 B ofi-shm-shm-rdm round trip on one thread was a fifth of the
     * CPU; every {@link OfiEvd#QUICK_POLLS} + 1st such poll in a row takes the whole step still (the test above). Each
     * poll here once ran the credit work.
     */
    @Test
    void aPollWhoseFirstReadFindsAMessageLeavesTheCreditWorkToALaterPoll() {
        OfiIa ia = (OfiIa) new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            int messages = 15;
            Receiving r = Receiving.posted(ia, arena, messages);
            DatEvd recvs = r.recvs();
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_QUEUE_EMPTY, recvs.dequeue(e));
            int firstPolls = 0;
            int withCreditWork = 0;
            for (int i = 0; i < messages; i++) {
                r.send(arena, i);
                LockSupport.parkNanos(2_000_000L);
                long deadline = System.nanoTime() + 5_000_000_000L;
                long before = creditSteps(ia);
                int rc = recvs.dequeue(e);
                if (rc == DatReturn.DAT_SUCCESS) {
                    firstPolls++;
                    withCreditWork += creditSteps(ia) > before ? 1 : 0;
                }
                while (rc == DatReturn.DAT_QUEUE_EMPTY) {
                    assertTrue(System.nanoTime() < deadline, "message " + i + " never arrived");
                    rc = recvs.dequeue(e);
                }
                assertEquals(DatReturn.DAT_SUCCESS, rc);
                assertEquals(i, e.userCookie());
            }
            assertTrue(firstPolls > OfiEvd.QUICK_POLLS, "only " + firstPolls + " of " + messages
                    + " messages were taken by the poll after they arrived");
            int most = (firstPolls + OfiEvd.QUICK_POLLS) / (OfiEvd.QUICK_POLLS + 1);
            assertTrue(withCreditWork <= most, withCreditWork + " of " + firstPolls
                    + " polls that found the message at their first read ran the credit work (at most " + most + ")");
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * A connected tcp pair whose passive side has receives posted 64 B apart in {@link #lmr}, completing on {@link
     * #recvs}, with the progress thread stopped once its steps wrote the receives' advert (so no send waits for
     * credit).
     */
    private record Receiving(DatEvd recvs, TcpPair pair, DatLmr lmr) {

        static Receiving posted(OfiIa ia, Arena arena, int receives) {
            DatPz pz = ia.createPz();
            DatEvd recvs = ia.createEvd(64, null, DatEvdFlags.DTO);
            TcpPair pair = TcpPair.connect(ia, pz, recvs);
            DatLmr lmr = ia.createLmr(pz, arena.allocate(4096, 64), DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
            for (int i = 0; i < receives; i++) {
                assertEquals(DatReturn.DAT_SUCCESS, pair.passive().postRecv(1,
                        Iov.allocate(arena, 1).set(0, lmr, 64L * i, 64), i, 0));
            }
            LockSupport.parkNanos(20_000_000L);
            ia.progressThread().stop();
            return new Receiving(recvs, pair, lmr);
        }

        /** The active side sends 64 B with {@code cookie}. */
        void send(Arena arena, int cookie) {
            assertEquals(DatReturn.DAT_SUCCESS, pair.active().postSend(1,
                    Iov.allocate(arena, 1).set(0, lmr, 2048, 64), cookie, 0));
        }
    }

    private static long creditSteps(OfiIa ia) {
        ia.lock.lock();
        try {
            return ia.creditSteps();
        } finally {
            ia.lock.unlock();
        }
    }

    private static long steppedAt(OfiIa ia) {
        ia.lock.lock();
        try {
            return ia.steppedAt();
        } finally {
            ia.lock.unlock();
        }
    }

    /**
     * Events of one EVD do not wake a {@code dat_evd_wait} asleep on another. It once slept on a condition of the
     * whole IA that every queued event signalled, so a thread waiting for a connection event woke, and made the
     * polling consumer unpark it, at every completion of the data path.
     */
    @Test
    void aWaitAsleepOnOneEvdIsNotWokenByTheEventsOfAnother() throws InterruptedException {
        OfiIa ia = (OfiIa) new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try {
            OfiEvd sleeper = (OfiEvd) ia.createEvd(8, null, DatEvdFlags.SOFTWARE);
            DatEvd busy = ia.createEvd(8, null, DatEvdFlags.SOFTWARE);
            int[] rc = {Integer.MIN_VALUE};
            Thread waiter = Thread.ofPlatform().start(() -> rc[0] = sleeper.await(TIMEOUT, 1, new DatEvent()));
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!asleep(ia, sleeper)) {
                assertTrue(System.nanoTime() < deadline, "the wait never slept");
                Thread.sleep(1);
            }
            long wakesBefore = wakes(ia, sleeper);
            long start = System.nanoTime();
            DatEvent e = new DatEvent();
            int events = 300;
            for (int i = 0; i < events; i++) {
                assertEquals(DatReturn.DAT_SUCCESS, busy.postSoftwareEvent(i));
                assertEquals(DatReturn.DAT_SUCCESS, busy.dequeue(e));
                // Time for a woken wait to go back to sleep, as between the completions of a real stream.
                LockSupport.parkNanos(500_000);
            }
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            long woke = wakes(ia, sleeper) - wakesBefore;
            // The wait's own bound (10 ms) wakes it; nothing else may.
            assertTrue(woke <= elapsedMillis / 10 + 10, "the wait woke " + woke + " times in " + elapsedMillis
                    + " ms while another EVD took " + events + " events");
            assertEquals(DatReturn.DAT_SUCCESS, sleeper.postSoftwareEvent(7));
            waiter.join(10_000);
            assertEquals(DatReturn.DAT_SUCCESS, rc[0], "the wait's own event woke it");
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * The progress thread never queues on the IA's lock behind a consumer that takes its steps: it asks, and the
     * consumer's {@code dat_evd_dequeue} takes the step. A consumer that holds the lock and never dequeues does not
     * starve it: after a few unserved requests it waits for the lock.
     */
    @Test
    void theProgressThreadAsksALockHolderForItsStepInsteadOfQueuingOnTheLock() throws InterruptedException {
        OfiIa ia = (OfiIa) new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try {
            DatEvd evd = ia.createEvd(8, null, DatEvdFlags.SOFTWARE);
            Thread progress = ia.progressThread().thread();
            DatEvent e = new DatEvent();
            ia.lock.lock();
            try {
                long until = System.nanoTime() + 100_000_000L;
                while (System.nanoTime() - until < 0) {
                    assertEquals(DatReturn.DAT_QUEUE_EMPTY, evd.dequeue(e));
                    assertTrue(!ia.lock.hasQueuedThread(progress),
                            "the progress thread queued on the lock of a consumer that takes its steps");
                    Thread.onSpinWait();
                }
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (!ia.lock.hasQueuedThread(progress)) {
                    assertTrue(System.nanoTime() < deadline,
                            "the progress thread never waited for a lock whose holder left its steps unserved");
                    Thread.sleep(1);
                }
            } finally {
                ia.lock.unlock();
            }
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    private static boolean asleep(OfiIa ia, OfiEvd evd) {
        ia.lock.lock();
        try {
            return evd.polledAt() == Long.MIN_VALUE;
        } finally {
            ia.lock.unlock();
        }
    }

    private static long wakes(OfiIa ia, OfiEvd evd) {
        ia.lock.lock();
        try {
            return evd.wakes();
        } finally {
            ia.lock.unlock();
        }
    }

    /** A dat_evd_wait asleep on the IA's condition has read its CQ in its spin, yet the thread's steps read it. */
    private static void aSleepingWaitsCqIsReadByTheThread(OfiIa ia, DatEp active, DatEp passive, DatEvd requests,
                                                          DatEvd recvs, DatLmr lmr, Arena arena)
            throws InterruptedException {
        OfiEvd ofiRecvs = (OfiEvd) recvs;
        long before = System.nanoTime();
        int[] rc = {Integer.MIN_VALUE};
        DatEvent got = new DatEvent();
        Thread waiter = Thread.ofPlatform().start(() -> rc[0] = recvs.await(TIMEOUT, 1, got));
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            ia.lock.lock();
            try {
                if (ofiRecvs.polledAt() == Long.MIN_VALUE) {
                    // Asleep, and it cannot wake while this thread holds the lock: only the steps below read.
                    assertEquals(DatReturn.DAT_SUCCESS,
                            passive.postRecv(1, Iov.allocate(arena, 1).set(0, lmr, 0, 64), 11, 0));
                    assertEquals(DatReturn.DAT_SUCCESS,
                            active.postSend(1, Iov.allocate(arena, 1).set(0, lmr, 2048, 64), 12, 0));
                    while (ofiRecvs.queued() == 0) {
                        ia.backgroundStep(before);
                        assertTrue(System.nanoTime() < deadline, "the thread's steps left the sleeping wait's CQ");
                    }
                    break;
                }
            } finally {
                ia.lock.unlock();
            }
            assertTrue(System.nanoTime() < deadline, "the wait never slept");
            Thread.sleep(1);
        }
        waiter.join(10_000);
        assertEquals(DatReturn.DAT_SUCCESS, rc[0]);
        assertEquals(11, got.userCookie());
        assertEquals(DatReturn.DAT_SUCCESS, requests.await(TIMEOUT, 1, got));
        assertEquals(12, got.userCookie());
    }

    /**
     * The thread backs off from a consumer dequeuing back to back (each look is a wake-up on the consumer's CPU when
     * they share one), and comes back to its 2 ms looks once the consumer dequeues further apart. At 2 ms the
     * 400 ms of tight polling here would take some 200 looks.
     */
    @Test
    void theThreadBacksOffFromAConsumerDequeuingBackToBack() {
        OfiIa ia = (OfiIa) new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        try {
            DatEvd evd = ia.createEvd(8, null, DatEvdFlags.DTO);
            DatEvent e = new DatEvent();
            OfiProgress thread = ia.progressThread();
            long before = thread.looks();
            long until = System.nanoTime() + 400_000_000L;
            while (System.nanoTime() - until < 0) {
                assertEquals(DatReturn.DAT_QUEUE_EMPTY, evd.dequeue(e));
            }
            long tight = thread.looks() - before;
            assertTrue(tight <= 60, "looks while the consumer dequeued back to back: " + tight);
            before = thread.looks();
            until = System.nanoTime() + 400_000_000L;
            while (System.nanoTime() - until < 0) {
                assertEquals(DatReturn.DAT_QUEUE_EMPTY, evd.dequeue(e));
                LockSupport.parkNanos(200_000);
            }
            long apart = thread.looks() - before;
            assertTrue(apart >= 2 * tight && apart >= 60, "looks while the consumer dequeued every 0.2 ms: " + apart
                    + " (back to back: " + tight + ")");
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }
}
