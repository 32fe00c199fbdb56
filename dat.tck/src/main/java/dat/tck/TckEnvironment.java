// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import dat.api.DatIa;

/**
 * What the rule classes need from the provider under test. {@link DatProviderVerification} implements it;
 * vendors implement {@link #openIa()}.
 */
public interface TckEnvironment {

    /**
     * Opens a fresh IA of the provider under test. Every test opens its own and closes it abruptly afterwards,
     * so one failing test cannot poison the next.
     *
     * @return an open IA
     */
    DatIa openIa();

    /**
     * Receives the run's settings before {@link #openIa()} is called.
     *
     * @param context strict mode and the target named by the launcher
     */
    default void configure(TckContext context) {
    }
}
