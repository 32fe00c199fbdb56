// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dat.api.DatReturn;
import dat.api.DatReturnSubtype;
import org.junit.jupiter.api.Test;

/** The campaign's status check: a page's status type, with whatever subtype the provider adds. */
class CompletionsTest {

    /** Seed 0x7a12 on OFA's C uDAPL: the campaign took OFA's subtype for a wrong status. */
    @Test
    void aSubtypeTheProviderAddsIsTheStatusThePageNames() {
        int withSubtype = DatReturn.INVALID_STATE.code(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED);
        assertDoesNotThrow(() -> Completions.expectStatus(DatReturn.DAT_INVALID_STATE, withSubtype, "a post"));
        assertDoesNotThrow(() -> Completions.expectStatus(withSubtype, withSubtype, "a post"));
    }

    @Test
    void anotherTypeOrAnotherNamedSubtypeIsAViolation() {
        int unconnected = DatReturn.INVALID_STATE.code(DatReturnSubtype.INVALID_STATE_EP_UNCONNECTED);
        assertThrows(Violation.class,
                () -> Completions.expectStatus(DatReturn.DAT_INVALID_PARAMETER, unconnected, "a post"));
        assertThrows(Violation.class,
                () -> Completions.expectStatus(DatReturn.DAT_INVALID_STATE, DatReturn.DAT_SUCCESS, "a post"));
        assertThrows(Violation.class, () -> Completions.expectStatus(unconnected, DatReturn.DAT_INVALID_STATE,
                "a post"));
        assertThrows(Violation.class, () -> Completions.expectStatus(DatReturn.DAT_SUCCESS,
                DatReturn.DAT_QUEUE_EMPTY, "a dequeue"));
    }
}
