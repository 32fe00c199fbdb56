// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct ibv_ah_attr} (verbs.h): an address vector.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                   field
 *      0   24  struct ibv_global_route  grh
 *     24    2  uint16_t                 dlid
 *     26    1  uint8_t                  sl
 *     27    1  uint8_t                  src_path_bits
 *     28    1  uint8_t                  static_rate
 *     29    1  uint8_t                  is_global
 *     30    1  uint8_t                  port_num
 * sizeof 32, alignof 8</pre>
 */
public final class IbvAhAttr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            IbvGlobalRoute.LAYOUT.withName("grh"),
            JAVA_SHORT.withName("dlid"),
            JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("src_path_bits"),
            JAVA_BYTE.withName("static_rate"),
            JAVA_BYTE.withName("is_global"),
            JAVA_BYTE.withName("port_num"),
            MemoryLayout.paddingLayout(1)).withName("struct ibv_ah_attr");

    /** {@code sizeof(struct ibv_ah_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code grh}. */
    public static final long GRH = NativeTypes.offset(LAYOUT, "grh");

    /** Offset of {@code dlid}. */
    public static final long DLID = NativeTypes.offset(LAYOUT, "dlid");

    /** Offset of {@code sl}. */
    public static final long SL = NativeTypes.offset(LAYOUT, "sl");

    /** Offset of {@code src_path_bits}. */
    public static final long SRC_PATH_BITS = NativeTypes.offset(LAYOUT, "src_path_bits");

    /** Offset of {@code static_rate}. */
    public static final long STATIC_RATE = NativeTypes.offset(LAYOUT, "static_rate");

    /** Offset of {@code is_global}. */
    public static final long IS_GLOBAL = NativeTypes.offset(LAYOUT, "is_global");

    /** Offset of {@code port_num}. */
    public static final long PORT_NUM = NativeTypes.offset(LAYOUT, "port_num");

    private IbvAhAttr() {
    }
}
