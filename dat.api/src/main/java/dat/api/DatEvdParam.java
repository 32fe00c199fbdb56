// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * {@code DAT_EVD_PARAM}: what {@code dat_evd_query} reports.
 *
 * @param ia {@code ia_handle}
 * @param evdQlen {@code evd_qlen}: the actual queue length, at least what was asked for
 * @param evdState {@code evd_state}: {@link #STATE_ENABLED} or {@link #STATE_DISABLED}, with
 *     {@link #STATE_WAITABLE} or {@link #STATE_UNWAITABLE}
 * @param cno {@code cno_handle}, {@code null} when none
 * @param evdFlags {@code evd_flags}: the {@link DatEvdFlags}
 */
public record DatEvdParam(DatIa ia, int evdQlen, int evdState, DatCno cno, int evdFlags) {

    /** {@code DAT_EVD_STATE_ENABLED}. */
    public static final int STATE_ENABLED = 0x01;
    /** {@code DAT_EVD_STATE_DISABLED}. */
    public static final int STATE_DISABLED = 0x02;
    /** {@code DAT_EVD_STATE_WAITABLE}. */
    public static final int STATE_WAITABLE = 0x04;
    /** {@code DAT_EVD_STATE_UNWAITABLE}. */
    public static final int STATE_UNWAITABLE = 0x08;
}
