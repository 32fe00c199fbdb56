// SPDX-License-Identifier: Apache-2.0
package dat.tck;

import dat.api.DatIa;
import dat.registry.DatRegistry;

/** The reference provider, found through the registry as a vendor's provider would be. */
public class LoopbackVerification extends DatProviderVerification {

    /** Created by JUnit. */
    public LoopbackVerification() {
    }

    @Override
    public DatIa openIa() {
        return DatRegistry.load().open("loopback0");
    }
}
