// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.tck.rules.PeerProtocol.Accept;
import dat.tck.rules.PeerProtocol.ProtocolException;
import dat.tck.rules.PeerProtocol.Request;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The peer protocol's byte layouts: what is written is read back, and every damaged field is named. */
class PeerProtocolTest {

    @Test
    void requestAndAcceptRoundTripWithinFortyEightBytes() {
        byte[] request = PeerProtocol.request(PeerProtocol.EXPOSE, 0x1122334455667788L, 4096, 23);
        assertEquals(48, request.length);
        assertEquals(0x6A444154, ByteBuffer.wrap(request).getInt(0), "\"jDAT\", big-endian");
        Request r = PeerProtocol.parseRequest(request);
        assertEquals(new Request(PeerProtocol.EXPOSE, 0x1122334455667788L, 4096, 23, PeerProtocol.crc(request, 48)), r);
        byte[] accept = PeerProtocol.accept(r, 0xCAFE, 0x7F00_0000_1000L, 4096, 23);
        assertEquals(48, accept.length);
        assertEquals(new Accept(PeerProtocol.EXPOSE, 0x1122334455667788L, r.crc(), 0xCAFE, 0x7F00_0000_1000L, 4096, 23),
                PeerProtocol.parseAccept(accept, request));
    }

    @Test
    void zeroPaddingIsAcceptedAndAnythingElseBeyondFortyEightBytesIsNot() {
        byte[] request = PeerProtocol.request(PeerProtocol.ECHO, 3, 0, 0);
        byte[] accept = PeerProtocol.accept(PeerProtocol.parseRequest(request), 0, 1, 2, 3);
        byte[] padded = Arrays.copyOf(accept, 196);
        assertEquals(1, PeerProtocol.parseAccept(padded, request).value1());
        padded[100] = 7;
        ProtocolException e = assertThrows(ProtocolException.class, () -> PeerProtocol.parseAccept(padded, request));
        assertEquals("accept private data of 196 bytes: byte 100 beyond the protocol's 48 is 7, not zero padding",
                e.getMessage());
    }

    /**
     * A C uDAPL peer (and jDAT's bridge to one) reports rdma_cm's whole field, which jDAT's verbs provider ends with
     * its length trailer: padding when it names the protocol's 48 bytes, an error otherwise.
     */
    @Test
    void theVerbsLengthTrailerOfFortyEightBytesIsPadding() {
        byte[] request = PeerProtocol.request(PeerProtocol.ECHO, 3, 0, 0);
        byte[] field = Arrays.copyOf(request, 56);
        field[52] = 'j';
        field[53] = 'D';
        field[54] = 48;
        field[55] = (byte) ~48;
        assertEquals(PeerProtocol.ECHO, PeerProtocol.parseRequest(field).command());
        field[54] = 47;
        field[55] = (byte) ~47;
        ProtocolException e = assertThrows(ProtocolException.class, () -> PeerProtocol.parseRequest(field));
        assertEquals("request private data of 56 bytes: byte 52 beyond the protocol's 48 is 106, not zero padding",
                e.getMessage());
    }

    @Test
    void everyDamagedByteOfARequestIsCaught() {
        byte[] request = PeerProtocol.request(PeerProtocol.ECHO, 42, 64, 0);
        for (int i = 0; i < request.length; i++) {
            byte[] damaged = request.clone();
            damaged[i] ^= 0x01;
            int index = i;
            assertThrows(ProtocolException.class, () -> PeerProtocol.parseRequest(damaged), "byte " + index);
        }
    }

    @Test
    void aDamagedAcceptIsNamedByItsField() {
        byte[] request = PeerProtocol.request(PeerProtocol.ECHO, 42, 64, 0);
        byte[] accept = PeerProtocol.accept(PeerProtocol.parseRequest(request), 0, 65536, 16, 0);
        byte[] flipped = accept.clone();
        flipped[30] ^= 0x40;
        assertTrue(assertThrows(ProtocolException.class, () -> PeerProtocol.parseAccept(flipped, request))
                .getMessage().endsWith("the accept changed on the way"));
        byte[] other = PeerProtocol.request(PeerProtocol.ECHO, 43, 64, 0);
        assertEquals("accept private data: token 0x2a is not the request's 0x2b",
                assertThrows(ProtocolException.class, () -> PeerProtocol.parseAccept(accept, other)).getMessage());
        byte[] changedOnTheWay = request.clone();
        changedOnTheWay[17] ^= 0x01;
        assertTrue(assertThrows(ProtocolException.class, () -> PeerProtocol.parseAccept(accept, changedOnTheWay))
                .getMessage().startsWith("the peer received request private data with CRC32C "));
        byte[] reject = PeerProtocol.request(PeerProtocol.REJECT, 42, 64, 0);
        assertEquals("accept private data: answers ECHO, but the request was REJECT",
                assertThrows(ProtocolException.class, () -> PeerProtocol.parseAccept(accept, reject)).getMessage());
    }

    @Test
    void commandMessagesRoundTripAndHaveOneSize() {
        ByteBuffer b = ByteBuffer.allocate(PeerProtocol.COMMAND_SIZE);
        PeerProtocol.command(b, PeerProtocol.SEND_BACK, 512, 1000);
        assertEquals(new PeerProtocol.Command(PeerProtocol.SEND_BACK, 512, 1000), PeerProtocol.parseCommand(b));
        assertEquals("command message of 23 bytes; the protocol's is 24", assertThrows(ProtocolException.class,
                () -> PeerProtocol.parseCommand(ByteBuffer.allocate(23))).getMessage());
        assertEquals("command message: magic 0x00000000 is not 0x6a444154", assertThrows(ProtocolException.class,
                () -> PeerProtocol.parseCommand(ByteBuffer.allocate(24))).getMessage());
    }

    @Test
    void namesOfCommandsAndOutcomes() {
        assertEquals("BYE", PeerProtocol.commandName(PeerProtocol.BYE));
        assertEquals("command 12", PeerProtocol.commandName(12));
        assertEquals("ended by the remote disconnect",
                PeerProtocol.outcomeName(PeerProtocol.OUTCOME_REMOTE_DISCONNECT));
    }
}
