// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatIa;
import dat.api.DatQos;
import dat.api.DatReturn;
import dat.registry.DatRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code dat dtest} and {@code dat dtestsrq}, Java against Java over loopback in this JVM (the server on its own
 * thread), and the pieces of the wire that the C programs fix: the bootstrap message, the private data, the
 * write and read contents.
 */
class DtestCommandTest {

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void dtestServerAndClientRunTheWholeProtocol() throws Exception {
        String port = String.valueOf(freePort());
        var server = new BackgroundCommand("dtest", "-s", "--provider", "loopback", "-b", "4096", "-B", "50",
                "--conn-qual", "45301", "--bootstrap-port", port, "--timeout", "30");
        DatCommandTest.Run client = DatCommandTest.dat("dtest", "-h", "127.0.0.1", "--provider", "loopback",
                "-b", "4096", "-B", "50", "--conn-qual", "45301", "--bootstrap-port", port, "--timeout", "30");
        assertEquals(0, client.exit(), client.out() + client.err() + server.both());
        assertEquals(0, server.await(), server.both());
        for (String out : new String[] {client.out(), server.out.toString()}) {
            assertTrue(out.contains("CONNECTED!"), out);
            assertTrue(out.contains("RDMA write buffer contains"), out);
            assertTrue(out.contains("RDMA read buffer contains"), out);
            assertTrue(out.contains("ping-pong: 100 x 4096 byte messages checked"), out);
            assertTrue(out.contains("DAPL Test Complete. PASSED"), out);
        }
        assertTrue(server.out.toString().contains("server: DAPL Test Complete. PASSED"), server.both());
    }

    @Test
    void aClientWithAnotherBufferSizeFailsTheRunOnBothSides() throws Exception {
        String port = String.valueOf(freePort());
        var server = new BackgroundCommand("dtest", "--provider", "loopback", "-b", "4096", "-B", "10",
                "--conn-qual", "45302", "--bootstrap-port", port, "--timeout", "5");
        DatCommandTest.Run client = DatCommandTest.dat("dtest", "-h", "127.0.0.1", "--provider", "loopback",
                "-b", "2048", "-B", "10", "--conn-qual", "45302", "--bootstrap-port", port, "--timeout", "5");
        assertEquals(1, client.exit(), client.out() + client.err());
        assertTrue(client.err().contains("give both sides the same -b"), client.err());
        assertTrue(client.out().contains("DAPL Test Complete. FAILED"), client.out());
        assertEquals(1, server.await(), server.both());
    }

    @Test
    void aServerRejectsARequestWithoutDtestsPrivateData() throws Exception {
        String port = String.valueOf(freePort());
        var server = new BackgroundCommand("dtest", "--provider", "loopback", "-b", "64", "-B", "1",
                "--conn-qual", "45303", "--bootstrap-port", port, "--timeout", "10");
        // A stranger takes the bootstrap and connects with a private data pattern that is not dtest's.
        byte[] msg = new byte[Dtest.BOOTSTRAP_BYTES];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(port))) {
                s.getInputStream().readNBytes(msg, 0, msg.length);
                break;
            } catch (IOException e) {
                assertTrue(System.nanoTime() < deadline, "the server never opened its bootstrap port");
                Thread.sleep(50);
            }
        }
        try (DatIa ia = DatRegistry.load().open("loopback0")) {
            SmallEp small = SmallEp.open(ia);
            byte[] wrong = Dtest.pattern(1);
            wrong[47] = 0;
            small.ep().connect(Dtest.parseBootstrap(msg).address(), 45303, TimeUnit.SECONDS.toMicros(10), wrong,
                    DatQos.BEST_EFFORT, 0);
            DatEvent event = new DatEvent();
            assertEquals(DatReturn.DAT_SUCCESS, small.connect().await(TimeUnit.SECONDS.toMicros(20), 1, event));
            assertEquals(DatEventType.CONNECTION_EVENT_PEER_REJECTED, event.type());
            ia.close(DatCloseFlags.ABRUPT);
        }
        assertEquals(1, server.await(), server.both());
        assertTrue(server.err.toString().contains("connect request private data: byte 47 is 0, expected 48"),
                server.both());
    }

    @Test
    void theBootstrapIsDtestsConnMsgFormat() {
        byte[] msg = Dtest.bootstrapMessage(addr("192.0.2.1"), "ofa-v2-cma-roe");
        assertEquals(128, msg.length);
        String text = new String(msg, StandardCharsets.US_ASCII);
        // CONN_MSG_FMT "%04hx:%08x:%08x:%08x:%s" with s_addr of 192.0.2.1 read as a little-endian uint32.
        assertTrue(text.startsWith("0000:00000000:00000000:010200c0:ofa-v2-cma-roe\0"), text);
        assertArrayEquals(new byte[128 - 46], Arrays.copyOfRange(msg, 46, 128));
        Dtest.Bootstrap b = Dtest.parseBootstrap(msg);
        assertEquals(addr("192.0.2.1"), b.address());
        assertEquals("ofa-v2-cma-roe", b.provider());
        // What C's sprintf leaves after the NUL is whatever the stack held: ignored.
        byte[] dirty = msg.clone();
        Arrays.fill(dirty, 47, 128, (byte) 'x');
        assertEquals("ofa-v2-cma-roe", Dtest.parseBootstrap(dirty).provider());
        assertThrows(Dtest.Failure.class, () -> Dtest.parseBootstrap(new byte[128]));
        assertThrows(Dtest.Failure.class, () -> Dtest.parseBootstrap(
                "0001:00000042:00000000:00000000:ofa-v2-mlx4_0-1u".getBytes(StandardCharsets.US_ASCII)),
                "an IB UCM server's LID and QPN");
        assertThrows(Dtest.Failure.class, () -> Dtest.parseBootstrap(
                "0000:00000000:00000000:zz:p".getBytes(StandardCharsets.US_ASCII)));
        assertThrows(Dtest.Failure.class, () -> Dtest.bootstrapMessage(addr("::1"), "p"));
        assertThrows(Dtest.Failure.class, () -> Dtest.bootstrapMessage(addr("192.0.2.1"), "p".repeat(100)));
    }

    @Test
    void privateDataIsDtestsPatternWithZeroPaddingOnly() {
        byte[] request = Dtest.pattern(1);
        assertEquals(1, request[0]);
        assertEquals(48, request[47]);
        assertNull(Dtest.checkPrivateData(request, 1));
        assertNull(Dtest.checkPrivateData(Arrays.copyOf(Dtest.pattern(2), 196), 2), "C's accept, padded by rdma_cm");
        assertNotNull(Dtest.checkPrivateData(Dtest.pattern(2), 1));
        assertNotNull(Dtest.checkPrivateData(Arrays.copyOf(request, 47), 1));
        assertNotNull(Dtest.checkPrivateData(null, 1));
        byte[] tail = Arrays.copyOf(request, 56);
        tail[50] = 7;
        assertNotNull(Dtest.checkPrivateData(tail, 1));
    }

    @Test
    void writeAndReadContentsAreCsStrcpyOverFilledBuffers() {
        byte[] w = Dtest.writeData("client", 40);
        assertEquals("client RDMA write data...", new String(w, 0, 25, StandardCharsets.US_ASCII));
        assertEquals(0, w[25]);
        for (int i = 26; i < 40; i++) {
            assertEquals('b', w[i]);
        }
        byte[] r = Dtest.strcpy(w, "server RDMA read data...");
        assertEquals(0, r[24]);
        assertEquals(0, r[25], "the write's NUL stays");
        assertEquals('b', r[26]);
        assertEquals(10, Dtest.writeData("server", 10).length, "a buffer shorter than the text is all text");
        assertEquals(2, DtestSrq.epIndex(2)[3]);
        assertEquals(2, DtestSrq.index(Arrays.copyOf(DtestSrq.epIndex(2), 56)));
        assertEquals(-1, DtestSrq.index(new byte[] {0, 0, 0}));
        assertEquals(-1, DtestSrq.index(new byte[] {0, 0, 0, 1, 5}));
        assertEquals(-1, DtestSrq.index(new byte[] {(byte) 0x80, 0, 0, 0}));
    }

    @Test
    void dtestsrqServerAndClientRunBurstsOnSeveralConnections() throws Exception {
        var server = new BackgroundCommand("dtestsrq", "--provider", "loopback", "-b", "512", "-c", "3", "-t", "4",
                "-B", "5", "-p", "45310", "--timeout", "30");
        String host = serverAddress(server);
        CompletableFuture<DatCommandTest.Run> client = CompletableFuture.supplyAsync(() -> DatCommandTest.dat(
                "dtestsrq", "-h", host, "--provider", "loopback", "-b", "512", "-c", "3", "-t", "4", "-B", "5",
                "-p", "45310", "--timeout", "30"));
        DatCommandTest.Run c = client.get(60, TimeUnit.SECONDS);
        assertEquals(0, c.exit(), c.out() + c.err() + server.both());
        assertEquals(0, server.await(), server.both());
        assertTrue(c.out().contains("4 bursts of 5 messages on 3 EPs checked"), c.out());
        assertTrue(server.out.toString().contains("ALL 3 CONNECTED"), server.both());
        assertTrue(server.out.toString().contains("server: DAPL Test Complete. PASSED"), server.both());
    }

    @Test
    void badOptionsAreUsageErrors() {
        for (String[] args : new String[][] {
            {"dtest", "-s", "-h", "x"}, {"dtest", "-b", "0"}, {"dtest", "-b", "16777217"}, {"dtest", "-B", "-1"},
            {"dtest", "--bootstrap-port", "70000"}, {"dtest", "--timeout", "0"},
            {"dtestsrq", "-c", "101"}, {"dtestsrq", "-B", "0"}, {"dtestsrq", "-b", "11"}, {"dtestsrq", "-t", "-1"},
            {"dtest", "--provider", "loopback", "--ia", "loopback0"},
        }) {
            DatCommandTest.Run run = DatCommandTest.dat(args);
            assertEquals(2, run.exit(), String.join(" ", args) + ": " + run.out() + run.err());
        }
    }

    /** {@return the IA address the server printed in its first line, waiting up to 20 s} */
    private static String serverAddress(BackgroundCommand server) throws InterruptedException {
        Pattern line = Pattern.compile("\\(provider \\S+, (\\S+)\\)");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            Matcher m = line.matcher(server.out.toString());
            if (m.find()) {
                return m.group(1);
            }
            Thread.sleep(10);
        }
        throw new AssertionError("the server printed no address: " + server.both());
    }

    private static InetAddress addr(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

}
