// SPDX-License-Identifier: Apache-2.0
/**
 * The {@code dat} command: {@code info} (providers, IAs, attributes), {@code tck} (the conformance kit, its random
 * campaign and the cross-node rules), {@code tck-peer} and {@code tck-fault} (the other node of the cross-node rules
 * and of the fault suite), and {@code perf} (latency and message rate between two IAs).
 */
package dat.cli;
