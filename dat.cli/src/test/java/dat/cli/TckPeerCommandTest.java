// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.registry.DatRegistry;
import dat.registry.peer.PeerAddress;
import dat.spi.DatProvider;
import dat.spi.DatProviderInfo;
import dat.tck.RulesIndex;
import dat.tck.TckRule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dat tck-peer} and {@code dat tck --peer} as the two-node harness runs them, both in this JVM against
 * loopback: the peer command on its own thread, the kit's run in the test thread.
 */
class TckPeerCommandTest {

    /** An exclude file that leaves only the rules whose names contain {@code keep}. */
    private static Path onlyRules(Path dir, String keep) throws IOException {
        Path exclude = dir.resolve("exclude.txt");
        Files.write(exclude, RulesIndex.rules().stream().map(TckRule::testName).filter(n -> !n.contains(keep))
                .toList());
        return exclude;
    }

    @Test
    void theKitRunsAcrossToThePeerAndEndsItWithBye(@TempDir Path dir) throws Exception {
        var peer = new BackgroundCommand("tck-peer", "--provider", "loopback", "--conn-qual", "7471",
                "--timeout", "120");
        String address = peer.address();
        assertTrue(peer.out.toString().startsWith("dat tck-peer: listening on " + address
                + " (IA loopback0, provider loopback) for 120 s"), peer.out.toString());
        DatCommandTest.Run tck = DatCommandTest.dat("tck", "--ia", "loopback0", "--strict", "--peer", address,
                "--exclude", onlyRules(dir, "_crossNode").toString(), "--reports", dir.resolve("r").toString());
        assertEquals(0, tck.exit(), tck.out() + tck.err());
        assertTrue(tck.out().startsWith(
                "dat tck: verifying IA loopback0 (strict), cross-node rules against the peer at "
                + address), tck.out());
        assertTrue(tck.out().lines().anyMatch(l -> l.matches("total\\s+11\\s+0\\s+0")), tck.out());
        assertEquals(0, peer.await(), peer.out.toString() + peer.err);
        List<String> lines = peer.out.toString().lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.matches("session \\d+ DISCONNECT token=0x\\p{XDigit}+: ok, ended by "
                + "the peer's disconnect as asked, 1 message")), peer.out.toString());
        assertTrue(lines.stream().filter(l -> l.startsWith("session ")).count() >= 13, peer.out.toString());
        assertTrue(lines.getLast().matches("dat tck-peer: bye received; \\d+ sessions, 0 failed"), lines.getLast());
        assertEquals("", peer.err.toString());
    }

    @Test
    void aFailedSessionMakesThePeerExitOne(@TempDir Path dir) throws Exception {
        var peer = new BackgroundCommand("tck-peer", "--ia", "loopback0", "--conn-qual", "7472");
        PeerAddress address = PeerAddress.parse(peer.address());
        try (DatIa ia = DatRegistry.load().open("loopback0")) {
            SmallEp small = SmallEp.open(ia);
            DatEvd connect = small.connect();
            DatEp ep = small.ep();
            ep.connect(address.host(), address.connQual(), 5_000_000, "not the protocol".getBytes(
                    StandardCharsets.US_ASCII), DatQos.BEST_EFFORT, 0);
            DatEvent event = new DatEvent();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (connect.dequeue(event) != DatReturn.DAT_SUCCESS && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(DatEventType.CONNECTION_EVENT_PEER_REJECTED, event.type());
            ia.close(DatCloseFlags.ABRUPT);
        }
        DatCommandTest.Run tck = DatCommandTest.dat("tck", "--ia", "loopback0", "--peer", address.toString(),
                "--exclude", onlyRules(dir, "crossNodePeerReject").toString(), "--reports", dir.toString());
        assertEquals(0, tck.exit(), tck.out() + tck.err());
        assertEquals(Exit.NO, peer.await(), peer.out.toString());
        assertTrue(peer.out.toString().contains("session 1 ? token=0x0: FAILED, 0 messages: request private data of "
                + "16 bytes; the protocol's request is 48"), peer.out.toString());
        assertTrue(peer.out.toString().contains("dat tck-peer: bye received; 3 sessions, 1 failed"),
                peer.out.toString());
    }

    @Test
    void withoutByeThePeerTimesOutAndExitsOne() throws Exception {
        var peer = new BackgroundCommand("tck-peer", "--conn-qual", "7473", "--timeout", "1");
        assertEquals(Exit.NO, peer.await(), peer.out.toString() + peer.err);
        assertTrue(peer.out.toString().contains("dat tck-peer: no bye within 1 s; 0 sessions, 0 failed"),
                peer.out.toString());
    }

    @Test
    void usageErrorsExitTwoWithTheReason() throws Exception {
        assertUsage("--conn-qual -1 must not be negative", "tck-peer", "--conn-qual", "-1");
        assertUsage("--timeout 0 must be at least 1 second", "tck-peer", "--conn-qual", "7474", "--timeout", "0");
        assertUsage("no provider named nosuch offers an IA", "tck-peer", "--provider", "nosuch", "--conn-qual", "1");
        assertUsage("Missing required option: '--conn-qual=N'", "tck-peer");
        assertUsage("give --provider or --ia, not both", "tck-peer", "--provider", "loopback", "--ia", "loopback0",
                "--conn-qual", "1");
        assertUsage("dat tck: --peer: peer 'loopback0' is not HOST:CONN_QUAL", "tck", "--peer", "loopback0",
                "--reports", "target/unused");
        var first = new BackgroundCommand("tck-peer", "--conn-qual", "7475", "--timeout", "5");
        first.address();
        assertUsage("cannot listen on conn_qual 7475 of IA loopback0", "tck-peer", "--conn-qual", "7475");
        assertEquals(Exit.NO, first.await());
    }

    private static void assertUsage(String reason, String... args) {
        DatCommandTest.Run r = DatCommandTest.dat(args);
        assertEquals(Exit.USAGE, r.exit(), String.join(" ", args) + ": " + r.out() + r.err());
        assertTrue(r.err().contains(reason), String.join(" ", args) + ": " + r.err());
    }

    @Test
    void anUnavailableProviderIsNamedWithItsReason() {
        DatProvider absent = new DatProvider() {
            @Override
            public String name() {
                return "absent";
            }

            @Override
            public DatProviderInfo info() {
                return DatProviderInfo.unavailable("absent", "0.1", "no RDMA device; modprobe rdma_rxe", List.of());
            }

            @Override
            public DatIa open(String iaName, String iaParams, int asyncEvdMinQlen) {
                throw new IllegalStateException("never opened");
            }
        };
        DatRegistry registry = DatRegistry.builder().providers(List.of(absent)).build();
        assertEquals("provider absent is unavailable: no RDMA device; modprobe rdma_rxe",
                assertThrows(IllegalArgumentException.class, () -> TckCommand.resolveIa(registry, "absent", null))
                        .getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TckCommand.resolveIa(registry, "nosuch", null))
                .getMessage().startsWith("no provider named nosuch offers an IA"));
    }

    @Test
    void helpNamesTheHarnessOptions() {
        DatCommandTest.Run r = DatCommandTest.dat("tck-peer", "--help");
        assertEquals(0, r.exit(), r.err());
        for (String option : new String[] {"--provider", "--ia", "--conn-qual", "--timeout"}) {
            assertTrue(r.out().contains(option), r.out());
        }
        assertTrue(DatCommandTest.dat("tck", "--help").out().contains("--peer=HOST:CONN_QUAL"));
        assertTrue(DatCommandTest.dat("--help").out().contains("tck-peer"));
    }
}
