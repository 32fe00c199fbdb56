// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_SRQ_PARAM}: what {@code dat_srq_query} reports.
 *
 * @param ia {@code ia_handle}
 * @param srqState {@code srq_state}
 * @param pz {@code pz_handle}
 * @param maxRecvDtos {@code max_recv_dtos}: the actual queue size, at least what was asked for
 * @param maxRecvIov {@code max_recv_iov}: the actual segment limit
 * @param lowWatermark {@code low_watermark}: the armed watermark, {@link Dat#DAT_SRQ_LW_DEFAULT} when none
 * @param availableDtoCount {@code available_dto_count}: buffers on the SRQ not yet taken by an EP, or
 *     {@link Dat#DAT_VALUE_UNKNOWN}
 * @param outstandingDtoCount {@code outstanding_dto_count}: buffers posted whose completion has not been
 *     reaped (on the SRQ, held by EPs, or completed on a recv EVD), or {@link Dat#DAT_VALUE_UNKNOWN}
 */
public record DatSrqParam(DatIa ia, DatSrqState srqState, DatPz pz, int maxRecvDtos, int maxRecvIov,
                          int lowWatermark, int availableDtoCount, int outstandingDtoCount) {
}
