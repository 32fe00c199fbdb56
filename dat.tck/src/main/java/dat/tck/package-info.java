// SPDX-License-Identifier: Apache-2.0
/**
 * The conformance kit: {@link dat.tck.TckLauncher} runs it against a provider; {@link dat.tck.DatRule} names the DAT
 * call, man page section and return code each rule verifies; {@link dat.tck.RulesIndex} lists them. The rules
 * themselves are in {@code dat.tck.rules}, the random model-based campaign in {@code dat.tck.campaign};
 * {@link dat.tck.TckPeer} is the other node of the cross-node rules and {@link dat.tck.FaultDrill} the fault suite's.
 */
package dat.tck;
