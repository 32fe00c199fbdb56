// SPDX-License-Identifier: Apache-2.0
package dat.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DatReturnTest {

    @Test
    void typeValuesAreThoseOfDat12() {
        assertEquals(0x00000000, DatReturn.SUCCESS.type());
        assertEquals(0x00030000, DatReturn.INSUFFICIENT_RESOURCES.type());
        assertEquals(0x00050000, DatReturn.INVALID_HANDLE.type());
        assertEquals(0x00060000, DatReturn.INVALID_PARAMETER.type());
        assertEquals(0x00070000, DatReturn.INVALID_STATE.type());
        assertEquals(0x00080000, DatReturn.LENGTH_ERROR.type());
        assertEquals(0x00090000, DatReturn.MODEL_NOT_SUPPORTED.type());
        assertEquals(0x000B0000, DatReturn.PRIVILEGES_VIOLATION.type());
        assertEquals(0x000C0000, DatReturn.PROTECTION_VIOLATION.type());
        assertEquals(0x000D0000, DatReturn.QUEUE_EMPTY.type());
        assertEquals(0x0FFF0000, DatReturn.NOT_IMPLEMENTED.type());
    }

    @Test
    void intConstantsAreTheErrorClassOrTheType() {
        for (DatReturn r : DatReturn.values()) {
            int expected = r == DatReturn.SUCCESS ? 0 : 0x80000000 | r.type();
            assertEquals(expected, r.code(), r.name());
        }
        assertEquals(DatReturn.INVALID_PARAMETER.code(), DatReturn.DAT_INVALID_PARAMETER);
        assertEquals(DatReturn.INVALID_STATE.code(), DatReturn.DAT_INVALID_STATE);
        assertEquals(DatReturn.QUEUE_EMPTY.code(), DatReturn.DAT_QUEUE_EMPTY);
        assertEquals(DatReturn.NOT_IMPLEMENTED.code(), DatReturn.DAT_NOT_IMPLEMENTED);
        assertTrue(DatReturn.DAT_LENGTH_ERROR < 0, "every error is negative on the data path");
    }

    @Test
    void ofMapsEveryStatusBackWithOrWithoutClassAndSubtype() {
        for (DatReturn r : DatReturn.values()) {
            assertSame(r, DatReturn.of(r.code()));
            assertSame(r, DatReturn.of(r.type()), "C providers sometimes omit the class bit");
            assertSame(r, DatReturn.of(r.code(DatReturnSubtype.INVALID_ARG3)));
        }
    }

    @Test
    void ofRejectsTypesDat12DoesNotDefine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DatReturn.of(0x80150000));
        assertTrue(e.getMessage().contains("0x80150000"), e.getMessage());
    }

    @Test
    void subtypeTravelsInTheLowBits() {
        int status = DatReturn.INVALID_HANDLE.code(DatReturnSubtype.INVALID_HANDLE_SRQ);
        assertEquals(0x80050000 | 25, status);
        assertSame(DatReturnSubtype.INVALID_HANDLE_SRQ, DatReturnSubtype.of(status));
        assertEquals("DAT_INVALID_HANDLE/INVALID_HANDLE_SRQ", DatReturn.toString(status));
        assertEquals("DAT_QUEUE_EMPTY", DatReturn.toString(DatReturn.DAT_QUEUE_EMPTY));
    }

    @Test
    void successIncludesWarnings() {
        assertTrue(DatReturn.isSuccess(DatReturn.DAT_SUCCESS));
        assertTrue(DatReturn.isSuccess(DatReturn.CLASS_WARNING));
        assertFalse(DatReturn.isSuccess(DatReturn.DAT_QUEUE_EMPTY));
    }

    @Test
    void exceptionCarriesTypeSubtypeAndArgumentMessage() {
        DatException e = new DatException(DatReturn.INVALID_STATE, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE,
                "dat_srq_free: 2 EPs still use the SRQ");
        assertSame(DatReturn.INVALID_STATE, e.type());
        assertEquals(0x80070000 | 86, e.code());
        assertEquals("DAT_INVALID_STATE/INVALID_STATE_SRQ_IN_USE: dat_srq_free: 2 EPs still use the SRQ",
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new DatException(DatReturn.SUCCESS, "no"));
    }

    @Test
    void exceptionIsComparesTheTypeWhateverTheSubtype() {
        DatException withSubtype = new DatException(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG3,
                "dat_ep_post_send: num_segments -1 is negative");
        assertTrue(withSubtype.is(DatReturn.INVALID_PARAMETER));
        assertFalse(withSubtype.is(DatReturn.INVALID_STATE));
        // The trap is() exists for: the full code carries the subtype.
        assertFalse(withSubtype.code() == DatReturn.DAT_INVALID_PARAMETER);
        assertTrue(new DatException(DatReturn.INVALID_PARAMETER, "no subtype").is(DatReturn.INVALID_PARAMETER));
        assertThrows(NullPointerException.class, () -> withSubtype.is(null));
    }

    @Test
    void exceptionFromDataPathStatus() {
        DatException e = DatException.of(DatReturn.PROTECTION_VIOLATION.code(DatReturnSubtype.PROTECTION_READ),
                "dat_ep_post_send");
        assertSame(DatReturn.PROTECTION_VIOLATION, e.type());
        assertSame(DatReturnSubtype.PROTECTION_READ, e.subtype());
        assertTrue(e.getMessage().endsWith("dat_ep_post_send: DAT_PROTECTION_VIOLATION/PROTECTION_READ"),
                e.getMessage());
    }
}
