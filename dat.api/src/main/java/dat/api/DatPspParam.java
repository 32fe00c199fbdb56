// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_PSP_PARAM}: what {@code dat_psp_query} reports.
 *
 * @param ia {@code ia_handle}
 * @param connQual {@code conn_qual}
 * @param evd {@code evd_handle}: where connection requests go
 * @param pspFlags {@code psp_flags}
 */
public record DatPspParam(DatIa ia, long connQual, DatEvd evd, DatPspFlags pspFlags) {
}
