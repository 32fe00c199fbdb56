// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_EP_STATE}: where an endpoint is in its connection life cycle.
 *
 * <p>The ordinal of each constant is its DAT 1.2 numeric value.
 */
public enum DatEpState {
    /** {@code DAT_EP_STATE_UNCONNECTED} = 0: created or reset; may connect or be accepted. */
    UNCONNECTED,
    /** {@code DAT_EP_STATE_UNCONFIGURED_UNCONNECTED} = 1: created by a provider for a PSP, not yet usable. */
    UNCONFIGURED_UNCONNECTED,
    /** {@code DAT_EP_STATE_RESERVED} = 2: bound to an RSP, waiting for its request. */
    RESERVED,
    /** {@code DAT_EP_STATE_UNCONFIGURED_RESERVED} = 3. */
    UNCONFIGURED_RESERVED,
    /** {@code DAT_EP_STATE_PASSIVE_CONNECTION_PENDING} = 4: a request arrived for this EP. */
    PASSIVE_CONNECTION_PENDING,
    /** {@code DAT_EP_STATE_UNCONFIGURED_PASSIVE} = 5. */
    UNCONFIGURED_PASSIVE,
    /** {@code DAT_EP_STATE_ACTIVE_CONNECTION_PENDING} = 6: {@code dat_ep_connect} is in progress. */
    ACTIVE_CONNECTION_PENDING,
    /** {@code DAT_EP_STATE_TENTATIVE_CONNECTION_PENDING} = 7: a provider-created EP awaiting accept. */
    TENTATIVE_CONNECTION_PENDING,
    /** {@code DAT_EP_STATE_UNCONFIGURED_TENTATIVE} = 8. */
    UNCONFIGURED_TENTATIVE,
    /** {@code DAT_EP_STATE_CONNECTED} = 9: DTOs flow. */
    CONNECTED,
    /** {@code DAT_EP_STATE_DISCONNECT_PENDING} = 10: a graceful disconnect waits for outstanding requests. */
    DISCONNECT_PENDING,
    /** {@code DAT_EP_STATE_DISCONNECTED} = 11 (also {@code DAT_EP_STATE_ERROR}): posts are flushed at once. */
    DISCONNECTED,
    /** {@code DAT_EP_STATE_COMPLETION_PENDING} = 12: accepted locally, waiting for the peer. */
    COMPLETION_PENDING;

    /** {@return the DAT 1.2 numeric value} */
    public int value() {
        return ordinal();
    }
}
