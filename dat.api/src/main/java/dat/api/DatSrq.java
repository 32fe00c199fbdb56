// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * A Shared Receive Queue: {@code DAT_SRQ_HANDLE}. Receive buffers posted here can be taken by any connected EP
 * created with {@link DatIa#createEpWithSrq}.
 *
 * <p>A buffer is <em>outstanding</em> from the moment it is posted until the consumer reaps its completion:
 * on the SRQ, held by an EP, or completed but not yet dequeued from a recv EVD. {@link #resize} never goes
 * below that count, so no buffer is ever lost.
 */
public interface DatSrq extends DatHandle {

    /**
     * {@code dat_srq_post_recv}: adds a receive buffer, filled in IOV order when a message lands: every front
     * segment full, at most one partly filled, the rest untouched.
     *
     * <p>Valid in every SRQ state. The buffer has no completion flag of its own: the EP that takes it
     * decides how the receive completes.
     *
     * @param numSegments triplets in the buffer, 0 for a zero-size message
     * @param localIov the scatter list, may be {@code null} when {@code numSegments} is 0
     * @param userCookie returned in the receive completion
     * @return {@link DatReturn#DAT_SUCCESS}; {@link DatReturn#DAT_INVALID_PARAMETER} for a segment outside its
     *     LMR or more than {@code max_recv_iov} segments; {@link DatReturn#DAT_PROTECTION_VIOLATION} for an
     *     LMR of another PZ than the SRQ's; {@link DatReturn#DAT_PRIVILEGES_VIOLATION} for an unknown LMR or
     *     one without local write; {@link DatReturn#DAT_INSUFFICIENT_RESOURCES} when the queue is full;
     *     {@link DatReturn#DAT_INVALID_HANDLE} when the SRQ is closed
     */
    int postRecv(int numSegments, Iov localIov, long userCookie);

    /**
     * {@code dat_srq_resize}.
     *
     * @param srqMaxRecvDto the new maximum number of receive DTOs the SRQ must hold
     * @throws DatException {@link DatReturn#INVALID_STATE} when more buffers are outstanding than
     *     {@code srqMaxRecvDto} or it is below the low watermark (the SRQ is unchanged);
     *     {@link DatReturn#INVALID_PARAMETER} when it is below 1; {@link DatReturn#INSUFFICIENT_RESOURCES} when it
     *     is above the IA's {@code max_recv_per_srq}; {@link DatReturn#INVALID_HANDLE}
     */
    void resize(int srqMaxRecvDto);

    /**
     * {@code dat_srq_set_lw}: arms the low watermark. When the number of buffers on the SRQ falls below it,
     * one {@link DatEventType#ASYNC_EVENT_SRQ_LOW_WATERMARK} is posted to the IA's async EVD, and the
     * watermark disarms until set again. {@link Dat#DAT_SRQ_LW_DEFAULT} disarms it.
     *
     * @param lowWatermark the watermark
     * @throws DatException {@link DatReturn#MODEL_NOT_SUPPORTED} when
     *     {@link DatProviderAttr#srqWatermarksSupported()} is false; {@link DatReturn#INVALID_PARAMETER} for
     *     a value below 0 or above {@code max_recv_dtos}; {@link DatReturn#INVALID_HANDLE}
     */
    void setLowWatermark(int lowWatermark);

    /**
     * {@code dat_srq_query}.
     *
     * @return the SRQ parameters; {@code available_dto_count} and {@code outstanding_dto_count} are real
     *     counts where {@link DatProviderAttr#srqInfoSupported()} says so, else {@link Dat#DAT_VALUE_UNKNOWN}
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    DatSrqParam query();
}
