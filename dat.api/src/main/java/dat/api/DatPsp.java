// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * A Public Service Point: {@code DAT_PSP_HANDLE}, a listener that turns incoming connection requests into
 * {@link DatEventType#CONNECTION_REQUEST_EVENT}s carrying a {@link DatCr}.
 */
public interface DatPsp extends DatHandle {

    /** {@return the connection qualifier listened on} */
    long connQual();

    /**
     * {@code dat_psp_query}.
     *
     * @return the PSP parameters
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    DatPspParam query();
}
