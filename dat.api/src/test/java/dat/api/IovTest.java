// SPDX-License-Identifier: Apache-2.0
package dat.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class IovTest {

    @Test
    void layoutIsThatOfDatLmrTriplet() {
        assertEquals(24, Iov.TRIPLET_LAYOUT.byteSize());
        assertEquals(Iov.LMR_CONTEXT_OFFSET, Iov.TRIPLET_LAYOUT.byteOffset(PathElement.groupElement("lmr_context")));
        assertEquals(Iov.VIRTUAL_ADDRESS_OFFSET,
                Iov.TRIPLET_LAYOUT.byteOffset(PathElement.groupElement("virtual_address")));
        assertEquals(Iov.SEGMENT_LENGTH_OFFSET,
                Iov.TRIPLET_LAYOUT.byteOffset(PathElement.groupElement("segment_length")));
    }

    @Test
    void setWritesTheCLayoutAndReadsBack() {
        try (Arena arena = Arena.ofConfined()) {
            Iov iov = Iov.allocate(arena, 3);
            assertSame(iov, iov.set(1, 0xCAFEBABE, 0x7000_0000_1000L, 4096));
            MemorySegment raw = iov.segment();
            assertEquals(0xCAFEBABE, raw.get(ValueLayout.JAVA_INT, 24));
            assertEquals(0, raw.get(ValueLayout.JAVA_INT, 28));
            assertEquals(0x7000_0000_1000L, raw.get(ValueLayout.JAVA_LONG, 32));
            assertEquals(4096, raw.get(ValueLayout.JAVA_LONG, 40));
            assertEquals(0xCAFEBABE, iov.lmrContext(1));
            assertEquals(0x7000_0000_1000L, iov.virtualAddress(1));
            assertEquals(4096, iov.segmentLength(1));
            assertEquals(3, iov.capacity());
        }
    }

    @Test
    void setFromLmrUsesItsContextAndAddress() {
        DatLmr lmr = mock(DatLmr.class);
        when(lmr.lmrContext()).thenReturn(77);
        when(lmr.address()).thenReturn(0x10_0000L);
        try (Arena arena = Arena.ofConfined()) {
            Iov iov = Iov.allocate(arena, 1).set(0, lmr, 256, 512);
            assertEquals(77, iov.lmrContext(0));
            assertEquals(0x10_0100L, iov.virtualAddress(0));
            assertEquals(512, iov.segmentLength(0));
        }
    }

    @Test
    void totalLengthAddsTheFirstCountSegments() {
        try (Arena arena = Arena.ofConfined()) {
            Iov iov = Iov.allocate(arena, 3).set(0, 1, 0, 10).set(1, 1, 0, 20).set(2, 1, 0, 40);
            assertEquals(0, iov.totalLength(0));
            assertEquals(30, iov.totalLength(2));
            assertEquals(70, iov.totalLength(3));
            assertThrows(IndexOutOfBoundsException.class, () -> iov.totalLength(4));
        }
    }

    @Test
    void indexOutsideTheVectorIsRejected() {
        try (Arena arena = Arena.ofConfined()) {
            Iov iov = Iov.allocate(arena, 2);
            assertThrows(IndexOutOfBoundsException.class, () -> iov.set(2, 0, 0, 0));
            assertThrows(IndexOutOfBoundsException.class, () -> iov.lmrContext(-1));
        }
    }

    @Test
    void allocateAndWrapValidateTheirArguments() {
        try (Arena arena = Arena.ofConfined()) {
            DatException zero = assertThrows(DatException.class, () -> Iov.allocate(arena, 0));
            assertSame(DatReturn.INVALID_PARAMETER, zero.type());
            DatException odd = assertThrows(DatException.class, () -> Iov.wrap(arena.allocate(30, 8)));
            assertSame(DatReturn.INVALID_PARAMETER, odd.type());
            DatException heap = assertThrows(DatException.class,
                    () -> Iov.wrap(MemorySegment.ofArray(new long[6])));
            assertSame(DatReturn.INVALID_PARAMETER, heap.type());
            assertEquals(2, Iov.wrap(arena.allocate(48, 8)).capacity());
        }
    }

    @Test
    void readGivesTheWholeTripletAtTheGivenPlace() {
        try (Arena arena = Arena.ofConfined()) {
            Iov iov = Iov.allocate(arena, 2).set(0, 5, 6, 7).set(1, 0xCAFEBABE, 0x7000_0000_1000L, 4096);
            long[] into = {-1, -1, -1, -1, -1};
            iov.read(1, into, 1);
            assertArrayEquals(new long[] {-1, 0xCAFEBABE, 0x7000_0000_1000L, 4096, -1}, into);
            assertEquals(0xCAFEBABE, (int) into[1], "the context comes back by a cast");
            iov.read(0, into, 2);
            assertArrayEquals(new long[] {-1, 0xCAFEBABE, 5, 6, 7}, into);
        }
    }

    /** C code may leave the pad after lmr_context dirty: it is no part of the context. */
    @Test
    void readIgnoresThePad() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment raw = arena.allocate(Iov.TRIPLET_LAYOUT);
            raw.set(ValueLayout.JAVA_INT, 0, 42);
            raw.set(ValueLayout.JAVA_INT, 4, 0xFFFF_FFFF);
            raw.set(ValueLayout.JAVA_LONG, 8, 1000);
            raw.set(ValueLayout.JAVA_LONG, 16, 24);
            Iov iov = Iov.wrap(raw);
            long[] into = new long[3];
            iov.read(0, into, 0);
            assertArrayEquals(new long[] {42, 1000, 24}, into);
            assertEquals(42, iov.lmrContext(0));
        }
    }

    @Test
    void readRejectsAnIndexOutsideTheVectorOrAnArrayWithoutRoom() {
        try (Arena arena = Arena.ofConfined()) {
            Iov iov = Iov.allocate(arena, 2).set(1, 9, 8, 7);
            long[] into = new long[4];
            assertThrows(IndexOutOfBoundsException.class, () -> iov.read(2, into, 0));
            assertThrows(IndexOutOfBoundsException.class, () -> iov.read(-1, into, 0));
            assertThrows(IndexOutOfBoundsException.class, () -> iov.read(1, into, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> iov.read(1, into, -1));
            assertThrows(IndexOutOfBoundsException.class, () -> iov.read(1, new long[2], 0));
            assertThrows(NullPointerException.class, () -> iov.read(1, null, 0));
            assertArrayEquals(new long[4], into, "nothing written by a refused read");
        }
    }

    /** The memory's own rules hold as for the getters: a closed arena, or a confined one read from another thread. */
    @Test
    void readOfDeadOrForeignMemoryThrowsAndWritesNothing() throws Exception {
        long[] into = new long[3];
        final Iov iov;
        try (Arena confined = Arena.ofConfined()) {
            iov = Iov.allocate(confined, 1).set(0, 1, 2, 3);
            Throwable[] seen = new Throwable[1];
            Thread other = Thread.ofPlatform().start(() -> {
                try {
                    iov.read(0, into, 0);
                } catch (Throwable t) {
                    seen[0] = t;
                }
            });
            other.join();
            assertInstanceOf(WrongThreadException.class, seen[0]);
        }
        assertThrows(IllegalStateException.class, () -> iov.read(0, into, 0));
        assertArrayEquals(new long[3], into);
    }
}
