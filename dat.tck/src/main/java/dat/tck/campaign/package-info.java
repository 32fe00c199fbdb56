// SPDX-License-Identifier: Apache-2.0
/**
 * The random campaign: sequences of ordinary calls ({@code Op}) drawn from a seed, applied to the provider and to
 * a model of what DAT allows ({@code World}), every answer and event compared; a failing episode is shrunk and
 * printed with the command that replays it. {@code ConcurrentCampaign} is its concurrent half.
 */
package dat.tck.campaign;
