// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.DatIa;
import dat.tck.DatProviderVerification;

/** The kit against the libfabric provider's tcp IA on 127.0.0.1 ({@code ofi-tcp-lo}). */
public class OfiTcpVerification extends DatProviderVerification {

    /** The IA under test. */
    static final String IA = "ofi-tcp-lo";

    /** Created by JUnit. */
    public OfiTcpVerification() {
    }

    @Override
    public DatIa openIa() {
        return new OfiProvider().open(IA, "", 16);
    }
}
