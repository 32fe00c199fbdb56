// SPDX-License-Identifier: Apache-2.0
package dat.api;

import java.net.InetAddress;

/**
 * An Endpoint: {@code DAT_EP_HANDLE}, one end of a reliable connection, with a request queue and either its
 * own receive queue or an {@link DatSrq}.
 *
 * <p>The four posts are the data path: they return a DAT status ({@code 0} is {@link DatReturn#DAT_SUCCESS},
 * every error is negative), never throw for a DAT condition and allocate nothing. Everything else is the
 * control path and throws {@link DatException}.
 *
 * <p>States follow {@link DatEpState}: UNCONNECTED &rarr; (connect) ACTIVE_CONNECTION_PENDING or (accept)
 * COMPLETION_PENDING &rarr; CONNECTED &rarr; DISCONNECT_PENDING &rarr; DISCONNECTED &rarr; (reset)
 * UNCONNECTED. Posts are valid in CONNECTED and DISCONNECTED (where they are flushed at once); receives may
 * also be pre-posted in UNCONNECTED and the pending states.
 *
 * <p>Queue depth: a request (send, RDMA, bind) holds its slot of {@code max_request_dtos} from the post until
 * its completion is dequeued from the request EVD (or, when its completion is suppressed, until it completes),
 * as a verbs send queue slot is freed only when its completion is polled. Receives likewise hold a slot of
 * {@code max_recv_dtos}. A post into a full queue returns {@link DatReturn#DAT_INSUFFICIENT_RESOURCES}.
 */
public interface DatEp extends DatHandle {

    /** {@return the current state, a cheap read (the state part of {@code dat_ep_get_status})} */
    DatEpState state();

    /**
     * {@code dat_ep_get_status}.
     *
     * @return state and whether the receive and request queues are idle
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    DatEpStatus getStatus();

    /**
     * {@code dat_ep_query}.
     *
     * @return the EP parameters, including the actual {@link DatEpAttr}
     * @throws DatException {@link DatReturn#INVALID_HANDLE}
     */
    DatEpParam query();

    /**
     * {@code dat_ep_modify}: changes the EP attributes; allowed in {@link DatEpState#UNCONNECTED} and
     * {@link DatEpState#TENTATIVE_CONNECTION_PENDING}.
     *
     * @param attr the new attributes
     * @throws DatException {@link DatReturn#INVALID_STATE} in any other state,
     *     {@link DatReturn#INVALID_PARAMETER} for values over the IA limits or below what is already posted
     */
    void modify(DatEpAttr attr);

    /**
     * {@code dat_ep_connect}: asks for a connection; the outcome arrives on the connect EVD as
     * {@link DatEventType#CONNECTION_EVENT_ESTABLISHED} or a rejection, timeout or unreachable event.
     *
     * @param remoteIaAddress the peer IA's address
     * @param remoteConnQual the peer's PSP or RSP qualifier
     * @param timeoutMicros connection timeout, {@link Dat#DAT_TIMEOUT_INFINITE} for none
     * @param privateData sent with the request, at most {@code max_private_data_size} bytes, or
     *     {@code null}
     * @param qos requested quality of service
     * @param connectFlags {@link DatConnectFlags}
     * @throws DatException {@link DatReturn#INVALID_STATE} unless UNCONNECTED,
     *     {@link DatReturn#INVALID_PARAMETER} for too much private data or unknown flags,
     *     {@link DatReturn#INVALID_ADDRESS} for an address no IA of this provider has,
     *     {@link DatReturn#MODEL_NOT_SUPPORTED} for an unsupported QoS
     */
    void connect(InetAddress remoteIaAddress, long remoteConnQual, long timeoutMicros, byte[] privateData,
                 DatQos qos, int connectFlags);

    /**
     * {@code dat_ep_dup_connect}: connects to the same remote as {@code dupEp}.
     *
     * @param dupEp a connected EP whose remote end is the target
     * @param timeoutMicros connection timeout
     * @param privateData sent with the request, or {@code null}
     * @param qos requested quality of service
     * @throws DatException as {@link #connect}; {@link DatReturn#INVALID_STATE} when {@code dupEp} is not
     *     connected
     */
    void dupConnect(DatEp dupEp, long timeoutMicros, byte[] privateData, DatQos qos);

    /**
     * {@code dat_ep_disconnect}.
     *
     * <p>Graceful: outstanding requests complete first, then both sides get
     * {@link DatEventType#CONNECTION_EVENT_DISCONNECTED}. Abrupt: every outstanding DTO is flushed with
     * {@link DatDtoStatus#FLUSHED} and the EP goes to DISCONNECTED at once. Either way, receives not completed
     * by then (including SRQ buffers the EP holds) are flushed to the recv EVD.
     *
     * @param flags graceful or abrupt
     * @throws DatException {@link DatReturn#INVALID_STATE} in UNCONNECTED or RESERVED
     */
    void disconnect(DatCloseFlags flags);

    /**
     * {@code dat_ep_reset}: DISCONNECTED &rarr; UNCONNECTED, so the EP can connect again.
     *
     * @throws DatException {@link DatReturn#INVALID_STATE} unless DISCONNECTED (or already UNCONNECTED)
     */
    void reset();

    /**
     * {@code dat_ep_post_send}: sends the data of {@code localIov[0..numSegments)}, traversed in order.
     *
     * @param numSegments triplets to send, 0 for a zero-size message
     * @param localIov the gather list, may be {@code null} when {@code numSegments} is 0
     * @param userCookie returned in the completion
     * @param completionFlags {@link DatCompletionFlags}: SUPPRESS, SOLICITED_WAIT, UNSIGNALLED (only if the
     *     EP's request completion flags allow it), BARRIER_FENCE
     * @return {@link DatReturn#DAT_SUCCESS}; {@link DatReturn#DAT_INVALID_PARAMETER} for a segment outside its
     *     LMR, a count over {@code max_request_iov}, more than {@code max_message_size} bytes, unknown flags, a
     *     flag {@link DatProviderAttr#completionFlagsSupported()} denies, or UNSIGNALLED on an EP not configured
     *     for it (the page's code for a bad argument: it lists neither DAT_LENGTH_ERROR nor
     *     DAT_MODEL_NOT_SUPPORTED); {@link DatReturn#DAT_INVALID_STATE} unless CONNECTED or DISCONNECTED;
     *     {@link DatReturn#DAT_PROTECTION_VIOLATION} for an LMR of another PZ;
     *     {@link DatReturn#DAT_PRIVILEGES_VIOLATION} for an unknown LMR or one without local read;
     *     {@link DatReturn#DAT_INSUFFICIENT_RESOURCES} when the request queue is full;
     *     {@link DatReturn#DAT_INVALID_HANDLE} when the EP is closed
     */
    int postSend(int numSegments, Iov localIov, long userCookie, int completionFlags);

    /**
     * {@code dat_ep_post_recv}: posts a buffer for one incoming message, filled in IOV order.
     *
     * @param numSegments triplets to fill, 0 for a zero-size message
     * @param localIov the scatter list, may be {@code null} when {@code numSegments} is 0
     * @param userCookie returned in the completion
     * @param completionFlags {@link DatCompletionFlags#DEFAULT} or {@link DatCompletionFlags#SUPPRESS} (as the
     *     EP's recv completion flags allow)
     * @return as {@link #postSend}, with local write privilege required; also
     *     {@link DatReturn#DAT_INVALID_STATE} on an EP that uses an SRQ
     */
    int postRecv(int numSegments, Iov localIov, long userCookie, int completionFlags);

    /**
     * {@code dat_ep_post_rdma_read}: reads the remote buffer into {@code localIov}.
     *
     * @param numSegments triplets to fill
     * @param localIov the local scatter list
     * @param userCookie returned in the completion
     * @param rmrContext the remote buffer's {@code rmr_context}
     * @param targetAddress the remote buffer's {@code target_address}
     * @param segmentLength the remote buffer's {@code segment_length}
     * @param completionFlags {@link DatCompletionFlags}
     * @return as {@link #postSend}, with local write privilege required on the local LMRs;
     *     {@link DatReturn#DAT_LENGTH_ERROR} when the local buffer is smaller than the remote one or more than
     *     {@code max_rdma_size} bytes are asked for; {@link DatReturn#DAT_PROTECTION_VIOLATION} when the
     *     {@code rmr_context} belongs to another PZ than the remote EP's and
     *     {@link DatReturn#DAT_PRIVILEGES_VIOLATION} when it lacks remote read, where the provider can tell at post
     *     time (else the DTO completes with {@link DatDtoStatus#REMOTE_ACCESS_ERR})
     */
    int postRdmaRead(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                     long segmentLength, int completionFlags);

    /**
     * {@code dat_ep_post_rdma_write}: writes all data of {@code localIov}, traversed in order, into the
     * remote buffer.
     *
     * @param numSegments triplets to send
     * @param localIov the local gather list
     * @param userCookie returned in the completion
     * @param rmrContext the remote buffer's {@code rmr_context}
     * @param targetAddress the remote buffer's {@code target_address}
     * @param segmentLength the remote buffer's {@code segment_length}
     * @param completionFlags {@link DatCompletionFlags}
     * @return as {@link #postSend}; {@link DatReturn#DAT_LENGTH_ERROR} when the remote buffer is too small
     *     for the local data or the data exceeds {@code max_rdma_size}; {@link DatReturn#DAT_PROTECTION_VIOLATION}
     *     when the {@code rmr_context} belongs to another PZ than the remote EP's and
     *     {@link DatReturn#DAT_PRIVILEGES_VIOLATION} when it lacks remote write, where the provider can tell at
     *     post time; a transport that learns it only at the target completes the DTO with
     *     {@link DatDtoStatus#REMOTE_ACCESS_ERR} instead. An unknown {@code rmr_context} or a target outside its
     *     region always ends in {@link DatDtoStatus#REMOTE_ACCESS_ERR}, and no byte is written
     */
    int postRdmaWrite(int numSegments, Iov localIov, long userCookie, int rmrContext, long targetAddress,
                      long segmentLength, int completionFlags);

    /**
     * {@code dat_ep_recv_query}: one consistent snapshot of the receive buffers the EP holds.
     *
     * @param which {@link Dat#DAT_EP_RECV_INFO_NBUFS_ALLOCATED} and/or
     *     {@link Dat#DAT_EP_RECV_INFO_BUFS_ALLOC_SPAN}: the Java form of passing a non-NULL pointer
     * @return the counts; a count not asked for, or one the provider cannot obtain at a reasonable cost
     *     (see {@link DatProviderAttr#epRecvInfoSupported()}), is {@link Dat#DAT_VALUE_UNKNOWN}
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} when {@code which} is 0 or has other bits,
     *     {@link DatReturn#MODEL_NOT_SUPPORTED} when the provider supports neither count,
     *     {@link DatReturn#INVALID_HANDLE}
     */
    DatEpRecvInfo recvQuery(int which);

    /**
     * {@code dat_ep_set_watermark}: sets the soft and hard high watermarks of receive buffers an EP on an SRQ
     * may hold. Reaching the soft one posts {@link DatEventType#ASYNC_EVENT_EP_SOFT_HIGH_WATERMARK}; past the
     * hard one the connection is broken.
     *
     * @param softHighWatermark the soft watermark, or {@link Dat#DAT_WATERMARK_INFINITE}
     * @param hardHighWatermark the hard watermark, or {@link Dat#DAT_WATERMARK_INFINITE}
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for negative values or soft above hard,
     *     {@link DatReturn#MODEL_NOT_SUPPORTED} when the provider cannot count buffers per EP
     */
    void setWatermark(int softHighWatermark, int hardHighWatermark);
}
