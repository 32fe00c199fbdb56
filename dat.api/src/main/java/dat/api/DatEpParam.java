// SPDX-License-Identifier: Apache-2.0
package dat.api;

import java.net.InetAddress;

/**
 * {@code DAT_EP_PARAM}: what {@code dat_ep_query} reports.
 *
 * @param ia {@code ia_handle}
 * @param epState {@code ep_state}
 * @param localIaAddress {@code local_ia_address_ptr}
 * @param localPortQual {@code local_port_qual}: the local qualifier of the connection, 0 when unconnected
 * @param remoteIaAddress {@code remote_ia_address_ptr}, {@code null} when unconnected
 * @param remotePortQual {@code remote_port_qual}, 0 when unconnected
 * @param pz {@code pz_handle}
 * @param recvEvd {@code recv_evd_handle}, may be {@code null}
 * @param requestEvd {@code request_evd_handle}, may be {@code null}
 * @param connectEvd {@code connect_evd_handle}, may be {@code null}
 * @param srq {@code srq_handle}, {@code null} for an EP with its own receive queue
 * @param epAttr {@code ep_attr}: the actual attributes
 */
public record DatEpParam(DatIa ia, DatEpState epState, InetAddress localIaAddress, long localPortQual,
                         InetAddress remoteIaAddress, long remotePortQual, DatPz pz, DatEvd recvEvd,
                         DatEvd requestEvd, DatEvd connectEvd, DatSrq srq, DatEpAttr epAttr) {
}
