// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_EVENT_NUMBER}: the kind of a {@link DatEvent}.
 *
 * <p>DAT 1.2 defines reason codes for the SRQ low-watermark and EP soft-high-watermark conditions
 * ({@link DatAsyncReason}) but no event number to carry them. jDAT reports them as
 * {@link #ASYNC_EVENT_SRQ_LOW_WATERMARK} (0x08006) and {@link #ASYNC_EVENT_EP_SOFT_HIGH_WATERMARK} (0x08007):
 * numbers in the asynchronous range that neither DAT 1.2 nor DAT 2.0 uses, with the DAT reason set too, so a
 * consumer can match either.
 */
public enum DatEventType {
    /** {@code DAT_DTO_COMPLETION_EVENT}. */
    DTO_COMPLETION(0x00001, DatEvdFlags.DTO),
    /** {@code DAT_RMR_BIND_COMPLETION_EVENT}. */
    RMR_BIND_COMPLETION(0x01001, DatEvdFlags.RMR_BIND),
    /** {@code DAT_CONNECTION_REQUEST_EVENT}: a {@link DatCr} arrived at a PSP or RSP. */
    CONNECTION_REQUEST_EVENT(0x02001, DatEvdFlags.CR),
    /** {@code DAT_CONNECTION_EVENT_ESTABLISHED}. */
    CONNECTION_EVENT_ESTABLISHED(0x04001, DatEvdFlags.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_PEER_REJECTED}. */
    CONNECTION_EVENT_PEER_REJECTED(0x04002, DatEvdFlags.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_NON_PEER_REJECTED}: no listener at the qualifier. */
    CONNECTION_EVENT_NON_PEER_REJECTED(0x04003, DatEvdFlags.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR}. */
    CONNECTION_EVENT_ACCEPT_COMPLETION_ERROR(0x04004, DatEvdFlags.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_DISCONNECTED}. */
    CONNECTION_EVENT_DISCONNECTED(0x04005, DatEvdFlags.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_BROKEN}. */
    CONNECTION_EVENT_BROKEN(0x04006, DatEvdFlags.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_TIMED_OUT}. */
    CONNECTION_EVENT_TIMED_OUT(0x04007, DatEvdFlags.CONNECTION),
    /** {@code DAT_CONNECTION_EVENT_UNREACHABLE}. */
    CONNECTION_EVENT_UNREACHABLE(0x04008, DatEvdFlags.CONNECTION),
    /** {@code DAT_ASYNC_ERROR_EVD_OVERFLOW}: an EVD lost an event; the handle is that EVD. */
    ASYNC_ERROR_EVD_OVERFLOW(0x08001, DatEvdFlags.ASYNC),
    /** {@code DAT_ASYNC_ERROR_IA_CATASTROPHIC}. */
    ASYNC_ERROR_IA_CATASTROPHIC(0x08002, DatEvdFlags.ASYNC),
    /** {@code DAT_ASYNC_ERROR_EP_BROKEN}. */
    ASYNC_ERROR_EP_BROKEN(0x08003, DatEvdFlags.ASYNC),
    /** {@code DAT_ASYNC_ERROR_TIMED_OUT}. */
    ASYNC_ERROR_TIMED_OUT(0x08004, DatEvdFlags.ASYNC),
    /** {@code DAT_ASYNC_ERROR_PROVIDER_INTERNAL_ERROR}. */
    ASYNC_ERROR_PROVIDER_INTERNAL_ERROR(0x08005, DatEvdFlags.ASYNC),
    /** SRQ low watermark reached (reason {@link DatAsyncReason#SRQ_LOW_WATERMARK_EVENT}); see the class note. */
    ASYNC_EVENT_SRQ_LOW_WATERMARK(0x08006, DatEvdFlags.ASYNC),
    /** EP soft high watermark reached (reason {@link DatAsyncReason#SRQ_SOFT_HIGH_WATERMARK_EVENT}). */
    ASYNC_EVENT_EP_SOFT_HIGH_WATERMARK(0x08007, DatEvdFlags.ASYNC),
    /** {@code DAT_SOFTWARE_EVENT}: posted with {@code dat_evd_post_se}. */
    SOFTWARE_EVENT(0x10001, DatEvdFlags.SOFTWARE);

    private final int value;
    private final int evdFlag;

    DatEventType(int value, int evdFlag) {
        this.value = value;
        this.evdFlag = evdFlag;
    }

    /** {@return the {@code DAT_EVENT_NUMBER}} */
    public int value() {
        return value;
    }

    /** {@return the {@link DatEvdFlags} bit an EVD needs to receive this kind of event} */
    public int evdFlag() {
        return evdFlag;
    }
}
