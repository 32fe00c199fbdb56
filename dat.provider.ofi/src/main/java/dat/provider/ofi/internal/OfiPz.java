// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.spi.AbstractPz;

/**
 * A protection zone ({@code dat_pz_create}). libfabric has no protection domain below the domain, so the zone is
 * the provider's own: the posts check that every LMR and the EP share it ({@code DtoArgs.segment}), and a remote
 * access is checked against the target LMR's zone by the peer's key lookup (the key is only valid in its domain).
 */
final class OfiPz extends AbstractPz<OfiIa> {

    OfiPz(OfiIa ia) {
        super(ia);
    }
}
