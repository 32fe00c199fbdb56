// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct ibv_global_route} (verbs.h): the GRH part of an address vector.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type         field
 *      0   16  union ibv_gid  dgid
 *     16    4  uint32_t       flow_label
 *     20    1  uint8_t        sgid_index
 *     21    1  uint8_t        hop_limit
 *     22    1  uint8_t        traffic_class
 * sizeof 24, alignof 8</pre>
 */
public final class IbvGlobalRoute {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            IbvGid.LAYOUT.withName("dgid"),
            JAVA_INT.withName("flow_label"),
            JAVA_BYTE.withName("sgid_index"),
            JAVA_BYTE.withName("hop_limit"),
            JAVA_BYTE.withName("traffic_class"),
            MemoryLayout.paddingLayout(1)).withName("struct ibv_global_route");

    /** {@code sizeof(struct ibv_global_route)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code dgid}. */
    public static final long DGID = NativeTypes.offset(LAYOUT, "dgid");

    /** Offset of {@code flow_label}. */
    public static final long FLOW_LABEL = NativeTypes.offset(LAYOUT, "flow_label");

    /** Offset of {@code sgid_index}. */
    public static final long SGID_INDEX = NativeTypes.offset(LAYOUT, "sgid_index");

    /** Offset of {@code hop_limit}. */
    public static final long HOP_LIMIT = NativeTypes.offset(LAYOUT, "hop_limit");

    /** Offset of {@code traffic_class}. */
    public static final long TRAFFIC_CLASS = NativeTypes.offset(LAYOUT, "traffic_class");

    private IbvGlobalRoute() {
    }
}
