// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import java.util.Objects;

/**
 * One configuration property of a provider (Aeron's {@code *_PROPERTY} / {@code *_DEFAULT} pairs), listed so
 * {@code dat info -e} can print it.
 *
 * @param property the system property name, for example {@code dat.loopback.ias}
 * @param defaultValue the value used when the property is unset
 * @param currentValue the value in force now
 * @param description what it controls
 */
public record DatSetting(String property, String defaultValue, String currentValue, String description) {

    /** Checks that nothing is null. */
    public DatSetting {
        Objects.requireNonNull(property, "property");
        Objects.requireNonNull(defaultValue, "defaultValue");
        Objects.requireNonNull(currentValue, "currentValue");
        Objects.requireNonNull(description, "description");
    }

    /**
     * Reads a system property with its default.
     *
     * @param property the property name
     * @param defaultValue its default
     * @param description what it controls
     * @return the setting with its current value
     */
    public static DatSetting of(String property, String defaultValue, String description) {
        return new DatSetting(property, defaultValue, System.getProperty(property, defaultValue), description);
    }
}
