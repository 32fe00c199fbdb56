// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_SRQ_ATTR}: what {@code dat_srq_create} is asked for.
 *
 * @param maxRecvDtos {@code max_recv_dtos}: the number of receive buffers the SRQ must hold, at least 1
 * @param maxRecvIov {@code max_recv_iov}: the most segments per posted buffer, at least 1
 * @param lowWatermark {@code low_watermark}: must be {@link Dat#DAT_SRQ_LW_DEFAULT} at create; set it later
 *     with {@link DatSrq#setLowWatermark}
 */
public record DatSrqAttr(int maxRecvDtos, int maxRecvIov, int lowWatermark) {

    /**
     * The attributes DAT asks consumers to create an SRQ with: the given sizes and no low watermark.
     *
     * @param maxRecvDtos queue size
     * @param maxRecvIov segments per buffer
     * @return the attributes
     */
    public static DatSrqAttr of(int maxRecvDtos, int maxRecvIov) {
        return new DatSrqAttr(maxRecvDtos, maxRecvIov, Dat.DAT_SRQ_LW_DEFAULT);
    }
}
