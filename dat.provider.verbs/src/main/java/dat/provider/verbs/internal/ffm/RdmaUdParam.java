// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct rdma_ud_param} (rdma_cma.h): parameters of unreliable-datagram events (sizes the event union).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type              field
 *      0    8  const void *        private_data
 *      8    1  uint8_t             private_data_len
 *     16   32  struct ibv_ah_attr  ah_attr
 *     48    4  uint32_t            qp_num
 *     52    4  uint32_t            qkey
 * sizeof 56, alignof 8</pre>
 */
public final class RdmaUdParam {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("private_data"),
            JAVA_BYTE.withName("private_data_len"),
            MemoryLayout.paddingLayout(7),
            IbvAhAttr.LAYOUT.withName("ah_attr"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("qkey")).withName("struct rdma_ud_param");

    /** {@code sizeof(struct rdma_ud_param)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code private_data}. */
    public static final long PRIVATE_DATA = NativeTypes.offset(LAYOUT, "private_data");

    /** Offset of {@code private_data_len}. */
    public static final long PRIVATE_DATA_LEN = NativeTypes.offset(LAYOUT, "private_data_len");

    /** Offset of {@code ah_attr}. */
    public static final long AH_ATTR = NativeTypes.offset(LAYOUT, "ah_attr");

    /** Offset of {@code qp_num}. */
    public static final long QP_NUM = NativeTypes.offset(LAYOUT, "qp_num");

    /** Offset of {@code qkey}. */
    public static final long QKEY = NativeTypes.offset(LAYOUT, "qkey");

    private RdmaUdParam() {
    }
}
