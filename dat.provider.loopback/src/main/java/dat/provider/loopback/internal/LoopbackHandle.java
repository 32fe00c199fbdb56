// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import dat.spi.ProviderHandle;

/**
 * What every loopback object shares beyond {@link ProviderHandle}: its IA, whose {@link LoopbackIa#free} runs the free
 * protocol ({@link dat.spi.HandleSet}) for {@link #close()}.
 */
abstract class LoopbackHandle extends ProviderHandle {

    /** {@return the IA this object belongs to ({@code this} for an IA)} */
    abstract LoopbackIa owner();

    @Override
    public void close() {
        owner().free(this);
    }
}
