// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import java.util.List;
import java.util.Objects;

/**
 * What {@link DatProvider#info()} reports: identity, availability with its reason, the IAs offered and the
 * provider's settings.
 *
 * @param name the provider name, as {@link DatProvider#name()}
 * @param version the provider's own version, for example {@code 1.0}
 * @param available whether {@link DatProvider#open} can work on this machine now
 * @param unavailableReason why not, and how to fix it; {@code null} when available
 * @param ias the IAs the provider offers without configuration; empty when unavailable
 * @param settings the provider's configuration properties with their defaults and current values
 */
public record DatProviderInfo(String name, String version, boolean available, String unavailableReason,
                              List<DatIaInfo> ias, List<DatSetting> settings) {

    /** Validates and makes the lists immutable. */
    public DatProviderInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
        ias = List.copyOf(ias);
        settings = List.copyOf(settings);
        if (available == (unavailableReason != null)) {
            throw new IllegalArgumentException("an unavailable provider needs a reason, an available one none");
        }
    }

    /**
     * {@return the description of an available provider}
     *
     * @param name provider name
     * @param version provider version
     * @param ias the IAs offered
     * @param settings the settings
     */
    public static DatProviderInfo available(String name, String version, List<DatIaInfo> ias,
                                            List<DatSetting> settings) {
        return new DatProviderInfo(name, version, true, null, ias, settings);
    }

    /**
     * {@return the description of an unavailable provider}
     *
     * @param name provider name
     * @param version provider version
     * @param reason why it cannot work here and how to fix that
     * @param settings the settings
     */
    public static DatProviderInfo unavailable(String name, String version, String reason,
                                              List<DatSetting> settings) {
        return new DatProviderInfo(name, version, false, Objects.requireNonNull(reason, "reason"), List.of(),
                settings);
    }
}
