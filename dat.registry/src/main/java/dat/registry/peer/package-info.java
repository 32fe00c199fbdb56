// SPDX-License-Identifier: Apache-2.0
/**
 * The address of a peer on another node ({@code HOST:CONN_QUAL}) and the connect that waits for it, shared by the
 * conformance kit's cross-node rules and {@code dat perf}. Exported to {@code dat.cli} and {@code dat.tck} only.
 */
package dat.registry.peer;
