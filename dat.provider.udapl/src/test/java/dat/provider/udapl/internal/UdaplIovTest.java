// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dat.api.DatReturn;
import dat.api.Iov;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** DAT 1.2 IOVs into DAT 2.0 triplets: layout, the 32-bit length limit, dead memory, bounds. */
class UdaplIovTest {

    @Test
    void eachEntryBecomesADat20Triplet() {
        try (Arena arena = Arena.ofConfined()) {
            UdaplIov scratch = new UdaplIov(arena, 2);
            Iov iov = Iov.allocate(arena, 2).set(0, 0x11, 0x7000_0000_1000L, 64).set(1, 0x22, 0x2000L,
                    UdaplIov.MAX_SEGMENT);
            assertEquals(DatReturn.DAT_SUCCESS, scratch.fill(iov, 2));
            MemorySegment t = scratch.triplets();
            assertEquals(0x7000_0000_1000L, t.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(64, t.get(ValueLayout.JAVA_INT, 8));
            assertEquals(0x11, t.get(ValueLayout.JAVA_INT, 12));
            assertEquals(0x2000L, t.get(ValueLayout.JAVA_LONG, 16));
            assertEquals(-1, t.get(ValueLayout.JAVA_INT, 24), "0xFFFFFFFF, DAT 2.0's largest segment");
            assertEquals(0x22, t.get(ValueLayout.JAVA_INT, 28));
        }
    }

    @Test
    void aSegmentLongerThanDat20CarriesIsRefusedNotCut() {
        try (Arena arena = Arena.ofConfined()) {
            UdaplIov scratch = new UdaplIov(arena, 1);
            Iov iov = Iov.allocate(arena, 1).set(0, 1, 0x1000L, UdaplIov.MAX_SEGMENT + 1);
            assertEquals(DatReturn.DAT_INVALID_PARAMETER, scratch.fill(iov, 1));
        }
    }

    @Test
    void aCountBeyondTheScratchOrNegativeIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            UdaplIov scratch = new UdaplIov(arena, 1);
            Iov iov = Iov.allocate(arena, 2).set(0, 1, 0x1000L, 8).set(1, 1, 0x1000L, 8);
            assertEquals(DatReturn.DAT_INVALID_PARAMETER, scratch.fill(iov, 2));
            assertEquals(DatReturn.DAT_INVALID_PARAMETER, scratch.fill(iov, -1));
        }
    }

    @Test
    void anIovWhoseMemoryIsClosedIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            UdaplIov scratch = new UdaplIov(arena, 1);
            Iov iov;
            try (Arena dead = Arena.ofConfined()) {
                iov = Iov.allocate(dead, 1).set(0, 1, 0x1000L, 8);
            }
            assertEquals(DatReturn.DAT_INVALID_PARAMETER, scratch.fill(iov, 1));
        }
    }
}
