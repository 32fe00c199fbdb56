// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct ibv_qp_init_attr} (verbs.h): the argument of {@code ibv_create_qp} / {@code rdma_create_qp}.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type             field
 *      0    8  void *             qp_context
 *      8    8  struct ibv_cq *    send_cq
 *     16    8  struct ibv_cq *    recv_cq
 *     24    8  struct ibv_srq *   srq
 *     32   20  struct ibv_qp_cap  cap
 *     52    4  enum ibv_qp_type   qp_type
 *     56    4  int                sq_sig_all
 * sizeof 64, alignof 8</pre>
 */
public final class IbvQpInitAttr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            IbvQpCap.LAYOUT.withName("cap"),
            JAVA_INT.withName("qp_type"),
            JAVA_INT.withName("sq_sig_all"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_qp_init_attr");

    /** {@code sizeof(struct ibv_qp_init_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code qp_context}. */
    public static final long QP_CONTEXT = NativeTypes.offset(LAYOUT, "qp_context");

    /** Offset of {@code send_cq}. */
    public static final long SEND_CQ = NativeTypes.offset(LAYOUT, "send_cq");

    /** Offset of {@code recv_cq}. */
    public static final long RECV_CQ = NativeTypes.offset(LAYOUT, "recv_cq");

    /** Offset of {@code srq}. */
    public static final long SRQ = NativeTypes.offset(LAYOUT, "srq");

    /** Offset of {@code cap}. */
    public static final long CAP = NativeTypes.offset(LAYOUT, "cap");

    /** Offset of {@code qp_type}. */
    public static final long QP_TYPE = NativeTypes.offset(LAYOUT, "qp_type");

    /** Offset of {@code sq_sig_all}. */
    public static final long SQ_SIG_ALL = NativeTypes.offset(LAYOUT, "sq_sig_all");

    private IbvQpInitAttr() {
    }
}
