// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatException;
import dat.api.DatIaAttr;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Dead and confined memory is refused at dat_lmr_create, by every provider (they share DatArgs.lmrCreate). */
class DatMemoryTest {

    private static final DatIaAttr IA = DatIaAttr.builder().maxLmrBlockSize(1 << 20).build();

    @Test
    void arenasAreAliveOrNotSharedOrNot() {
        MemorySegment dead;
        try (Arena arena = Arena.ofShared()) {
            dead = arena.allocate(64);
            assertTrue(DatMemory.alive(dead));
            assertTrue(DatMemory.shared(dead));
        }
        assertFalse(DatMemory.alive(dead));
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment mine = confined.allocate(64);
            assertTrue(DatMemory.alive(mine));
            assertFalse(DatMemory.shared(mine), "a confined arena is one thread's");
        }
        assertTrue(DatMemory.shared(Arena.ofAuto().allocate(8)));
        assertTrue(DatMemory.shared(Arena.global().allocate(8)));
    }

    @Test
    void deadOrConfinedMemoryIsNotRegistered() {
        // Regression: dat_lmr_create over a closed arena's segment succeeded, and a send from it broke the connection.
        MemorySegment dead;
        try (Arena arena = Arena.ofShared()) {
            dead = arena.allocate(4096);
        }
        DatException e = assertThrows(DatException.class, () -> DatArgs.lmrCreate(IA, dead, DatMemPriv.ALL));
        assertSame(DatReturn.INVALID_PARAMETER, e.type());
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        try (Arena confined = Arena.ofConfined()) {
            MemorySegment mine = confined.allocate(4096);
            DatException c = assertThrows(DatException.class, () -> DatArgs.lmrCreate(IA, mine, DatMemPriv.ALL));
            assertSame(DatReturn.INVALID_PARAMETER, c.type());
            assertTrue(c.getMessage().contains("confined"), c.getMessage());
        }
    }
}
