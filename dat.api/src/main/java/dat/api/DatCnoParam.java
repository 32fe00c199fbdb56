// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_CNO_PARAM}: what {@code dat_cno_query} reports.
 *
 * @param ia {@code ia_handle}
 * @param agent {@code agent}: the wait proxy agent, {@code null} when none
 */
public record DatCnoParam(DatIa ia, DatCno.Agent agent) {
}
