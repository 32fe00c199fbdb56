// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpRecvInfo;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatLmr;
import dat.api.DatReturn;
import dat.api.Iov;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * An EP used again after a flush: receive posted, abrupt disconnect flushes it, both EPs reset and reconnect, and the
 * peer sends with no receive posted. The send must wait for a receive (not land in the flushed one), the buffer the
 * application got back must stay untouched, the counts must stay sane, and the next disconnect must return.
 * (Regression: the delivery took the flushed slot, wrote 100 bytes into the returned buffer, completed it with the
 * old cookie, recv_query said -1, and the next flush spun forever holding the fabric's connection lock.)
 */
class LoopbackReuseAfterFlushTest {

    @Test
    void aFlushedReceiveIsNeverDeliveredAfterReconnect() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (Loop a = new Loop(); Loop b = new Loop("loopback0")) {
                DatEp ea = a.ep();
                DatEp eb = b.ep();
                a.connect(ea, b, eb);
                DatLmr buffers = b.lmr(4096);
                MemorySegment old = buffers.segment().asSlice(0, 256);
                Iov recv = b.iov(1).set(0, buffers, 0, 256);
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 77, 0));
                eb.disconnect(DatCloseFlags.ABRUPT);
                DatEvent flushed = Loop.expect(b.recvEvd, DatEventType.DTO_COMPLETION);
                assertEquals(77, flushed.userCookie());
                assertEquals(DatDtoStatus.FLUSHED, flushed.dtoStatus());
                Loop.drainAll(a.connectEvd);
                Loop.drainAll(b.connectEvd);
                Loop.drainAll(a.requestEvd);
                ea.reset();
                eb.reset();
                a.connect(ea, b, eb);
                old.fill((byte) 0x5A);

                DatLmr src = a.lmr(4096);
                Loop.fill(src, 3);
                assertEquals(DatReturn.DAT_SUCCESS, ea.postSend(1, a.iov(1).set(0, src, 0, 100), 5, 0));
                DatEvent e = new DatEvent();
                assertEquals(DatReturn.DAT_QUEUE_EMPTY, b.recvEvd.dequeue(e), () -> "no receive is posted: " + e);
                assertEquals(DatReturn.DAT_QUEUE_EMPTY, a.requestEvd.dequeue(e), () -> "the send waits: " + e);
                for (long i = 0; i < old.byteSize(); i++) {
                    assertEquals((byte) 0x5A, old.get(ValueLayout.JAVA_BYTE, i), "the returned buffer, byte " + i);
                }
                DatEpRecvInfo info = eb.recvQuery(Dat.DAT_EP_RECV_INFO_NBUFS_ALLOCATED);
                assertEquals(0, info.nbufsAllocated(), "nbufs_allocated with no receive posted");

                // A receive posted now takes the waiting message.
                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, b.iov(1).set(0, buffers, 1024, 256), 78, 0));
                DatEvent got = Loop.expect(b.recvEvd, DatEventType.DTO_COMPLETION);
                assertEquals(78, got.userCookie());
                assertEquals(100, got.transferredLength());
                assertEquals(DatDtoStatus.SUCCESS, Loop.expect(a.requestEvd, DatEventType.DTO_COMPLETION).dtoStatus());
                assertTrue(buffers.segment().asSlice(1024, 100).mismatch(src.segment().asSlice(0, 100)) < 0);

                assertEquals(DatReturn.DAT_SUCCESS, eb.postRecv(1, recv, 79, 0));
                ea.disconnect(DatCloseFlags.ABRUPT);
                assertEquals(DatDtoStatus.FLUSHED, Loop.expect(b.recvEvd, DatEventType.DTO_COMPLETION).dtoStatus());
                eb.close();
                ea.close();
            }
        });
    }
}
