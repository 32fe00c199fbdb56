// SPDX-License-Identifier: Apache-2.0
/**
 * The uDAPL bridge's provider: {@code dat.conf}'s C uDAPL IAs through libdat2, their attributes as the C
 * provider reports them. Not exported.
 */
package dat.provider.udapl.internal;
