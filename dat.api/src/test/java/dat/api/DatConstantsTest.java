// SPDX-License-Identifier: Apache-2.0
package dat.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Spot checks of enum ordinals and flag values against the numbers of the DAT 1.2 headers. */
class DatConstantsTest {

    @Test
    void subtypeOrdinalsAreDatValues() {
        assertEquals(0, DatReturnSubtype.NO_SUBTYPE.value());
        assertEquals(11, DatReturnSubtype.INVALID_HANDLE_IA.value());
        assertEquals(25, DatReturnSubtype.INVALID_HANDLE_SRQ.value());
        assertEquals(26, DatReturnSubtype.INVALID_HANDLE1.value());
        assertEquals(36, DatReturnSubtype.INVALID_ARG1.value());
        assertEquals(46, DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED.value());
        assertEquals(66, DatReturnSubtype.INVALID_STATE_CNO_IN_USE.value());
        assertEquals(86, DatReturnSubtype.INVALID_STATE_SRQ_IN_USE.value());
        assertEquals(87, DatReturnSubtype.PRIVILEGES_READ.value());
        assertEquals(101, DatReturnSubtype.THREAD_SAFETY_NOT_FOUND.value());
        assertEquals(DatReturnSubtype.NO_SUBTYPE, DatReturnSubtype.of(0x8006_ffff));
    }

    @Test
    void stateAndHandleValues() {
        assertEquals(0, DatEpState.UNCONNECTED.value());
        assertEquals(2, DatEpState.RESERVED.value());
        assertEquals(6, DatEpState.ACTIVE_CONNECTION_PENDING.value());
        assertEquals(9, DatEpState.CONNECTED.value());
        assertEquals(11, DatEpState.DISCONNECTED.value());
        assertEquals(12, DatEpState.COMPLETION_PENDING.value());
        assertEquals(10, DatHandleType.SRQ.value());
        assertEquals(3, DatHandleType.IA.value());
        assertEquals(1, DatCloseFlags.GRACEFUL.value());
        assertEquals(11, DatDtoStatus.RMR_OPERATION_FAILED.value());
        assertEquals(DatDtoStatus.FLUSHED, DatDtoStatus.of(1));
    }

    @Test
    void flagValues() {
        assertEquals(0x1F0, DatEvdFlags.DEFAULT);
        assertEquals(0x33, DatMemPriv.ALL);
        assertEquals(0x1F, DatCompletionFlags.ALL);
        assertEquals(0x0F, DatCompletionFlags.POST_FLAGS);
        assertEquals(0x08, DatQos.PREMIUM.value());
    }

    @Test
    void eventNumbersAndTheEvdFlagThatAdmitsThem() {
        assertEquals(0x00001, DatEventType.DTO_COMPLETION.value());
        assertEquals(0x01001, DatEventType.RMR_BIND_COMPLETION.value());
        assertEquals(0x02001, DatEventType.CONNECTION_REQUEST_EVENT.value());
        assertEquals(0x04005, DatEventType.CONNECTION_EVENT_DISCONNECTED.value());
        assertEquals(0x08001, DatEventType.ASYNC_ERROR_EVD_OVERFLOW.value());
        assertEquals(0x10001, DatEventType.SOFTWARE_EVENT.value());
        for (DatEventType t : DatEventType.values()) {
            int expected = switch (t.value() & 0xFF000) {
                case 0x00000 -> DatEvdFlags.DTO;
                case 0x01000 -> DatEvdFlags.RMR_BIND;
                case 0x02000 -> DatEvdFlags.CR;
                case 0x04000 -> DatEvdFlags.CONNECTION;
                case 0x08000 -> DatEvdFlags.ASYNC;
                default -> DatEvdFlags.SOFTWARE;
            };
            assertEquals(expected, t.evdFlag(), t.name());
        }
    }

    @Test
    void specialValues() {
        assertEquals(-2, Dat.DAT_VALUE_UNKNOWN);
        assertEquals(0, Dat.DAT_SRQ_LW_DEFAULT);
        assertEquals(256, Dat.DAT_OPTIMAL_ALIGNMENT);
        assertEquals(0xFFFFFFFFL, Dat.DAT_TIMEOUT_INFINITE);
    }
}
