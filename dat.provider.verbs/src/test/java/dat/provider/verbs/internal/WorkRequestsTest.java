// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dat.api.DatDtoStatus;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Iov;
import dat.provider.verbs.internal.ffm.IbvSge;
import dat.provider.verbs.internal.ffm.LibIbverbs;
import dat.spi.IbWcStatus;
import dat.spi.IntTable;
import dat.spi.LmrTriplet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The provider's pure logic: work request ids, the int table, private-data framing, completion statuses. */
class WorkRequestsTest {

    @Test
    void aWindowKeyPredictedAtBindTimeCountsItsLowByteAsIbvIncRkeyDoes() {
        assertEquals(0x1234_5679, VerbsRmr.nextKey(0x1234_5678));
        assertEquals(0x1234_5600, VerbsRmr.nextKey(0x1234_56FF), "the low byte wraps, the index stays");
        assertEquals(0xFFFF_FF00, VerbsRmr.nextKey(0xFFFF_FFFF), "no carry into the index, even at the top");
        int key = 0x0000_0300;
        for (int k = 0; k < 256; k++) {
            key = VerbsRmr.nextKey(key);
        }
        assertEquals(0x0000_0300, key, "256 binds bring the key round");
    }

    @Test
    void workRequestIdsCarryKindOwnerAndSequence() {
        long id = WorkRequests.id(WorkRequests.SRQ, 0xABCDEF, 0x1_2345_6789L);
        assertEquals(WorkRequests.SRQ, WorkRequests.kind(id));
        assertEquals(0xABCDEF, WorkRequests.owner(id));
        assertEquals(0x2345_6789, WorkRequests.sequence(id), "the sequence wraps at 32 bits");
        long send = WorkRequests.id(WorkRequests.SEND, 1, 0);
        assertNotEquals(0, send, "a wr_id is never 0, which means no token");
        assertEquals(WorkRequests.SEND, WorkRequests.kind(send));
        assertEquals(WorkRequests.RECV, WorkRequests.kind(WorkRequests.id(WorkRequests.RECV, 0xFF_FFFF, -1)));
        assertEquals(0xFF_FFFF, WorkRequests.owner(WorkRequests.id(WorkRequests.RECV, -1, 7)),
                "owners are 24-bit QP numbers");
    }

    @Test
    void aReadsScatterListIsCutToTheRemoteLength() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sges = arena.allocate(IbvSge.SIZE * 3);
            int[] lengths = {30, 100, 50};
            for (int i = 0; i < lengths.length; i++) {
                IbvSge.length(sges, i, lengths[i]);
            }
            assertEquals(2, WorkRequests.trim(sges, 3, 100), "30 + 70 of the 100-byte segment");
            assertEquals(30, IbvSge.length(sges, 0));
            assertEquals(70, IbvSge.length(sges, 1));
            assertEquals(50, IbvSge.length(sges, 2), "not offered, not cut");
            assertEquals(1, WorkRequests.trim(sges, 3, 30), "an exact first segment");
            assertEquals(0, WorkRequests.trim(sges, 3, 0), "a read of nothing offers no segment");
            IbvSge.length(sges, 0, 30);
            IbvSge.length(sges, 1, 100);
            assertEquals(3, WorkRequests.trim(sges, 3, 180), "the whole list");
            assertEquals(50, IbvSge.length(sges, 2));
        }
    }

    @Test
    void anIovInDeadOrForeignMemoryIsAMalformedArgument() throws Exception {
        // Regression: the post threw IllegalStateException / WrongThreadException out of the data path.
        MemorySegment sges = Arena.ofAuto().allocate(IbvSge.SIZE * 2);
        Iov dead;
        try (Arena arena = Arena.ofShared()) {
            dead = Iov.allocate(arena, 2).set(0, 1, 0x1000, 8);
        }
        assertEquals(DatReturn.DAT_INVALID_PARAMETER,
                WorkRequests.load(null, null, 1, dead, 0, sges, new LmrTriplet()));
        try (Arena confined = Arena.ofConfined()) {
            Iov mine = Iov.allocate(confined, 2).set(0, 1, 0x1000, 8);
            assertEquals(DatReturn.DAT_INVALID_PARAMETER, CompletableFuture.supplyAsync(
                    () -> WorkRequests.load(null, null, 1, mine, 0, sges, new LmrTriplet())).get(30, TimeUnit.SECONDS)
                    .longValue(), "a load of another thread's IOV, on a pool thread (bounded: fails, never hangs)");
        }
    }

    @Test
    void intTableStoresReplacesAndRemoves() {
        IntTable<String> table = new IntTable<>();
        for (int k = 1; k <= 1000; k++) {
            table.put(k * 0x100, "v" + k);
        }
        for (int k = 1; k <= 1000; k++) {
            assertEquals("v" + k, table.get(k * 0x100));
        }
        table.put(0x100, "again");
        assertEquals("again", table.get(0x100));
        table.remove(0x200);
        assertNull(table.get(0x200));
        assertEquals("v3", table.get(0x300), "removing one key keeps its neighbours reachable");
        assertNull(table.get(0), "0 is never stored");
        assertNull(table.get(12345));
        assertThrows(IllegalArgumentException.class, () -> table.put(0, "x"));
    }

    @Test
    void workCompletionStatusesMapToDatStatuses() {
        assertSame(DatDtoStatus.SUCCESS, IbWcStatus.toDat(LibIbverbs.IBV_WC_SUCCESS, false));
        assertSame(DatDtoStatus.FLUSHED, IbWcStatus.toDat(LibIbverbs.IBV_WC_WR_FLUSH_ERR, false));
        assertSame(DatDtoStatus.LOCAL_LENGTH_ERR, IbWcStatus.toDat(LibIbverbs.IBV_WC_LOC_LEN_ERR, false));
        assertSame(DatDtoStatus.LOCAL_PROTECTION_ERR, IbWcStatus.toDat(LibIbverbs.IBV_WC_LOC_PROT_ERR, false));
        assertSame(DatDtoStatus.REMOTE_ACCESS_ERR, IbWcStatus.toDat(LibIbverbs.IBV_WC_REM_ACCESS_ERR, false));
        assertSame(DatDtoStatus.RECEIVER_NOT_READY, IbWcStatus.toDat(LibIbverbs.IBV_WC_RNR_RETRY_EXC_ERR, false));
        assertSame(DatDtoStatus.TRANSPORT_ERR, IbWcStatus.toDat(LibIbverbs.IBV_WC_RETRY_EXC_ERR, false));
        assertSame(DatDtoStatus.REMOTE_RESPONDER_ERR, IbWcStatus.toDat(LibIbverbs.IBV_WC_REM_OP_ERR, false));
        // rxe reports a receive too short for its message as a malformed work request.
        assertSame(DatDtoStatus.LOCAL_LENGTH_ERR, IbWcStatus.toDat(LibIbverbs.IBV_WC_LOC_QP_OP_ERR, true));
        assertSame(DatDtoStatus.LOCAL_EP_ERR, IbWcStatus.toDat(LibIbverbs.IBV_WC_LOC_QP_OP_ERR, false));
    }

    @Test
    void everyQualifierButZeroMapsToAPort() {
        for (long good : new long[] {1, 65535, 65536, -1, Long.MAX_VALUE}) {
            VerbsPsp.checkQualifier("dat_psp_create", good);
        }
        DatException e = assertThrows(DatException.class, () -> VerbsPsp.checkQualifier("dat_psp_create", 0));
        assertSame(DatReturn.INVALID_PARAMETER, e.type());
    }
}
