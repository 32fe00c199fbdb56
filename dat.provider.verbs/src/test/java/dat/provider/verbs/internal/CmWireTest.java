// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatException;
import dat.api.DatReturn;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The connection wire format against OFA uDAPL 2.1.10's rdma_cm provider ({@code dapl/openib_cma/cm.c}). */
class CmWireTest {

    /** What a receiver gets: the sent bytes, zero-padded to the IB CM field (56 for a REQ, 196 for a REP). */
    private static byte[] field(byte[] sent, int fieldSize) {
        return Arrays.copyOf(sent, fieldSize);
    }

    private static byte[] sent(byte[] data, int field) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(256);
            out.fill((byte) 0x5A);
            int length = CmWire.encode(data, field, out);
            assertEquals(field, length, "jDAT sends the whole field");
            return out.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private static byte[] pattern(int n, int first) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (first + i);
        }
        return b;
    }

    @Test
    void qualifiersMapToPortsAsUdaplSidToPort() {
        assertEquals(1, CmWire.port(1));
        assertEquals(45248, CmWire.port(45248), "dtest's SERVER_CONN_QUAL is its own port");
        assertEquals(0xFFFF, CmWire.port(0xFFFF));
        // SID_TO_PORT: (SID % 32001) + (65535 - 32001) for a SID above 0xffff.
        assertEquals(65536 % 32001 + 33534, CmWire.port(65536));
        assertEquals(0x1234_5678L % 32001 + 33534, CmWire.port(0x1234_5678L));
        assertEquals(Long.remainderUnsigned(-1L, 32001) + 33534, CmWire.port(-1L), "a u64 qualifier");
        for (long q : new long[] {65536, 1L << 40, Long.MAX_VALUE, Long.MIN_VALUE, -1}) {
            int port = CmWire.port(q);
            assertTrue(port >= 33534 && port <= 65534, q + " -> " + port);
        }
    }

    @Test
    void theConsumerBytesStartTheFieldAsUdaplSendsThem() {
        byte[] dtest = pattern(48, 1);
        byte[] wire = sent(dtest, CmWire.REQ_FIELD);
        assertArrayEquals(dtest, Arrays.copyOf(wire, 48), "no length byte or header before the consumer's bytes");
        assertArrayEquals(new byte[4], Arrays.copyOfRange(wire, 48, 52), "zeros up to the trailer");
        assertArrayEquals(new byte[] {'j', 'D', 48, (byte) ~48}, Arrays.copyOfRange(wire, 52, 56));
        byte[] accept = sent(pattern(48, 2), CmWire.REP_FIELD);
        assertEquals(196, accept.length);
        assertArrayEquals(pattern(48, 2), Arrays.copyOf(accept, 48));
        assertArrayEquals(new byte[192 - 48], Arrays.copyOfRange(accept, 48, 192));
        assertArrayEquals(new byte[] {'j', 'D', 48, (byte) ~48}, Arrays.copyOfRange(accept, 192, 196),
                "an accept's trailer ends the REP's field");
    }

    @Test
    void aJdatReceiverGetsTheExactBytesBack() {
        for (int n = 0; n <= CmWire.MAX_PRIVATE_DATA; n++) {
            byte[] data = pattern(n, 200);
            byte[] accept = CmWire.decode(sent(data, CmWire.REP_FIELD));
            if (n == 0) {
                assertNull(accept);
            } else {
                assertArrayEquals(data, accept, "an accept of " + n + " bytes");
            }
            if (n <= CmWire.REQ_FIELD - CmWire.TRAILER) {
                byte[] request = CmWire.decode(sent(data, CmWire.REQ_FIELD));
                if (n == 0) {
                    assertNull(request);
                } else {
                    assertArrayEquals(data, request, "a request of " + n + " bytes");
                }
            }
        }
        byte[] zeros = new byte[20];
        assertArrayEquals(zeros, CmWire.decode(sent(zeros, CmWire.REQ_FIELD)), "zeros the consumer sent stay data");
    }

    @Test
    void theLargestAcceptArrivesExactly() {
        // The kit's required_ep_connect_privateDataLimitHonoured saw 196 bytes for an accept of 56 when the
        // trailer sat at 52 (no room): an accept's trailer now ends the REP's 196-byte field.
        byte[] max = pattern(CmWire.MAX_PRIVATE_DATA, 9);
        assertArrayEquals(max, CmWire.decode(sent(max, CmWire.REP_FIELD)));
        assertArrayEquals(max, CmWire.decode(sent(max, CmWire.REQ_FIELD)), "56 bytes fill a request's field");
    }

    @Test
    void aRequestWithoutRoomForTheTrailerArrivesWholeField() {
        for (int n = CmWire.REQ_FIELD - CmWire.TRAILER + 1; n <= CmWire.MAX_PRIVATE_DATA; n++) {
            byte[] data = pattern(n, 1);
            assertArrayEquals(field(data, 56), CmWire.decode(sent(data, CmWire.REQ_FIELD)), n + " bytes");
        }
        assertThrows(IllegalArgumentException.class, () -> sent(new byte[57], CmWire.REP_FIELD));
    }

    @Test
    void aUdaplSendersFieldIsReportedWholeAsUdaplReportsIt() {
        byte[] dtest = field(pattern(48, 2), 196);
        assertArrayEquals(dtest, CmWire.decode(dtest), "dtest's accept as a jDAT requester sees it");
        byte[] srq = field(new byte[] {0, 0, 0, 3}, 56);
        assertArrayEquals(srq, CmWire.decode(srq));
        assertArrayEquals(new byte[56], CmWire.decode(new byte[56]), "uDAPL without data: the zero field");
        assertArrayEquals(new byte[] {1, 2, 3}, CmWire.decode(new byte[] {1, 2, 3}), "iWARP delivers the length");
        assertNull(CmWire.decode(new byte[0]));
    }

    @Test
    void aTrailerLookalikeIsNotTakenForOne() {
        byte[] valid = sent(pattern(10, 1), CmWire.REP_FIELD);
        assertArrayEquals(pattern(10, 1), CmWire.decode(valid));
        byte[] badCheck = valid.clone();
        badCheck[195] ^= 1;
        assertArrayEquals(badCheck, CmWire.decode(badCheck), "the complement byte must match");
        byte[] dirtyGap = valid.clone();
        dirtyGap[100] = 1;
        assertArrayEquals(dirtyGap, CmWire.decode(dirtyGap), "bytes between the data and the trailer must be 0");
        byte[] tooLong = valid.clone();
        tooLong[194] = 57;
        tooLong[195] = (byte) ~57;
        assertArrayEquals(tooLong, CmWire.decode(tooLong), "more than max_private_data_size is no trailer");
        byte[] padded = Arrays.copyOf(valid, 200);
        assertArrayEquals(padded, CmWire.decode(padded), "a trailer not at the field's end is none");
        byte[] tiny = {'j', 'D', 1, (byte) ~1};
        assertArrayEquals(tiny, CmWire.decode(tiny), "no room for the byte it names");
        Random random = new Random(25);
        for (int i = 0; i < 10_000; i++) {
            byte[] noise = new byte[56];
            random.nextBytes(noise);
            assertArrayEquals(noise, CmWire.decode(noise), "random data is reported whole");
        }
    }

    @Test
    void rejectsCarryUdaplsHeader() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(4);
            assertEquals(4, CmWire.encodeReject(out));
            byte[] header = out.toArray(ValueLayout.JAVA_BYTE);
            assertArrayEquals(new byte[] {1, 2, 0, 0}, header, "DAT 1.2 in dapl_pdata_hdr's big-endian layout");
            assertTrue(CmWire.consumerReject(28, field(header, 148)));
        }
        // dapls_ib_reject_connection: htonl(2 << 24 | 0 << 16 | provider major << 8 | minor), then the data.
        assertTrue(CmWire.consumerReject(28, field(new byte[] {2, 0, 2, 1, 9, 9}, 148)), "uDAPL's reject");
        assertFalse(CmWire.consumerReject(28, new byte[148]), "no header: rdma_cm's or a failed accept's");
        assertFalse(CmWire.consumerReject(28, new byte[0]));
        assertFalse(CmWire.consumerReject(8, field(new byte[] {1, 2, 0, 0}, 148)), "not the consumer's reason");
    }

    @Test
    void anAcceptAnswersTheRequestsDepthsFromItsOwnSide() {
        // The connect-request event already reports the requester's initiator depth as responder_resources.
        assertEquals(2, CmWire.acceptResponderResources(4, 2));
        assertEquals(4, CmWire.acceptResponderResources(4, 16));
        assertEquals(0, CmWire.acceptInitiatorDepth(4, 0), "a requester that takes no reads gets none issued");
        assertEquals(3, CmWire.acceptInitiatorDepth(3, 8));
    }

    @Test
    void maxPrivateDataIsTheReqField() {
        assertEquals(56, VerbsCr.MAX_PRIVATE_DATA);
        VerbsCr.checkPrivateData("dat_ep_connect", new byte[56]);
        DatException e = assertThrows(DatException.class,
                () -> VerbsCr.checkPrivateData("dat_ep_connect", new byte[57]));
        assertSame(DatReturn.INVALID_PARAMETER, e.type());
    }
}
