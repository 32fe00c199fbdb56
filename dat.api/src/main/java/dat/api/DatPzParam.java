// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_PZ_PARAM}: what {@code dat_pz_query} reports.
 *
 * @param ia {@code ia_handle}
 */
public record DatPzParam(DatIa ia) {
}
