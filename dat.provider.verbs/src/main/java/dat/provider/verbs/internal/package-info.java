// SPDX-License-Identifier: Apache-2.0
/**
 * The verbs provider: DAT over an RC QP per EP, with libibverbs and librdmacm reached through
 * {@code java.lang.foreign}. One class per DAT object ({@code VerbsIa}, {@code VerbsEp}, ...); {@code VerbsProgress}
 * is the IA's thread for connection-manager, completion-channel and async events; {@code WorkRequests} carries a
 * request's owner and slot in its {@code wr_id}. Each class comment says which device behaviour (soft-RoCE's in
 * particular) shaped it. Not exported.
 */
package dat.provider.verbs.internal;
