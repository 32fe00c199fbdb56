// SPDX-License-Identifier: Apache-2.0
/**
 * Provider discovery, {@code dat_ia_open} by IA name, and selection by attributes.
 */
package dat.registry;
