// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

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

    /** Offset of {@code cap.max_send_wr}. */
    public static final long CAP_MAX_SEND_WR = NativeTypes.offset(LAYOUT, "cap.max_send_wr");

    /** Offset of {@code cap.max_recv_wr}. */
    public static final long CAP_MAX_RECV_WR = NativeTypes.offset(LAYOUT, "cap.max_recv_wr");

    /** Offset of {@code cap.max_send_sge}. */
    public static final long CAP_MAX_SEND_SGE = NativeTypes.offset(LAYOUT, "cap.max_send_sge");

    /** Offset of {@code cap.max_recv_sge}. */
    public static final long CAP_MAX_RECV_SGE = NativeTypes.offset(LAYOUT, "cap.max_recv_sge");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final AddressLayout QP_CONTEXT$LAYOUT = NativeTypes.member(LAYOUT, "qp_context", AddressLayout.class);
    static final AddressLayout SEND_CQ$LAYOUT = NativeTypes.member(LAYOUT, "send_cq", AddressLayout.class);
    static final AddressLayout RECV_CQ$LAYOUT = NativeTypes.member(LAYOUT, "recv_cq", AddressLayout.class);
    static final AddressLayout SRQ$LAYOUT = NativeTypes.member(LAYOUT, "srq", AddressLayout.class);
    static final ValueLayout.OfInt CAP_MAX_SEND_WR$LAYOUT =
            NativeTypes.member(LAYOUT, "cap.max_send_wr", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt CAP_MAX_RECV_WR$LAYOUT =
            NativeTypes.member(LAYOUT, "cap.max_recv_wr", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt CAP_MAX_SEND_SGE$LAYOUT =
            NativeTypes.member(LAYOUT, "cap.max_send_sge", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt CAP_MAX_RECV_SGE$LAYOUT =
            NativeTypes.member(LAYOUT, "cap.max_recv_sge", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt QP_TYPE$LAYOUT = NativeTypes.member(LAYOUT, "qp_type", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt SQ_SIG_ALL$LAYOUT =
            NativeTypes.member(LAYOUT, "sq_sig_all", ValueLayout.OfInt.class);

    /**
     * Sets {@code qp_context} ({@code void *}).
     *
     * @param struct a {@code struct ibv_qp_init_attr}
     * @param value the new value
     */
    public static void qpContext(MemorySegment struct, MemorySegment value) {
        struct.set(QP_CONTEXT$LAYOUT, QP_CONTEXT, value);
    }

    /**
     * Sets {@code send_cq} ({@code struct ibv_cq *}).
     *
     * @param struct a {@code struct ibv_qp_init_attr}
     * @param value the new value
     */
    public static void sendCq(MemorySegment struct, MemorySegment value) {
        struct.set(SEND_CQ$LAYOUT, SEND_CQ, value);
    }

    /**
     * Sets {@code recv_cq} ({@code struct ibv_cq *}).
     *
     * @param struct a {@code struct ibv_qp_init_attr}
     * @param value the new value
     */
    public static void recvCq(MemorySegment struct, MemorySegment value) {
        struct.set(RECV_CQ$LAYOUT, RECV_CQ, value);
    }

    /**
     * Sets {@code srq} ({@code struct ibv_srq *}).
     *
     * @param struct a {@code struct ibv_qp_init_attr}
     * @param value the new value
     */
    public static void srq(MemorySegment struct, MemorySegment value) {
        struct.set(SRQ$LAYOUT, SRQ, value);
    }

    /**
     * Sets {@code cap.max_send_wr} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct ibv_qp_init_attr}
     * @param value the new value
     */
    public static void capMaxSendWr(MemorySegment struct, int value) {
        struct.set(CAP_MAX_SEND_WR$LAYOUT, CAP_MAX_SEND_WR, value);
    }

    /**
     * Sets {@code cap.max_recv_wr} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct ibv_qp_init_attr}
     * @param value the new value
     */
    public static void capMaxRecvWr(MemorySegment struct, int value) {
        struct.set(CAP_MAX_RECV_WR$LAYOUT, CAP_MAX_RECV_WR, value);
    }

    /**
     * Sets {@code cap.max_send_sge} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct ibv_qp_init_attr}
     * @param value the new value
     */
    public static void capMaxSendSge(MemorySegment struct, int value) {
        struct.set(CAP_MAX_SEND_SGE$LAYOUT, CAP_MAX_SEND_SGE, value);
    }

    /**
     * Sets {@code cap.max_recv_sge} ({@code uint32_t}, unsigned).
     *
     * @param struct a {@code struct ibv_qp_init_attr}
     * @param value the new value
     */
    public static void capMaxRecvSge(MemorySegment struct, int value) {
        struct.set(CAP_MAX_RECV_SGE$LAYOUT, CAP_MAX_RECV_SGE, value);
    }

    /**
     * Sets {@code qp_type} ({@code enum ibv_qp_type}).
     *
     * @param struct a {@code struct ibv_qp_init_attr}
     * @param value the new value
     */
    public static void qpType(MemorySegment struct, int value) {
        struct.set(QP_TYPE$LAYOUT, QP_TYPE, value);
    }

    /**
     * Sets {@code sq_sig_all} ({@code int}).
     *
     * @param struct a {@code struct ibv_qp_init_attr}
     * @param value the new value
     */
    public static void sqSigAll(MemorySegment struct, int value) {
        struct.set(SQ_SIG_ALL$LAYOUT, SQ_SIG_ALL, value);
    }

    private IbvQpInitAttr() {
    }
}
