// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct ibv_qp_cap} (verbs.h): queue depths and SGE limits of a QP.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type    field
 *      0    4  uint32_t  max_send_wr
 *      4    4  uint32_t  max_recv_wr
 *      8    4  uint32_t  max_send_sge
 *     12    4  uint32_t  max_recv_sge
 *     16    4  uint32_t  max_inline_data
 * sizeof 20, alignof 4</pre>
 */
public final class IbvQpCap {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("max_send_wr"),
            JAVA_INT.withName("max_recv_wr"),
            JAVA_INT.withName("max_send_sge"),
            JAVA_INT.withName("max_recv_sge"),
            JAVA_INT.withName("max_inline_data")).withName("struct ibv_qp_cap");

    /** {@code sizeof(struct ibv_qp_cap)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code max_send_wr}. */
    public static final long MAX_SEND_WR = NativeTypes.offset(LAYOUT, "max_send_wr");

    /** Offset of {@code max_recv_wr}. */
    public static final long MAX_RECV_WR = NativeTypes.offset(LAYOUT, "max_recv_wr");

    /** Offset of {@code max_send_sge}. */
    public static final long MAX_SEND_SGE = NativeTypes.offset(LAYOUT, "max_send_sge");

    /** Offset of {@code max_recv_sge}. */
    public static final long MAX_RECV_SGE = NativeTypes.offset(LAYOUT, "max_recv_sge");

    /** Offset of {@code max_inline_data}. */
    public static final long MAX_INLINE_DATA = NativeTypes.offset(LAYOUT, "max_inline_data");

    private IbvQpCap() {
    }
}
