// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * A Reserved Service Point: {@code DAT_RSP_HANDLE}, a listener for a single connection to one reserved EP.
 * It stops listening after the first request.
 */
public interface DatRsp extends DatHandle {

    /** {@return the connection qualifier listened on} */
    long connQual();

    /**
     * {@code dat_rsp_query}.
     *
     * @return the RSP parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    DatRspParam query();
}
