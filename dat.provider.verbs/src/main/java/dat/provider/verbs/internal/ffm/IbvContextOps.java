// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct ibv_context_ops} (verbs.h): the function-pointer table inside {@code ibv_context}. The data-path verbs
 * ({@code ibv_post_send}, {@code ibv_post_recv},
 * {@code ibv_post_srq_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq}) and the memory-window verbs are
 * {@code static inline} in verbs.h and call through these slots; the {@code _compat_*} slots are unused placeholders.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type  field
 *      0    8  void *  _compat_query_device
 *      8    8  void *  _compat_query_port
 *     16    8  void *  _compat_alloc_pd
 *     24    8  void *  _compat_dealloc_pd
 *     32    8  void *  _compat_reg_mr
 *     40    8  void *  _compat_rereg_mr
 *     48    8  void *  _compat_dereg_mr
 *     56    8  void *  alloc_mw
 *     64    8  void *  bind_mw
 *     72    8  void *  dealloc_mw
 *     80    8  void *  _compat_create_cq
 *     88    8  void *  poll_cq
 *     96    8  void *  req_notify_cq
 *    104    8  void *  _compat_cq_event
 *    112    8  void *  _compat_resize_cq
 *    120    8  void *  _compat_destroy_cq
 *    128    8  void *  _compat_create_srq
 *    136    8  void *  _compat_modify_srq
 *    144    8  void *  _compat_query_srq
 *    152    8  void *  _compat_destroy_srq
 *    160    8  void *  post_srq_recv
 *    168    8  void *  _compat_create_qp
 *    176    8  void *  _compat_query_qp
 *    184    8  void *  _compat_modify_qp
 *    192    8  void *  _compat_destroy_qp
 *    200    8  void *  post_send
 *    208    8  void *  post_recv
 *    216    8  void *  _compat_create_ah
 *    224    8  void *  _compat_destroy_ah
 *    232    8  void *  _compat_attach_mcast
 *    240    8  void *  _compat_detach_mcast
 *    248    8  void *  _compat_async_event
 * sizeof 256, alignof 8</pre>
 */
public final class IbvContextOps {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("_compat_query_device"),
            ADDRESS.withName("_compat_query_port"),
            ADDRESS.withName("_compat_alloc_pd"),
            ADDRESS.withName("_compat_dealloc_pd"),
            ADDRESS.withName("_compat_reg_mr"),
            ADDRESS.withName("_compat_rereg_mr"),
            ADDRESS.withName("_compat_dereg_mr"),
            ADDRESS.withName("alloc_mw"),
            ADDRESS.withName("bind_mw"),
            ADDRESS.withName("dealloc_mw"),
            ADDRESS.withName("_compat_create_cq"),
            ADDRESS.withName("poll_cq"),
            ADDRESS.withName("req_notify_cq"),
            ADDRESS.withName("_compat_cq_event"),
            ADDRESS.withName("_compat_resize_cq"),
            ADDRESS.withName("_compat_destroy_cq"),
            ADDRESS.withName("_compat_create_srq"),
            ADDRESS.withName("_compat_modify_srq"),
            ADDRESS.withName("_compat_query_srq"),
            ADDRESS.withName("_compat_destroy_srq"),
            ADDRESS.withName("post_srq_recv"),
            ADDRESS.withName("_compat_create_qp"),
            ADDRESS.withName("_compat_query_qp"),
            ADDRESS.withName("_compat_modify_qp"),
            ADDRESS.withName("_compat_destroy_qp"),
            ADDRESS.withName("post_send"),
            ADDRESS.withName("post_recv"),
            ADDRESS.withName("_compat_create_ah"),
            ADDRESS.withName("_compat_destroy_ah"),
            ADDRESS.withName("_compat_attach_mcast"),
            ADDRESS.withName("_compat_detach_mcast"),
            ADDRESS.withName("_compat_async_event")).withName("struct ibv_context_ops");

    /** {@code sizeof(struct ibv_context_ops)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code alloc_mw}. */
    public static final long ALLOC_MW = NativeTypes.offset(LAYOUT, "alloc_mw");

    /** Offset of {@code bind_mw}. */
    public static final long BIND_MW = NativeTypes.offset(LAYOUT, "bind_mw");

    /** Offset of {@code dealloc_mw}. */
    public static final long DEALLOC_MW = NativeTypes.offset(LAYOUT, "dealloc_mw");

    /** Offset of {@code poll_cq}. */
    public static final long POLL_CQ = NativeTypes.offset(LAYOUT, "poll_cq");

    /** Offset of {@code req_notify_cq}. */
    public static final long REQ_NOTIFY_CQ = NativeTypes.offset(LAYOUT, "req_notify_cq");

    /** Offset of {@code post_srq_recv}. */
    public static final long POST_SRQ_RECV = NativeTypes.offset(LAYOUT, "post_srq_recv");

    /** Offset of {@code post_send}. */
    public static final long POST_SEND = NativeTypes.offset(LAYOUT, "post_send");

    /** Offset of {@code post_recv}. */
    public static final long POST_RECV = NativeTypes.offset(LAYOUT, "post_recv");

    // Every slot is a function pointer, so IbvOps.function reads any of them through this one layout: the slots'
    // own, as VerbsLayoutConsistencyTest checks member by member (and VerbsLayoutOffsetTest checks each against C).
    static final AddressLayout SLOT = NativeTypes.member(LAYOUT, "poll_cq", AddressLayout.class);

    private IbvContextOps() {
    }
}
