// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import dat.spi.DatProviderInfo;

/**
 * The main of the child JVMs of {@link UdaplProviderChildTest}: prints what {@link UdaplProvider#info()} says, one
 * {@code key=value} per line, and nothing else, so any line a C library writes to standard output shows.
 */
public final class UdaplProbe {

    private UdaplProbe() {
    }

    /**
     * Prints the provider's module, whether it is available and the reason when not.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        DatProviderInfo info = new UdaplProvider().info();
        System.out.println("module=" + UdaplProvider.class.getModule().getName());
        System.out.println("available=" + info.available());
        System.out.println("reason=" + info.unavailableReason());
    }
}
