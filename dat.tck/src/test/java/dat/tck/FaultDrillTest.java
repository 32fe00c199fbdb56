// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatIa;
import dat.registry.DatRegistry;
import dat.tck.peer.FaultDrill;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
}
