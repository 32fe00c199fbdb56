// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct ibv_srq_init_attr} (verbs.h): the argument of {@code ibv_create_srq}.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type               field
 *      0    8  void *               srq_context
 *      8   12  struct ibv_srq_attr  attr
 * sizeof 24, alignof 8</pre>
 */
public final class IbvSrqInitAttr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("srq_context"),
            IbvSrqAttr.LAYOUT.withName("attr"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_srq_init_attr");

    /** {@code sizeof(struct ibv_srq_init_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code srq_context}. */
    public static final long SRQ_CONTEXT = NativeTypes.offset(LAYOUT, "srq_context");

    /** Offset of {@code attr}. */
    public static final long ATTR = NativeTypes.offset(LAYOUT, "attr");

    private IbvSrqInitAttr() {
    }
}
