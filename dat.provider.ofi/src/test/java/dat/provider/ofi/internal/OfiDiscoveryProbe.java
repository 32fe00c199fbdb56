// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.provider.ofi.internal.ffm.Fi;
import dat.spi.DatProviderInfo;
import java.util.TreeSet;

/**
 * The main of {@link OfiLazyLinkTest}'s child JVM: runs discovery, as {@code dat info} does, and prints how many IAs
 * it found, then the ops signatures {@link Fi} linked for it.
 */
public final class OfiDiscoveryProbe {

    private OfiDiscoveryProbe() {
    }

    /**
     * Prints {@code ias=N} and {@code linked=A,B,...}.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        DatProviderInfo info = new OfiProvider().info();
        System.out.println("ias=" + (info.available() ? info.ias().size() : 0));
        System.out.println("linked=" + String.join(",", new TreeSet<>(Fi.linked())));
    }
}
