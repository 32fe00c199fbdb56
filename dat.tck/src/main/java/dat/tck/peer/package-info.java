// SPDX-License-Identifier: Apache-2.0
/**
 * The kit's tools for a second node, run by the {@code dat} command: {@link dat.tck.peer.TckPeer} answers the
 * cross-node rules ({@code dat tck-peer}), {@link dat.tck.peer.FaultDrill} runs the fault suite's two ends
 * ({@code dat tck-fault}). Exported to {@code dat.cli} only: a vendor certifies a provider with
 * {@code dat.tck.DatProviderVerification} or {@code dat tck} and never calls these.
 */
package dat.tck.peer;
