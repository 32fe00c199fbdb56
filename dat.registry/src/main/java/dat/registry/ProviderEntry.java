// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import dat.spi.DatProviderInfo;
import java.util.Objects;

/**
 * One provider the registry knows of, available or not. Nothing found is ever dropped: a provider that failed
 * to load, reported itself unavailable, lost to another of the same name, was left out by {@code dat.providers},
 * or was named but never found appears here with the reason.
 *
 * @param name the provider name; for a provider that failed before {@code name()} answered, its class name
 * @param className the provider class, {@code null} when it was named but not found or the class is unknown
 * @param source where the registry learnt of it
 * @param info what {@code info()} returned, {@code null} when it was never called or failed
 * @param unavailableReason why it cannot be used, {@code null} when it is available
 */
public record ProviderEntry(String name, String className, DiscoverySource source, DatProviderInfo info,
                            String unavailableReason) {

    /** Checks consistency: an available provider has its info and no reason. */
    public ProviderEntry {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
        if (unavailableReason == null && (info == null || !info.available())) {
            throw new IllegalArgumentException("provider " + name + " is available only with an available info");
        }
    }

    /** {@return whether IAs of this provider can be opened} */
    public boolean available() {
        return unavailableReason == null;
    }
}
