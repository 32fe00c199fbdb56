// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.Iov;
import java.lang.foreign.Arena;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code dat_evd_wait} blocked in {@code poll} on its CQs' wait descriptors (tcp, {@link OfiFdWait}): woken by the
 * fabric with the progress thread stopped, by a software event, by {@code dat_evd_set_unwaitable}, by an interrupt, and
 * ended by its timeout; every wait here is seen to be in the poll before it is woken.
 */
class OfiFdWaitTest {

    private static final long TIMEOUT = 10_000_000;

    private OfiIa ia;
    private Arena arena;
    private DatEp active;
    private DatEp passive;
    private DatEvd recvs;
    private DatLmr lmr;
    private boolean iaClosed;

    @BeforeEach
    @SuppressWarnings("MustBeClosedChecker") // the arena is closed after each test (close())
    void connect() {
        ia = (OfiIa) new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        arena = Arena.ofShared();
        DatPz pz = ia.createPz();
        recvs = ia.createEvd(64, null, DatEvdFlags.DTO | DatEvdFlags.SOFTWARE);
        TcpPair pair = TcpPair.connect(ia, pz, recvs);
        active = pair.active();
        passive = pair.passive();
        lmr = ia.createLmr(pz, arena.allocate(4096, 64), DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
    }

    @AfterEach
    void close() {
        if (!iaClosed) {
            ia.close(DatCloseFlags.ABRUPT);
        }
        arena.close();
    }

    @Test
    void aWaitInThePollIsWokenByTheFabricWithNoProgressThread() throws InterruptedException {
        ia.progressThread().stop();
        assertEquals(DatReturn.DAT_SUCCESS, passive.postRecv(1, Iov.allocate(arena, 1).set(0, lmr, 0, 64), 7, 0));
        DatEvent got = new DatEvent();
        Waiter w = Waiter.start(() -> recvs.await(TIMEOUT, 1, got));
        awaitPolling();
        assertEquals(DatReturn.DAT_SUCCESS, active.postSend(1, Iov.allocate(arena, 1).set(0, lmr, 2048, 64), 8, 0));
        assertEquals(DatReturn.DAT_SUCCESS, w.result());
        assertEquals(7, got.userCookie());
        assertSame(DatDtoStatus.SUCCESS, got.dtoStatus());
    }

    @Test
    void aSoftwareEventWakesAWaitInThePoll() throws InterruptedException {
        DatEvent got = new DatEvent();
        Waiter w = Waiter.start(() -> recvs.await(TIMEOUT, 1, got));
        awaitPolling();
        assertEquals(DatReturn.DAT_SUCCESS, recvs.postSoftwareEvent(42));
        assertEquals(DatReturn.DAT_SUCCESS, w.result());
        assertSame(DatEventType.SOFTWARE_EVENT, got.type());
    }

    @Test
    void setUnwaitableAbortsAWaitInThePoll() throws InterruptedException {
        Waiter w = Waiter.start(() -> recvs.await(TIMEOUT, 1, new DatEvent()));
        awaitPolling();
        recvs.setUnwaitable();
        assertEquals(DatReturn.DAT_INVALID_STATE, w.result(), "uDAPL: woken with INVALID_STATE");
    }

    @Test
    void anInterruptEndsAWaitInThePoll() throws InterruptedException {
        Waiter w = Waiter.start(() -> recvs.await(TIMEOUT, 1, new DatEvent()));
        awaitPolling();
        w.thread.interrupt();
        assertEquals(DatReturn.DAT_INTERRUPTED_CALL, w.result());
    }

    @Test
    void aWaitInThePollEndsAtItsTimeout() throws InterruptedException {
        long start = System.nanoTime();
        Waiter w = Waiter.start(() -> recvs.await(200_000, 1, new DatEvent()));
        awaitPolling();
        assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, w.result());
        assertTrue(System.nanoTime() - start >= 200_000_000L, "the wait ended before its timeout");
    }

    @Test
    void closingTheIaEndsAWaitInThePollWithoutTouchingTheClosedFabric() throws InterruptedException {
        Waiter w = Waiter.start(() -> recvs.await(TIMEOUT, 1, new DatEvent()));
        awaitPolling();
        ia.close(DatCloseFlags.ABRUPT);
        iaClosed = true;
        int rc = w.result();
        assertTrue(rc == DatReturn.DAT_ABORT || rc == DatReturn.DAT_INVALID_HANDLE,
                "the wait ended with " + DatReturn.toString(rc));
    }

    /** Waits until the EVD's wait is inside its poll. */
    private void awaitPolling() throws InterruptedException {
        OfiEvd evd = (OfiEvd) recvs;
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            ia.lock.lock();
            try {
                if (evd.fdPolling()) {
                    return;
                }
            } finally {
                ia.lock.unlock();
            }
            assertTrue(System.nanoTime() < deadline, "the wait never blocked in its poll");
            Thread.sleep(0, 200_000);
        }
    }

    /** A {@code dat_evd_wait} on a thread of its own. */
    private record Waiter(Thread thread, int[] rc) {

        static Waiter start(IntSupplier call) {
            int[] rc = {Integer.MIN_VALUE};
            return new Waiter(Thread.ofPlatform().start(() -> rc[0] = call.getAsInt()), rc);
        }

        int result() throws InterruptedException {
            thread.join(10_000);
            assertFalse(thread.isAlive(), "the wait did not return");
            return rc[0];
        }
    }
}
