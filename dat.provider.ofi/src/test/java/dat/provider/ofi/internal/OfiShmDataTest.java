// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.Iov;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DAT over shm's RDM association in one IA: connect, messages in both directions matched in posting order, RDMA
 * write and read with the remote key, and the flush of what is posted when the peer disconnects.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OfiShmDataTest {

    private static final long TIMEOUT = 10_000_000;

    @Test
    void sendsRecvsAndRdmaOverAnAssociationThenTheFlush() {
        DatIa ia = new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, 7490);
            MemorySegment a = arena.allocate(4096, 64);
            MemorySegment b = arena.allocate(4096, 64);
            DatLmr la = ia.createLmr(pz, a, DatMemPriv.ALL);
            DatLmr lb = ia.createLmr(pz, b, DatMemPriv.ALL);
            DatEvd recvs = p.passive().query().recvEvd();
            DatEvent e = new DatEvent();
            Iov first = Iov.allocate(arena, 1).set(0, lb, 0, 64);
            Iov second = Iov.allocate(arena, 1).set(0, lb, 64, 64);
            assertEquals(DatReturn.DAT_SUCCESS, p.passive().postRecv(1, first, 1, 0));
            assertEquals(DatReturn.DAT_SUCCESS, p.passive().postRecv(1, second, 2, 0));
            a.asSlice(0, 16).fill((byte) 7);
            a.asSlice(16, 16).fill((byte) 8);
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, Iov.allocate(arena, 1).set(0, la, 0, 16), 10,
                    0));
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, Iov.allocate(arena, 1).set(0, la, 16, 16), 11,
                    0));
            for (int i = 0; i < 2; i++) {
                assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e), "send " + i);
                assertSame(DatDtoStatus.SUCCESS, e.dtoStatus());
            }
            // The requests and receives share one EVD pair in OfiPzTest.connect: the receives complete in order.
            assertEquals(DatReturn.DAT_SUCCESS, recvs.await(TIMEOUT, 1, e));
            assertEquals(1, e.userCookie());
            assertEquals(16, e.transferredLength());
            assertEquals(DatReturn.DAT_SUCCESS, recvs.await(TIMEOUT, 1, e));
            assertEquals(2, e.userCookie());
            assertEquals((byte) 7, b.get(ValueLayout.JAVA_BYTE, 0));
            assertEquals((byte) 8, b.get(ValueLayout.JAVA_BYTE, 64));
            a.asSlice(1024, 256).fill((byte) 0x3c);
            Iov src = Iov.allocate(arena, 1).set(0, la, 1024, 256);
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postRdmaWrite(1, src, 20, lb.rmrContext(),
                    b.address() + 2048, 256, 0));
            assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e));
            assertSame(DatDtoStatus.SUCCESS, e.dtoStatus(), "the write");
            assertEquals((byte) 0x3c, b.get(ValueLayout.JAVA_BYTE, 2048 + 255));
            Iov dst = Iov.allocate(arena, 1).set(0, la, 3072, 256);
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postRdmaRead(1, dst, 21, lb.rmrContext(),
                    b.address() + 2048, 256, 0));
            assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e));
            assertSame(DatDtoStatus.SUCCESS, e.dtoStatus(), "the read");
            assertEquals((byte) 0x3c, a.get(ValueLayout.JAVA_BYTE, 3072 + 255));
            assertEquals(DatReturn.DAT_SUCCESS, p.passive().postRecv(1, first, 3, 0));
            p.active().disconnect(DatCloseFlags.ABRUPT);
            assertEquals(DatReturn.DAT_SUCCESS, p.activeConn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, e.type());
            assertEquals(DatReturn.DAT_SUCCESS, p.passiveConn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, e.type());
            assertEquals(DatReturn.DAT_SUCCESS, recvs.await(TIMEOUT, 1, e));
            assertEquals(3, e.userCookie());
            assertSame(DatDtoStatus.FLUSHED, e.dtoStatus());
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * A full request queue of sends no receive waits for yet (held in the EP for the peer's credit), then the
     * receives: every send and receive completes, in order, round after round.
     */
    @Test
    void aFullQueueOfUnexpectedSendsIsReceivedInOrder() {
        DatIa ia = new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, 7491);
            int depth = Integer.getInteger("ofi.shm.depth", p.active().query().epAttr().maxRequestDtos());
            System.out.println("depth " + depth);
            MemorySegment src = arena.allocate(4096, 64);
            MemorySegment dst = arena.allocate(8L * depth, 64);
            DatLmr ls = ia.createLmr(pz, src, DatMemPriv.ALL);
            DatLmr ld = ia.createLmr(pz, dst, DatMemPriv.ALL);
            DatEvd recvs = p.passive().query().recvEvd();
            DatEvent e = new DatEvent();
            Iov s = Iov.allocate(arena, 1).set(0, ls, 0, 8);
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < depth; i++) {
                    assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, s, i, 0), "send " + i);
                }
                for (int i = 0; i < depth; i++) {
                    assertEquals(DatReturn.DAT_SUCCESS, p.passive().postRecv(1, Iov.allocate(arena, 1).set(0, ld,
                            8L * i, 8), i, 0), "recv " + i);
                }
                for (int i = 0; i < depth; i++) {
                    assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e), "send completion " + i);
                    assertSame(DatDtoStatus.SUCCESS, e.dtoStatus());
                    assertEquals(DatReturn.DAT_SUCCESS, recvs.await(TIMEOUT, 1, e), "recv completion " + i);
                    assertEquals(i, e.userCookie());
                }
            }
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /** A message longer than the receive's buffer: the receive completes DAT_DTO_ERR_LOCAL_LENGTH. */
    @Test
    void anOversizedMessageIsALocalLengthError() {
        DatIa ia = new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, 7492);
            MemorySegment buf = arena.allocate(4096, 64);
            DatLmr lmr = ia.createLmr(pz, buf, DatMemPriv.ALL);
            DatEvd recvs = p.passive().query().recvEvd();
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, p.passive().postRecv(1, Iov.allocate(arena, 1).set(0, lmr, 0, 8), 5,
                    0));
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, Iov.allocate(arena, 1).set(0, lmr, 1024, 64),
                    6, 0));
            assertEquals(DatReturn.DAT_SUCCESS, recvs.await(TIMEOUT, 1, e));
            assertEquals(5, e.userCookie());
            assertSame(DatDtoStatus.LOCAL_LENGTH_ERR, e.dtoStatus());
            // The receive failed, so the send did not land: it goes with the connection's break, never SUCCESS.
            assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e));
            assertEquals(6, e.userCookie());
            assertSame(DatDtoStatus.FLUSHED, e.dtoStatus());
            assertEquals(DatReturn.DAT_SUCCESS, p.passiveConn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_BROKEN, e.type());
            assertEquals(DatReturn.DAT_SUCCESS, p.activeConn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, e.type());
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * A send no receive waits for stays open (held for the peer's credit): it completes when the peer's receive took
     * it, as on an RC queue pair, not when libfabric says it left.
     */
    @Test
    void aSendCompletesOnlyOnceThePeersReceiveTookIt() {
        DatIa ia = new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, 7494);
            MemorySegment buf = arena.allocate(4096, 64);
            DatLmr lmr = ia.createLmr(pz, buf, DatMemPriv.ALL);
            DatEvd recvs = p.passive().query().recvEvd();
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, Iov.allocate(arena, 1).set(0, lmr, 0, 32), 7,
                    0));
            assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, p.requests().await(300_000, 1, e),
                    "the send completed before any receive took it");
            assertEquals(DatReturn.DAT_SUCCESS, p.passive().postRecv(1, Iov.allocate(arena, 1).set(0, lmr, 1024, 64),
                    8, 0));
            assertEquals(DatReturn.DAT_SUCCESS, recvs.await(TIMEOUT, 1, e));
            assertEquals(8, e.userCookie());
            assertSame(DatDtoStatus.SUCCESS, e.dtoStatus());
            assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e));
            assertEquals(7, e.userCookie());
            assertSame(DatDtoStatus.SUCCESS, e.dtoStatus());
            assertEquals(32, e.transferredLength());
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * The peer takes two of three sends, then disconnects gracefully: the two complete SUCCESS (its last advert says
     * they landed), the third, which no receive took, FLUSHED; in posting order.
     */
    @Test
    void theSendsADisconnectingPeerReceivedSucceedTheRestAreFlushed() {
        DatIa ia = new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, 7495);
            MemorySegment buf = arena.allocate(4096, 64);
            DatLmr lmr = ia.createLmr(pz, buf, DatMemPriv.ALL);
            DatEvd recvs = p.passive().query().recvEvd();
            DatEvent e = new DatEvent();
            for (int i = 0; i < 2; i++) {
                assertEquals(DatReturn.DAT_SUCCESS, p.passive().postRecv(1, Iov.allocate(arena, 1).set(0, lmr,
                        1024 + 64L * i, 64), 20 + i, 0));
            }
            for (int i = 0; i < 3; i++) {
                assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, Iov.allocate(arena, 1).set(0, lmr, 0, 16),
                        10 + i, 0));
            }
            for (int i = 0; i < 2; i++) {
                assertEquals(DatReturn.DAT_SUCCESS, recvs.await(TIMEOUT, 1, e));
                assertEquals(20 + i, e.userCookie());
                assertSame(DatDtoStatus.SUCCESS, e.dtoStatus());
            }
            p.passive().disconnect(DatCloseFlags.GRACEFUL);
            assertEquals(DatReturn.DAT_SUCCESS, p.passiveConn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, e.type());
            assertEquals(DatReturn.DAT_SUCCESS, p.activeConn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, e.type());
            for (int i = 0; i < 3; i++) {
                assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e), "send " + i);
                assertEquals(10 + i, e.userCookie());
                assertSame(i < 2 ? DatDtoStatus.SUCCESS : DatDtoStatus.FLUSHED, e.dtoStatus(), "send " + i);
            }
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * A send no receive waits for, the sender's ABRUPT disconnect, then the peer's receive: as on an RC queue pair,
     * whose send waits in RNR until a receive is posted, the message never left, so the send is FLUSHED and the
     * receive posted after the end takes nothing. Campaign seed 0x10a11 on ofi-shm-shm-rdm: the message waited in
     * shm's unexpected queue and filled that receive (SUCCESS) while its send was reported FLUSHED.
     */
    @Test
    void aSendNoReceiveWaitedForEndsWithAnAbruptDisconnectAndFillsNoLaterReceive() {
        DatIa ia = new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, 7486);
            MemorySegment buf = arena.allocate(4096, 64);
            buf.asSlice(0, 32).fill((byte) 0x5a);
            DatLmr lmr = ia.createLmr(pz, buf, DatMemPriv.ALL);
            DatEvd recvs = p.passive().query().recvEvd();
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, Iov.allocate(arena, 1).set(0, lmr, 0, 32), 7,
                    0));
            assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, p.requests().await(300_000, 1, e),
                    "the send completed before any receive took it");
            OfiIa ofi = (OfiIa) ia;
            ofi.lock.lock();
            try {
                assertEquals(1, ((OfiEp) p.active()).data.held(), "the send waits for the peer's credit");
            } finally {
                ofi.lock.unlock();
            }
            p.active().disconnect(DatCloseFlags.ABRUPT);
            assertEquals(DatReturn.DAT_SUCCESS, p.passive().postRecv(1, Iov.allocate(arena, 1).set(0, lmr, 1024,
                    64), 8, 0));
            assertEquals(DatReturn.DAT_SUCCESS, p.activeConn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, e.type());
            assertEquals(DatReturn.DAT_SUCCESS, p.passiveConn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, e.type());
            assertEquals(DatReturn.DAT_SUCCESS, recvs.await(TIMEOUT, 1, e), "the receive");
            assertEquals(8, e.userCookie());
            assertSame(DatDtoStatus.FLUSHED, e.dtoStatus(), "the receive posted after the end");
            assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e), "the send");
            assertEquals(7, e.userCookie());
            assertSame(DatDtoStatus.FLUSHED, e.dtoStatus(), "the send no receive took");
            assertEquals((byte) 0, buf.get(ValueLayout.JAVA_BYTE, 1024), "the receive's buffer");
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * RDMA writes shm's target refuses without a word to the writer (a region without remote write, a range past the
     * region, a key the zone does not have): the writer's probe learns it from the target's zone, and the write
     * completes DAT_DTO_ERR_REMOTE_ACCESS and breaks the connection, as on an RC queue pair; nothing lands. Before, the
     * write never completed.
     */
    @Test
    void aWriteTheTargetsZoneRefusesFailsWithARemoteAccessError() {
        DatIa ia = new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            MemorySegment src = arena.allocate(4096, 64).fill((byte) 0x77);
            MemorySegment dst = arena.allocate(4096, 64);
            DatLmr from = ia.createLmr(pz, src, DatMemPriv.ALL);
            DatLmr readOnly = ia.createLmr(pz, dst.asSlice(0, 2048), DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE
                    | DatMemPriv.REMOTE_READ);
            DatLmr writable = ia.createLmr(pz, dst.asSlice(2048, 2048), DatMemPriv.ALL);
            long[][] refused = {
                {readOnly.rmrContext(), dst.address(), 64},
                {writable.rmrContext(), dst.address() + 4096 - 32, 64},
                {writable.rmrContext() ^ 0x5a5a5a5a, dst.address() + 2048, 64},
            };
            DatEvent e = new DatEvent();
            for (int i = 0; i < refused.length; i++) {
                OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, 7466 + i);
                Iov iov = Iov.allocate(arena, 1).set(0, from, 0, refused[i][2]);
                assertEquals(DatReturn.DAT_SUCCESS, p.active().postRdmaWrite(1, iov, 30 + i, (int) refused[i][0],
                        refused[i][1], refused[i][2], 0), "write " + i);
                assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e), "write " + i);
                assertEquals(30 + i, e.userCookie());
                assertSame(DatDtoStatus.REMOTE_ACCESS_ERR, e.dtoStatus(), "write " + i);
                assertEquals(DatReturn.DAT_SUCCESS, p.activeConn().await(TIMEOUT, 1, e), "write " + i);
                assertSame(DatEventType.CONNECTION_EVENT_BROKEN, e.type(), "write " + i);
                assertEquals(DatReturn.DAT_SUCCESS, p.passiveConn().await(TIMEOUT, 1, e), "write " + i);
                for (long b = 0; b < 4096; b++) {
                    assertEquals((byte) 0, dst.get(ValueLayout.JAVA_BYTE, b), "write " + i + ", byte " + b);
                }
            }
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * A send that waited out shm's EAGAIN (its EP's RDMA write to the peer still under way) through progress steps
     * that completed a receive of the peer's message tells the peer of that receive: in its CQ data, or in an advert
     * after it. Campaign seed 0x10a4b on ofi-shm-shm-rdm: the send carried the counts packed before those steps and
     * was taken to have told the receive, so no advert went and the peer's send never completed.
     */
    @Test
    void aSendThatWaitedThroughAReceiveStillTellsThePeerOfIt() {
        DatIa ia = new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        OfiIa ofi = (OfiIa) ia;
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, 7499);
            MemorySegment buf = arena.allocate(8192, 64);
            DatLmr lmr = ia.createLmr(pz, buf, DatMemPriv.ALL);
            assertEquals(DatReturn.DAT_SUCCESS, p.active().postRecv(1, Iov.allocate(arena, 1).set(0, lmr, 1024, 64),
                    1, 0));
            assertEquals(DatReturn.DAT_SUCCESS, p.passive().postRecv(1, Iov.allocate(arena, 1).set(0, lmr, 2048, 64),
                    2, 0));
            awaitCredit(ofi, (OfiEp) p.active());
            awaitCredit(ofi, (OfiEp) p.passive());
            ofi.lock.lock();
            try {
                // No other thread steps the IA now: the passive side's message waits in the active side's queue
                // until the EAGAIN of the active side's send runs the steps that complete its receive.
                assertEquals(DatReturn.DAT_SUCCESS, p.passive().postSend(1, Iov.allocate(arena, 1).set(0, lmr, 0,
                        32), 3, 0));
                assertEquals(DatReturn.DAT_SUCCESS, p.active().postRdmaWrite(1, Iov.allocate(arena, 1).set(0, lmr,
                        0, 1024), 4, lmr.rmrContext(), buf.address() + 4096, 1024, 0));
                assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, Iov.allocate(arena, 1).set(0, lmr, 0,
                        16), 5, 0));
            } finally {
                ofi.lock.unlock();
            }
            DatEvd recvs = p.active().query().recvEvd();
            Map<Long, DatDtoStatus> done = new HashMap<>();
            DatEvent e = new DatEvent();
            for (int i = 0; i < 3; i++) {
                assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e), "request " + i + " of 3, "
                        + "done so far " + done);
                done.put(e.userCookie(), e.dtoStatus());
            }
            for (int i = 0; i < 2; i++) {
                assertEquals(DatReturn.DAT_SUCCESS, recvs.await(TIMEOUT, 1, e), "receive " + i);
                done.put(e.userCookie(), e.dtoStatus());
            }
            for (long cookie = 1; cookie <= 5; cookie++) {
                assertSame(DatDtoStatus.SUCCESS, done.get(cookie), "cookie " + cookie + " of " + done);
            }
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * RDMA writes of no bytes (no segment, one empty segment, a key of no region), each followed by a send: every
     * request completes and the send lands. Campaign seed 0xda723eb4c02d3135 on ofi-shm-shm-rdm: a write of no bytes
     * asking delivery went as shm's segmented protocol with no segment, whose response stays marked as holding data
     * the target never copies out, so every later post to that peer was answered EAGAIN until the retry gave up and
     * the connection broke.
     */
    @Test
    void aWriteOfNoBytesLeavesTheNextSendToThePeerFree() {
        DatIa ia = new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, 7500);
            MemorySegment buf = arena.allocate(8192, 64);
            DatLmr lmr = ia.createLmr(pz, buf, DatMemPriv.ALL);
            DatEvd recvs = p.passive().query().recvEvd();
            DatEvent e = new DatEvent();
            Iov none = Iov.allocate(arena, 1);
            Iov empty = Iov.allocate(arena, 1).set(0, lmr, 0, 0);
            // The third round's key names no region: an HCA checks no key for zero bytes (InfiniBand C9-88).
            int[] keys = {lmr.rmrContext(), lmr.rmrContext(), lmr.rmrContext() ^ 0x5a5a5a5a};
            for (int round = 0; round < keys.length; round++) {
                Iov write = round == 0 ? none : empty;
                int segments = round == 0 ? 0 : 1;
                buf.asSlice(0, 32).fill((byte) (0x40 + round));
                assertEquals(DatReturn.DAT_SUCCESS, p.passive().postRecv(1, Iov.allocate(arena, 1).set(0, lmr,
                        4096, 64), 100 + round, 0));
                assertEquals(DatReturn.DAT_SUCCESS, p.active().postRdmaWrite(segments, write, 10 + round,
                        keys[round], buf.address() + 2048, 0, 0), "write of round " + round);
                assertEquals(DatReturn.DAT_SUCCESS, p.active().postSend(1, Iov.allocate(arena, 1).set(0, lmr, 0,
                        32), 20 + round, 0), "send of round " + round);
                for (long cookie : new long[] {10 + round, 20 + round}) {
                    assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e), "request " + cookie);
                    assertEquals(cookie, e.userCookie());
                    assertSame(DatDtoStatus.SUCCESS, e.dtoStatus(), "request " + cookie);
                }
                assertEquals(DatReturn.DAT_SUCCESS, recvs.await(TIMEOUT, 1, e), "receive of round " + round);
                assertEquals(100 + round, e.userCookie());
                assertSame(DatDtoStatus.SUCCESS, e.dtoStatus());
                assertEquals(32, e.transferredLength());
                assertEquals((byte) (0x40 + round), buf.get(ValueLayout.JAVA_BYTE, 4096 + 31));
            }
            assertEquals(DatReturn.DAT_QUEUE_EMPTY, p.activeConn().dequeue(e), "the connection held");
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /** Waits until the EP's sends have the peer's credit for one message. */
    private static void awaitCredit(OfiIa ofi, OfiEp ep) {
        long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(TIMEOUT);
        while (true) {
            ofi.lock.lock();
            try {
                if (ep.data.credit.maySend()) {
                    return;
                }
            } finally {
                ofi.lock.unlock();
            }
            assertTrue(System.nanoTime() - until < 0, "the peer's credit never came");
            Thread.onSpinWait();
        }
    }

    /**
     * The credit word's halves each name the connection they are for: a late write of an earlier connection into a
     * pooled word (or one half of it beside a half of this connection's) raises nothing.
     */
    @Test
    void anAdvertForAnotherConnectionRaisesNothing() {
        DatIa ia = new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        OfiIa ofi = (OfiIa) ia;
        try {
            DatPz pz = ia.createPz();
            OfiPzTest.Pair p = OfiPzTest.connect(ia, pz, 7487);
            OfiCredit credit = ((OfiEp) p.active()).data.credit;
            ofi.lock.lock();
            try {
                int serial = credit.ownSerial();
                MemorySegment word = credit.word();
                long granted = credit.credit;
                long landed = credit.peerDelivered;
                word.set(ValueLayout.JAVA_LONG, 0, OfiCredit.rdmHalf(landed + 5, serial + 1));
                word.set(ValueLayout.JAVA_LONG, 8, OfiCredit.rdmHalf(granted + 5, serial + 1));
                credit.readWord();
                assertEquals(granted, credit.credit, "credit from another connection's advert");
                assertEquals(landed, credit.peerDelivered, "deliveries from another connection's advert");
                word.set(ValueLayout.JAVA_LONG, 8, OfiCredit.rdmHalf(granted + 3, serial));
                credit.readWord();
                assertEquals(granted + 3, credit.credit, "this connection's posted count");
                assertEquals(landed, credit.peerDelivered, "the other half, still another connection's");
                word.set(ValueLayout.JAVA_LONG, 0, OfiCredit.rdmHalf(landed + 2, serial));
                credit.readWord();
                assertEquals(landed + 2, credit.peerDelivered, "this connection's delivered count");
            } finally {
                ofi.lock.unlock();
            }
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * The peer process killed ({@code kill -9}) while sends and RDMA writes are in flight: the fabric says nothing,
     * so the association's keep-alive or a failed operation ends the connection, once, and every request completes
     * once. The peer is killed outside libfabric (see {@link OfiFaultTest#peerKilledMidTransfer}).
     */
    @Test
    void peerKilledMidTransferEndsTheAssociation() throws Exception {
        OfiFaultTest.peerKilledMidTransfer(OfiRdmShmVerification.IA, 7493, true);
    }
}
