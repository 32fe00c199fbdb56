// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatPsp;
import dat.api.DatPspFlags;
import dat.api.DatReturn;
import dat.registry.DatRegistry;
import dat.registry.peer.PeerAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code dat perf serve} and {@code dat perf TEST --peer HOST:CONN_QUAL} as the two-node benchmark runs them, both
 * in this JVM against loopback (two IAs of one provider connect as two nodes would): the server on its own thread,
 * the client in the test thread.
 */
class PerfPeerTest {

    @AfterEach
    void noWorkerLeftBehind() throws InterruptedException {
        // The server's workers end just after the client's: give them a moment.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        List<String> alive;
        do {
            alive = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                    .filter(n -> n.startsWith("dat-perf-")).toList();
            Thread.sleep(10);
        } while (!alive.isEmpty() && System.nanoTime() < deadline);
        assertEquals(List.of(), alive, "worker threads still running after the commands returned");
    }

    @ParameterizedTest(name = "{0} --op {1}")
    @CsvSource({"pingpong, send, 7481", "pingpong, write, 7482", "pingpong, read, 7483", "bw, send, 7484",
        "bw, write, 7485", "rate, send, 7486", "rate, read, 7487"})
    void theClientMeasuresAgainstTheServer(String test, String op, String connQual) throws Exception {
        var server = new BackgroundCommand("perf", "serve", "--provider", "loopback", "--conn-qual", connQual,
                "--timeout", "30");
        String address = server.address();
        PerfCommandTest.Run r = PerfCommandTest.dat("perf", test, "--op", op, "--sizes", "8,64,4k", "--iters",
                "100", "--peer", address);
        assertEquals(0, r.exit(), r.both() + server.both());
        assertEquals("", r.err(), r.both());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.getFirst().startsWith("# dat perf " + test + ": op " + op + ", provider loopback, IA ")
                && lines.getFirst().endsWith(", peer " + address), lines.getFirst());
        List<String> table = lines.stream().filter(l -> !l.startsWith("#")).toList();
        assertEquals(4, table.size(), "header and one row per size:\n" + r.out());
        for (int i = 1; i < table.size(); i++) {
            String[] cells = table.get(i).trim().split("\\s+", -1);
            assertEquals("100", cells[1], table.get(i));
            assertEquals("100", cells[2], table.get(i));
        }
        assertEquals(0, server.await(), server.both());
        assertTrue(server.out.toString().contains("dat perf serve: served " + test + ", op " + op
                + ", sizes 8,64,4k, to "), server.both());
        assertEquals("", server.err.toString());
    }

    @Test
    void jsonNamesThePeer() throws Exception {
        var server = new BackgroundCommand("perf", "serve", "--ia", "loopback0", "--conn-qual", "7488");
        String address = server.address();
        PerfCommandTest.Run r = PerfCommandTest.dat("perf", "pingpong", "--sizes", "8", "--iters", "50", "--json",
                "--peer", address);
        assertEquals(0, r.exit(), r.both() + server.both());
        assertTrue(r.out().contains("\"ia\": \"loopback0\",\n  \"peer\": \"" + address + "\",\n  \"test\": "
                + "\"pingpong\""), r.out());
        assertEquals(0, server.await(), server.both());
        // The local run's JSON is as before: no peer.
        PerfCommandTest.Run local = PerfCommandTest.dat("perf", "pingpong", "--sizes", "8", "--iters", "10",
                "--json");
        assertTrue(!local.out().contains("\"peer\""), local.out());
    }

    @Test
    void aServerOfAnotherVersionOrLimitIsNamed() {
        PerfPeer.Request request = new PerfPeer.Request(PerfPeer.VERSION, PerfPlan.Test.BW, PerfPlan.Op.WRITE, 3,
                65536, 0x1234, 0xdead_beef_0000L);
        byte[] data = request.encode();
        assertEquals(PerfPeer.REQUEST_BYTES, data.length);
        assertEquals(request, PerfPeer.Request.decode(data));
        assertNull(PerfPeer.Request.decode("not the protocol, but long enough".getBytes(StandardCharsets.US_ASCII)));
        assertNull(PerfPeer.Request.decode(new byte[8]));
        assertEquals(65536 + 0L, PerfPeer.bufferBytes(65536, 3));
        assertEquals(16 + 16 * 10, PerfPeer.bufferBytes(8, 10));
    }

    @ParameterizedTest(name = "version {0}, largest size {1}")
    @CsvSource({"2, 8, 3, 7491, 'its protocol version is 2, not 1'",
        "1, 9223372036854775807, 2, 7492, 'its largest size, 9223372036854775807 bytes, is above '"})
    void theServerRefusesAPlanItCannotRunAndSaysWhy(int version, long maxSize, int status, String connQual,
                                                   String why) throws Exception {
        var server = new BackgroundCommand("perf", "serve", "--ia", "loopback0", "--conn-qual", connQual,
                "--timeout", "30");
        PeerAddress address = PeerAddress.parse(server.address());
        try (DatIa ia = DatRegistry.load().open("loopback0")) {
            SmallEp small = SmallEp.open(ia);
            DatEvd connect = small.connect();
            DatEp ep = small.ep();
            DatEvent event = new DatEvent();
            byte[] request = new PerfPeer.Request(version, PerfPlan.Test.PINGPONG, PerfPlan.Op.SEND, 1, maxSize, 0,
                    0).encode();
            assertTrue(address.connect(ep, connect, event, request, System.nanoTime() + TimeUnit.SECONDS.toNanos(20),
                    new EnumMap<>(DatEventType.class)), "connected");
            ByteBuffer accept = ByteBuffer.wrap(event.privateData());
            assertEquals(PerfPeer.MAGIC, accept.getInt(0));
            assertEquals(status, accept.getInt(4));
            ia.close(DatCloseFlags.ABRUPT);
        }
        assertEquals(Exit.USAGE, server.await(), server.both());
        assertTrue(server.err.toString().contains(": refused the plan: " + why), server.both());
    }

    /** A server that accepts the first request with the given status and value, as a refusing dat perf serve. */
    private static String refusingServer(long connQual, int status, long value, CompletableFuture<Void> done)
            throws Exception {
        DatIa ia = DatRegistry.load().open("loopback0");
        DatEvd cr = ia.createEvd(4, null, DatEvdFlags.CR);
        DatPsp psp = ia.createPsp(connQual, cr, DatPspFlags.CONSUMER);
        Thread.ofPlatform().daemon().name("refusing-server").start(() -> {
            try {
                DatEvent event = new DatEvent();
                if (cr.await(TimeUnit.SECONDS.toMicros(30), 1, event) == DatReturn.DAT_SUCCESS) {
                    SmallEp small = SmallEp.open(ia);
                    DatEvd connect = small.connect();
                    DatEp ep = small.ep();
                    event.cr().accept(ep, ByteBuffer.allocate(PerfPeer.ACCEPT_BYTES).putInt(PerfPeer.MAGIC)
                            .putInt(status).putInt(0).putInt(0).putLong(value).array());
                    connect.await(TimeUnit.SECONDS.toMicros(10), 1, event);
                }
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            } finally {
                psp.close();
                ia.close(DatCloseFlags.ABRUPT);
            }
        });
        return new PeerAddress(ia.address(), connQual).toString();
    }

    @ParameterizedTest(name = "status {0}")
    @CsvSource({"1, 0, 7493, 'cannot run op send: its IA does not support it'",
        "2, 1024, 7494, 'size 4k is above what the peer at ADDRESS takes for op send: at most 1024 bytes'",
        "3, 0, 7495, 'speaks another version of the dat perf protocol'"})
    void theClientSaysWhyTheServerRefusedThePlan(int status, long value, long connQual, String why)
            throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        String address = refusingServer(connQual, status, value, done);
        PerfCommandTest.Run r = PerfCommandTest.dat("perf", "pingpong", "--sizes", "8,4k", "--iters", "10",
                "--peer", address, "--timeout", "20");
        assertEquals(Exit.USAGE, r.exit(), r.both());
        assertTrue(r.err().contains(why.replace("ADDRESS", address)), r.both());
        done.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aPeerThatDoesNotAnswerIsAnErrorAfterTheTimeout() throws Exception {
        String host;
        try (DatIa ia = DatRegistry.load().open("loopback0")) {
            host = ia.address().getHostAddress();
        }
        long start = System.nanoTime();
        assertUsage("the peer at " + host + ":7499 did not answer within 1 s (is `dat perf serve --conn-qual 7499`"
                + " running there?)", "perf", "pingpong", "--peer", host + ":7499", "--timeout", "1");
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(15));
    }

    @Test
    void aServerWithoutClientGivesUpAfterItsTimeout() throws Exception {
        var server = new BackgroundCommand("perf", "serve", "--conn-qual", "7489", "--timeout", "1");
        assertEquals(Exit.USAGE, server.await(), server.both());
        assertTrue(server.out.toString().startsWith("dat perf serve: listening on "), server.both());
        assertTrue(server.err.toString().contains("dat perf serve: no client connected within 1 s"), server.both());
    }

    @Test
    void badPeerOptionsAreUsageErrors() throws Exception {
        assertUsage("--peer: peer 'no.such.host.invalid:7471': unknown host 'no.such.host.invalid'", "perf",
                "pingpong", "--peer", "no.such.host.invalid:7471");
        assertUsage("--peer: peer 'loopback0' is not HOST:CONN_QUAL", "perf", "pingpong", "--peer", "loopback0");
        assertUsage("--conn-qual is for dat perf serve", "perf", "pingpong", "--conn-qual", "7471");
        assertUsage("Missing required option: '--conn-qual=N'", "perf", "serve");
        assertUsage("--conn-qual -1 must not be negative", "perf", "serve", "--conn-qual", "-1");
        for (String[] option : new String[][] {{"--op", "write"}, {"--sizes", "8"}, {"--iters", "5"},
            {"--warmup", "1"}, {"--json"}, {"--peer", "127.0.0.1:1"}}) {
            String[] args = new String[4 + option.length];
            System.arraycopy(new String[] {"perf", "serve", "--conn-qual", "7471"}, 0, args, 0, 4);
            System.arraycopy(option, 0, args, 4, option.length);
            assertUsage(option[0] + " is for the client: dat perf serve runs what the client", args);
        }
        assertUsage("unknown test 'nosuch': expected pingpong, bw, rate or serve", "perf", "nosuch");
        var first = new BackgroundCommand("perf", "serve", "--conn-qual", "7490", "--timeout", "5");
        first.address();
        assertUsage("cannot listen on conn_qual 7490", "perf", "serve", "--conn-qual", "7490");
        assertEquals(Exit.USAGE, first.await(), first.both());
    }

    @Test
    void helpNamesTheTwoNodeOptions() {
        PerfCommandTest.Run r = PerfCommandTest.dat("perf", "--help");
        assertTrue(r.out().contains("--peer=HOST:CONN_QUAL") && r.out().contains("--conn-qual=N")
                && r.out().contains("serve"), r.out());
    }

    private static void assertUsage(String reason, String... args) {
        PerfCommandTest.Run r = PerfCommandTest.dat(args);
        assertEquals(Exit.USAGE, r.exit(), String.join(" ", args) + ": " + r.both());
        assertTrue(r.err().contains(reason), String.join(" ", args) + ": " + r.both());
    }
}
