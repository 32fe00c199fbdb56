// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.provider.ofi.internal.ffm.FiException;
import dat.provider.ofi.internal.ffm.FiInfo;
import dat.provider.ofi.internal.ffm.LibFabric;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tagged-message and address-vector bindings over libfabric's shm provider: named endpoints, tags that keep data
 * messages out of control receives, a peer that does not exist, and misuse of the wrapper.
 */
@SuppressWarnings("restricted") // the test opens libfabric objects itself, as OfiIa does
class RdmEndpointTest {

    private static final long WAIT_NANOS = 10_000_000_000L;

    private static final RdmFixture SHM = new RdmFixture();
    private static LibFabric fi;
    private static MemorySegment info;
    private static MemorySegment domain;

    @BeforeAll
    static void openShm() throws Exception {
        SHM.open();
        assertEquals(LibFabric.FI_ADDR_STR, FiInfo.addrFormat(SHM.info), "shm's addresses are strings");
        fi = SHM.fi;
        info = SHM.info;
        domain = SHM.domain;
    }

    @AfterAll
    static void closeShm() {
        SHM.close();
    }

    private static byte[] shmName(String what) {
        String n = "fi_shm://jdat-test-" + ProcessHandle.current().pid() + "-" + what + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt());
        return n.getBytes(StandardCharsets.US_ASCII);
    }

    private static RdmEndpoint.Completion await(RdmEndpoint ep, List<RdmEndpoint> others) {
        long end = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() < end) {
            RdmEndpoint.Completion c = ep.poll();
            if (c != null) {
                return c;
            }
            // shm's progress is manual: the sender's CQ must be read too for the message to move.
            for (RdmEndpoint o : others) {
                RdmEndpoint.Completion x = o.poll();
                assertNull(x == null || x.received() == null ? null : x, "nothing for the other endpoint");
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no completion in 10 s");
    }

    // shm answers the first sends to a peer -FI_EAGAIN until the peer's progress took the sender in: retry,
    // progressing both (the IA's progress thread does it for every endpoint).
    private static void send(RdmEndpoint from, RdmEndpoint to, long peer, long tag, byte[] bytes, long context) {
        long end = System.nanoTime() + WAIT_NANOS;
        while (System.nanoTime() < end) {
            long rc = from.send(peer, tag, bytes, context);
            if (rc == 0) {
                return;
            }
            assertEquals(-LibFabric.FI_EAGAIN, rc, "only EAGAIN before the peer is mapped");
            assertNull(from.poll(), "no completion of a send that was not posted");
            assertNull(to.poll(), "nothing for the receiver before the send");
            Thread.onSpinWait();
        }
        throw new AssertionError("send still EAGAIN after 10 s");
    }

    @Test
    void aNamedEndpointReceivesControlMessagesFromAPickedOne() {
        byte[] name = shmName("named");
        try (RdmEndpoint a = new RdmEndpoint(fi, domain, info, name);
                RdmEndpoint b = new RdmEndpoint(fi, domain, info, null)) {
            String got = new String(a.name(), StandardCharsets.US_ASCII);
            assertTrue(got.startsWith(new String(name, StandardCharsets.US_ASCII)), got);
            assertNotEquals(new String(b.name(), StandardCharsets.US_ASCII), got);
            long toA = b.insert(a.name());
            long toB = a.insert(b.name());
            byte[] hello = "hello over shm".getBytes(StandardCharsets.US_ASCII);
            send(b, a, toA, RdmTags.CONTROL, hello, 77);
            RdmEndpoint.Completion r = await(a, List.of());
            // b's send completes only when b's CQ is read: find it among b's completions.
            assertArrayEquals(hello, r.received());
            assertEquals(0, r.error());
            RdmEndpoint.Completion s = await(b, List.of(a));
            assertEquals(77, s.context());
            assertEquals(0, s.error());
            assertNull(s.received());
            byte[] back = new byte[RdmControl.MAX_SIZE];
            back[RdmControl.MAX_SIZE - 1] = 9;
            send(a, b, toB, RdmTags.CONTROL, back, 5);
            assertArrayEquals(back, await(b, List.of(a)).received(), "a message of the largest size");
            assertEquals(0, a.remove(toB));
        }
    }

    @Test
    void manyMessagesOutnumberingThePostedReceivesAllArriveInOrder() {
        try (RdmEndpoint a = new RdmEndpoint(fi, domain, info, null);
                RdmEndpoint b = new RdmEndpoint(fi, domain, info, null)) {
            long toA = b.insert(a.name());
            int n = RdmEndpoint.RECEIVES * 4;
            int sent = 0;
            List<Integer> got = new ArrayList<>();
            long end = System.nanoTime() + WAIT_NANOS;
            while (got.size() < n && System.nanoTime() < end) {
                if (sent < n) {
                    long rc = b.send(toA, RdmTags.CONTROL, new byte[] {(byte) sent}, sent);
                    if (rc == 0) {
                        sent++;
                    } else {
                        assertEquals(-LibFabric.FI_EAGAIN, rc, "a full queue says EAGAIN");
                    }
                }
                RdmEndpoint.Completion s = b.poll();
                assertTrue(s == null || s.error() == 0, "sends complete without error");
                RdmEndpoint.Completion r = a.poll();
                if (r != null) {
                    assertEquals(0, r.error());
                    got.add(r.received()[0] & 0xff);
                }
            }
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                expected.add(i);
            }
            assertEquals(expected, got, "FI_ORDER_SAS: in the order sent, none lost");
        }
    }

    @Test
    void aDataTaggedMessageNeverMatchesAControlReceive() {
        try (RdmEndpoint a = new RdmEndpoint(fi, domain, info, null);
                RdmEndpoint b = new RdmEndpoint(fi, domain, info, null)) {
            long toA = b.insert(a.name());
            send(b, a, toA, RdmTags.data(RdmTags.epTarget(3), 41), new byte[] {1}, 1);
            send(b, a, toA, RdmTags.CONTROL, new byte[] {2}, 2);
            RdmEndpoint.Completion r = await(a, List.of(b));
            assertArrayEquals(new byte[] {2}, r.received(), "only the control message matched");
            long end = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() < end) {
                RdmEndpoint.Completion x = a.poll();
                assertTrue(x == null, "the data-tagged message stays unmatched");
                b.poll();
            }
        }
    }

    @Test
    void aNameNobodyHoldsIsInsertedButItsSendsNeverComplete() {
        try (RdmEndpoint b = new RdmEndpoint(fi, domain, info, null)) {
            byte[] nobody = (new String(shmName("nobody"), StandardCharsets.US_ASCII) + "\0")
                    .getBytes(StandardCharsets.US_ASCII);
            long to = b.insert(nobody);
            // shm 1.17 maps the peer's region at the first sends; a name no process holds is -FI_EAGAIN for ever.
            long end = System.nanoTime() + 500_000_000L;
            while (System.nanoTime() < end) {
                assertEquals(-LibFabric.FI_EAGAIN, b.send(to, RdmTags.CONTROL, new byte[] {1}, 1));
                assertNull(b.poll());
            }
        }
    }

    @Test
    void aSendToAClosedEndpointOfThisProcessNeverReachesLibfabric() {
        // Regression: shm reaches a same-process peer through the peer's own region; sending after the peer closed
        // crashed the JVM (SIGSEGV in pthread_spin_lock).
        try (RdmEndpoint b = new RdmEndpoint(fi, domain, info, null)) {
            RdmEndpoint a = new RdmEndpoint(fi, domain, info, null);
            long toA = b.insert(a.name());
            send(b, a, toA, RdmTags.CONTROL, new byte[] {1}, 1);
            assertArrayEquals(new byte[] {1}, await(a, List.of(b)).received());
            a.close();
            for (int i = 0; i < 100; i++) {
                assertEquals(-LibFabric.FI_ENOTCONN, b.send(toA, RdmTags.CONTROL, new byte[] {2}, 2));
                b.poll();
            }
            assertEquals(-LibFabric.FI_EINVAL, b.send(12345, RdmTags.CONTROL, new byte[] {2}, 2), "never inserted");
        }
    }

    @Test
    void misuseIsRefusedWithoutReachingLibfabric() {
        RdmEndpoint a = new RdmEndpoint(fi, domain, info, null);
        long self = a.insert(a.name());
        assertThrows(IllegalArgumentException.class,
                () -> a.send(self, RdmTags.CONTROL, new byte[RdmControl.MAX_SIZE + 1], 0));
        a.close();
        a.close();
        assertThrows(IllegalStateException.class, a::poll);
        assertThrows(IllegalStateException.class, () -> a.send(self, RdmTags.CONTROL, new byte[1], 0));
        assertThrows(IllegalStateException.class, () -> a.insert(new byte[8]));
    }

    /**
     * A name this process closed stays closed here once an endpoint holds it again: shm's list of the process's names
     * keeps the closed endpoint's entry ahead of the new one, so the plain spelling still reaches unmapped memory (a
     * control send spun in {@code pthread_spin_lock} there: campaign seed 0x10a13 on ofi-shm-shm-rdm).
     */
    @Test
    void aNameClosedAndOpenedAgainIsStillClosedHere() {
        byte[] name = shmName("again");
        byte[] address;
        try (RdmEndpoint a = new RdmEndpoint(fi, domain, info, name)) {
            address = a.name();
            assertFalse(RdmEndpoint.closedHere(address), "open, never closed");
        }
        assertTrue(RdmEndpoint.closedHere(address), "closed");
        try (RdmEndpoint again = new RdmEndpoint(fi, domain, info, name)) {
            assertArrayEquals(address, again.name());
            assertTrue(RdmEndpoint.closedHere(address), "open again: its plain spelling still finds the closed one");
        }
    }

    @Test
    void theSameNameTwiceIsRefused() {
        byte[] name = shmName("twice");
        try (RdmEndpoint a = new RdmEndpoint(fi, domain, info, name)) {
            FiException e = assertThrows(FiException.class, () -> new RdmEndpoint(fi, domain, info, name).close());
            assertTrue(e.getMessage().contains("fi_"), e.getMessage());
            assertNotNull(a.name());
        }
    }

    /**
     * shm names an endpoint with the pid and a count; a process that had this pid and was killed left its endpoints'
     * region files under the names this process picks next (pids come round: an IA of a peer JVM could not open in
     * CI, {@code fi_enable} EBUSY). Each is refused once and removed by shm; the endpoint opens past them.
     */
    @Test
    void anEndpointWhoseNamesAnEndedProcessLeftOpensPastThem() throws Exception {
        String last;
        try (RdmEndpoint probe = new RdmEndpoint(fi, domain, info, null)) {
            last = text(probe.name());
        }
        String file = last.substring("fi_shm://".length());
        int count = Integer.parseInt(file.substring(file.lastIndexOf(':') + 1));
        String prefix = file.substring(0, file.lastIndexOf(':') + 1);
        List<Path> left = new ArrayList<>();
        ByteBuffer header = ByteBuffer.allocate(4096).order(ByteOrder.nativeOrder());
        header.put(0, (byte) 4).putInt(4, (int) ProcessHandle.current().pid());
        try {
            for (int i = 1; i <= 3; i++) {
                Path f = Path.of("/dev/shm", prefix + (count + i));
                left.add(f);
                Files.write(f, header.array(), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            }
            try (RdmEndpoint e = new RdmEndpoint(fi, domain, info, null)) {
                String name = text(e.name());
                assertEquals("fi_shm://" + prefix + (count + 4), name);
                for (Path f : left) {
                    assertFalse(Files.exists(f), "shm removed " + f);
                }
            }
        } finally {
            for (Path f : left) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** {@return an address as text, up to its NUL} */
    private static String text(byte[] address) {
        String s = new String(address, StandardCharsets.US_ASCII);
        int nul = s.indexOf('\0');
        return nul < 0 ? s : s.substring(0, nul);
    }
}
