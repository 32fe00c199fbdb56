// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_RMR_PARAM}: what {@code dat_rmr_query} reports. The bound {@code lmr_triplet} is given by its
 * three fields; all are 0 while the RMR is unbound.
 *
 * @param ia {@code ia_handle}
 * @param pz {@code pz_handle}
 * @param lmrContext {@code lmr_triplet.lmr_context} of the bound LMR
 * @param virtualAddress {@code lmr_triplet.virtual_address}: first byte of the window
 * @param segmentLength {@code lmr_triplet.segment_length}: length of the window
 * @param memPriv {@code mem_priv}: the remote privileges of the window
 * @param rmrContext {@code rmr_context}
 */
public record DatRmrParam(DatIa ia, DatPz pz, int lmrContext, long virtualAddress, long segmentLength,
                          int memPriv, int rmrContext) {
}
