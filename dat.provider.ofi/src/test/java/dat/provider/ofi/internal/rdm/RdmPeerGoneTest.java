// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatEventType;
import dat.provider.ofi.internal.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two processes over shm: an association whose peer JVM stays alive but silent outlives the peer-gone timeout on
 * keep-alives alone, and is BROKEN, flushed once, within the timeout after the peer is killed ({@code kill -9}).
 */
class RdmPeerGoneTest {

    private static final long MS = 1_000_000L;
    static final RdmAssociation.Timeouts TIMEOUTS = new RdmAssociation.Timeouts(100 * MS, 2000 * MS, 2000 * MS,
            5000 * MS, 5000 * MS);
    static final byte[] LOOPBACK = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 127, 0, 0, 1};
    private static final RdmFixture SHM = new RdmFixture();

    @BeforeAll
    static void openShm() throws Exception {
        SHM.open();
    }

    @AfterAll
    static void closeShm() {
        SHM.close();
    }

    @Test
    void aKilledPeerProcessIsBrokenAfterThePeerGoneTimeoutAndItsQualifierIsFreeAgain() throws Exception {
        long q = 100_000L + ThreadLocalRandom.current().nextInt(1_000_000_000);
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", ChildJvm.classPath(), RdmPeerVictim.class.getName(),
                Long.toString(q));
        Process victim = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (RdmControlPlane plane = new RdmControlPlane(SHM.fi, SHM.domain, SHM.info, TIMEOUTS, LOOPBACK)) {
            BufferedReader out = new BufferedReader(new InputStreamReader(victim.getInputStream(),
                    StandardCharsets.UTF_8));
            assertEquals("listening", out.readLine());
            List<DatEventType> events = new ArrayList<>();
            List<byte[]> data = new ArrayList<>();
            int[] flushes = new int[1];
            RdmAssociation a = plane.associate(1, RdmTags.epTarget(1), new byte[0], 4, (t, pd) -> {
                events.add(t);
                data.add(pd);
            }, () -> flushes[0]++, message -> { });
            a.connect(5, q, new byte[] {7}, 10_000 * MS, System.nanoTime());
            run(plane, () -> !events.isEmpty(), 10_000 * MS);
            assertEquals(List.of(DatEventType.CONNECTION_EVENT_ESTABLISHED), events);
            assertArrayEquals(new byte[] {42}, data.get(0));
            assertEquals("established", out.readLine());
            long quiet = System.nanoTime() + TIMEOUTS.peerGone() + 1000 * MS;
            run(plane, () -> System.nanoTime() > quiet, 10_000 * MS);
            assertEquals(1, events.size(), "kept alive across processes: " + events);
            victim.destroyForcibly();
            assertTrue(victim.waitFor(10, TimeUnit.SECONDS));
            long killed = System.nanoTime();
            run(plane, () -> events.size() > 1, 10_000 * MS);
            long took = System.nanoTime() - killed;
            assertEquals(List.of(DatEventType.CONNECTION_EVENT_ESTABLISHED, DatEventType.CONNECTION_EVENT_BROKEN),
                    events);
            assertEquals(1, flushes[0], "flushed once");
            assertTrue(took <= TIMEOUTS.peerGone() + 1000 * MS, "broken within the peer-gone timeout: " + took);
            long after = System.nanoTime() + 500 * MS;
            run(plane, () -> System.nanoTime() > after, 10_000 * MS);
            assertEquals(2, events.size(), "one outcome, nothing after it");
            // The killed process left its listen name's region behind (/dev/shm/jdat-<q>): the qualifier must
            // still be usable by a new listener, as a TCP port of a dead process is.
            assertNull(plane.listen(q, r -> { }), "the dead process's qualifier listens again");
            plane.unlisten(q);
        } finally {
            victim.destroyForcibly();
        }
    }

    private static void run(RdmControlPlane plane, BooleanSupplier done, long limit) {
        long end = System.nanoTime() + limit;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not done in " + limit / MS + " ms");
            }
            plane.progress(System.nanoTime());
            Thread.onSpinWait();
        }
    }

}
