// SPDX-License-Identifier: Apache-2.0
package dat.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
}
