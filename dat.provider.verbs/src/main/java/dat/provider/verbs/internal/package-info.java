// SPDX-License-Identifier: Apache-2.0
/**
 * The verbs provider: DAT over an RC QP per EP, with libibverbs and librdmacm reached through
 * {@code java.lang.foreign}. One class per DAT object ({@code VerbsIa}, {@code VerbsEp}, ...), except that the EP
 * splits by job as libfabric's does: {@code VerbsEp} (the handle, its QP and state), {@code VerbsEpData} (posts and
 * their completions), {@code VerbsEpConnection} (connection management) and {@code VerbsEpControl} (query and
 * modify). {@code VerbsProgress} is the IA's thread for connection-manager, completion-channel and async events;
 * {@code WorkRequests} carries a request's owner and slot in its {@code wr_id}. Each class comment says which device
 * behaviour (soft-RoCE's in particular) shaped it. Not exported.
 */
package dat.provider.verbs.internal;
