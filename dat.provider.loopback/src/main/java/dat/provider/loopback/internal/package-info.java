// SPDX-License-Identifier: Apache-2.0
/**
 * The loopback provider: the reference implementation of every DAT call, in process. One class per DAT object
 * ({@code LoopbackIa}, {@code LoopbackEp}, ...), the EP's split by job: {@code LoopbackEp} the handle and its state,
 * {@code LoopbackEpData} the data path, {@code LoopbackEpConnection} connection management, {@code LoopbackEpControl}
 * query and modify. {@code LoopbackFabric} connects EPs of IAs in the same JVM and moves the bytes; {@code EventRing}
 * and {@code RecvRing} are the lock-free rings of the data path (tested under jcstress). Not exported: consumers
 * reach it through {@code dat.registry}.
 */
package dat.provider.loopback.internal;
