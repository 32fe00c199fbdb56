// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatDtoStatus;

/**
 * The DAT completion status of an InfiniBand work completion ({@code enum ibv_wc_status} of libibverbs, the IBTA's
 * numbering), for every provider whose transport reports one: the verbs provider reads it from {@code ibv_poll_cq},
 * the ofi provider from the {@code prov_errno} of libfabric's verbs provider, which reports every failed completion
 * but a flush as {@code EIO} and leaves the cause there.
 */
public final class IbWcStatus {

    /** {@code IBV_WC_SUCCESS}. */
    public static final int SUCCESS = 0;
    /** {@code IBV_WC_LOC_LEN_ERR}. */
    public static final int LOC_LEN_ERR = 1;
    /** {@code IBV_WC_LOC_QP_OP_ERR}. */
    public static final int LOC_QP_OP_ERR = 2;
    /** {@code IBV_WC_LOC_PROT_ERR}. */
    public static final int LOC_PROT_ERR = 4;
    /** {@code IBV_WC_WR_FLUSH_ERR}. */
    public static final int WR_FLUSH_ERR = 5;
    /** {@code IBV_WC_MW_BIND_ERR}. */
    public static final int MW_BIND_ERR = 6;
    /** {@code IBV_WC_BAD_RESP_ERR}. */
    public static final int BAD_RESP_ERR = 7;
    /** {@code IBV_WC_LOC_ACCESS_ERR}. */
    public static final int LOC_ACCESS_ERR = 8;
    /** {@code IBV_WC_REM_INV_REQ_ERR}. */
    public static final int REM_INV_REQ_ERR = 9;
    /** {@code IBV_WC_REM_ACCESS_ERR}. */
    public static final int REM_ACCESS_ERR = 10;
    /** {@code IBV_WC_REM_OP_ERR}. */
    public static final int REM_OP_ERR = 11;
    /** {@code IBV_WC_RETRY_EXC_ERR}. */
    public static final int RETRY_EXC_ERR = 12;
    /** {@code IBV_WC_RNR_RETRY_EXC_ERR}. */
    public static final int RNR_RETRY_EXC_ERR = 13;
    /** {@code IBV_WC_REM_INV_RD_REQ_ERR}. */
    public static final int REM_INV_RD_REQ_ERR = 15;
    /** {@code IBV_WC_REM_ABORT_ERR}. */
    public static final int REM_ABORT_ERR = 16;

    private IbWcStatus() {
    }

    /**
     * {@return the {@code DAT_DTO_COMPLETION_STATUS} of a work completion}
     *
     * @param wcStatus the {@code ibv_wc_status}
     * @param receive whether the completion is a receive's: a receive whose segments passed the post-time checks
     *     fails locally only when the message does not fit, and soft-RoCE (rxe) reports that as a malformed work
     *     request ({@code IBV_WC_LOC_QP_OP_ERR}) where HCAs report {@code IBV_WC_LOC_LEN_ERR}
     */
    public static DatDtoStatus toDat(int wcStatus, boolean receive) {
        return switch (wcStatus) {
            case SUCCESS -> DatDtoStatus.SUCCESS;
            case WR_FLUSH_ERR -> DatDtoStatus.FLUSHED;
            case LOC_LEN_ERR -> DatDtoStatus.LOCAL_LENGTH_ERR;
            case LOC_QP_OP_ERR -> receive ? DatDtoStatus.LOCAL_LENGTH_ERR : DatDtoStatus.LOCAL_EP_ERR;
            case LOC_PROT_ERR, LOC_ACCESS_ERR -> DatDtoStatus.LOCAL_PROTECTION_ERR;
            case BAD_RESP_ERR -> DatDtoStatus.BAD_RESPONSE;
            case REM_ACCESS_ERR -> DatDtoStatus.REMOTE_ACCESS_ERR;
            case REM_INV_REQ_ERR, REM_OP_ERR, REM_ABORT_ERR, REM_INV_RD_REQ_ERR -> DatDtoStatus.REMOTE_RESPONDER_ERR;
            case RNR_RETRY_EXC_ERR -> DatDtoStatus.RECEIVER_NOT_READY;
            case MW_BIND_ERR -> DatDtoStatus.RMR_OPERATION_FAILED;
            default -> DatDtoStatus.TRANSPORT_ERR;
        };
    }
}
