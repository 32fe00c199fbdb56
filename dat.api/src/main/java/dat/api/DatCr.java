// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * A Connection Request: {@code DAT_CR_HANDLE}, delivered in a {@link DatEventType#CONNECTION_REQUEST_EVENT}.
 * It is consumed by exactly one of {@link #accept}, {@link #reject} or {@link #handoff}; {@link #close()} on
 * a pending request rejects it.
 */
public interface DatCr extends DatHandle {

    /**
     * {@code dat_cr_query}.
     *
     * @return the request parameters: remote address, qualifier, private data, reserved EP
     * @throws DatException {@link DatReturn#INVALID_HANDLE} once consumed
     */
    DatCrParam query();

    /**
     * {@code dat_cr_accept}: connects {@code ep} (for a PSP) or the RSP's reserved EP ({@code ep} then
     * {@code null} or that EP) to the requester. Both sides then get
     * {@link DatEventType#CONNECTION_EVENT_ESTABLISHED}.
     *
     * @param ep an UNCONNECTED EP of the same IA (or {@code null} for an RSP)
     * @param privateData returned to the requester, or {@code null}
     * @throws DatException {@link DatReturn#INVALID_STATE} when the EP is not unconnected,
     *     {@link DatReturn#INVALID_PARAMETER} for too much private data, {@link DatReturn#INVALID_HANDLE}
     */
    void accept(DatEp ep, byte[] privateData);

    /**
     * {@code dat_cr_reject}: the requester gets {@link DatEventType#CONNECTION_EVENT_PEER_REJECTED}.
     *
     * @throws DatException {@link DatReturn#INVALID_HANDLE} once consumed
     */
    void reject();

    /**
     * {@code dat_cr_handoff}: passes the request to the PSP listening on {@code handoffConnQual} of the same
     * IA, which gets a new connection request event.
     *
     * @param handoffConnQual the qualifier of the PSP to hand off to
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} when nothing listens there,
     *     {@link DatReturn#INVALID_HANDLE}
     */
    void handoff(long handoffConnQual);
}
