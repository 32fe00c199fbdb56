// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.spi.DatIaInfo;
import java.util.Objects;

/**
 * One IA the registry knows of: offered by a provider's {@code info()} or configured by a {@code dat.conf}
 * entry, available or not.
 *
 * @param name the IA name {@link DatRegistry#open(String)} takes
 * @param providerName the provider that offers it, or the library field of its {@code dat.conf} entry
 * @param iaParams the {@code ia_params} it is opened with
 * @param source where the registry learnt of it
 * @param info its description (what {@code dat_ia_query} would report), {@code null} when unavailable
 * @param unavailableReason why it cannot be opened, {@code null} when it can
 */
public record IaEntry(String name, String providerName, String iaParams, DiscoverySource source, DatIaInfo info,
                      String unavailableReason) {

    /** Checks that exactly one of {@code info} and {@code unavailableReason} is present. */
    public IaEntry {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(providerName, "providerName");
        Objects.requireNonNull(iaParams, "iaParams");
        Objects.requireNonNull(source, "source");
        if ((info == null) == (unavailableReason == null)) {
            throw new IllegalArgumentException("IA " + name + " needs either its info or an unavailable reason");
        }
    }

    /** {@return whether the IA can be opened} */
    public boolean available() {
        return info != null;
    }
}
