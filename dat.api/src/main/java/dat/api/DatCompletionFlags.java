// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_COMPLETION_FLAGS}: how a DTO completes, given per post and, for an EP, as its default
 * {@code recv_completion_flags} and {@code request_completion_flags}.
 */
public final class DatCompletionFlags {

    private DatCompletionFlags() {
    }

    /** {@code DAT_COMPLETION_DEFAULT_FLAG}: a signalled completion event for every DTO. */
    public static final int DEFAULT = 0x00;
    /** {@code DAT_COMPLETION_SUPPRESS_FLAG}: no completion event when the DTO succeeds. */
    public static final int SUPPRESS = 0x01;
    /** {@code DAT_COMPLETION_SOLICITED_WAIT_FLAG}: the matching receive on the peer completes solicited. */
    public static final int SOLICITED_WAIT = 0x02;
    /**
     * {@code DAT_COMPLETION_UNSIGNALLED_FLAG}: the completion is queued but does not wake a waiter. Valid on a
     * post only when the EP's request completion flags include it, else {@code DAT_INVALID_PARAMETER}.
     */
    public static final int UNSIGNALLED = 0x04;
    /** {@code DAT_COMPLETION_BARRIER_FENCE_FLAG}: the DTO starts only after earlier RDMA reads complete. */
    public static final int BARRIER_FENCE = 0x08;
    /**
     * {@code DAT_COMPLETION_EVD_THRESHOLD_FLAG}: an EP recv attribute; completions are signalled and the
     * {@code dat_evd_wait} threshold decides when the waiter wakes.
     */
    public static final int EVD_THRESHOLD = 0x10;

    /** Every flag DAT 1.2 defines. */
    public static final int ALL = SUPPRESS | SOLICITED_WAIT | UNSIGNALLED | BARRIER_FENCE | EVD_THRESHOLD;

    /** The flags a single post may carry. */
    public static final int POST_FLAGS = SUPPRESS | SOLICITED_WAIT | UNSIGNALLED | BARRIER_FENCE;
}
