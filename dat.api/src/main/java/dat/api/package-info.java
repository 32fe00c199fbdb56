// SPDX-License-Identifier: Apache-2.0
/**
 * The DAT 1.2 (uDAPL) consumer API: one interface per DAT object ({@link dat.api.DatIa}, {@link dat.api.DatPz},
 * {@link dat.api.DatLmr}, {@link dat.api.DatRmr}, {@link dat.api.DatEvd}, {@link dat.api.DatCno},
 * {@link dat.api.DatEp}, {@link dat.api.DatPsp}, {@link dat.api.DatRsp}, {@link dat.api.DatCr},
 * {@link dat.api.DatSrq}), each method's Javadoc opening with the DAT call it implements; events, attribute records
 * with DAT's field names, return codes and constants.
 *
 * <p>The data path ({@code dat_ep_post_*}, {@code dat_srq_post_recv}, {@code dat_rmr_bind}, {@code dat_evd_dequeue})
 * returns a DAT return code and never throws; the control path throws {@link dat.api.DatException} carrying the
 * code and subtype the man page names. {@code docs/dat-calls.md} maps every call to its method, each provider's file
 * and its TCK rules.
 */
package dat.api;
