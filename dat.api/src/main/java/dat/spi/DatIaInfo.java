// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import dat.api.DatIaAttr;
import dat.api.DatProviderAttr;
import java.util.Objects;

/**
 * One IA a provider offers, described without opening it: what {@code dat_ia_query} would report.
 *
 * @param iaName the name {@code dat_ia_open} takes
 * @param iaParams the {@code ia_params} it is opened with ({@code ""} unless configured by {@code dat.conf})
 * @param providerAttr the provider attributes for this IA
 * @param iaAttr the IA attributes
 */
public record DatIaInfo(String iaName, String iaParams, DatProviderAttr providerAttr, DatIaAttr iaAttr) {

    /** Checks that nothing is null. */
    public DatIaInfo {
        Objects.requireNonNull(iaName, "iaName");
        Objects.requireNonNull(iaParams, "iaParams");
        Objects.requireNonNull(providerAttr, "providerAttr");
        Objects.requireNonNull(iaAttr, "iaAttr");
    }
}
