// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal;

import dat.spi.DatProviderInfo;

/**
 * The main of the child JVM of {@link VerbsProviderNativeAccessTest}: prints what {@link VerbsProvider#info()}
 * says, one {@code key=value} per line.
 */
public final class NativeAccessProbe {

    private NativeAccessProbe() {
    }

    /**
     * Prints the provider's module and whether it is available, with the reason when not.
     *
     * @param args unused
     */
    public static void main(String[] args) {
        DatProviderInfo info = new VerbsProvider().info();
        System.out.println("module=" + VerbsProvider.class.getModule().getName());
        System.out.println("available=" + info.available());
        System.out.println("reason=" + info.unavailableReason());
    }
}
