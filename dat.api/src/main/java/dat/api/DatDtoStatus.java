// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_DTO_COMPLETION_STATUS}: how a DTO or RMR bind ended.
 *
 * <p>The ordinal of each constant is its DAT 1.2 numeric value.
 */
public enum DatDtoStatus {
    /** {@code DAT_DTO_SUCCESS} = 0 (also {@code DAT_RMR_BIND_SUCCESS}). */
    SUCCESS,
    /**
     * {@code DAT_DTO_ERR_FLUSHED} = 1: never executed; the EP left CONNECTED first (also
     * {@code DAT_RMR_BIND_FAILURE}).
     */
    FLUSHED,
    /** {@code DAT_DTO_ERR_LOCAL_LENGTH} = 2: the receive buffer was too small for the message. */
    LOCAL_LENGTH_ERR,
    /** {@code DAT_DTO_ERR_LOCAL_EP} = 3. */
    LOCAL_EP_ERR,
    /** {@code DAT_DTO_ERR_LOCAL_PROTECTION} = 4: local memory failed a PZ or privilege check. */
    LOCAL_PROTECTION_ERR,
    /** {@code DAT_DTO_ERR_BAD_RESPONSE} = 5. */
    BAD_RESPONSE,
    /** {@code DAT_DTO_ERR_REMOTE_ACCESS} = 6: the RMR context, bounds, PZ or privileges refused the access. */
    REMOTE_ACCESS_ERR,
    /** {@code DAT_DTO_ERR_REMOTE_RESPONDER} = 7. */
    REMOTE_RESPONDER_ERR,
    /** {@code DAT_DTO_ERR_TRANSPORT} = 8. */
    TRANSPORT_ERR,
    /** {@code DAT_DTO_ERR_RECEIVER_NOT_READY} = 9. */
    RECEIVER_NOT_READY,
    /** {@code DAT_DTO_ERR_PARTIAL_PACKET} = 10. */
    PARTIAL_PACKET,
    /** {@code DAT_RMR_OPERATION_FAILED} = 11. */
    RMR_OPERATION_FAILED;

    private static final DatDtoStatus[] BY_VALUE = values();

    /**
     * {@return the status, without allocating}
     *
     * @param value a DAT 1.2 completion status value
     * @throws IndexOutOfBoundsException for a value DAT 1.2 does not define
     */
    public static DatDtoStatus of(int value) {
        return BY_VALUE[value];
    }

    /** {@return the DAT 1.2 numeric value} */
    public int value() {
        return ordinal();
    }
}
