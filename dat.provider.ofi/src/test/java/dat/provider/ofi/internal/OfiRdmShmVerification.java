// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import dat.api.DatIa;
import dat.tck.DatProviderVerification;

/**
 * The kit against the libfabric provider's shm IA ({@code ofi-shm-shm-rdm}): DAT over FI_EP_RDM associations. Named
 * so no test pattern of the build ({@code OfiShm*}, {@code *Test}) runs it without its exclusions.
 */
public class OfiRdmShmVerification extends DatProviderVerification {

    /** The IA under test. */
    static final String IA = "ofi-shm-shm-rdm";

    /** Created by JUnit. */
    public OfiRdmShmVerification() {
    }

    @Override
    public DatIa openIa() {
        return new OfiProvider().open(IA, "", 16);
    }
}
