// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static dat.provider.loopback.internal.Loop.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatAsyncReason;
import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpRecvInfo;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.DatSrqParam;
import dat.api.Iov;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LoopbackSrqTest {

    private final Loop a = new Loop("loopback0");
    private final Loop b = new Loop("loopback1");

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private DatSrq srq(int max) {
        return b.ia.createSrq(b.pz, DatSrqAttr.of(max, 2));
    }

    @Test
    void createChecksItsAttributes() {
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class,
                () -> b.ia.createSrq(b.pz, DatSrqAttr.of(0, 1))).type());
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class,
                () -> b.ia.createSrq(b.pz, DatSrqAttr.of(LoopbackConfig.MAX_RECV_PER_SRQ + 1, 1))).type());
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class,
                () -> b.ia.createSrq(b.pz, DatSrqAttr.of(4, 17))).type());
        DatException lw = assertThrows(DatException.class, () -> b.ia.createSrq(b.pz, new DatSrqAttr(4, 1, 2)));
        assertEquals(DatReturn.INVALID_PARAMETER, lw.type());
        assertTrue(lw.getMessage().contains("low_watermark"), lw.getMessage());
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class,
                () -> b.ia.createSrq(a.pz, DatSrqAttr.of(4, 1))).type());
    }

    @Test
    void postRecvReturnCodesFollowTheSeedPage() {
        DatSrq srq = srq(2);
        DatLmr dst = b.lmr(16);
        Iov iov = b.iov(4).set(0, dst, 0, 8).set(1, dst, 8, 8);
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, srq.postRecv(3, iov, 0));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, srq.postRecv(-1, iov, 0));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, srq.postRecv(1, null, 0));
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, srq.postRecv(1, b.iov(1).set(0, 99, 0, 1), 0));
        var pz2 = b.ia.createPz();
        DatLmr otherPz = b.ia.createLmr(pz2, b.arena.allocate(8), DatMemPriv.ALL);
        assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, srq.postRecv(1, b.iov(1).set(0, otherPz, 0, 8), 0));
        DatLmr readOnly = b.lmr(8, DatMemPriv.LOCAL_READ);
        assertEquals(DatReturn.DAT_PRIVILEGES_VIOLATION, srq.postRecv(1, b.iov(1).set(0, readOnly, 0, 8), 0));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, srq.postRecv(1, b.iov(1).set(0, dst, 12, 8), 0));
        assertEquals(DatReturn.DAT_SUCCESS, srq.postRecv(2, iov, 1));
        assertEquals(DatReturn.DAT_SUCCESS, srq.postRecv(0, null, 2));
        assertEquals(DatReturn.DAT_INSUFFICIENT_RESOURCES, srq.postRecv(1, iov, 3));
        srq.close();
        assertEquals(DatReturn.DAT_INVALID_HANDLE, srq.postRecv(1, iov, 4));
        otherPz.close();
        pz2.close();
    }

    @Test
    void manyEpsShareTheSrqAndPostRecvOnEpIsRefused() {
        DatSrq srq = srq(8);
        DatEp s1 = b.ep(srq);
        DatEp s2 = b.ep(srq);
        DatEp c1 = a.ep();
        DatEp c2 = a.ep();
        a.connect(c1, b, s1);
        a.connect(c2, b, s2);
        assertEquals(DatReturn.DAT_INVALID_STATE, s1.postRecv(0, null, 0, 0));
        DatLmr src = a.lmr(8);
        Loop.fill(src, 3);
        DatLmr dst = b.lmr(64);
        for (int i = 0; i < 4; i++) {
            assertEquals(DatReturn.DAT_SUCCESS, srq.postRecv(1, b.iov(1).set(0, dst, i * 16L, 16), 100 + i));
        }
        assertEquals(DatReturn.DAT_SUCCESS, c2.postSend(1, a.iov(1).set(0, src, 0, 8), 2, 0));
        assertEquals(DatReturn.DAT_SUCCESS, c1.postSend(1, a.iov(1).set(0, src, 0, 4), 1, 0));
        DatEvent first = expect(b.recvEvd, DatEventType.DTO_COMPLETION);
        assertSame(s2, first.ep());
        assertEquals(100, first.userCookie(), "SRQ buffers are taken in posting order");
        assertEquals(8, first.transferredLength());
        DatEvent second = expect(b.recvEvd, DatEventType.DTO_COMPLETION);
        assertSame(s1, second.ep());
        assertEquals(101, second.userCookie());
        assertEquals(3, dst.segment().get(ValueLayout.JAVA_BYTE, 16));
        DatSrqParam p = srq.query();
        assertEquals(2, p.availableDtoCount());
        assertEquals(2, p.outstandingDtoCount());
        DatException inUse = assertThrows(DatException.class, srq::close);
        assertEquals(DatReturn.INVALID_STATE, inUse.type());
        assertEquals(DatReturnSubtype.INVALID_STATE_SRQ_IN_USE, inUse.subtype());
        assertTrue(inUse.getMessage().contains("2 EP"), inUse.getMessage());
    }

    /**
     * Senders on two connections wait for an empty SRQ. A post that serves one of them must leave the SRQ
     * marked starved for the other, so the next post runs it; a post with nobody waiting serves nobody.
     */
    @Test
    void everyPostRunsTheSendersStillWaiting() {
        DatSrq srq = srq(8);
        DatEp s1 = b.ep(srq);
        DatEp s2 = b.ep(srq);
        DatEp c1 = a.ep();
        DatEp c2 = a.ep();
        a.connect(c1, b, s1);
        a.connect(c2, b, s2);
        DatLmr src = a.lmr(8);
        DatLmr dst = b.lmr(64);
        assertEquals(DatReturn.DAT_SUCCESS, c1.postSend(1, a.iov(1).set(0, src, 0, 8), 1, 0));
        assertEquals(DatReturn.DAT_SUCCESS, c2.postSend(1, a.iov(1).set(0, src, 0, 8), 2, 0));
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, b.recvEvd.dequeue(new DatEvent()));
        assertEquals(DatReturn.DAT_SUCCESS, srq.postRecv(1, b.iov(1).set(0, dst, 0, 16), 10));
        DatEvent first = expect(b.recvEvd, DatEventType.DTO_COMPLETION);
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, b.recvEvd.dequeue(new DatEvent()), "one buffer, one message");
        assertEquals(DatReturn.DAT_SUCCESS, srq.postRecv(1, b.iov(1).set(0, dst, 16, 16), 11));
        DatEvent second = expect(b.recvEvd, DatEventType.DTO_COMPLETION);
        assertTrue(first.ep() != second.ep(), "each waiting connection got one buffer");
        assertEquals(11, second.userCookie());
        assertTrue(c1.getStatus().requestIdle());
        assertTrue(c2.getStatus().requestIdle());
        assertEquals(DatReturn.DAT_SUCCESS, srq.postRecv(1, b.iov(1).set(0, dst, 32, 16), 12));
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, b.recvEvd.dequeue(new DatEvent()));
        assertEquals(1, srq.query().availableDtoCount());
        assertEquals(DatReturn.DAT_SUCCESS, c1.postSend(1, a.iov(1).set(0, src, 0, 8), 3, 0));
        assertEquals(12, expect(b.recvEvd, DatEventType.DTO_COMPLETION).userCookie(),
                "a waiting buffer is taken at once");
    }

    @Test
    void resizeNeverGoesBelowOutstandingBuffers() {
        DatSrq srq = srq(8);
        DatEp server = b.ep(srq);
        DatEp client = a.ep();
        a.connect(client, b, server);
        DatLmr dst = b.lmr(64);
        for (int i = 0; i < 6; i++) {
            srq.postRecv(1, b.iov(1).set(0, dst, i * 8L, 8), i);
        }
        DatLmr src = a.lmr(8);
        client.postSend(1, a.iov(1).set(0, src, 0, 8), 0, 0);
        client.postSend(1, a.iov(1).set(0, src, 0, 8), 0, 0);
        // 4 on the SRQ + 2 completed but not reaped = 6 outstanding
        DatException e = assertThrows(DatException.class, () -> srq.resize(5));
        assertEquals(DatReturn.INVALID_STATE, e.type());
        assertEquals("DAT_INVALID_STATE/INVALID_STATE_SRQ_IN_USE: dat_srq_resize: srq_max_recv_dto 5 is below the 6"
                + " outstanding buffers", e.getMessage());
        assertEquals(8, srq.query().maxRecvDtos(), "a failed resize leaves the SRQ unchanged");
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class, () -> srq.resize(0)).type());
        assertEquals(DatReturn.INSUFFICIENT_RESOURCES, assertThrows(DatException.class,
                () -> srq.resize(LoopbackConfig.MAX_RECV_PER_SRQ + 1)).type(), "beyond max_recv_per_srq");
        srq.resize(6);
        assertEquals(6, srq.query().maxRecvDtos());
        assertEquals(DatReturn.DAT_INSUFFICIENT_RESOURCES, srq.postRecv(1, b.iov(1).set(0, dst, 0, 8), 9));
        Loop.drainAll(b.recvEvd);
        assertEquals(4, srq.query().outstandingDtoCount());
        srq.resize(4);
        srq.resize(20);
        for (int i = 0; i < 16; i++) {
            assertEquals(DatReturn.DAT_SUCCESS, srq.postRecv(1, b.iov(1).set(0, dst, 0, 8), 50 + i));
        }
        assertEquals(DatReturn.DAT_INSUFFICIENT_RESOURCES, srq.postRecv(1, b.iov(1).set(0, dst, 0, 8), 99));
        for (int i = 0; i < 20; i++) {
            assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, a.iov(1).set(0, src, 0, 8), i, 0));
            Loop.drainAll(a.requestEvd);
        }
        DatEvent ev = new DatEvent();
        long[] cookies = new long[20];
        for (int i = 0; i < 20; i++) {
            assertEquals(DatReturn.DAT_SUCCESS, b.recvEvd.dequeue(ev));
            assertEquals(DatDtoStatus.SUCCESS, ev.dtoStatus());
            cookies[i] = ev.userCookie();
        }
        assertEquals(2, cookies[0], "nothing was lost by the resizes");
        assertEquals(65, cookies[19]);
        assertEquals(0, srq.query().outstandingDtoCount());
    }

    @Test
    void lowWatermarkFiresOnceThenDisarms() {
        DatSrq srq = srq(8);
        DatEp server = b.ep(srq);
        DatEp client = a.ep();
        a.connect(client, b, server);
        DatLmr dst = b.lmr(64);
        for (int i = 0; i < 4; i++) {
            srq.postRecv(1, b.iov(1).set(0, dst, i * 8L, 8), i);
        }
        assertEquals(DatReturn.INVALID_PARAMETER,
                assertThrows(DatException.class, () -> srq.setLowWatermark(9)).type());
        srq.setLowWatermark(3);
        assertEquals(3, srq.query().lowWatermark());
        assertEquals(DatReturn.INVALID_STATE, assertThrows(DatException.class, () -> srq.resize(2)).type());
        DatLmr src = a.lmr(8);
        Iov s = a.iov(1).set(0, src, 0, 8);
        client.postSend(1, s, 0, 0);
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, b.ia.asyncEvd().dequeue(new DatEvent()), "4 -> 3 is not below 3");
        client.postSend(1, s, 0, 0);
        DatEvent e = expect(b.ia.asyncEvd(), DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK);
        assertSame(srq, e.asyncHandle());
        assertEquals(DatAsyncReason.SRQ_LOW_WATERMARK_EVENT, e.asyncReason());
        assertEquals(3, srq.query().lowWatermark(), "low_watermark keeps the value set; only the event is spent");
        client.postSend(1, s, 0, 0);
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, b.ia.asyncEvd().dequeue(new DatEvent()), "one-shot");
        srq.setLowWatermark(5);
        expect(b.ia.asyncEvd(), DatEventType.ASYNC_EVENT_SRQ_LOW_WATERMARK);
    }

    @Test
    void recvQueryOnAnSrqEpAndFlushOnDisconnect() {
        DatSrq srq = srq(4);
        DatEp server = b.ep(srq);
        DatEp client = a.ep();
        a.connect(client, b, server);
        assertEquals(new DatEpRecvInfo(0, 0), server.recvQuery(0x11));
        DatLmr src = a.lmr(8);
        client.postSend(1, a.iov(1).set(0, src, 0, 8), 7, 0);
        assertTrue(client.getStatus().requestIdle() == false);
        DatLmr dst = b.lmr(8);
        srq.postRecv(1, b.iov(1).set(0, dst, 0, 8), 1);
        assertEquals(new DatEpRecvInfo(0, 0), server.recvQuery(0x11), "delivered whole, completed in the same call");
        assertEquals(8, expect(b.recvEvd, DatEventType.DTO_COMPLETION).transferredLength());
        Loop.drainAll(a.requestEvd);
        client.postSend(1, a.iov(1).set(0, src, 0, 8), 8, 0);
        client.disconnect(DatCloseFlags.ABRUPT);
        DatEvent flushed = expect(a.requestEvd, DatEventType.DTO_COMPLETION);
        assertEquals(DatDtoStatus.FLUSHED, flushed.dtoStatus());
        assertEquals(8, flushed.userCookie());
        srq.postRecv(1, b.iov(1).set(0, dst, 0, 8), 2);
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, b.recvEvd.dequeue(new DatEvent()),
                "a buffer on the SRQ belongs to no EP: the disconnect does not flush it");
        assertEquals(1, srq.query().availableDtoCount());
    }
}
