// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatCno;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.Iov;
import java.lang.foreign.Arena;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * CNOs on ofi-tcp-lo ({@code dat_cno_create}, {@code dat_cno_wait}, {@code dat_cno_modify_agent}): an enabled EVD
 * triggers its CNO for a software event and for a DTO completion the fabric brings, a disabled one does not, an EVD
 * with a CNO may be waited on, and an agent runs on the IA's progress thread.
 */
class OfiCnoTest {

    private static final long TIMEOUT = 10_000_000;

    @Test
    void enabledEvdsTriggerTheirCnoForSoftwareEventsAndCompletions() throws Exception {
        OfiIa ia = (OfiIa) new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatCno cno = ia.createCno(null);
            DatEvd soft = ia.createEvd(4, cno, DatEvdFlags.SOFTWARE);
            assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, soft.await(0, 1, new DatEvent()),
                    "an EVD with a CNO is waited on (uDAPL 1.2: the waiter preempts the CNO)");
            assertEquals(DatReturn.QUEUE_EMPTY, assertThrows(DatException.class, () -> cno.await(1000)).type());
            soft.disable();
            assertEquals(DatReturn.DAT_SUCCESS, soft.postSoftwareEvent(1));
            assertEquals(DatReturn.QUEUE_EMPTY, assertThrows(DatException.class, () -> cno.await(50_000)).type(),
                    "a disabled EVD triggered its CNO");
            soft.enable();
            assertEquals(DatReturn.DAT_SUCCESS, soft.postSoftwareEvent(2));
            assertSame(soft, cno.await(TIMEOUT));

            // A receive completion the fabric brings triggers the CNO of the receive EVD.
            DatPz pz = ia.createPz();
            DatEvd recvs = ia.createEvd(16, cno, DatEvdFlags.DTO);
            TcpPair pair = TcpPair.connect(ia, pz, recvs);
            DatEp active = pair.active();
            DatEp passive = pair.passive();
            DatEvent e = new DatEvent();
            DatLmr lmr = ia.createLmr(pz, arena.allocate(4096, 64), DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE);
            assertEquals(DatReturn.DAT_SUCCESS, passive.postRecv(1, Iov.allocate(arena, 1).set(0, lmr, 0, 64), 7, 0));
            assertEquals(DatReturn.DAT_SUCCESS, active.postSend(1, Iov.allocate(arena, 1).set(0, lmr, 2048, 64), 8,
                    0));
            assertSame(recvs, cno.await(TIMEOUT), "the receive completion triggered the CNO");
            assertEquals(DatReturn.DAT_SUCCESS, recvs.dequeue(e));
            assertEquals(7, e.userCookie());

            // An agent runs on the progress thread, outside the IA's lock.
            BlockingQueue<String> seen = new ArrayBlockingQueue<>(4);
            Thread progress = ia.progressThread().thread();
            cno.modifyAgent(evd -> seen.add((evd == soft ? "soft" : "other") + " "
                    + (Thread.currentThread() == progress) + " " + ia.lock.isHeldByCurrentThread()));
            assertEquals(DatReturn.DAT_SUCCESS, soft.postSoftwareEvent(3));
            String call = seen.poll(10, TimeUnit.SECONDS);
            assertEquals("soft true false", call, "the agent's EVD, on the progress thread, without the lock");
            assertTrue(seen.isEmpty());
            DatException inUse = assertThrows(DatException.class, cno::close);
            assertEquals(DatReturn.INVALID_STATE, inUse.type());
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }
}
