// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal.rdm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The control messages' codec: the documented layout, and untrusted input that never throws. */
class RdmControlTest {

    private static final byte[] IA = new byte[16];

    static RdmControl sample(SplittableRandom r) {
        RdmControl.Type type = RdmControl.Type.values()[r.nextInt(RdmControl.Type.values().length)];
        byte[] ia = new byte[16];
        byte[] control = new byte[r.nextInt(RdmControl.MAX_ADDRESS + 1)];
        byte[] data = new byte[r.nextInt(RdmControl.MAX_ADDRESS + 1)];
        byte[] privateData = new byte[r.nextInt(RdmControl.MAX_PRIVATE_DATA + 1)];
        r.nextBytes(ia);
        r.nextBytes(control);
        r.nextBytes(data);
        r.nextBytes(privateData);
        return new RdmControl(type, r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt(), r.nextLong(), ia,
                              r.nextInt(), control, data, privateData);
    }

    static byte[] bytes(RdmControl m) {
        ByteBuffer b = ByteBuffer.allocate(m.size());
        m.encode(b);
        assertEquals(0, b.remaining(), "size() is what encode writes");
        return b.array();
    }

    @Test
    void everyMessageSurvivesTheWire() {
        SplittableRandom r = new SplittableRandom(0xda7a);
        for (int i = 0; i < 2_000; i++) {
            RdmControl m = sample(r);
            assertEquals(m, RdmControl.decode(ByteBuffer.wrap(bytes(m))), m.toString());
        }
    }

    @Test
    void theHeaderIsTheDocumentedLayoutInNetworkOrder() {
        byte[] ia = new byte[16];
        ia[15] = 7;
        RdmControl m = new RdmControl(RdmControl.Type.ACCEPT, 0x01020304, 0x05060708, 0x090a0b0c, 0x0d0e0f10,
                                      0x80000011,
                                      0x1112131415161718L, ia, 0x21222324, new byte[] {1, 2, 3}, new byte[] {4, 5},
                                      new byte[] {9});
        ByteBuffer b = ByteBuffer.wrap(bytes(m));
        assertEquals((short) 0xDA7A, b.getShort(0));
        assertEquals(3, b.get(2));
        assertEquals(2, b.get(3));
        assertEquals(0x01020304, b.getInt(4));
        assertEquals(0x05060708, b.getInt(8));
        assertEquals(0x090a0b0c, b.getInt(12));
        assertEquals(0x0d0e0f10, b.getInt(16));
        assertEquals(0x80000011, b.getInt(20));
        assertEquals(0x1112131415161718L, b.getLong(24));
        assertEquals(7, b.get(47));
        assertEquals(0x21222324, b.getInt(48));
        assertEquals(3, b.getShort(52));
        assertEquals(2, b.getShort(54));
        assertEquals(1, b.getShort(56));
        assertEquals(0, b.getShort(58));
        assertEquals(1, b.get(60));
        assertEquals(4, b.get(63));
        assertEquals(9, b.get(65));
        assertEquals(66, b.capacity());
    }

    /** A CHECK's probe: its fields round-trip in network order, and bytes that are not one decode to nothing. */
    @Test
    void aProbeRoundTripsAndAMalformedOneIsDropped() {
        RdmProbe p = new RdmProbe(-2, 0x7fff_fffeL, 0x7f00_1234_5678L, 4096, true, RdmProbe.ASKED);
        byte[] bytes = p.encode();
        assertEquals(RdmProbe.SIZE, bytes.length);
        assertEquals(p, RdmProbe.decode(bytes));
        assertEquals(0x7fff_fffeL, ByteBuffer.wrap(bytes).getLong(8));
        assertEquals(RdmProbe.REFUSED, RdmProbe.decode(p.answer(false).encode()).verdict());
        assertEquals(RdmProbe.TAKEN, RdmProbe.decode(p.answer(true).encode()).verdict());
        assertNull(RdmProbe.decode(null), "none");
        assertNull(RdmProbe.decode(Arrays.copyOf(bytes, RdmProbe.SIZE - 1)), "short");
        assertNull(RdmProbe.decode(patch(bytes, 32, 2)), "direction 2");
        assertNull(RdmProbe.decode(patch(bytes, 33, 3)), "verdict 3");
    }

    @Test
    void aMessageOfTheWrongMagicVersionTypeOrLengthIsDropped() {
        byte[] good = bytes(new RdmControl(RdmControl.Type.REQUEST, 1, 2, 0, 0, 3, 4, IA, 0, new byte[4], new byte[2],
                                           new byte[8]));
        assertNull(RdmControl.decode(ByteBuffer.wrap(patch(good, 0, 0))), "magic");
        // Version 1 (sends completed at transmit, no delivery header) and 2 (sends without the receiver's credit,
        // the serial in the adverts' low half) do not interoperate: dropped too.
        assertNull(RdmControl.decode(ByteBuffer.wrap(patch(good, 2, 1))), "version 1");
        assertNull(RdmControl.decode(ByteBuffer.wrap(patch(good, 2, 2))), "version 2");
        assertNull(RdmControl.decode(ByteBuffer.wrap(patch(good, 2, 4))), "version 4");
        assertNull(RdmControl.decode(ByteBuffer.wrap(patch(good, 3, 0))), "type 0");
        assertNull(RdmControl.decode(ByteBuffer.wrap(patch(good, 3, 13))), "type 13");
        assertNull(RdmControl.decode(ByteBuffer.wrap(patch(good, 53, 5))), "address length beyond the message");
        assertNull(RdmControl.decode(ByteBuffer.wrap(patch(good, 57, 7))), "private length short of the message");
        assertNull(RdmControl.decode(ByteBuffer.wrap(patch(good, 59, 1))), "reserved bits set");
        assertNull(RdmControl.decode(ByteBuffer.wrap(Arrays.copyOf(good, good.length - 1))), "truncated");
        assertNull(RdmControl.decode(ByteBuffer.wrap(Arrays.copyOf(good, good.length + 1))), "trailing");
        assertNull(RdmControl.decode(ByteBuffer.allocate(RdmControl.MAX_SIZE + 1)), "oversized");
        byte[] longAddress = patch(patch(good, 54, 0x7f), 55, 0xff);
        assertNull(RdmControl.decode(ByteBuffer.wrap(longAddress)), "address length above the bound");
    }

    @Test
    void randomBytesNeverThrow() {
        SplittableRandom r = new SplittableRandom(17);
        byte[] good = bytes(sample(r));
        for (int i = 0; i < 20_000; i++) {
            byte[] noise = r.nextBoolean() ? new byte[r.nextInt(RdmControl.MAX_SIZE + 8)] : good.clone();
            if (noise.length > 0) {
                for (int k = r.nextInt(1, 4); k > 0; k--) {
                    noise[r.nextInt(noise.length)] = (byte) r.nextInt();
                }
            }
            RdmControl.decode(ByteBuffer.wrap(noise, 0, r.nextInt(noise.length + 1)));
        }
    }

    @Test
    void aMessageCannotBeChangedThroughItsArrays() {
        byte[] pd = {1, 2, 3};
        RdmControl m = new RdmControl(RdmControl.Type.ACCEPT, 1, 2, 3, 4, 5, 6, IA, 0, null, null, pd);
        pd[0] = 9;
        m.privateData()[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, m.privateData());
    }

    @Test
    void lengthsBeyondTheWireFormatAreRefusedWhenBuilt() {
        assertThrows(IllegalArgumentException.class, () -> new RdmControl(RdmControl.Type.REQUEST, 0, 0, 0, 0, 0,
            0, IA, 0, null, null, new byte[RdmControl.MAX_PRIVATE_DATA + 1]));
        assertThrows(IllegalArgumentException.class, () -> new RdmControl(RdmControl.Type.REQUEST, 0, 0, 0, 0, 0,
            0, IA, 0, null, new byte[RdmControl.MAX_ADDRESS + 1], null));
        assertThrows(IllegalArgumentException.class, () -> new RdmControl(RdmControl.Type.REQUEST, 0, 0, 0, 0, 0, 0,
            new byte[4], 0, null, null, null));
    }

    @Test
    void tagsKeepKindTargetAndSerialApart() {
        long ep = RdmTags.data(RdmTags.epTarget(5), -2);
        assertEquals(5, RdmTags.id(ep));
        assertEquals(-2, RdmTags.serial(ep));
        assertEquals(false, RdmTags.isControl(ep));
        long last = RdmTags.data(RdmTags.epTarget(RdmTags.MAX_ID), 1);
        assertEquals(RdmTags.MAX_ID, RdmTags.id(last));
        assertEquals(false, RdmTags.isControl(last), "the largest id stays out of the kind bits");
        assertEquals(true, RdmTags.isControl(RdmTags.CONTROL));
        assertThrows(IllegalArgumentException.class, () -> RdmTags.epTarget(0));
        assertThrows(IllegalArgumentException.class, () -> RdmTags.epTarget(RdmTags.MAX_ID + 1));
    }

    @Test
    void serialsSkipZeroAndWrap() {
        RdmSerials s = new RdmSerials(-1);
        assertEquals(-1, s.next());
        assertEquals(1, s.next());
    }

    private static byte[] patch(byte[] b, int at, int value) {
        byte[] c = b.clone();
        c[at] = (byte) value;
        return c;
    }
}
