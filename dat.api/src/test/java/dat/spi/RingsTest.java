// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RingsTest {

    @Test
    void aRingIsTheSmallestPowerOfTwoThatHoldsTheLimit() {
        for (int limit = 1; limit <= 5000; limit++) {
            int size = Rings.size(limit);
            assertEquals(0, size & (size - 1), "size " + size + " for " + limit + " is a power of two");
            assertTrue(size >= limit && (size == 1 || size / 2 < limit), "size " + size + " for limit " + limit);
        }
        assertEquals(Rings.MAX_SIZE, Rings.size(Rings.MAX_SIZE));
        assertEquals(Rings.MAX_SIZE, Rings.size((1 << 29) + 1));
    }

    @Test
    void aLimitNoRingCanHoldIsAProviderBug() {
        assertThrows(IllegalArgumentException.class, () -> Rings.size(0));
        assertThrows(IllegalArgumentException.class, () -> Rings.size(-1));
        assertThrows(IllegalArgumentException.class, () -> Rings.size(Rings.MAX_SIZE + 1));
    }
}
