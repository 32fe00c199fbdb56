// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEpState;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
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
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * Protection zones fence remote access, and a freed LMR with remote write access takes no more bytes: the two
 * memory-safety holes the tcp provider's domain-wide keys and its in-stream RDMA writes opened. One IA on
 * {@code ofi-tcp-lo} connected to itself.
 */
class OfiPzTest {

    private static final long CONN_QUAL = 7477;
    private static final long TIMEOUT = 10_000_000;

    /** Two connected EPs of one IA, the active one and the passive one, both in {@code pz}. */
    record Pair(DatEp active, DatEp passive, DatEvd requests, DatEvd activeConn, DatEvd passiveConn, DatEvd recvs) { }

    static Pair connect(DatIa ia, DatPz pz, long qual) {
        DatEvd requests = ia.createEvd(64, null, DatEvdFlags.DTO);
        DatEvd recvs = ia.createEvd(64, null, DatEvdFlags.DTO);
        DatEvd activeConn = ia.createEvd(8, null, DatEvdFlags.CONNECTION);
        DatEvd passiveConn = ia.createEvd(8, null, DatEvdFlags.CONNECTION);
        DatEvd crs = ia.createEvd(8, null, DatEvdFlags.CR);
        DatEp active = ia.createEp(pz, recvs, requests, activeConn, DatEpAttr.builder().build());
        DatEp passive = ia.createEp(pz, recvs, requests, passiveConn, DatEpAttr.builder().build());
        DatPsp psp = ia.createPsp(qual, crs, DatPspFlags.CONSUMER);
        try {
            active.connect(InetAddress.getLoopbackAddress(), qual, TIMEOUT, null, DatQos.BEST_EFFORT, 0);
            DatEvent e = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, crs.await(TIMEOUT, 1, e));
            e.cr().accept(passive, null);
            assertEquals(DatReturn.DAT_SUCCESS, activeConn.await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, e.type());
            assertEquals(DatReturn.DAT_SUCCESS, passiveConn.await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, e.type());
        } finally {
            psp.close();
        }
        return new Pair(active, passive, requests, activeConn, passiveConn, recvs);
    }

    @Test
    void aWriteToAnLmrOfAnotherPzFailsAndTouchesNothing() {
        DatIa ia = new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            DatPz other = ia.createPz();
            Pair p = connect(ia, pz, CONN_QUAL);
            MemorySegment src = arena.allocate(4096, 64).fill((byte) 0x5a);
            MemorySegment dst = arena.allocate(4096, 64);
            DatLmr local = ia.createLmr(pz, src, DatMemPriv.ALL);
            DatLmr foreign = ia.createLmr(other, dst, DatMemPriv.ALL);
            Iov iov = Iov.allocate(arena, 1).set(0, local, 0, 4096);
            int rc = p.active().postRdmaWrite(1, iov, 1, foreign.rmrContext(), dst.address(), 4096, 0);
            if (rc == DatReturn.DAT_SUCCESS) {
                DatEvent e = new DatEvent();
                assertEquals(DatReturn.DAT_SUCCESS, p.requests().await(TIMEOUT, 1, e));
                assertNotEquals(DatDtoStatus.SUCCESS, e.dtoStatus(), "the write to another PZ's LMR");
            } else {
                assertEquals(DatReturn.DAT_PROTECTION_VIOLATION, rc, "the post");
            }
            for (long i = 0; i < dst.byteSize(); i++) {
                assertEquals(0, dst.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " of the target");
            }
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    /**
     * The fence (OfiLmr#fence): freeing a remotely writable LMR leaves the zone's connections with nothing on the
     * region up, costs the consumer no event, and they carry writes after; an EP with an operation on a freed region
     * still loses its connection.
     */
    @Test
    void freeingAnLmrWithRemoteWriteKeepsItsZonesIdleConnections() {
        OfiIa ia = (OfiIa) new OfiProvider().open(OfiTcpVerification.IA, "", 16);
        try (Arena arena = Arena.ofShared()) {
            DatPz pz = ia.createPz();
            DatPz other = ia.createPz();
            Pair mine = connect(ia, pz, CONN_QUAL + 1);
            Pair theirs = connect(ia, other, CONN_QUAL + 2);
            DatLmr readOnly = ia.createLmr(pz, arena.allocate(4096, 64), DatMemPriv.LOCAL_READ
                    | DatMemPriv.LOCAL_WRITE | DatMemPriv.REMOTE_READ);
            readOnly.close();
            assertEquals(DatEpState.CONNECTED, mine.passive().state(), "after freeing an LMR without remote write");
            long fencesBefore = fences(ia, mine.active()) + fences(ia, mine.passive());
            DatLmr writable = ia.createLmr(pz, arena.allocate(1 << 20, 64), DatMemPriv.ALL);
            writable.close();
            assertEquals(fencesBefore + 2, fences(ia, mine.active()) + fences(ia, mine.passive()),
                    "one fence read through each connected EP of the zone");
            assertEquals(0, fences(ia, theirs.active()) + fences(ia, theirs.passive()), "none in the other zone");
            DatEvent e = new DatEvent();
            for (DatEp ep : new DatEp[] {mine.active(), mine.passive()}) {
                DatEvd conn = ep == mine.active() ? mine.activeConn() : mine.passiveConn();
                assertEquals(DatEpState.CONNECTED, ep.state(), "an EP of the zone, nothing on the region");
                assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, conn.await(50_000, 1, e), "its connect EVD");
            }
            assertEquals(DatReturn.DAT_TIMEOUT_EXPIRED, mine.requests().await(50_000, 1, e), "the request EVD");
            MemorySegment src = arena.allocate(4096, 64).fill((byte) 0x3c);
            MemorySegment dst = arena.allocate(4096, 64);
            DatLmr a = ia.createLmr(pz, src, DatMemPriv.ALL);
            DatLmr b = ia.createLmr(pz, dst, DatMemPriv.ALL);
            assertEquals(DatReturn.DAT_SUCCESS, mine.active().postRdmaWrite(1, Iov.allocate(arena, 1)
                    .set(0, a, 0, 4096), 7, b.rmrContext(), dst.address(), 4096, 0));
            assertEquals(DatReturn.DAT_SUCCESS, mine.requests().await(TIMEOUT, 1, e));
            assertEquals(7, e.userCookie());
            assertSame(DatDtoStatus.SUCCESS, e.dtoStatus(), "a write after the fence");
            assertEquals(0x3c, dst.get(ValueLayout.JAVA_BYTE, 4095));
            // A receive posted on the region: that EP's connection goes, as an HCA fails the work request.
            assertEquals(DatReturn.DAT_SUCCESS, mine.passive().postRecv(1, Iov.allocate(arena, 1)
                    .set(0, b, 0, 64), 8, 0));
            b.close();
            assertEquals(DatReturn.DAT_SUCCESS, mine.passiveConn().await(TIMEOUT, 1, e));
            assertSame(DatEventType.CONNECTION_EVENT_BROKEN, e.type(), "the EP whose receive used the region");
            assertEquals(DatEpState.CONNECTED, theirs.active().state(), "an EP of the other zone");
            assertEquals(DatEpState.CONNECTED, theirs.passive().state(), "an EP of the other zone");
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    static long fences(OfiIa ia, DatEp ep) {
        ia.lock.lock();
        try {
            return ((OfiEp) ep).data.credit.fences;
        } finally {
            ia.lock.unlock();
        }
    }
}
