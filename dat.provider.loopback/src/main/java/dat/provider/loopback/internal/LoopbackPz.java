// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.spi.AbstractPz;

/** A protection zone ({@code dat_pz_create}): DTOs may only touch LMRs of their EP's (or SRQ's) PZ. */
final class LoopbackPz extends AbstractPz<LoopbackIa> {

    LoopbackPz(LoopbackIa ia) {
        super(ia);
    }
}
