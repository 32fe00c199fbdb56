// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatReturnSubtype;
import dat.spi.ProviderHandle;

/** What the example's objects share beyond {@link ProviderHandle}: their IA, and the DAT kind of each. */
abstract class ExampleHandle extends ProviderHandle {

    final ExampleIa ia;

    ExampleHandle(ExampleIa ia) {
        this.ia = ia;
    }

    @Override
    protected DatReturnSubtype inUseSubtype() {
        return DatReturnSubtype.NO_SUBTYPE;
    }

    /** Frees the object through its IA, under the lock: refused while another object uses it. */
    @Override
    public void close() {
        Fabric.LOCK.lock();
        try {
            ia.objects().free(this);
        } finally {
            Fabric.LOCK.unlock();
        }
    }
}
