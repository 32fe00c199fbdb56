// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEvent;
import dat.api.DatException;
import dat.api.DatLmr;
import dat.api.DatMemPriv;
import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * D6: memory a transfer cannot touch is refused at {@code dat_lmr_create}, as an HCA's registration refuses it, with
 * the code the verbs provider gives for a failed {@code ibv_reg_mr} ({@code DAT_INSUFFICIENT_RESOURCES}); the JVM
 * lives on. Before, an LMR over an unmapped range was accepted and the first message into it killed the JVM.
 */
// The test maps and unmaps pages itself; the module has native access in its surefire configuration.
@SuppressWarnings("restricted")
class LoopbackUnmappedMemoryTest {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MMAP = LINKER.downcallHandle(LINKER.defaultLookup().find("mmap").orElseThrow(),
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = LINKER.downcallHandle(LINKER.defaultLookup().find("munmap")
            .orElseThrow(), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final int PROT_NONE = 0;
    private static final int PROT_READ = 1;
    private static final int PROT_WRITE = 2;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final long PAGE = LibC.PAGE_SIZE;

    private Loop a;
    private Loop b;

    @BeforeEach
    void open() {
        a = new Loop("unmapped0");
        b = new Loop("unmapped1");
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private static MemorySegment map(long length, int prot) throws Throwable {
        MemorySegment m = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, length, prot,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
        assertTrue(m.address() != -1L, "mmap failed");
        return m.reinterpret(length);
    }

    private static void unmap(MemorySegment m, long offset, long length) throws Throwable {
        assertEquals(0, (int) MUNMAP.invokeExact(m.asSlice(offset), length), "munmap");
    }

    private DatException refused(MemorySegment region, int privileges) {
        DatException e = assertThrows(DatException.class, () -> a.ia.createLmr(a.pz, region, privileges),
                "dat_lmr_create of memory a transfer cannot touch");
        assertEquals(DatReturn.INSUFFICIENT_RESOURCES, e.type(), e::getMessage);
        assertEquals(DatReturnSubtype.RESOURCE_MEMORY, e.subtype(), e::getMessage);
        assertTrue(e.getMessage().contains("region_description"), e.getMessage());
        return e;
    }

    /** The JVM still works: a message from one registered region into another arrives. */
    private void aMessageStillArrives() {
        DatEp client = a.ep();
        DatEp server = b.ep();
        a.connect(client, b, server);
        DatLmr src = a.lmr(64);
        DatLmr dst = b.lmr(64);
        Loop.fill(src, 7);
        assertEquals(DatReturn.DAT_SUCCESS, server.postRecv(1, b.iov(1).set(0, dst, 0, 64), 1, 0));
        assertEquals(DatReturn.DAT_SUCCESS, client.postSend(1, a.iov(1).set(0, src, 0, 64), 2, 0));
        DatEvent e = new DatEvent();
        assertEquals(DatReturn.DAT_SUCCESS, b.recvEvd.dequeue(e));
        assertEquals(DatDtoStatus.SUCCESS, e.dtoStatus());
        assertEquals(src.segment().get(ValueLayout.JAVA_BYTE, 63), dst.segment().get(ValueLayout.JAVA_BYTE, 63));
    }

    @Test
    void anUnmappedRangeIsRefused() throws Throwable {
        MemorySegment m = map(2 * PAGE, PROT_READ | PROT_WRITE);
        unmap(m, 0, 2 * PAGE);
        for (int privileges : new int[] {DatMemPriv.LOCAL_READ, DatMemPriv.ALL}) {
            DatException e = refused(m, privileges);
            assertTrue(e.getMessage().contains("no mapping"), e.getMessage());
        }
        aMessageStillArrives();
    }

    @Test
    void aRangeWhoseSecondPageIsUnmappedIsRefused() throws Throwable {
        MemorySegment m = map(2 * PAGE, PROT_READ | PROT_WRITE);
        unmap(m, PAGE, PAGE);
        try {
            refused(m.asSlice(PAGE / 2, PAGE), DatMemPriv.LOCAL_READ);
            a.ia.createLmr(a.pz, m.asSlice(0, PAGE), DatMemPriv.ALL).close();
        } finally {
            unmap(m, 0, PAGE);
        }
        aMessageStillArrives();
    }

    @Test
    void aReadOnlyMappingIsRefusedForWritesAndAcceptedForReads() throws Throwable {
        MemorySegment m = map(PAGE, PROT_READ);
        try {
            for (int privileges : new int[] {DatMemPriv.LOCAL_WRITE, DatMemPriv.REMOTE_WRITE,
                DatMemPriv.LOCAL_READ | DatMemPriv.REMOTE_WRITE}) {
                DatException e = refused(m, privileges);
                assertTrue(e.getMessage().contains("cannot be written"), e.getMessage());
            }
            a.ia.createLmr(a.pz, m, DatMemPriv.LOCAL_READ | DatMemPriv.REMOTE_READ).close();
        } finally {
            unmap(m, 0, PAGE);
        }
        aMessageStillArrives();
    }

    @Test
    void aProtNoneMappingIsRefused() throws Throwable {
        MemorySegment m = map(PAGE, PROT_NONE);
        try {
            DatException e = refused(m, DatMemPriv.LOCAL_READ);
            assertTrue(e.getMessage().contains("cannot be read"), e.getMessage());
        } finally {
            unmap(m, 0, PAGE);
        }
        aMessageStillArrives();
    }

    /** The path a JVM without native access for the module takes: the same answers from /proc/self/maps. */
    @Test
    void theMapFileGivesTheSameAnswers() throws Throwable {
        MemorySegment rw = map(2 * PAGE, PROT_READ | PROT_WRITE);
        MemorySegment ro = map(PAGE, PROT_READ);
        try {
            assertNull(Pages.inaccessibleByMaps(rw.address() + 1, 2 * PAGE - 1, true));
            assertTrue(Pages.inaccessibleByMaps(ro.address(), PAGE, true).contains("cannot be written"));
            assertNull(Pages.inaccessibleByMaps(ro.address(), PAGE, false));
            unmap(rw, PAGE, PAGE);
            assertTrue(Pages.inaccessibleByMaps(rw.address(), 2 * PAGE, false).contains("no mapping"));
            assertNull(Pages.inaccessibleByMaps(rw.address(), PAGE, true));
        } finally {
            unmap(rw, 0, PAGE);
            unmap(ro, 0, PAGE);
        }
        assertTrue(Pages.inaccessibleByMaps(rw.address(), PAGE, false).contains("no mapping"));
    }

    @Test
    void theMapFileParserFollowsAdjacentMappingsAndStopsAtHoles() {
        String maps = """
                1000-2000 rw-p 00000000 00:00 0
                2000-3000 r--p 00000000 00:00 0 /lib/x.so
                3000-5000 rw-s 00000000 00:00 0
                6000-7000 rw-p 00000000 00:00 0 [heap]
                """;
        assertNull(Pages.inaccessible(0x1800, 0x2000, false, maps), "three adjacent readable mappings");
        assertTrue(Pages.inaccessible(0x1800, 0x2000, true, maps).contains("cannot be written"));
        assertNull(Pages.inaccessible(0x3000, 0x2000, true, maps));
        assertTrue(Pages.inaccessible(0x4000, 0x2001, false, maps).contains("no mapping (none in /proc/self/maps at"
                + " 0x5000)"));
        assertTrue(Pages.inaccessible(0x800, 0x100, false, maps).contains("no mapping"));
        assertTrue(Pages.inaccessible(0x7000, 1, false, maps).contains("no mapping"));
        assertNull(Pages.inaccessible(0x6fff, 1, true, maps));
    }
}
