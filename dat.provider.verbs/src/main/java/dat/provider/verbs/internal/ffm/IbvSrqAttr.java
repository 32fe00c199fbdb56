// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct ibv_srq_attr} (verbs.h): SRQ depth, SGE limit and low watermark ({@code srq_limit}).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type    field
 *      0    4  uint32_t  max_wr
 *      4    4  uint32_t  max_sge
 *      8    4  uint32_t  srq_limit
 * sizeof 12, alignof 4</pre>
 */
public final class IbvSrqAttr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("max_wr"),
            JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("srq_limit")).withName("struct ibv_srq_attr");

    /** {@code sizeof(struct ibv_srq_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code max_wr}. */
    public static final long MAX_WR = NativeTypes.offset(LAYOUT, "max_wr");

    /** Offset of {@code max_sge}. */
    public static final long MAX_SGE = NativeTypes.offset(LAYOUT, "max_sge");

    /** Offset of {@code srq_limit}. */
    public static final long SRQ_LIMIT = NativeTypes.offset(LAYOUT, "srq_limit");

    private IbvSrqAttr() {
    }
}
