// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.spi.ProviderHandle;

/**
 * What every verbs object shares beyond {@link ProviderHandle}: its IA, whose {@link VerbsIa#free} runs the free
 * protocol ({@link dat.spi.HandleSet}) for {@link #close()}.
 */
abstract class VerbsHandle extends ProviderHandle {

    /** {@return the IA this object belongs to ({@code this} for an IA)} */
    abstract VerbsIa owner();

    @Override
    public void close() {
        owner().free(this);
    }
}
