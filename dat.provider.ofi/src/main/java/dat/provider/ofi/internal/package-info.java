// SPDX-License-Identifier: Apache-2.0
/**
 * The libfabric provider's DAT objects. Not exported.
 */
package dat.provider.ofi.internal;
