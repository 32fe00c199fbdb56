// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dat.api.DatMemPriv;
import org.junit.jupiter.api.Test;

/**
 * The buffers every benchmark moves data between sit at the same offset within a page, whatever the allocator does:
 * a copy between two buffers 64 bytes apart modulo 4 KiB runs a quarter slower (4K aliasing), and with cache-line
 * alignment that distance changed from one JMH fork to the next, so one series spread from 28 to 53 GB/s.
 */
class BenchSessionTest {

    @Test
    void buffersArePageAlignedSoEveryForkCopiesAtTheSameDistance() {
        try (BenchSession session = BenchSession.open()) {
            for (long size : new long[] {64, 4096, 65536, 262144, 1 << 20}) {
                long a = session.buffer(size, DatMemPriv.LOCAL_READ | DatMemPriv.LOCAL_WRITE).memory().address();
                long b = session.buffer(size, DatMemPriv.ALL).memory().address();
                assertEquals(0, a % BenchSession.PAGE, size + " B: source at " + Long.toHexString(a));
                assertEquals(0, b % BenchSession.PAGE, size + " B: destination at " + Long.toHexString(b));
            }
        }
    }
}
