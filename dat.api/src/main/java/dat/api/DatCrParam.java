// SPDX-License-Identifier: Apache-2.0
package dat.api;

import java.net.InetAddress;

/**
 * {@code DAT_CR_PARAM}: what {@code dat_cr_query} reports.
 *
 * @param remoteIaAddress {@code remote_ia_address_ptr}: the requester's IA
 * @param remotePortQual {@code remote_port_qual}: the requester's local qualifier
 * @param privateData {@code private_data} sent with the request (a copy; never {@code null})
 * @param localEp {@code local_ep_handle}: the reserved EP of an RSP, or the provider-created EP of a PSP,
 *     else {@code null}
 */
public record DatCrParam(InetAddress remoteIaAddress, long remotePortQual, byte[] privateData, DatEp localEp) {

    /** Copies the private data so the record stays immutable. */
    public DatCrParam {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** {@return a copy of the private data} */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
