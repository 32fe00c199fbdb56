// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatEventType;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The association protocol over libfabric's shm provider, two IAs' control planes in one process: connect, accept,
 * reject, graceful disconnect, nobody listening, a qualifier taken twice, and a peer whose endpoints vanish.
 */
class RdmControlPlaneTest {

    private static final long MS = 1_000_000L;
    private static final RdmAssociation.Timeouts FAST = new RdmAssociation.Timeouts(100 * MS, 1500 * MS, 2000 * MS,
            2000 * MS, 5000 * MS);
    private static final RdmFixture SHM = new RdmFixture();
    private static byte[] ia;

    @BeforeAll
    static void openShm() throws Exception {
        SHM.open();
        ia = InetAddress.getByName("::ffff:127.0.0.1").getAddress();
        if (ia.length == 4) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(ia, 0, mapped, 12, 4);
            ia = mapped;
        }
    }

    @AfterAll
    static void closeShm() {
        SHM.close();
    }

    private static RdmControlPlane plane() {
        return new RdmControlPlane(SHM.fi, SHM.domain, SHM.info, FAST, ia);
    }

    private static long qualifier() {
        // Names are the host's: a random qualifier keeps parallel builds from meeting.
        return 100_000L + ThreadLocalRandom.current().nextInt(1_000_000_000);
    }

    /** One EP's view: its events in order and how often it was flushed. */
    private static final class Ep {
        final List<DatEventType> events = new ArrayList<>();
        final List<byte[]> data = new ArrayList<>();
        int flushes;

        void event(DatEventType t, byte[] pd) {
            events.add(t);
            data.add(pd);
        }
    }

    private static void until(BooleanSupplier done, RdmControlPlane... planes) {
        long end = System.nanoTime() + 10_000 * MS;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not done in 10 s");
            }
            for (RdmControlPlane p : planes) {
                p.progress(System.nanoTime());
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void connectAcceptReadyThenAGracefulDisconnect() {
        long q = qualifier();
        try (RdmControlPlane active = plane(); RdmControlPlane passive = plane()) {
            List<RdmControl> requests = new ArrayList<>();
            assertNull(passive.listen(q, requests::add));
            assertEquals("this IA listens there", passive.listen(q, requests::add));
            Ep a = new Ep();
            Ep p = new Ep();
            RdmAssociation ca = active.associate(1, RdmTags.epTarget(1), new byte[0], 4, a::event, () -> a.flushes++,
                    message -> { });
            RdmAssociation cp = passive.associate(7, RdmTags.epTarget(7), new byte[0], 4, p::event,
                    () -> p.flushes++, message -> { });
            ca.connect(11, q, new byte[] {1, 2, 3}, 5000 * MS, System.nanoTime());
            until(() -> !requests.isEmpty(), active, passive);
            RdmControl r = requests.get(0);
            assertArrayEquals(new byte[] {1, 2, 3}, r.privateData());
            assertEquals(q, r.qualifier());
            cp.accept(r, 22, q, new byte[] {9}, System.nanoTime());
            until(() -> !a.events.isEmpty() && !p.events.isEmpty(), active, passive);
            assertEquals(List.of(DatEventType.CONNECTION_EVENT_ESTABLISHED), a.events);
            assertArrayEquals(new byte[] {9}, a.data.get(0), "the accept's private data");
            assertEquals(List.of(DatEventType.CONNECTION_EVENT_ESTABLISHED), p.events);
            // Quiet for longer than the peer-gone timeout: the keep-alives keep it up.
            long end = System.nanoTime() + FAST.peerGone() + 500 * MS;
            until(() -> System.nanoTime() > end, active, passive);
            assertEquals(1, a.events.size(), "still connected: " + a.events);
            assertEquals(1, p.events.size(), "still connected: " + p.events);
            ca.disconnect(false, false, System.nanoTime());
            until(() -> a.events.size() == 2 && p.events.size() == 2, active, passive);
            assertEquals(DatEventType.CONNECTION_EVENT_DISCONNECTED, a.events.get(1));
            assertEquals(DatEventType.CONNECTION_EVENT_DISCONNECTED, p.events.get(1));
            assertEquals(1, a.flushes);
            assertEquals(1, p.flushes);
        }
    }

    /**
     * A qualifier this process listened at, closed and listens at again, reached by a plane that never inserted its
     * name: the request arrives. shm's plain spelling of the name reaches the closed listener's unmapped region
     * (RdmEndpoint#closedHere): the request's send spun in {@code pthread_spin_lock} (campaign seed 0x10a13).
     */
    @Test
    void aQualifierListenedAtAgainIsReachedByAPlaneThatNeverSawIt() {
        long q = qualifier();
        try (RdmControlPlane passive = plane()) {
            assertNull(passive.listen(q, r -> { }));
            passive.unlisten(q);
            // A plane opened between takes the closed region's address, so the stale entry does not meet the new
            // listener's region there by chance: it names this plane's.
            try (RdmControlPlane between = plane(); RdmControlPlane active = plane()) {
                List<RdmControl> requests = new ArrayList<>();
                assertNull(passive.listen(q, requests::add), "listens again");
                Ep a = new Ep();
                RdmAssociation ca = active.associate(1, RdmTags.epTarget(1), new byte[0], 4, a::event,
                        () -> a.flushes++, message -> { });
                ca.connect(5, q, new byte[] {4}, 5000 * MS, System.nanoTime());
                until(() -> !requests.isEmpty() || !a.events.isEmpty(), active, passive, between);
                assertEquals(List.of(), a.events, "the connect ended without the request arriving");
                assertArrayEquals(new byte[] {4}, requests.get(0).privateData());
            }
        }
    }

    @Test
    void aRejectedRequestIsPeerRejected() {
        long q = qualifier();
        try (RdmControlPlane active = plane(); RdmControlPlane passive = plane()) {
            List<RdmControl> requests = new ArrayList<>();
            passive.listen(q, requests::add);
            Ep a = new Ep();
            RdmAssociation ca = active.associate(1, RdmTags.epTarget(1), new byte[0], 4, a::event, () -> a.flushes++,
                    message -> { });
            ca.connect(5, q, null, 5000 * MS, System.nanoTime());
            until(() -> !requests.isEmpty(), active, passive);
            passive.reject(requests.get(0));
            until(() -> !a.events.isEmpty(), active, passive);
            assertEquals(List.of(DatEventType.CONNECTION_EVENT_PEER_REJECTED), a.events);
        }
    }

    @Test
    void nobodyListeningIsNonPeerRejectedBeforeTheConnectTimeout() {
        try (RdmControlPlane active = plane()) {
            Ep a = new Ep();
            RdmAssociation ca = active.associate(1, RdmTags.epTarget(1), new byte[0], 4, a::event, () -> a.flushes++,
                    message -> { });
            ca.connect(5, qualifier(), null, 5000 * MS, System.nanoTime());
            until(() -> !a.events.isEmpty(), active);
            assertEquals(List.of(DatEventType.CONNECTION_EVENT_NON_PEER_REJECTED), a.events);
        }
    }

    /**
     * The name stays the first IA's: shm's own refusal ({@code fi_enable}, EBUSY) removed the region's file on the way
     * out, and the first listener was reached by no process that looked its name up afterwards.
     */
    @Test
    void aQualifierAnotherIaListensAtIsRefusedAndStaysTheFirstIas() {
        long q = qualifier();
        String file = "jdat-" + q;
        try (RdmControlPlane one = plane(); RdmControlPlane two = plane()) {
            assertNull(one.listen(q, r -> { }));
            Object region = ShmIntroductions.regionKey(file);
            assertEquals("process " + ProcessHandle.current().pid() + " listens there", two.listen(q, r -> { }));
            assertEquals(region, ShmIntroductions.regionKey(file), "the first listener's region file");
            one.unlisten(q);
            assertNull(two.listen(q, r -> { }), "free again once unlistened");
        }
    }

    /**
     * A listener killed leaves its region's file, and its pid may be another process's by the time the qualifier is
     * listened at again: shm took that process for the name's holder, refused the name and removed the file, and
     * {@code dat_psp_create} failed with CONN_QUAL_IN_USE where nobody listened (OfiShmEarlyCloseTest's listener,
     * with the host's pids wrapped around).
     */
    @Test
    void aQualifierWhoseLeftFileNamesALiveProcessThatDoesNotMapItIsListenedAt() throws Exception {
        long q = qualifier();
        Path file = Path.of("/dev/shm", "jdat-" + q);
        Process other = new ProcessBuilder("sleep", "60").start();
        try (RdmControlPlane passive = plane(); RdmControlPlane active = plane()) {
            ByteBuffer header = ByteBuffer.allocate(4096).order(ByteOrder.nativeOrder());
            header.put(0, (byte) 4).putInt(4, (int) other.pid());
            Files.write(file, header.array());
            List<RdmControl> requests = new ArrayList<>();
            assertNull(passive.listen(q, requests::add));
            assertEquals(ProcessHandle.current().pid(), ShmIntroductions.holder("jdat-" + q), "the name is this one's");
            Ep a = new Ep();
            RdmAssociation ca = active.associate(1, RdmTags.epTarget(1), new byte[0], 4, a::event, () -> a.flushes++,
                    message -> { });
            ca.connect(5, q, null, 5000 * MS, System.nanoTime());
            until(() -> !requests.isEmpty(), active, passive);
        } finally {
            other.destroyForcibly();
            Files.deleteIfExists(file);
        }
    }

    @Test
    void aPeerWhoseEndpointsVanishIsBrokenWithinThePeerGoneTimeout() {
        long q = qualifier();
        RdmControlPlane passive = plane();
        try (RdmControlPlane active = plane()) {
            List<RdmControl> requests = new ArrayList<>();
            passive.listen(q, requests::add);
            Ep a = new Ep();
            Ep p = new Ep();
            RdmAssociation ca = active.associate(1, RdmTags.epTarget(1), new byte[0], 4, a::event, () -> a.flushes++,
                    message -> { });
            RdmAssociation cp = passive.associate(2, RdmTags.epTarget(2), new byte[0], 4, p::event,
                    () -> p.flushes++, message -> { });
            ca.connect(3, q, null, 5000 * MS, System.nanoTime());
            until(() -> !requests.isEmpty(), active, passive);
            cp.accept(requests.get(0), 4, q, null, System.nanoTime());
            until(() -> !a.events.isEmpty() && !p.events.isEmpty(), active, passive);
            passive.close();
            long t0 = System.nanoTime();
            until(() -> a.events.size() == 2, active);
            assertEquals(DatEventType.CONNECTION_EVENT_BROKEN, a.events.get(1));
            assertEquals(1, a.flushes);
            // In one process the next keep-alive finds the peer's endpoint closed (-FI_ENOTCONN) and breaks at once;
            // it must never take longer than the peer-gone timeout.
            assertTrue(System.nanoTime() - t0 <= FAST.peerGone() + 2000 * MS, "broken within the peer-gone timeout");
        } finally {
            passive.close();
        }
    }
}
