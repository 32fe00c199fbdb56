// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct rdma_route} (rdma_cma.h): the resolved route of an rdma_cm id.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                    field
 *      0  296  struct rdma_addr          addr
 *    296    8  struct ibv_sa_path_rec *  path_rec
 *    304    4  int                       num_paths
 * sizeof 312, alignof 8</pre>
 */
public final class RdmaRoute {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            RdmaAddr.LAYOUT.withName("addr"),
            ADDRESS.withName("path_rec"),
            JAVA_INT.withName("num_paths"),
            MemoryLayout.paddingLayout(4)).withName("struct rdma_route");

    /** {@code sizeof(struct rdma_route)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code addr}. */
    public static final long ADDR = NativeTypes.offset(LAYOUT, "addr");

    /** Offset of {@code path_rec}. */
    public static final long PATH_REC = NativeTypes.offset(LAYOUT, "path_rec");

    /** Offset of {@code num_paths}. */
    public static final long NUM_PATHS = NativeTypes.offset(LAYOUT, "num_paths");

    private RdmaRoute() {
    }
}
