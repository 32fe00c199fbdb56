// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatLmr;
import dat.api.DatReturn;
import dat.tck.PeerClient.Answered;
import dat.tck.PeerClient.Conn;
import dat.tck.peer.TckPeer;
import dat.tck.peer.TckPeer.Outcome;
import dat.tck.peer.TckPeer.SessionReport;
import dat.tck.rules.PeerProtocol;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The peer responder on its own: bad input from the remote side ends that session with a message naming the fault
 * and never the peer; sessions report how they ended; "bye", the timeout and {@link TckPeer#stop()} end serving.
 */
class TckPeerTest {

    private static final AtomicLong QUALS = new AtomicLong(7600);

    private static PeerThread peer() {
        return PeerThread.start(QUALS.incrementAndGet(), Duration.ofMinutes(1));
    }

    private static void bye(PeerClient client) {
        Answered bye = client.connect(PeerProtocol.request(PeerProtocol.BYE, 99, 0, 0));
        assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, bye.event().type());
        client.hangUp(bye.conn());
    }

    @Test
    void aBadRequestEndsOnlyItsSession() {
        try (PeerThread peer = peer(); PeerClient client = new PeerClient(peer.address())) {
            Answered zeros = client.connect(new byte[PeerProtocol.PRIVATE_DATA_SIZE]);
            assertSame(DatEventType.CONNECTION_EVENT_PEER_REJECTED, zeros.event().type());
            byte[] flipped = PeerProtocol.request(PeerProtocol.ECHO, 5, 0, 0);
            flipped[20] ^= 0x10;
            assertSame(DatEventType.CONNECTION_EVENT_PEER_REJECTED, client.connect(flipped).event().type());
            Answered echo = client.connect(PeerProtocol.request(PeerProtocol.ECHO, 6, 0, 0));
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, echo.event().type());
            client.hangUp(echo.conn());
            bye(client);
            TckPeer.Summary summary = peer.await(Duration.ofSeconds(10));
            List<SessionReport> s = byNumber(summary);
            assertEquals(4, s.size(), s.toString());
            assertEquals(Outcome.FAILED, s.get(0).outcome());
            assertEquals("request private data: magic 0x00000000 is not the protocol's 0x6a444154 (\"jDAT\")",
                    s.get(0).detail());
            assertEquals(Outcome.FAILED, s.get(1).outcome());
            assertTrue(s.get(1).detail().startsWith("request private data: CRC32C "), s.get(1).detail());
            assertTrue(s.get(1).detail().endsWith("the request changed on the way"), s.get(1).detail());
            assertEquals(Outcome.REMOTE_DISCONNECT, s.get(2).outcome(), s.get(2).toString());
            assertEquals(6, s.get(2).token());
            assertEquals(Outcome.REMOTE_DISCONNECT, s.get(3).outcome());
            assertTrue(summary.byeReceived());
            assertFalse(summary.timedOut());
            assertFalse(summary.clean(), "two sessions failed");
            assertEquals(List.of(s.get(0), s.get(1)), summary.failures());
            assertTrue(s.get(0).toString().startsWith("session 1 ? token=0x0: FAILED, 0 messages: request private"),
                    s.get(0).toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "ECHO of a message above the limit | 1  | 1048576 | 0  | ECHO asks for messages of 1048576 bytes; this peer echoes 0..65536",
        "EXPOSE of no bytes                | 4  | 0       | 0  | EXPOSE asks for a region of 0 bytes; this peer exposes 1..1048576",
        "STATUS with a negative wait       | 6  | 1       | -1 | STATUS asks to wait -1 ms; the protocol allows 0..60000",
        "an unknown command                | 9  | 0       | 0  | unknown command 9 (the protocol knows 1..7)"})
    void aRequestTheProtocolRefusesIsRejectedWithTheReason(String what, int command, long arg, int arg2,
                                                           String reason) {
        try (PeerThread peer = peer(); PeerClient client = new PeerClient(peer.address())) {
            Answered refused = client.connect(PeerProtocol.request(command, 77, arg, arg2));
            assertSame(DatEventType.CONNECTION_EVENT_PEER_REJECTED, refused.event().type(), what);
            bye(client);
            SessionReport first = peer.await(Duration.ofSeconds(10)).sessions().get(0);
            assertEquals(Outcome.FAILED, first.outcome());
            assertEquals(77, first.token());
            assertEquals(reason, first.detail());
        }
    }

    @Test
    void shortOrPaddedPrivateData() {
        try (PeerThread peer = peer(); PeerClient client = new PeerClient(peer.address())) {
            assertSame(DatEventType.CONNECTION_EVENT_PEER_REJECTED, client.connect(new byte[10]).event().type());
            byte[] padded = Arrays.copyOf(PeerProtocol.request(PeerProtocol.ECHO, 8, 0, 0), 56);
            Answered zeroPadded = client.connect(padded);
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, zeroPadded.event().type(),
                    "zero padding, as IB CM adds it, is accepted");
            client.hangUp(zeroPadded.conn());
            padded[50] = 1;
            assertSame(DatEventType.CONNECTION_EVENT_PEER_REJECTED, client.connect(padded).event().type());
            bye(client);
            List<SessionReport> s = byNumber(peer.await(Duration.ofSeconds(10)));
            assertEquals("request private data of 10 bytes; the protocol's request is 48", s.get(0).detail());
            assertTrue(s.get(1).clean(), s.get(1).toString());
            assertEquals("request private data of 56 bytes: byte 50 beyond the protocol's 48 is 1, not zero padding",
                    s.get(2).detail());
        }
    }

    @Test
    void aCommandOutsideTheRegionEndsTheSessionNotThePeer() {
        try (PeerThread peer = peer(); PeerClient client = new PeerClient(peer.address())) {
            byte[] request = PeerProtocol.request(PeerProtocol.EXPOSE, 11, 4096, 3);
            Answered expose = client.connect(request);
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, expose.event().type());
            PeerProtocol.Accept accept = PeerProtocol.parseAccept(expose.event().privateData(), request);
            assertEquals(4096, accept.value2());
            assertNotEquals(0, accept.value1(), "the region's address");
            DatLmr command = client.region(64);
            ByteBuffer bytes = command.segment().asByteBuffer();
            PeerProtocol.command(bytes, PeerProtocol.SEND_BACK, 4000, 200);
            client.send(expose.conn(), command, 0, PeerProtocol.COMMAND_SIZE, 1);
            assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, client.next(expose.conn().connectEvd()).type(),
                    "the peer ends the session");
            Answered echo = client.connect(PeerProtocol.request(PeerProtocol.ECHO, 12, 0, 0));
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, echo.event().type(), "the peer still serves");
            client.hangUp(echo.conn());
            bye(client);
            List<SessionReport> s = byNumber(peer.await(Duration.ofSeconds(10)));
            assertEquals(Outcome.FAILED, s.get(0).outcome());
            assertEquals("command message 1: SEND_BACK of 200 bytes at offset 4000 lies outside the 4096-byte region",
                    s.get(0).detail());
            assertTrue(s.get(1).clean());
        }
    }

    @Test
    void anUnknownCommandMessageAndAnOversizedEchoFailTheirSessions() {
        try (PeerThread peer = peer(); PeerClient client = new PeerClient(peer.address())) {
            Answered expose = client.connect(PeerProtocol.request(PeerProtocol.EXPOSE, 21, 64, 3));
            DatLmr command = client.region(1 << 17);
            PeerProtocol.command(command.segment().asByteBuffer(), 5, 0, 8);
            client.send(expose.conn(), command, 0, PeerProtocol.COMMAND_SIZE, 1);
            assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, client.next(expose.conn().connectEvd()).type());
            Answered echo = client.connect(PeerProtocol.request(PeerProtocol.ECHO, 22, 0, 0));
            client.send(echo.conn(), command, 0, TckPeer.ECHO_LIMIT + 1, 2);
            DatEventType ended = client.next(echo.conn().connectEvd()).type();
            // Loopback breaks a connection whose message overran the receive buffer, before the peer cuts it.
            assertTrue(ended == DatEventType.CONNECTION_EVENT_DISCONNECTED
                    || ended == DatEventType.CONNECTION_EVENT_BROKEN, ended.toString());
            bye(client);
            List<SessionReport> s = byNumber(peer.await(Duration.ofSeconds(10)));
            assertEquals("command message 1: unknown op 5 (the protocol knows 1, SEND_BACK, and 2, BIND_WINDOW)",
                    s.get(0).detail());
            assertEquals("a message longer than the 65536-byte buffer this session posted (DAT_DTO_ERR_LOCAL_LENGTH)",
                    s.get(1).detail());
        }
    }

    @Test
    void echoSendBackAndStatusAnswerAsDocumented() {
        try (PeerThread peer = peer(); PeerClient client = new PeerClient(peer.address())) {
            byte[] request = PeerProtocol.request(PeerProtocol.ECHO, 31, 100, 0);
            Answered echo = client.connect(request);
            PeerProtocol.Accept accept = PeerProtocol.parseAccept(echo.event().privateData(), request);
            assertEquals(TckPeer.ECHO_LIMIT, accept.value1(), "largest message");
            assertEquals(TckPeer.ECHO_CREDITS, accept.value2(), "messages in flight");
            DatLmr buffer = client.region(4096);
            buffer.segment().asByteBuffer().put(0, "hello peer".getBytes(StandardCharsets.US_ASCII));
            client.recv(echo.conn(), buffer, 1000, 100, 7);
            client.send(echo.conn(), buffer, 0, 10, 8);
            DatEvent back = client.next(echo.conn().recvEvd());
            assertSame(DatDtoStatus.SUCCESS, back.dtoStatus());
            assertEquals(10, back.transferredLength());
            assertEquals(-1, buffer.segment().asSlice(0, 10).mismatch(buffer.segment().asSlice(1000, 10)));
            client.hangUp(echo.conn());

            Answered disconnect = client.connect(PeerProtocol.request(PeerProtocol.DISCONNECT, 32, 0, 0));
            client.send(disconnect.conn(), buffer, 0, 8, 9);
            assertSame(DatEventType.CONNECTION_EVENT_DISCONNECTED, client.next(disconnect.conn().connectEvd()).type());

            assertEquals(PeerProtocol.OUTCOME_REMOTE_DISCONNECT, status(client, 31, 1));
            assertEquals(PeerProtocol.OUTCOME_LOCAL_DISCONNECT, status(client, 32, 1));
            assertEquals(PeerProtocol.OUTCOME_UNKNOWN, status(client, 33, 0));
            bye(client);
            TckPeer.Summary summary = peer.await(Duration.ofSeconds(10));
            assertTrue(summary.clean(), summary.toString());
            assertEquals(6, summary.sessions().size());
        }
    }

    /**
     * On IB/RoCE the requester's first message can overtake the CM's RTU: the peer's receive completes while its EP
     * still waits for ESTABLISHED and refuses posts. The echo must wait for the connection event, not fail.
     */
    @Test
    void aMessageThatOvertakesTheAcceptIsEchoedOnceTheSessionIsUp() {
        LateEstablished late = new LateEstablished();
        try (PeerThread peer = PeerThread.start(QUALS.incrementAndGet(), Duration.ofMinutes(1), late);
             PeerClient client = new PeerClient(peer.address())) {
            Answered echo = client.connect(PeerProtocol.request(PeerProtocol.ECHO, 61, 0, 0));
            assertSame(DatEventType.CONNECTION_EVENT_ESTABLISHED, echo.event().type());
            DatLmr buffer = client.region(4096);
            client.recv(echo.conn(), buffer, 1000, 100, 7);
            client.send(echo.conn(), buffer, 0, 10, 8);
            assertSame(DatDtoStatus.SUCCESS, client.next(echo.conn().requestEvd()).dtoStatus(),
                    "the message reached the peer before its ESTABLISHED");
            late.release();
            DatEvent back = client.next(echo.conn().recvEvd());
            assertSame(DatDtoStatus.SUCCESS, back.dtoStatus(), "the echo");
            assertEquals(10, back.transferredLength());
            client.hangUp(echo.conn());
            bye(client);
            TckPeer.Summary summary = peer.await(Duration.ofSeconds(10));
            assertTrue(summary.clean(), summary.toString());
        }
    }

    /**
     * The peer's provider when the RTU is late: each accepted EP's ESTABLISHED is held back until {@link #release},
     * and until the consumer has dequeued it the EP refuses {@code dat_ep_post_send} with DAT_INVALID_STATE, as
     * an EP in DAT_EP_STATE_COMPLETION_PENDING must.
     */
    private static final class LateEstablished implements Breaker.Fault {
        // Concurrent: dequeue removes from it while iterating, and remove() is the claim between threads.
        private final ConcurrentMap<Object, DatEvent> held = new ConcurrentHashMap<>();
        private final Set<Object> established = ConcurrentHashMap.newKeySet();
        private volatile boolean released;

        void release() {
            released = true;
        }

        @Override
        public Object[] before(Breaker.Call call) {
            if (call.is(DatEp.class, "postSend") && !established.contains(call.target())) {
                throw new Breaker.Answer(DatReturn.DAT_INVALID_STATE);
            }
            if (released && call.is(DatEvd.class, "dequeue")) {
                for (Map.Entry<Object, DatEvent> h : held.entrySet()) {
                    if (h.getValue().evd() == call.target() && held.remove(h.getKey()) != null) {
                        ((DatEvent) call.args()[0]).copyFrom(h.getValue());
                        established.add(h.getKey());
                        throw new Breaker.Answer(DatReturn.DAT_SUCCESS);
                    }
                }
            }
            return call.args();
        }

        @Override
        public Object after(Breaker.Call call, Object result) {
            if (call.is(DatEvd.class, "dequeue") && (int) result == DatReturn.DAT_SUCCESS
                    && call.args()[0] instanceof DatEvent e && e.type() == DatEventType.CONNECTION_EVENT_ESTABLISHED) {
                if (!released) {
                    held.put(e.ep(), new DatEvent().copyFrom(e));
                    return DatReturn.DAT_QUEUE_EMPTY;
                }
                established.add(e.ep());
            }
            return result;
        }
    }

    /** Sessions are reported as they end; a refused request ends before an earlier session's disconnect. */
    private static List<SessionReport> byNumber(TckPeer.Summary summary) {
        return summary.sessions().stream().sorted(Comparator.comparingInt(SessionReport::number)).toList();
    }

    private static int status(PeerClient client, long token, long messages) {
        byte[] request = PeerProtocol.request(PeerProtocol.STATUS, 40 + token, token, 2000);
        Answered status = client.connect(request);
        PeerProtocol.Accept accept = PeerProtocol.parseAccept(status.event().privateData(), request);
        client.hangUp(status.conn());
        assertEquals(messages, accept.value1(), "messages of session " + token);
        return accept.value3();
    }

    @Test
    void aTimeoutWithoutByeIsNotClean() {
        try (PeerThread peer = PeerThread.start(QUALS.incrementAndGet(), Duration.ofMillis(200))) {
            TckPeer.Summary summary = peer.await(Duration.ofSeconds(10));
            assertTrue(summary.timedOut());
            assertFalse(summary.byeReceived());
            assertFalse(summary.clean());
        }
    }

    @Test
    void aSessionStillConnectedWhenThePeerStopsIsReported() {
        PeerThread peer = peer();
        try (PeerClient client = new PeerClient(peer.address())) {
            Conn left;
            try (peer) {
                left = client.connect(PeerProtocol.request(PeerProtocol.ECHO, 51, 0, 0)).conn();
            }
            SessionReport report = peer.await(Duration.ofSeconds(10)).sessions().get(0);
            assertEquals(Outcome.STOPPED, report.outcome());
            assertFalse(report.clean());
            DatEventType type = client.next(left.connectEvd()).type();
            assertTrue(type == DatEventType.CONNECTION_EVENT_DISCONNECTED
                    || type == DatEventType.CONNECTION_EVENT_BROKEN, "the peer's EP was freed: " + type);
        }
    }

    @Test
    void aQualifierInUseIsRefusedAtOpen() {
        try (PeerThread peer = peer(); DatIa ia = PeerThread.openPeerIa()) {
            DatException e = assertThrows(DatException.class, () -> TckPeer.open(ia, peer.address().connQual()));
            assertSame(DatReturn.CONN_QUAL_IN_USE, e.type());
        }
    }
}
