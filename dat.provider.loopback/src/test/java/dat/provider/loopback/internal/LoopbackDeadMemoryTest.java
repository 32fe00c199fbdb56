// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dat.api.DatEp;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatSrq;
import dat.api.DatSrqAttr;
import dat.api.Iov;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * The data path returns a status and never throws, whatever memory the IOV itself lives in; dead memory is never
 * registered. (Regression: an IOV of a closed arena made the posts throw IllegalStateException, one of a confined
 * arena posted from another thread WrongThreadException, and dat_lmr_create accepted a closed arena's segment.)
 */
class LoopbackDeadMemoryTest {

    @Test
    void postsWithADeadOrForeignIovReturnInvalidParameter() throws Exception {
        try (Loop a = new Loop(); Loop b = new Loop()) {
            DatEp ea = a.ep();
            DatEp eb = b.ep();
            a.connect(ea, b, eb);
            DatLmr lmr = a.lmr(4096);
            DatSrq srq = a.ia.createSrq(a.pz, new DatSrqAttr(8, 1, 0));
            Iov dead;
            try (Arena arena = Arena.ofShared()) {
                dead = Iov.allocate(arena, 1).set(0, lmr, 0, 64);
            }
            Iov iov = dead;
            posts(ea, srq, lmr, iov, a.ia).forEach((what, call) ->
                    assertEquals(DatReturn.DAT_INVALID_PARAMETER, call.getAsInt(), what + " with a dead IOV"));
            try (Arena confined = Arena.ofConfined()) {
                Iov mine = Iov.allocate(confined, 1).set(0, lmr, 0, 64);
                for (var entry : posts(ea, srq, lmr, mine, a.ia).entrySet()) {
                    int rc = Waits.get(CompletableFuture.supplyAsync(() -> entry.getValue().getAsInt()),
                            entry.getKey() + " on another thread");
                    assertEquals(DatReturn.DAT_INVALID_PARAMETER, rc, entry.getKey() + " of another thread's IOV");
                }
            }
            Loop.drainAll(a.requestEvd);
        }
    }

    private static Map<String, IntSupplier> posts(DatEp ep, DatSrq srq, DatLmr lmr, Iov iov,
                                                          DatIa ia) {
        Map<String, IntSupplier> calls = new LinkedHashMap<>();
        calls.put("dat_ep_post_send", () -> ep.postSend(1, iov, 1, 0));
        calls.put("dat_ep_post_recv", () -> ep.postRecv(1, iov, 2, 0));
        calls.put("dat_srq_post_recv", () -> srq.postRecv(1, iov, 3));
        calls.put("dat_ep_post_rdma_write", () -> ep.postRdmaWrite(1, iov, 4, lmr.rmrContext(), lmr.address(), 64, 0));
        calls.put("dat_ep_post_rdma_read", () -> ep.postRdmaRead(1, iov, 5, lmr.rmrContext(), lmr.address(), 64, 0));
        calls.put("dat_lmr_sync_rdma_read", () -> ia.lmrSyncRdmaRead(iov, 1));
        calls.put("dat_lmr_sync_rdma_write", () -> ia.lmrSyncRdmaWrite(iov, 1));
        return calls;
    }

    @Test
    void deadMemoryIsRefusedAtCreate() {
        try (Loop a = new Loop()) {
            MemorySegment dead;
            try (Arena arena = Arena.ofShared()) {
                dead = arena.allocate(4096);
            }
            DatException e = assertThrows(DatException.class, () -> a.ia.createLmr(a.pz, dead, DatMemPriv.ALL));
            assertSame(DatReturn.INVALID_PARAMETER, e.type());
            try (Arena confined = Arena.ofConfined()) {
                MemorySegment mine = confined.allocate(4096);
                assertSame(DatReturn.INVALID_PARAMETER,
                        assertThrows(DatException.class, () -> a.ia.createLmr(a.pz, mine, DatMemPriv.ALL)).type());
            }
        }
    }
}
