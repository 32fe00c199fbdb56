// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
