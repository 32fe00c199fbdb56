// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct rdma_ib_addr} (rdma_cma.h): the GIDs and P_Key of a resolved rdma_cm address.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type         field
 *      0   16  union ibv_gid  sgid
 *     16   16  union ibv_gid  dgid
 *     32    2  __be16         pkey
 * sizeof 40, alignof 8</pre>
 */
public final class RdmaIbAddr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            IbvGid.LAYOUT.withName("sgid"),
            IbvGid.LAYOUT.withName("dgid"),
            JAVA_SHORT.withName("pkey"),
            MemoryLayout.paddingLayout(6)).withName("struct rdma_ib_addr");

    /** {@code sizeof(struct rdma_ib_addr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code sgid}. */
    public static final long SGID = NativeTypes.offset(LAYOUT, "sgid");

    /** Offset of {@code dgid}. */
    public static final long DGID = NativeTypes.offset(LAYOUT, "dgid");

    /** Offset of {@code pkey}. */
    public static final long PKEY = NativeTypes.offset(LAYOUT, "pkey");

    private RdmaIbAddr() {
    }
}
