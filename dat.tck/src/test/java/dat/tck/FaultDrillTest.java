// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.DatCloseFlags;
import dat.api.DatEp;
import dat.api.DatEpAttr;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatPz;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.registry.DatRegistry;
import dat.registry.peer.PeerAddress;
import dat.tck.peer.FaultDrill;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault suite's two ends on loopback, in one JVM: the faults a JVM makes itself ({@code dat_ia_close(ABRUPT)}
 * while traffic flows, then a plain connection). The faults made from outside (kill -9, link down) run between the
 * soft-RoCE guests ({@code rxe-vm.sh --faults}).
 */
class FaultDrillTest {

    private static final long QUAL = 7472;

    @Test
    void anAbruptCloseAtThePeerEndsTheConnectionAndEveryRequestCompletes(@TempDir Path dir) throws Exception {
        DatIa ia = DatRegistry.load().open("loopback0");
        // Held open so that every victim IA of that name gets the same address (loopback leases it per name).
        DatIa holder = PeerThread.openPeerIa();
        StringWriter victimLog = new StringWriter();
        StringWriter log = new StringWriter();
        List<FaultDrill.Phase> phases;
        CompletableFuture<Integer> victims;
        try {
            victims = CompletableFuture.supplyAsync(() -> {
                int rc = 0;
                for (FaultDrill.Fault f : List.of(FaultDrill.Fault.CLOSE, FaultDrill.Fault.NONE)) {
                    DatIa victim = PeerThread.openPeerIa();
                    try {
                        rc |= FaultDrill.victim(victim, QUAL, f, dir.resolve(f + ".flowing"), Duration.ofSeconds(60),
                                new PrintWriter(victimLog, true));
                    } finally {
                        if (!victim.isClosed()) {
                            victim.close(DatCloseFlags.ABRUPT);
                        }
                    }
                }
                return rc;
            });
            phases = FaultDrill.survivor(ia, holder.address(), QUAL, List.of(FaultDrill.Fault.CLOSE,
                    FaultDrill.Fault.NONE), Duration.ofSeconds(60), false, new PrintWriter(log, true));
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
        }
        assertEquals(0, victims.get(60, TimeUnit.SECONDS), victimLog.toString());
        holder.close(DatCloseFlags.ABRUPT);
        assertEquals(2, phases.size(), log.toString());
        for (FaultDrill.Phase p : phases) {
            assertTrue(p.passed(), p.toString());
        }
        FaultDrill.Phase close = phases.get(0);
        assertTrue(close.event().equals("CONNECTION_EVENT_DISCONNECTED")
                || close.event().equals("CONNECTION_EVENT_BROKEN"), close.toString());
        assertTrue(close.receives() > 0, "the victim's messages reached the survivor's SRQ: " + close);
        assertTrue(Files.exists(dir.resolve("CLOSE.flowing")), "the victim wrote its marker");
        assertEquals("CONNECTION_EVENT_DISCONNECTED", phases.get(1).event(), phases.get(1).toString());
        assertEquals(64, phases.get(1).completions().values().stream().mapToInt(Integer::intValue).sum(),
                phases.get(1).toString());
    }

    /**
     * A LINK victim whose peer falls silent without a word (its link down, its disconnect lost): the victim's
     * answers wait for receives that never come, no connection event ever arrives, and the victim must end its own
     * side in time, with every request flushed, instead of holding the next phase's connection off until its
     * timeout (the fault suite's LINK victim on rxe, 2026-11-27). The silent peer here posts no receive, so the
     * victim's answers stay outstanding as a send held by a transport that never gives up.
     */
    @Test
    void aLinkVictimWhosePeerFallsSilentGivesUpAndFlushesEveryRequest(@TempDir Path dir) throws Exception {
        DatIa holder = PeerThread.openPeerIa();
        DatIa victim = PeerThread.openPeerIa();
        DatIa ia = DatRegistry.load().open("loopback0");
        StringWriter victimLog = new StringWriter();
        try (Arena arena = Arena.ofShared()) {
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> FaultDrill.victim(victim, QUAL,
                    FaultDrill.Fault.LINK, dir.resolve("LINK.flowing"), Duration.ofSeconds(60), Duration.ofSeconds(2),
                    new PrintWriter(victimLog, true)));
            DatPz pz = ia.createPz();
            DatEvd connectEvd = ia.createEvd(16, null, DatEvdFlags.CONNECTION);
            DatEvd requestEvd = ia.createEvd(256, null, DatEvdFlags.DTO);
            DatEvd recvEvd = ia.createEvd(256, null, DatEvdFlags.DTO);
            DatLmr source = ia.createLmr(pz, arena.allocate(1024, 64), DatMemPriv.LOCAL_READ);
            DatEp ep = ia.createEp(pz, recvEvd, requestEvd, connectEvd, DatEpAttr.builder().maxRequestDtos(64)
                    .maxRecvDtos(1).maxMessageSize(1024).build());
            DatEvent event = new DatEvent();
            assertTrue(new PeerAddress(holder.address(), QUAL).connect(ep, connectEvd, event, null,
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(30), new EnumMap<>(DatEventType.class)),
                    victimLog.toString());
            Iov iov = Iov.allocate(arena, 1);
            int completed = 0;
            for (int posted = 0; posted < 250; ) {
                if (posted - completed < 32 && ep.postSend(1, iov.set(0, source, 0, 1024), posted, 0)
                        == DatReturn.DAT_SUCCESS) {
                    posted++;
                } else if (requestEvd.dequeue(event) == DatReturn.DAT_SUCCESS) {
                    completed++;
                } else {
                    Thread.onSpinWait();
                }
            }
            assertEquals(0, served.get(30, TimeUnit.SECONDS), victimLog.toString());
            assertTrue(victimLog.toString().contains("the transport never gave up a request"), victimLog.toString());
            assertTrue(connectEvd.await(10_000_000, 1, event) == DatReturn.DAT_SUCCESS
                    && event.type() == DatEventType.CONNECTION_EVENT_DISCONNECTED,
                    "the silent peer learns of the victim's abrupt disconnect: " + event.type());
        } catch (TimeoutException e) {
            fail("the LINK victim did not give up its silent connection in time: " + victimLog);
        } finally {
            ia.close(DatCloseFlags.ABRUPT);
            victim.close(DatCloseFlags.ABRUPT);
            holder.close(DatCloseFlags.ABRUPT);
        }
    }
}
