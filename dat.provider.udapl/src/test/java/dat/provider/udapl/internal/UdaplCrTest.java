// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.api.DatEpState;
import org.junit.jupiter.api.Test;

/**
 * Whether a request on an RSP is still C's, read from its reserved EP's state. OFA frees such a CR when the requester
 * goes away and moves the EP to DISCONNECTED first ({@code dapl_cr_callback.c}); a CR the bridge answered after that
 * would hand C freed memory. No device: the decision only; the guest's kit drives the C side.
 */
class UdaplCrTest {

    @Test
    void onlyAnEpStillPassiveConnectionPendingCarriesTheRequest() {
        for (DatEpState s : DatEpState.values()) {
            assertEquals(s == DatEpState.PASSIVE_CONNECTION_PENDING, UdaplCr.stillPending(s), s.name());
        }
    }

    @Test
    void anAcceptThatReachedTheConnectionLeavesNoRequestToAnswer() {
        // The guest: rdma_accept after the requester's process died failed EINVAL, which OFA returns as a bare
        // DAT_INVALID_PARAMETER (no class bit) after destroying the request's rdma_cm_id; the reject the EP's free
        // then made on the restored CR killed the JVM in librdmacm.
        assertFalse(UdaplCr.acceptLeftRequest(0x00060000), "DAT_INVALID_PARAMETER from rdma_accept");
        assertFalse(UdaplCr.acceptLeftRequest(0x80060000), "DAT_INVALID_PARAMETER, a REP's private data");
        assertFalse(UdaplCr.acceptLeftRequest(0x800C0000), "DAT_INVALID_ADDRESS");
        assertFalse(UdaplCr.acceptLeftRequest(0x80040000), "DAT_INTERNAL_ERROR, a device mismatch");
        assertFalse(UdaplCr.acceptLeftRequest(0x80030000), "DAT_INSUFFICIENT_RESOURCES, the QP");
    }

    @Test
    void onlyRefusalsBeforeTheConnectionLeaveTheRequestAnswerable() {
        assertTrue(UdaplCr.acceptLeftRequest(0x80050000), "DAT_INVALID_HANDLE, a bad CR or EP handle");
        assertTrue(UdaplCr.acceptLeftRequest(0x00070000), "a bare DAT_INVALID_STATE, the EP's state");
    }
}
