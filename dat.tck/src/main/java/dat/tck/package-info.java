// SPDX-License-Identifier: Apache-2.0
/**
 * The conformance kit: {@link dat.tck.TckLauncher} runs it against a provider; {@link dat.tck.DatRule} names the DAT
 * call, man page section and return code each rule verifies; {@link dat.tck.RulesIndex} lists them. The rules
 * themselves are in {@code dat.tck.rules}, the random model-based campaign in {@code dat.tck.campaign}; the other
 * node of the cross-node rules ({@code dat tck-peer}) and the fault suite's ({@code dat tck-fault}) are in
 * {@code dat.tck.peer}, which only {@code dat.cli} reads.
 */
package dat.tck;
