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
 * {@code struct ibv_qp} (verbs.h): a queue pair (DAT EP, RC).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler. The pthread types are 48 bytes on aarch64, which moves the fields after them.
 *
 * <pre>
 * offset size  C type                field
 *      0    8  struct ibv_context *  context
 *      8    8  void *                qp_context
 *     16    8  struct ibv_pd *       pd
 *     24    8  struct ibv_cq *       send_cq
 *     32    8  struct ibv_cq *       recv_cq
 *     40    8  struct ibv_srq *      srq
 *     48    4  uint32_t              handle
 *     52    4  uint32_t              qp_num
 *     56    4  enum ibv_qp_state     state
 *     60    4  enum ibv_qp_type      qp_type
 *     64   40  pthread_mutex_t       mutex
 *    104   48  pthread_cond_t        cond
 *    152    4  uint32_t              events_completed
 * sizeof 160, alignof 8</pre>
 */
public final class IbvQp {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("state"),
            JAVA_INT.withName("qp_type"),
            NativeTypes.PTHREAD_MUTEX_T.withName("mutex"),
            NativeTypes.PTHREAD_COND_T.withName("cond"),
            JAVA_INT.withName("events_completed"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_qp");

    /** {@code sizeof(struct ibv_qp)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code context}. */
    public static final long CONTEXT = NativeTypes.offset(LAYOUT, "context");

    /** Offset of {@code qp_context}. */
    public static final long QP_CONTEXT = NativeTypes.offset(LAYOUT, "qp_context");

    /** Offset of {@code pd}. */
    public static final long PD = NativeTypes.offset(LAYOUT, "pd");

    /** Offset of {@code send_cq}. */
    public static final long SEND_CQ = NativeTypes.offset(LAYOUT, "send_cq");

    /** Offset of {@code recv_cq}. */
    public static final long RECV_CQ = NativeTypes.offset(LAYOUT, "recv_cq");

    /** Offset of {@code srq}. */
    public static final long SRQ = NativeTypes.offset(LAYOUT, "srq");

    /** Offset of {@code handle}. */
    public static final long HANDLE = NativeTypes.offset(LAYOUT, "handle");

    /** Offset of {@code qp_num}. */
    public static final long QP_NUM = NativeTypes.offset(LAYOUT, "qp_num");

    /** Offset of {@code state}. */
    public static final long STATE = NativeTypes.offset(LAYOUT, "state");

    /** Offset of {@code qp_type}. */
    public static final long QP_TYPE = NativeTypes.offset(LAYOUT, "qp_type");

    /** Offset of {@code mutex}. */
    public static final long MUTEX = NativeTypes.offset(LAYOUT, "mutex");

    /** Offset of {@code cond}. */
    public static final long COND = NativeTypes.offset(LAYOUT, "cond");

    /** Offset of {@code events_completed}. */
    public static final long EVENTS_COMPLETED = NativeTypes.offset(LAYOUT, "events_completed");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfInt QP_NUM$LAYOUT = NativeTypes.member(LAYOUT, "qp_num", ValueLayout.OfInt.class);
    static final AddressLayout CONTEXT$LAYOUT = NativeTypes.member(LAYOUT, "context", AddressLayout.class);

    /**
     * {@return {@code qp_num} ({@code uint32_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_qp}
     */
    public static int qpNum(MemorySegment struct) {
        return struct.get(QP_NUM$LAYOUT, QP_NUM);
    }

    /**
     * Sets {@code context} ({@code struct ibv_context *}).
     *
     * @param struct a {@code struct ibv_qp}
     * @param value the new value
     */
    public static void context(MemorySegment struct, MemorySegment value) {
        struct.set(CONTEXT$LAYOUT, CONTEXT, value);
    }

    private IbvQp() {
    }
}
