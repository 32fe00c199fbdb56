// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.spi.AbstractPz;

/**
 * A protection zone ({@code dat_pz_create}): LMRs and EPs of one PZ may work together, no others. The shell does all
 * of it ({@code dat_pz_query}, {@code dat_pz_free}, and {@code dat_rmr_create}, which {@code max_rmrs} 0 refuses); a
 * hardware provider adds its protection domain here and releases it in {@code destroy()}.
 */
final class ExamplePz extends AbstractPz<ExampleIa> {

    ExamplePz(ExampleIa ia) {
        super(ia);
    }
}
