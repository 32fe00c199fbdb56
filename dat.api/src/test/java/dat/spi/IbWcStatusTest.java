// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static org.junit.jupiter.api.Assertions.assertSame;

import dat.api.DatDtoStatus;
import org.junit.jupiter.api.Test;

class IbWcStatusTest {

    @Test
    void everyFailureHasItsDatStatus() {
        assertSame(DatDtoStatus.SUCCESS, IbWcStatus.toDat(IbWcStatus.SUCCESS, false));
        assertSame(DatDtoStatus.FLUSHED, IbWcStatus.toDat(IbWcStatus.WR_FLUSH_ERR, true));
        assertSame(DatDtoStatus.LOCAL_LENGTH_ERR, IbWcStatus.toDat(IbWcStatus.LOC_LEN_ERR, true));
        assertSame(DatDtoStatus.LOCAL_PROTECTION_ERR, IbWcStatus.toDat(IbWcStatus.LOC_ACCESS_ERR, false));
        assertSame(DatDtoStatus.BAD_RESPONSE, IbWcStatus.toDat(IbWcStatus.BAD_RESP_ERR, false));
        assertSame(DatDtoStatus.REMOTE_ACCESS_ERR, IbWcStatus.toDat(IbWcStatus.REM_ACCESS_ERR, false));
        assertSame(DatDtoStatus.REMOTE_RESPONDER_ERR, IbWcStatus.toDat(IbWcStatus.REM_INV_RD_REQ_ERR, false));
        assertSame(DatDtoStatus.RECEIVER_NOT_READY, IbWcStatus.toDat(IbWcStatus.RNR_RETRY_EXC_ERR, false));
        assertSame(DatDtoStatus.RMR_OPERATION_FAILED, IbWcStatus.toDat(IbWcStatus.MW_BIND_ERR, false));
        assertSame(DatDtoStatus.TRANSPORT_ERR, IbWcStatus.toDat(IbWcStatus.RETRY_EXC_ERR, false));
        assertSame(DatDtoStatus.TRANSPORT_ERR, IbWcStatus.toDat(21, false), "IBV_WC_GENERAL_ERR and unknown ones");
    }

    /** rxe reports a receive too short for its message as a malformed work request; a send so is the EP's fault. */
    @Test
    void aMalformedReceiveIsALengthError() {
        assertSame(DatDtoStatus.LOCAL_LENGTH_ERR, IbWcStatus.toDat(IbWcStatus.LOC_QP_OP_ERR, true));
        assertSame(DatDtoStatus.LOCAL_EP_ERR, IbWcStatus.toDat(IbWcStatus.LOC_QP_OP_ERR, false));
    }
}
