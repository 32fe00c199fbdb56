// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_RSP_PARAM}: what {@code dat_rsp_query} reports.
 *
 * @param ia {@code ia_handle}
 * @param connQual {@code conn_qual}
 * @param evd {@code evd_handle}: where the connection request goes
 * @param ep {@code ep_handle}: the reserved EP
 */
public record DatRspParam(DatIa ia, long connQual, DatEvd evd, DatEp ep) {
}
