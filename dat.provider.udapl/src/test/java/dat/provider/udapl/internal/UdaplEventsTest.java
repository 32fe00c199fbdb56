// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static dat.provider.udapl.internal.ffm.CStruct.offset;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatCr;
import dat.api.DatDtoStatus;
import dat.api.DatEp;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatHandle;
import dat.api.DatRmr;
import dat.provider.udapl.internal.ffm.DatStructs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The DAT 2.0 to DAT 1.2 event translation, over hand-written {@code DAT_EVENT}s: no device, no libdat2. */
class UdaplEventsTest {

    private static final long DATA = offset(DatStructs.DAT_EVENT, "event_data");
    private static final long EP_C = 0x1000;
    private static final long RMR_C = 0x2000;
    private static final long PSP_C = 0x3000;
    private static final long CR_C = 0x4000;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment e = arena.allocate(DatStructs.DAT_EVENT);
    private final DatEvd evd = fake(DatEvd.class);
    private final DatEp ep = fake(DatEp.class);
    private final DatRmr rmr = fake(DatRmr.class);
    private final DatHandle psp = fake(DatHandle.class);
    private final DatCr cr = fake(DatCr.class);
    private final DatEvent out = new DatEvent();
    private final UdaplEvents.Refusal refusal = new UdaplEvents.Refusal();

    private final UdaplEvents.Handles handles = new UdaplEvents.Handles() {
        @Override
        public DatEp ep(long c) {
            return c == EP_C ? ep : null;
        }

        @Override
        public DatRmr rmr(long c) {
            return c == RMR_C ? rmr : null;
        }

        @Override
        public DatHandle sp(long c) {
            return c == PSP_C ? psp : null;
        }

        @Override
        public DatCr cr(long c, DatHandle sp) {
            return c == CR_C && sp == psp ? cr : null;
        }

        @Override
        public DatHandle any(long c) {
            return c == EP_C ? ep : null;
        }
    };

    @AfterEach
    void close() {
        arena.close();
    }

    private static <T> T fake(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (p, m, a) -> m.getName().equals("toString") ? type.getSimpleName() : null));
    }

    private void at(long off, long v) {
        e.set(ValueLayout.JAVA_LONG, DATA + off, v);
    }

    private void atInt(long off, int v) {
        e.set(ValueLayout.JAVA_INT, DATA + off, v);
    }

    private boolean translate(int number) {
        e.set(ValueLayout.JAVA_INT, offset(DatStructs.DAT_EVENT, "event_number"), number);
        return UdaplEvents.translate(e, evd, handles, out, refusal);
    }

    @Test
    void aDtoCompletionReadsTheThirtyTwoBitLengthUnsigned() {
        at(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "ep_handle"), EP_C);
        at(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "user_cookie"), 0xC0FFEEL);
        atInt(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "status"), 6);
        atInt(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "transfered_length"), 0xFFFFFFF0);
        assertTrue(translate(DatStructs.DAT_DTO_COMPLETION_EVENT), () -> refusal.reason());
        assertEquals(DatEventType.DTO_COMPLETION, out.type());
        assertSame(evd, out.evd());
        assertSame(ep, out.ep());
        assertEquals(0xC0FFEEL, out.userCookie());
        assertEquals(DatDtoStatus.REMOTE_ACCESS_ERR, out.dtoStatus());
        assertEquals(0xFFFFFFF0L, out.transferredLength());
        assertNull(refusal.reason());
    }

    @Test
    void theKdatOnlyLocalMmErrorIsRefusedNotRenamed() {
        at(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "ep_handle"), EP_C);
        atInt(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "status"), 12);
        assertFalse(translate(DatStructs.DAT_DTO_COMPLETION_EVENT));
        assertTrue(refusal.reason().contains("status 12"), refusal.reason());
    }

    @Test
    void anUnknownEpHandleNeverBecomesAJavaObject() {
        at(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "ep_handle"), 0xdead);
        assertFalse(translate(DatStructs.DAT_DTO_COMPLETION_EVENT));
        assertTrue(refusal.reason().contains("0xdead"), refusal.reason());
        assertTrue(refusal.unknownHandle(), "an EP the bridge does not hold: a freed object's event, dropped");
    }

    @Test
    void onlyAnUnknownHandleMarksTheRefusalAsAFreedObjects() {
        at(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "ep_handle"), 0xdead);
        assertFalse(translate(DatStructs.DAT_DTO_COMPLETION_EVENT));
        assertTrue(refusal.unknownHandle());
        // The next refusal, of an event DAT 1.2 cannot carry, is not a freed object's: the EVD reports it.
        assertFalse(translate(DatStructs.DAT_HA_DOWN_TO_1));
        assertFalse(refusal.unknownHandle(), refusal.reason());
        at(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "ep_handle"), EP_C);
        atInt(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "status"), 12);
        assertFalse(translate(DatStructs.DAT_DTO_COMPLETION_EVENT));
        assertFalse(refusal.unknownHandle(), refusal.reason());
        at(offset(DatStructs.DAT_CONNECTION_EVENT_DATA, "ep_handle"), 0xbeef);
        assertFalse(translate(DatStructs.DAT_CONNECTION_EVENT_DISCONNECTED));
        assertTrue(refusal.unknownHandle(), refusal.reason());
        at(offset(DatStructs.DAT_CR_ARRIVAL_EVENT_DATA, "sp_handle"), 0xbeef);
        assertFalse(translate(DatStructs.DAT_CONNECTION_REQUEST_EVENT));
        assertTrue(refusal.unknownHandle(), refusal.reason());
    }

    @Test
    void anRmrBindCompletion() {
        at(offset(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT_DATA, "rmr_handle"), RMR_C);
        at(offset(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT_DATA, "user_cookie"), 7);
        atInt(offset(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT_DATA, "status"), 0);
        assertTrue(translate(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT), () -> refusal.reason());
        assertSame(rmr, out.rmr());
        assertEquals(7, out.userCookie());
        assertEquals(DatDtoStatus.SUCCESS, out.dtoStatus());
    }

    @Test
    void aFailedRmrBindKeepsItsCookieAndDat20Status() {
        at(offset(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT_DATA, "rmr_handle"), RMR_C);
        at(offset(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT_DATA, "user_cookie"), 0x8000_0000_0000_0001L);
        atInt(offset(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT_DATA, "status"), 11);
        assertTrue(translate(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT), () -> refusal.reason());
        assertEquals(DatEventType.RMR_BIND_COMPLETION, out.type());
        assertSame(evd, out.evd());
        assertSame(rmr, out.rmr());
        assertEquals(0x8000_0000_0000_0001L, out.userCookie());
        assertEquals(DatDtoStatus.RMR_OPERATION_FAILED, out.dtoStatus());
    }

    @Test
    void aBindCompletionOfAFreedRmrIsDroppedAsAFreedObjects() {
        at(offset(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT_DATA, "rmr_handle"), 0xfeed);
        atInt(offset(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT_DATA, "status"), 0);
        assertFalse(translate(DatStructs.DAT_RMR_BIND_COMPLETION_EVENT));
        assertTrue(refusal.unknownHandle(), refusal.reason());
        assertTrue(refusal.reason().contains("0xfeed"), refusal.reason());
    }

    @Test
    void aConnectionRequestTracksItsCrOnItsServicePoint() {
        at(offset(DatStructs.DAT_CR_ARRIVAL_EVENT_DATA, "sp_handle"), PSP_C);
        at(offset(DatStructs.DAT_CR_ARRIVAL_EVENT_DATA, "conn_qual"), 45248);
        at(offset(DatStructs.DAT_CR_ARRIVAL_EVENT_DATA, "cr_handle"), CR_C);
        assertTrue(translate(DatStructs.DAT_CONNECTION_REQUEST_EVENT), () -> refusal.reason());
        assertEquals(DatEventType.CONNECTION_REQUEST_EVENT, out.type());
        assertSame(psp, out.sp());
        assertSame(cr, out.cr());
        assertEquals(45248, out.connQual());
    }

    @Test
    void aConnectionEventCopiesItsPrivateData() {
        MemorySegment pd = arena.allocateFrom(ValueLayout.JAVA_BYTE, (byte) 1, (byte) 2, (byte) 3);
        at(offset(DatStructs.DAT_CONNECTION_EVENT_DATA, "ep_handle"), EP_C);
        atInt(offset(DatStructs.DAT_CONNECTION_EVENT_DATA, "private_data_size"), 3);
        at(offset(DatStructs.DAT_CONNECTION_EVENT_DATA, "private_data"), pd.address());
        assertTrue(translate(DatStructs.DAT_CONNECTION_EVENT_ESTABLISHED), () -> refusal.reason());
        assertEquals(DatEventType.CONNECTION_EVENT_ESTABLISHED, out.type());
        assertArrayEquals(new byte[] {1, 2, 3}, out.privateData());
        pd.fill((byte) 9);
        assertArrayEquals(new byte[] {1, 2, 3}, out.privateData(), "a copy, not a view of C memory");
    }

    @Test
    void anAbsurdPrivateDataSizeIsRefusedBeforeAnyRead() {
        at(offset(DatStructs.DAT_CONNECTION_EVENT_DATA, "ep_handle"), EP_C);
        atInt(offset(DatStructs.DAT_CONNECTION_EVENT_DATA, "private_data_size"), Integer.MAX_VALUE);
        at(offset(DatStructs.DAT_CONNECTION_EVENT_DATA, "private_data"), 0x10);
        assertFalse(translate(DatStructs.DAT_CONNECTION_EVENT_DISCONNECTED));
    }

    @Test
    void anAsyncErrorCarriesDat20sReason() {
        at(offset(DatStructs.DAT_ASYNCH_ERROR_EVENT_DATA, "dat_handle"), EP_C);
        atInt(offset(DatStructs.DAT_ASYNCH_ERROR_EVENT_DATA, "reason"), 1);
        assertTrue(translate(DatStructs.DAT_ASYNC_ERROR_EP_BROKEN), () -> refusal.reason());
        assertEquals(DatEventType.ASYNC_ERROR_EP_BROKEN, out.type());
        assertSame(ep, out.asyncHandle());
        assertEquals(1, out.asyncReason());
    }

    @Test
    void aSoftwareEventIsThePostedValue() {
        at(0, 0x1234_5678_9ABCL);
        assertTrue(translate(DatStructs.DAT_SOFTWARE_EVENT), () -> refusal.reason());
        assertEquals(DatEventType.SOFTWARE_EVENT, out.type());
        assertEquals(0x1234_5678_9ABCL, out.softwareEventValue());
    }

    @Test
    void eventsDat12LacksAreRefusedByNumber() {
        for (int n : new int[] {DatStructs.DAT_HA_DOWN_TO_1, DatStructs.DAT_HA_UP_TO_MULTI_PATH, 0x20000, 0x40001,
                0x08006, 0x08007, 0}) {
            assertFalse(translate(n), "0x" + Integer.toHexString(n));
            assertTrue(refusal.reason().contains(Integer.toHexString(n)), refusal.reason());
        }
    }

    @Test
    void ofasIbDtoEventOfAFailedReceiveIsItsDtoCompletion() {
        // Regression (rxe guest, kit rules on flushed receives): OFA reports a flushed receive as DAT_IB_DTO_EVENT,
        // which the bridge refused as DAT_INTERNAL_ERROR, so the consumer's receive never completed.
        at(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "ep_handle"), EP_C);
        at(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "user_cookie"), 42);
        atInt(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "status"), 1);
        atInt(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "transfered_length"), 0x7777);
        assertTrue(translate(UdaplEvents.DAT_IB_DTO_EVENT), () -> refusal.reason());
        assertEquals(DatEventType.DTO_COMPLETION, out.type());
        assertSame(ep, out.ep());
        assertEquals(42, out.userCookie());
        assertEquals(DatDtoStatus.FLUSHED, out.dtoStatus());
        assertEquals(0, out.transferredLength(), "OFA writes no length for it");
        atInt(offset(DatStructs.DAT_DTO_COMPLETION_EVENT_DATA, "status"), 0);
        assertFalse(translate(UdaplEvents.DAT_IB_DTO_EVENT), "a successful extension operation");
        assertFalse(refusal.unknownHandle());
    }
}
