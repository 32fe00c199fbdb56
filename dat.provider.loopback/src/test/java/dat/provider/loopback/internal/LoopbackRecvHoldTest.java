// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatLmr;
import dat.api.DatReturn;
import dat.api.Iov;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The own receive queue holds a slot until its completion is reaped (as a verbs receive queue does), and a receive
 * completion carries its cookie through the ring position it names: the cookie the consumer reads is the one posted
 * with that receive, whatever was posted since, whichever order slots were freed in, across a flush and a reset.
 */
class LoopbackRecvHoldTest {

    private static final int DEPTH = 2;

    private static DatEvent recvCompletion(Loop l, DatDtoStatus status) {
        DatEvent e = Loop.expect(l.recvEvd, DatEventType.DTO_COMPLETION);
        assertEquals(status, e.dtoStatus(), e::toString);
        return e;
    }

    @Test
    void aSlotIsHeldUntilItsCompletionIsReapedAndCarriesItsCookie() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (Loop a = new Loop(); Loop b = new Loop("loopback0")) {
                DatEp ea = a.ep();
                DatEp eb = b.ep(DatEpAttr.builder().maxRecvDtos(DEPTH).build());
                a.connect(ea, b, eb);
                DatLmr buffers = b.lmr(4096);
                DatLmr src = a.lmr(4096);
                Iov recv = b.iov(1).set(0, buffers, 0, 256);
                Iov send = a.iov(1).set(0, src, 0, 64);
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 100, 0));
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 101, 0));
                assertEquals(DatReturn.DAT_SUCCESS, ea.postSend(1, send, 1, 0));
                assertEquals(DatReturn.DAT_SUCCESS, ea.postSend(1, send, 2, 0));
                assertEquals(0, eb.recvQuery(Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED).nbufsAllocated(),
                        "both receives completed: none is allocated to the EP");
                // Both completions wait in the EVD: their slots are held, so a third receive does not fit.
                assertEquals(DatReturn.DAT_INSUFFICIENT_RESOURCES, eb.postRecv(1, recv, 102, 0));
                assertEquals(100, recvCompletion(b, DatDtoStatus.SUCCESS).userCookie());
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 102, 0), "a reaped slot is free again");
                assertEquals(DatReturn.DAT_INSUFFICIENT_RESOURCES, eb.postRecv(1, recv, 103, 0));
                assertEquals(101, recvCompletion(b, DatDtoStatus.SUCCESS).userCookie(),
                        "the cookie of the receive, not of the one posted into the freed slot since");
                assertEquals(DatReturn.DAT_SUCCESS, ea.postSend(1, send, 3, 0));
                assertEquals(102, recvCompletion(b, DatDtoStatus.SUCCESS).userCookie());
                Loop.drainAll(a.requestEvd);
                eb.close();
                ea.close();
            }
        });
    }

    @Test
    void aSuppressedReceiveFreedFirstDoesNotFreeTheSlotOfAnUnreapedOne() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (Loop a = new Loop(); Loop b = new Loop("loopback0")) {
                DatEp ea = a.ep();
                DatEp eb = b.ep(DatEpAttr.builder().maxRecvDtos(DEPTH).build());
                a.connect(ea, b, eb);
                DatLmr buffers = b.lmr(4096);
                DatLmr src = a.lmr(4096);
                Iov recv = b.iov(1).set(0, buffers, 0, 256);
                Iov send = a.iov(1).set(0, src, 0, 64);
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 200, 0));
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 201, DatCompletionFlags.SUPPRESS));
                assertEquals(DatReturn.DAT_SUCCESS, ea.postSend(1, send, 1, 0));
                assertEquals(DatReturn.DAT_SUCCESS, ea.postSend(1, send, 2, 0));
                // Receive 201 completed suppressed and freed its slot; 200's completion still holds slot 0, so the
                // one free slot is not in order yet: refilling slot 0 would overwrite cookie 200.
                assertEquals(DatReturn.DAT_INSUFFICIENT_RESOURCES, eb.postRecv(1, recv, 202, 0));
                assertEquals(200, recvCompletion(b, DatDtoStatus.SUCCESS).userCookie());
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 202, 0));
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 203, 0));
                DatEvent e = new DatEvent();
                assertEquals(DatReturn.DAT_QUEUE_EMPTY, b.recvEvd.dequeue(e), () -> "suppressed: " + e);
                Loop.drainAll(a.requestEvd);
                eb.close();
                ea.close();
            }
        });
    }

    @Test
    void flushedCompletionsKeepTheirCookiesAndAResetQueueIsWhollyFree() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (Loop a = new Loop(); Loop b = new Loop("loopback0")) {
                DatEp ea = a.ep();
                DatEp eb = b.ep(DatEpAttr.builder().maxRecvDtos(DEPTH).build());
                a.connect(ea, b, eb);
                DatLmr buffers = b.lmr(4096);
                Iov recv = b.iov(1).set(0, buffers, 0, 256);
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 300, 0));
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 301, 0));
                ea.disconnect(DatCloseFlags.ABRUPT);
                Loop.drainAll(a.connectEvd);
                Loop.drainAll(b.connectEvd);
                ea.reset();
                eb.reset();
                // The flushed completions are not reaped yet; after the reset the whole queue is free, as a verbs
                // QP's reset empties its receive queue.
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 310, 0));
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 311, 0));
                assertEquals(DatReturn.DAT_INSUFFICIENT_RESOURCES, eb.postRecv(1, recv, 312, 0));
                assertEquals(300, recvCompletion(b, DatDtoStatus.FLUSHED).userCookie(),
                        "a flushed completion reads the cookie of its own receive, not of the post since");
                assertEquals(301, recvCompletion(b, DatDtoStatus.FLUSHED).userCookie());
                a.connect(ea, b, eb);
                DatLmr src = a.lmr(4096);
                assertEquals(DatReturn.DAT_SUCCESS, ea.postSend(1, a.iov(1).set(0, src, 0, 64), 1, 0));
                assertEquals(310, recvCompletion(b, DatDtoStatus.SUCCESS).userCookie());
                Loop.drainAll(a.requestEvd);
                eb.close();
                ea.close();
            }
        });
    }
}
