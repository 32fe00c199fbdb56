// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCloseFlags;
import dat.api.DatIa;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * IA names hold a loopback address only while an IA of that name is open. (Regression: addresses were never
 * given back; after 64,516 distinct names every open failed with "no loopback address left" for the rest of the
 * JVM's life.)
 */
class LoopbackIaNamesTest {

    @Test
    void closedNamesGiveTheirAddressBack() {
        LoopbackProvider provider = new LoopbackProvider();
        for (int i = 0; i < 70_000; i++) {
            provider.open("names-" + i, "", 1).close(DatCloseFlags.ABRUPT);
        }
        DatIa last = provider.open("names-after", "", 1);
        assertTrue(LoopbackFabric.INSTANCE.isKnown(last.address()));
        last.close(DatCloseFlags.ABRUPT);
        assertFalse(LoopbackFabric.INSTANCE.isKnown(last.address()), "no IA of the name is open");
    }

    @Test
    void opensOfOneNameShareItsAddressUntilTheLastCloses() {
        LoopbackProvider provider = new LoopbackProvider();
        DatIa one = provider.open("shared-name", "", 1);
        DatIa two = provider.open("shared-name", "", 1);
        DatIa other = provider.open("other-name", "", 1);
        InetAddress address = one.address();
        assertEquals(address, two.address());
        assertNotEquals(address, other.address());
        one.close(DatCloseFlags.ABRUPT);
        assertTrue(LoopbackFabric.INSTANCE.isKnown(address), "the second IA of the name is still open");
        one.close(DatCloseFlags.ABRUPT);
        assertTrue(LoopbackFabric.INSTANCE.isKnown(address), "closing twice releases once");
        two.close(DatCloseFlags.ABRUPT);
        assertFalse(LoopbackFabric.INSTANCE.isKnown(address));
        other.close(DatCloseFlags.ABRUPT);
    }
}
