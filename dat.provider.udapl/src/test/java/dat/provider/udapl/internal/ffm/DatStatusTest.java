// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal.ffm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import org.junit.jupiter.api.Test;

/** DAT 2.0 statuses to DAT 1.2: types by value except where 2.0 moved or added one, subtypes by name. */
class DatStatusTest {

    private static final int CLASS_ERROR = 0x80000000;

    private static int index(String name) {
        for (int i = 0; i < DatStatus.SUBTYPES_2_0.length; i++) {
            if (DatStatus.SUBTYPES_2_0[i].equals(name)) {
                return i;
            }
        }
        throw new AssertionError(name);
    }

    @Test
    void notImplementedMovedAndTheAddedTypesMapToTheirNearest() {
        assertEquals(DatReturn.NOT_IMPLEMENTED, DatStatus.type(CLASS_ERROR | 0x3FFF0000));
        assertEquals(DatReturn.CONN_QUAL_IN_USE, DatStatus.type(CLASS_ERROR | 0x00160000));
        assertEquals(DatReturn.INTERNAL_ERROR, DatStatus.type(CLASS_ERROR | 0x00170000));
        assertEquals(DatReturn.INVALID_PARAMETER, DatStatus.type(CLASS_ERROR | 0x00060000));
        // OFA returns some errors without the class bit (DAT_INTERNAL_ERROR as 0x00040000 from dat_ia_open).
        assertEquals(DatReturn.INTERNAL_ERROR, DatStatus.type(0x00040000));
        assertFalse(DatStatus.ok(0x00040000));
        assertTrue(DatStatus.ok(0));
    }

    @Test
    void subtypesMapByNameAcrossTheTwoThat2Inserted() {
        // 2.0 inserted DAT_INVALID_HANDLE_CSP after DAT_INVALID_HANDLE_SRQ: everything after it is one off.
        assertEquals(DatReturnSubtype.INVALID_HANDLE1,
                DatStatus.subtype(CLASS_ERROR | 0x00050000 | index("DAT_INVALID_HANDLE1")));
        assertEquals(DatReturnSubtype.NAME_NOT_REGISTERED, DatStatus.subtype(0x800a0064));
        assertEquals(DatReturnSubtype.INVALID_ARG2,
                DatStatus.subtype(CLASS_ERROR | 0x00060000 | index("DAT_INVALID_ARG2")));
        // Subtypes DAT 1.2 lacks, and numbers past the table, have no subtype rather than a wrong one.
        assertEquals(DatReturnSubtype.NO_SUBTYPE, DatStatus.subtype(index("DAT_INVALID_HANDLE_CSP")));
        assertEquals(DatReturnSubtype.NO_SUBTYPE, DatStatus.subtype(index("DAT_INVALID_STATE_SRQ_SHUTDOWN")));
        assertEquals(DatReturnSubtype.NO_SUBTYPE, DatStatus.subtype(0xffff));
        assertEquals("DAT_PROVIDER_NOT_FOUND/DAT_NAME_NOT_REGISTERED (0x800a0064)", DatStatus.describe(0x800a0064));
    }
}
