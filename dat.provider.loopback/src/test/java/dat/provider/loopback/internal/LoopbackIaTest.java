// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static dat.provider.loopback.internal.Loop.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEpState;
import dat.api.DatEvdFlags;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatLmrParam;
import dat.api.DatMemPriv;
import dat.api.DatPspFlags;
import dat.api.DatPz;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import dat.api.Iov;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** IA, PZ and LMR life cycles, limits and handle checks. */
class LoopbackIaTest {

    private final Loop a = new Loop("loopback0");

    @AfterEach
    void close() {
        a.close();
    }

    @Test
    void gracefulCloseRefusesWhileObjectsLiveAndNamesThem() {
        DatIa ia = new LoopbackProvider().open("loopback0", "", 4);
        DatPz pz = ia.createPz();
        DatLmr lmr = ia.createLmr(pz, a.arena.allocate(64), DatMemPriv.ALL);
        DatException e = assertThrows(DatException.class, ia::close);
        assertEquals(DatReturn.INVALID_STATE, e.type());
        assertEquals(DatReturnSubtype.INVALID_STATE_IA_IN_USE, e.subtype());
        assertTrue(e.getMessage().contains("1 LMR, 1 PZ still alive"), e.getMessage());
        DatException pzInUse = assertThrows(DatException.class, pz::close);
        assertEquals(DatReturnSubtype.INVALID_STATE_PZ_IN_USE, pzInUse.subtype());
        assertTrue(pzInUse.getMessage().contains("1 LMR"), pzInUse.getMessage());
        lmr.close();
        lmr.close();
        pz.close();
        ia.close();
        ia.close();
        assertTrue(ia.isClosed());
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, ia::createPz).type());
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, ia::query).type());
    }

    @Test
    void abruptCloseDestroysEverythingAndDisconnectsThePeer() {
        try (Loop b = new Loop("loopback1")) {
            DatIa ia = new LoopbackProvider().open("loopback2", "", 4);
            DatPz pz = ia.createPz();
            var conn = ia.createEvd(4, null, DatEvdFlags.CONNECTION);
            var dto = ia.createEvd(4, null, DatEvdFlags.DTO);
            DatEp ep = ia.createEp(pz, dto, dto, conn, null);
            DatEp server = b.ep();
            long qual = Loop.nextQual();
            b.ia.createPsp(qual, b.crEvd, DatPspFlags.CONSUMER);
            ep.connect(b.ia.address(), qual, Dat.DAT_TIMEOUT_INFINITE, null, DatQos.BEST_EFFORT, 0);
            expect(b.crEvd, DatEventType.CONNECTION_REQUEST_EVENT).cr().accept(server, null);
            DatLmr dst = b.lmr(8);
            server.postRecv(1, b.iov(1).set(0, dst, 0, 8), 1, 0);
            ia.close(DatCloseFlags.ABRUPT);
            assertTrue(ep.isClosed());
            assertTrue(pz.isClosed());
            assertTrue(dto.isClosed());
            assertEquals(DatEpState.DISCONNECTED, server.state());
            assertEquals(DatDtoStatus.FLUSHED, expect(b.recvEvd, DatEventType.DTO_COMPLETION).dtoStatus());
        }
    }

    @Test
    void limitsAreEnforced() {
        DatIa ia = new LoopbackProvider().open("limits", "", 4);
        try {
            for (int i = 0; i < LoopbackConfig.MAX_PZS; i++) {
                ia.createPz();
            }
            DatException e = assertThrows(DatException.class, ia::createPz);
            assertEquals(DatReturn.INSUFFICIENT_RESOURCES, e.type());
            assertTrue(e.getMessage().contains("max_pzs"), e.getMessage());
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
    }

    @Test
    void handlesOfAnotherIaAreInvalid() {
        try (Loop b = new Loop("loopback1")) {
            DatException e = assertThrows(DatException.class,
                    () -> a.ia.createLmr(b.pz, a.arena.allocate(8), DatMemPriv.ALL));
            assertEquals(DatReturn.INVALID_HANDLE, e.type());
            assertEquals(DatReturnSubtype.INVALID_HANDLE_PZ, e.subtype());
            assertTrue(e.getMessage().contains("another IA"), e.getMessage());
            assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class,
                    () -> a.ia.createEvd(4, b.ia.createCno(null), DatEvdFlags.DTO)).type());
        }
    }

    @Test
    void lmrCreateChecksTheRegionAndPrivileges() {
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class,
                () -> a.ia.createLmr(a.pz, MemorySegment.ofArray(new byte[8]), DatMemPriv.ALL)).type());
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class,
                () -> a.ia.createLmr(a.pz, a.arena.allocate(8).asSlice(0, 0), DatMemPriv.ALL)).type());
        DatException bits = assertThrows(DatException.class,
                () -> a.ia.createLmr(a.pz, a.arena.allocate(8), 0x40));
        assertTrue(bits.getMessage().contains("unknown bits 0x40"), bits.getMessage());
        try (Arena confined = Arena.ofConfined()) {
            assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class,
                    () -> a.ia.createLmr(a.pz, confined.allocate(8), DatMemPriv.ALL)).type());
        }
        assertEquals(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class,
                () -> a.ia.createLmr(a.pz, a.arena.allocate(8).asReadOnly(), DatMemPriv.LOCAL_WRITE)).type());
    }

    @Test
    void lmrContextsAreRandomNonZeroAndQueryable() {
        Set<Integer> seen = new HashSet<>();
        int previous = 0;
        int steps = 0;
        for (int i = 0; i < 32; i++) {
            DatLmr lmr = a.lmr(8, DatMemPriv.LOCAL_READ);
            assertNotEquals(0, lmr.lmrContext());
            assertNotEquals(0, lmr.rmrContext());
            assertTrue(seen.add(lmr.lmrContext()));
            assertTrue(seen.add(lmr.rmrContext()));
            if (Math.abs((long) lmr.lmrContext() - previous) == 1) {
                steps++;
            }
            previous = lmr.lmrContext();
        }
        assertTrue(steps < 3, "contexts must not be counters");
        DatLmr lmr = a.lmr(16, DatMemPriv.LOCAL_READ | DatMemPriv.REMOTE_READ);
        DatLmrParam p = lmr.query();
        assertEquals(16, p.registeredSize());
        assertEquals(lmr.address(), p.registeredAddress());
        assertEquals(lmr.lmrContext(), p.lmrContext());
        Iov iov = a.iov(1).set(0, lmr, 0, 16);
        assertEquals(DatReturn.DAT_SUCCESS, a.ia.lmrSyncRdmaWrite(iov, 1));
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, a.ia.lmrSyncRdmaRead(a.iov(1).set(0, lmr, 8, 9), 1));
        lmr.close();
        assertEquals(DatReturn.DAT_INVALID_PARAMETER, a.ia.lmrSyncRdmaRead(iov, 1), "a freed LMR is unknown");
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, lmr::query).type());
    }

    @Test
    void consumerContextIsKeptAndClosedHandlesRefuseIt() {
        DatPz pz = a.ia.createPz();
        pz.consumerContext("mine");
        assertEquals("mine", pz.consumerContext());
        pz.close();
        assertEquals(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, pz::consumerContext).type());
    }
}
