// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.Iov;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code dat_lmr_free}'s fence (OfiLmr#fence, docs/ofi.md "Memory safety on tcp", docs/ofi-rdm-protocol.md
 * "dat_lmr_free"), between two IAs of one JVM, each with its own progress: on {@code ofi-tcp-lo} a writer streaming
 * large RDMA writes into the target's region while the target frees it never lands a byte after the free returns;
 * over shm the writes in flight are waited for and the connection kept; on both a peer that never progresses makes
 * the free break the connection within its bound, never hang.
 */
class OfiLmrFenceTest {

    private static final long TIMEOUT = 10_000_000;
    private static final int REGION = 16 << 20;
    private static final byte SENTINEL = (byte) 0xa5;
    private static final byte PAYLOAD = 0x5a;

    /** One side of a connection: its EP and its EVDs. */
    private record Side(DatEp ep, DatEvd requests, DatEvd recvs, DatEvd conn) { }

    private static Side side(OfiIa ia, DatPz pz) {
        DatEvd requests = ia.createEvd(64, null, DatEvdFlags.DTO);
        DatEvd recvs = ia.createEvd(64, null, DatEvdFlags.DTO);
        DatEvd conn = ia.createEvd(8, null, DatEvdFlags.CONNECTION);
        DatEpAttr attr = DatEpAttr.builder().maxRdmaSize(REGION).build();
        return new Side(ia.createEp(pz, recvs, requests, conn, attr), requests, recvs, conn);
    }

    /** {@return the writer's side, connected to {@code target} of {@code targetIa}} */
    private static Side connect(OfiIa writerIa, DatPz writerPz, OfiIa targetIa, Side target) {
        Side w = side(writerIa, writerPz);
        DatEvd crs = targetIa.createEvd(8, null, DatEvdFlags.CR);
        DatPsp psp = targetIa.createPspAny(crs, DatPspFlags.CONSUMER);
        try {
            w.ep().connect(targetIa.address(), psp.connQual(), TIMEOUT, null, DatQos.BEST_EFFORT, 0);
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, crs.await(TIMEOUT, 1, e));
            e.cr().accept(target.ep(), null);
            assertEquals(DatReturn.DAT_SUCCESS, w.conn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, e.type());
            assertEquals(DatReturn.DAT_SUCCESS, target.conn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, e.type());
        } finally {
            psp.close();
            crs.close();
        }
        return w;
    }

    private static void closeSide(Side s) {
        s.ep().close();
        s.requests().close();
        s.recvs().close();
        s.conn().close();
    }

    /**
     * Writes of 4 to 16 MiB race the target's free of their region: whatever the race, once the free returned and
     * the region is overwritten with a sentinel, no byte of the writes changes it. Some frees catch a write mid-stream
     * (the fence waits for it, or its header arrives after the close and tcp drops the connection); the others find
     * the connection idle and keep it.
     */
    @Test
    void noByteOfAWriteRacingTheFreeLandsAfterItReturns() {
        OfiIa writerIa = (OfiIa) new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        OfiIa targetIa = (OfiIa) new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz wpz = writerIa.createPz();
            DatPz tpz = targetIa.createPz();
            MemorySegment src = arena.allocate(REGION, 4096).fill(PAYLOAD);
            MemorySegment dst = arena.allocate(REGION, 4096);
            DatLmr srcLmr = writerIa.createLmr(wpz, src, DatMemPriv.ALL);
            Iov iov = Iov.allocate(arena, 1);
            SplittableRandom random = new SplittableRandom(0xda7f3e5cL);
            Side target = side(targetIa, tpz);
            Side writer = connect(writerIa, wpz, targetIa, target);
            int kept = 0;
            int racing = 0;
            int fenced = 0;
            long slowest = 0;
            Map<DatDtoStatus, Integer> refused = new TreeMap<>();
            int iterations = 40;
            for (int it = 0; it < iterations; it++) {
                dst.fill((byte) 0);
                DatLmr dstLmr = targetIa.createLmr(tpz, dst, DatMemPriv.ALL);
                int length = (4 << 20) + random.nextInt(12 << 20);
                iov.set(0, srcLmr, 0, length);
                assertEquals(DatReturn.DAT_SUCCESS, writer.ep().postRdmaWrite(1, iov, it, dstLmr.rmrContext(),
                        dst.address(), length, 0));
                LockSupport.parkNanos(random.nextLong(4_000_000));
                DatEvent e = new DatEvent();
                boolean done = writer.requests().dequeue(e) == DatReturn.DAT_SUCCESS;
                long start = System.nanoTime();
                dstLmr.close();
                slowest = Math.max(slowest, System.nanoTime() - start);
                dst.fill(SENTINEL);
                if (!done) {
                    assertEquals(DatReturn.DAT_SUCCESS, writer.requests().await(TIMEOUT, 1, e), "the completion");
                    racing++;
                    if (e.dtoStatus() == DatDtoStatus.SUCCESS) {
                        fenced++;
                    } else {
                        refused.merge(e.dtoStatus(), 1, Integer::sum);
                    }
                }
                // Both IAs' progress threads run meanwhile: a byte still in the target's stream would land now.
                LockSupport.parkNanos(20_000_000);
                for (long i = 0; i < REGION; i += 8) {
                    if (dst.get(ValueLayout.JAVA_LONG_UNALIGNED, i) != 0xa5a5a5a5a5a5a5a5L) {
                        fail("iteration " + it + ": byte " + i + " of the region changed after dat_lmr_free returned"
                                + " (write of " + length + " bytes, " + e.dtoStatus() + ")");
                    }
                }
                if (target.ep().state() == DatEpState.CONNECTED && writer.ep().state() == DatEpState.CONNECTED) {
                    kept++;
                } else {
                    // The write's header came after the close: tcp dropped the connection. A new one for the next.
                    awaitDisconnected(target);
                    awaitDisconnected(writer);
                    closeSide(writer);
                    closeSide(target);
                    target = side(targetIa, tpz);
                    writer = connect(writerIa, wpz, targetIa, target);
                }
            }
            System.out.println("OfiLmrFenceTest: " + iterations + " frees, " + racing + " with the write not complete"
                    + " at the writer, " + fenced + " of those completed through the fence, " + kept
                    + " kept, slowest free " + slowest / 1000 + " us, the others " + refused);
            assertTrue(kept > 0, "the fence kept no connection at all");
        } finally {
            writerIa.close(DatCloseFlags.ABRUPT);
            targetIa.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * Over shm's RDM association: the target frees a remotely writable region of its zone while the peer's RDMA writes
     * into another region of the zone are in flight. The peer answers the fence once those writes landed; the
     * connection stays up (it broke on every such free before the fence), the writes complete, and the connection
     * carries a message after it. shm refuses a write whose key it no longer knows without a word to the writer, so
     * the racing writes go to the region that stays.
     */
    @Test
    void aFreeOverAnRdmAssociationFencesTheWritesInFlightAndKeepsTheConnection() {
        OfiIa writerIa = (OfiIa) new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        OfiIa targetIa = (OfiIa) new OfiProvider().open(OfiRdmShmVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz wpz = writerIa.createPz();
            DatPz tpz = targetIa.createPz();
            MemorySegment src = arena.allocate(1 << 20, 4096).fill(PAYLOAD);
            MemorySegment dst = arena.allocate(1 << 20, 4096);
            DatLmr srcLmr = writerIa.createLmr(wpz, src, DatMemPriv.ALL);
            DatLmr dstLmr = targetIa.createLmr(tpz, dst, DatMemPriv.ALL);
            Side target = side(targetIa, tpz);
            Side writer = connect(writerIa, wpz, targetIa, target);
            OfiCredit credit = ((OfiEp) target.ep()).data.credit;
            int writes = Math.min(48, writer.ep().query().epAttr().maxRequestDtos());
            for (int round = 0; round < 4; round++) {
                DatLmr freed = targetIa.createLmr(tpz, arena.allocate(4096, 4096), DatMemPriv.ALL);
                for (int i = 0; i < writes; i++) {
                    Iov iov = Iov.allocate(arena, 1).set(0, srcLmr, 4096L * i, 4096);
                    assertEquals(DatReturn.DAT_SUCCESS, writer.ep().postRdmaWrite(1, iov, i, dstLmr.rmrContext(),
                            dst.address() + 4096L * i, 4096, 0), "write " + i);
                }
                long fences = credit.fences;
                freed.close();
                assertEquals(fences + 1, credit.fences, "round " + round + ": the free fenced the connection");
                assertEquals(DatEpState.CONNECTED, target.ep().state(), "round " + round);
                DatEvent e = new DatEvent();
                for (int i = 0; i < writes; i++) {
                    assertEquals(DatReturn.DAT_SUCCESS, writer.requests().await(TIMEOUT, 1, e), "write " + i);
                    assertSame(DatDtoStatus.SUCCESS, e.dtoStatus(), "write " + i);
                }
                assertEquals(PAYLOAD, dst.get(ValueLayout.JAVA_BYTE, 4096L * writes - 1));
                dst.fill((byte) 0);
            }
            assertEquals(DatReturn.DAT_SUCCESS, target.ep().postRecv(1, Iov.allocate(arena, 1).set(0, dstLmr, 0, 64),
                    7, 0));
            assertEquals(DatReturn.DAT_SUCCESS, writer.ep().postSend(1, Iov.allocate(arena, 1).set(0, srcLmr, 0, 64),
                    8, 0));
            expectSuccess(target.recvs(), 7);
            expectSuccess(writer.requests(), 8);
            assertEquals(DatEpState.CONNECTED, writer.ep().state());
        } finally {
            writerIa.close(DatCloseFlags.ABRUPT);
            targetIa.close(DatCloseFlags.ABRUPT);
        }
    }

    private static void expectSuccess(DatEvd evd, long cookie) {
        DatEvent e = new DatEvent();
        assertEquals(DatReturn.DAT_SUCCESS, evd.await(TIMEOUT, 1, e));
        assertEquals(cookie, e.userCookie());
        assertSame(DatDtoStatus.SUCCESS, e.dtoStatus());
    }

    private static void awaitDisconnected(Side s) {
        long deadline = System.nanoTime() + TIMEOUT * 1000;
        DatEvent e = new DatEvent();
        while (s.ep().state() != DatEpState.DISCONNECTED) {
            s.conn().await(10_000, 1, e);
            assertTrue(System.nanoTime() - deadline < 0, "the connection never ended: " + s.ep().state());
        }
    }

    /**
     * The peer's IA never progresses (its progress thread stopped, its consumer idle): the fence (a read of the peer's
     * credit word on tcp, a {@code FENCE} over shm's RDM association) gets no answer, and the free breaks the
     * connection within the bound instead of waiting for it.
     */
    @ParameterizedTest
    @ValueSource(strings = {OfiTcpVerification.IA, OfiRdmShmVerification.IA})
    void aPeerThatNeverProgressesCostsTheBoundThenTheConnection(String iaName) {
        OfiIa peerIa = (OfiIa) new OfiProvider().open(iaName, "", 16);
        OfiIa targetIa = (OfiIa) new OfiProvider().open(iaName, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz ppz = peerIa.createPz();
            DatPz tpz = targetIa.createPz();
            Side target = side(targetIa, tpz);
            connect(peerIa, ppz, targetIa, target);
            Side idle = side(targetIa, tpz);
            DatLmr lmr = targetIa.createLmr(tpz, arena.allocate(1 << 20, 4096), DatMemPriv.ALL);
            peerIa.progressThread().stop();
            long start = System.nanoTime();
            lmr.close();
            long took = System.nanoTime() - start;
            assertTrue(took >= OfiLmr.FENCE_NANOS, "the free waited " + took / 1_000_000 + " ms for no answer");
            assertTrue(took < OfiLmr.FENCE_NANOS + 2_000_000_000L, "the free took " + took / 1_000_000 + " ms");
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, target.conn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_BROKEN, e.type(), "the connection whose peer never answered");
            assertEquals(DatEpState.DISCONNECTED, target.ep().state());
            assertEquals(DatEpState.UNCONNECTED, idle.ep().state(), "an EP of the zone with no connection");
            assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, target.requests().await(50_000, 1, e), "the request EVD");
        } finally {
            peerIa.close(DatCloseFlags.ABRUPT);
            targetIa.close(DatCloseFlags.ABRUPT);
        }
    }
}
