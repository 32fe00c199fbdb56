// SPDX-License-Identifier: Apache-2.0
/**
 * The bridge's C side: {@code libdat2.so.2}'s exported {@code dat_*} functions bound with
 * {@code java.lang.foreign}, and the DAT 2.0 structs they read and write, laid out after OFA dapl 2.1.10's
 * {@code dat2/*.h} (each offset and size checked against the C compiler by {@code UdaplLayoutOffsetTest}).
 * Not exported.
 *
 * <p>libdat2 2.1.10 exports every {@code dat_*} call (symbol version {@code DAT_2.0}); each resolves an IA handle
 * with {@code dats_get_ia_handle} and dispatches through the provider's {@code DAT_PROVIDER} table itself, so the
 * bridge calls the exported functions and never the table.
 */
package dat.provider.udapl.internal.ffm;
