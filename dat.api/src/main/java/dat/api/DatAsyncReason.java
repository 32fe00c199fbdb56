// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * The {@code reason} of an asynchronous event ({@code DAT_ASYNCH_ERROR_EVENT_DATA.reason}). Its meaning
 * depends on the kind of handle the event names, so the values repeat across kinds, as in DAT 1.2.
 */
public final class DatAsyncReason {

    private DatAsyncReason() {
    }

    /** IA: {@code DAT_IA_CATASTROPHIC_ERROR}. */
    public static final int IA_CATASTROPHIC_ERROR = 0;
    /** IA: {@code DAT_IA_OTHER_ERROR}. */
    public static final int IA_OTHER_ERROR = 1;
    /** EP: {@code DAT_EP_TRANSFER_TO_ERROR}. */
    public static final int EP_TRANSFER_TO_ERROR = 0;
    /** EP: {@code DAT_EP_OTHER_ERROR}. */
    public static final int EP_OTHER_ERROR = 1;
    /** EP: {@code DAT_SRQ_SOFT_HIGH_WATERMARK_EVENT}: the EP holds more SRQ buffers than its soft watermark. */
    public static final int SRQ_SOFT_HIGH_WATERMARK_EVENT = 2;
    /** EVD: {@code DAT_EVD_OVERFLOW_ERROR}. */
    public static final int EVD_OVERFLOW_ERROR = 0;
    /** EVD: {@code DAT_EVD_OTHER_ERROR}. */
    public static final int EVD_OTHER_ERROR = 1;
    /** SRQ: {@code DAT_SRQ_TRANSFER_TO_ERROR}. */
    public static final int SRQ_TRANSFER_TO_ERROR = 0;
    /** SRQ: {@code DAT_SRQ_OTHER_ERROR}. */
    public static final int SRQ_OTHER_ERROR = 1;
    /** SRQ: {@code DAT_SRQ_LOW_WATERMARK_EVENT}: fewer buffers on the SRQ than its low watermark. */
    public static final int SRQ_LOW_WATERMARK_EVENT = 2;
}
