// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import dat.provider.udapl.internal.ffm.LibDat2;
import dat.spi.DatProviderInfo;
import java.util.TreeSet;

/**
 * The main of the child JVMs of {@link UdaplProviderChildTest}: prints what {@link UdaplProvider#info()} says, one
 * {@code key=value} per line, and nothing else, so any line a C library writes to standard output shows. With the
 * argument {@code linked}, a fourth line names the C functions discovery linked.
 */
public final class UdaplProbe {

    private UdaplProbe() {
    }

    /**
     * Prints the provider's module, whether it is available and the reason when not.
     *
     * @param args {@code linked} for the line {@code linked=f,g,...} too
     */
    public static void main(String[] args) {
        DatProviderInfo info = new UdaplProvider().info();
        System.out.println("module=" + UdaplProvider.class.getModule().getName());
        System.out.println("available=" + info.available());
        System.out.println("reason=" + info.unavailableReason());
        if (args.length > 0 && "linked".equals(args[0])) {
            System.out.println("linked=" + String.join(",", new TreeSet<>(LibDat2.linked())));
        }
    }
}
