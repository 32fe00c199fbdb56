// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dat.api.Dat;
import dat.api.DatAsyncReason;
import dat.api.DatCno;
import dat.api.DatDtoStatus;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvdParam;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatReturn;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LoopbackEvdTest {

    private final Loop a = new Loop();
    private final DatEvd sw = a.ia.createEvd(4, null, DatEvdFlags.SOFTWARE);

    @AfterEach
    void close() {
        a.close();
    }

    @Test
    void createChecksQueueLengthAndFlags() {
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class,
                () -> a.ia.createEvd(0, null, DatEvdFlags.DTO)).type());
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class,
                () -> a.ia.createEvd(LoopbackConfig.MAX_EVD_QLEN + 1, null, DatEvdFlags.DTO)).type());
        DatException flags = assertThrows(DatException.class, () -> a.ia.createEvd(4, null, 0x2000));
        assertEquals(DatReturn.INVALID_PARAMETER, flags.type());
        assertEquals(4, sw.query().evdQlen());
    }

    /**
     * A DTO completion is kept in a slot's packed words and references, any other event in the slot's
     * {@link DatEvent}: slots reused for both kinds, in both orders, must hand back exactly what was posted each
     * time (never a stale DTO word for a software event or the reverse), every DTO status must survive the
     * packing, and the signalled bit must follow each event, not the slot.
     */
    @Test
    void aSlotReusedForDtoAndOtherEventsHandsBackExactlyWhatWasPosted() throws Exception {
        // Queue length 1 is a ring of two slots; a period of three events puts both kinds, in both orders, into
        // each slot.
        LoopbackEvd evd = (LoopbackEvd) a.ia.createEvd(1, null, DatEvdFlags.DTO | DatEvdFlags.SOFTWARE);
        LoopbackEp ep = (LoopbackEp) a.ep();
        AtomicInteger reaped = new AtomicInteger();
        DatEvent e = new DatEvent();
        DatDtoStatus[] statuses = DatDtoStatus.values();
        int dtos = 0;
        for (int k = 0; k < 6 * statuses.length; k++) {
            if (k % 3 == 0) {
                DatDtoStatus status = statuses[dtos % statuses.length];
                assertEquals(true, evd.postDto(ep, 1000 + k, status, 7L * k, true, reaped::incrementAndGet));
                assertEquals(DatReturn.DAT_SUCCESS, evd.dequeue(e));
                assertEquals(DatEventType.DTO_COMPLETION, e.type(), "event " + k);
                assertSame(evd, e.evd());
                assertSame(ep, e.ep());
                assertEquals(1000 + k, e.userCookie());
                assertEquals(status, e.dtoStatus());
                assertEquals(7L * k, e.transferredLength());
                assertEquals(++dtos, reaped.get(), "the reaper of the DTO completion");
            } else {
                assertEquals(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(-k));
                assertEquals(DatReturn.DAT_SUCCESS, evd.dequeue(e));
                assertEquals(DatEventType.SOFTWARE_EVENT, e.type(), "event " + k);
                assertEquals(-k, e.softwareEventValue());
                assertEquals(null, e.ep(), "nothing of a DTO completion left in the slot leaks out");
                assertEquals(dtos, reaped.get(), "a software event has no reaper, even in a slot that had one");
            }
        }
        // Unsignalled, then signalled, into both slots: only a signalled one completes a wait.
        for (int k = 0; k < 2; k++) {
            assertEquals(true, evd.postDto(ep, 1, DatDtoStatus.SUCCESS, 0, false, null));
            assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, evd.await(1000, 1, e));
            assertEquals(DatReturn.DAT_SUCCESS, evd.dequeue(e));
            assertEquals(true, evd.postDto(ep, 2, DatDtoStatus.SUCCESS, 0, true, null));
            assertEquals(DatReturn.DAT_SUCCESS, evd.await(1000, 1, e));
            assertEquals(2, e.userCookie());
        }
        ep.close();
    }

    @Test
    void softwareEventsQueueFullAndDequeueInOrder() {
        DatEvent e = new DatEvent();
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, sw.dequeue(e));
        for (int i = 0; i < 4; i++) {
            assertEquals(DatReturn.DAT_SUCCESS, sw.postSoftwareEvent(i));
        }
        assertEquals(DatReturn.DAT_QUEUE_FULL, sw.postSoftwareEvent(9));
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, a.ia.asyncEvd().dequeue(e), "a refused software event is no overflow");
        for (int i = 0; i < 4; i++) {
            assertEquals(DatReturn.DAT_SUCCESS, sw.dequeue(e));
            assertEquals(DatEventType.SOFTWARE_EVENT, e.type());
            assertEquals(i, e.softwareEventValue());
            assertSame(sw, e.evd());
        }
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, a.recvEvd.postSoftwareEvent(1), "no SOFTWARE flag");
        sw.close();
        assertEquals(DatReturn.DAT_INVALID_HANDLE, sw.postSoftwareEvent(1));
        assertEquals(DatReturn.DAT_INVALID_HANDLE, sw.dequeue(e));
    }

    @Test
    void overflowLosesTheEventAndReportsOncePerEpisode() {
        LoopbackEvd evd = (LoopbackEvd) a.ia.createEvd(2, null, DatEvdFlags.DTO);
        for (int i = 0; i < 5; i++) {
            evd.postDto(null, i, DatDtoStatus.SUCCESS, 0, true, null);
        }
        DatEvent e = new DatEvent();
        assertEquals(DatReturn.DAT_SUCCESS, a.ia.asyncEvd().dequeue(e));
        assertEquals(DatEventType.ASYNC_ERROR_EVD_OVERFLOW, e.type());
        assertSame(evd, e.asyncHandle());
        assertEquals(DatAsyncReason.EVD_OVERFLOW_ERROR, e.asyncReason());
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, a.ia.asyncEvd().dequeue(e), "once per episode");
        assertEquals(DatReturn.DAT_SUCCESS, evd.dequeue(e));
        assertEquals(0, e.userCookie());
        evd.postDto(null, 7, DatDtoStatus.SUCCESS, 0, true, null);
        evd.postDto(null, 8, DatDtoStatus.SUCCESS, 0, true, null);
        assertEquals(DatReturn.DAT_SUCCESS, a.ia.asyncEvd().dequeue(e), "a new episode after room was made");
    }

    @Test
    void pollHandsEventsToTheHandler() {
        for (int i = 0; i < 3; i++) {
            sw.postSoftwareEvent(10 + i);
        }
        List<Long> seen = new ArrayList<>();
        assertEquals(2, sw.poll(ev -> seen.add(ev.softwareEventValue()), 2));
        assertEquals(1, sw.poll(ev -> seen.add(ev.softwareEventValue()), 5));
        assertEquals(0, sw.poll(ev -> seen.add(ev.softwareEventValue()), 5));
        assertEquals(List.of(10L, 11L, 12L), seen);
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, sw.poll(ev -> { }, 0));
    }

    @Test
    void awaitHonoursThresholdTimeoutUnwaitableAndInterrupt() throws Exception {
        LoopbackEvd dto = (LoopbackEvd) a.ia.createEvd(8, null, DatEvdFlags.DTO);
        DatEvent e = new DatEvent();
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, dto.await(0, 0, e));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, dto.await(0, 9, e));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, dto.await(-1, 1, e));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, dto.await(Dat.DAT_TIMEOUT_INFINITE + 1, 1, e));
        assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, dto.await(1000, 1, e));

        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> dto.await(Dat.DAT_TIMEOUT_INFINITE, 2,
                e));
        Thread.sleep(50);
        dto.postDto(null, 1, DatDtoStatus.SUCCESS, 0, true, null);
        Thread.sleep(50);
        assertEquals(false, waiter.isDone(), "below the threshold");
        dto.postDto(null, 2, DatDtoStatus.SUCCESS, 0, true, null);
        assertEquals(DatReturn.DAT_SUCCESS, waiter.get(5, TimeUnit.SECONDS));
        assertEquals(1, e.userCookie());
        assertEquals(1, e.nmore());

        CompletableFuture<Integer> aborted = CompletableFuture.supplyAsync(() -> sw.await(Dat.DAT_TIMEOUT_INFINITE, 1,
                new DatEvent()));
        Waits.until(() -> aborted.isDone() || waiting(sw), "the waiter to wait on the software EVD");
        sw.setUnwaitable();
        assertEquals(DatReturn.DAT_INVALID_STATE, aborted.get(5, TimeUnit.SECONDS), "uDAPL: woken with INVALID_STATE");
        assertEquals(DatReturn.DAT_INVALID_STATE, sw.await(0, 1, e));
        assertEquals(DatEvdParam.STATE_UNWAITABLE, sw.query().evdState() & DatEvdParam.STATE_UNWAITABLE);
        sw.clearUnwaitable();

        AtomicInteger rc = new AtomicInteger();
        Thread t = Thread.ofPlatform().start(() -> rc.set(sw.await(Dat.DAT_TIMEOUT_INFINITE, 1, new DatEvent())));
        Thread.sleep(50);
        t.interrupt();
        Waits.join(t, "the interrupted waiter");
        assertEquals(DatReturn.DAT_INTERRUPTED_CALL, rc.get(), "the interrupted wait's status");
    }

    private static boolean waiting(DatEvd evd) {
        return evd.dequeue(new DatEvent()) == DatReturn.DAT_INVALID_STATE;
    }

    @Test
    void resizeKeepsQueuedEventsAndRefusesToDropThem() {
        for (int i = 0; i < 3; i++) {
            sw.postSoftwareEvent(i);
        }
        DatException e = assertThrows(DatException.class, () -> sw.resize(2));
        assertEquals(DatReturn.INVALID_STATE, e.type());
        sw.resize(16);
        assertEquals(16, sw.query().evdQlen());
        DatEvent ev = new DatEvent();
        for (int i = 0; i < 3; i++) {
            sw.dequeue(ev);
            assertEquals(i, ev.softwareEventValue());
        }
    }

    @Test
    void cnoIsTriggeredByEnabledEvdsAndCallsItsAgent() throws Exception {
        DatCno cno = a.ia.createCno(null);
        DatEvd evd = a.ia.createEvd(4, cno, DatEvdFlags.SOFTWARE);
        assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, evd.await(0, 1, new DatEvent()),
                "an EVD with a CNO is waited on (uDAPL 1.2: the waiter preempts the CNO)");
        assertEquals(DatReturn.QUEUE_EMPTY, assertThrows(DatException.class, () -> cno.await(1000)).type());
        evd.disable();
        evd.postSoftwareEvent(1);
        assertEquals(DatReturn.QUEUE_EMPTY, assertThrows(DatException.class, () -> cno.await(1000)).type());
        evd.enable();
        evd.postSoftwareEvent(2);
        // The trigger is already there: a bounded wait, so a lost one fails (QUEUE_EMPTY) instead of hanging.
        assertSame(evd, cno.await(Waits.BOUND.toNanos() / 1000));
        AtomicReference<DatEvd> agentSaw = new AtomicReference<>();
        cno.modifyAgent(agentSaw::set);
        evd.postSoftwareEvent(3);
        assertSame(evd, agentSaw.get());
        DatException inUse = assertThrows(DatException.class, cno::close);
        assertEquals(DatReturn.INVALID_STATE, inUse.type());
        evd.modifyCno(null);
        cno.close();
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, () -> cno.await(0)).type());
    }

    @Test
    void theAsyncEvdIsFreedWithTheIa() {
        assertEquals(DatReturn.INVALID_STATE, assertThrows(DatException.class, () -> a.ia.asyncEvd().close()).type());
    }
}
