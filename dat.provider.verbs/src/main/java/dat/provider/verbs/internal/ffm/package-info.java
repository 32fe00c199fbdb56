// SPDX-License-Identifier: Apache-2.0
/**
 * The native bindings: the functions of libibverbs, librdmacm and libc the provider calls, and the layouts of the C
 * structures it reads and writes, each checked against the C compiler's offsets by the module's tests. The data path
 * calls {@code ibv_post_send}, {@code ibv_post_recv} and {@code ibv_poll_cq} through the device's ops table
 * ({@code IbvOps}), as the inline functions of {@code verbs.h} do. Not exported.
 */
package dat.provider.verbs.internal.ffm;
