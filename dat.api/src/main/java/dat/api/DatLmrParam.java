// SPDX-License-Identifier: Apache-2.0
package dat.api;

import java.lang.foreign.MemorySegment;

/**
 * {@code DAT_LMR_PARAM}: what {@code dat_lmr_query} reports.
 *
 * @param ia {@code ia_handle}
 * @param memType {@code mem_type}: {@link Dat#DAT_MEM_TYPE_VIRTUAL}
 * @param region {@code region_desc}: the registered memory
 * @param length {@code length} asked for
 * @param pz {@code pz_handle}
 * @param memPriv {@code mem_priv}: the {@link DatMemPriv} flags
 * @param lmrContext {@code lmr_context}
 * @param rmrContext {@code rmr_context}
 * @param registeredSize {@code registered_size}
 * @param registeredAddress {@code registered_address}
 */
public record DatLmrParam(DatIa ia, int memType, MemorySegment region, long length, DatPz pz, int memPriv,
                          int lmrContext, int rmrContext, long registeredSize, long registeredAddress) {
}
