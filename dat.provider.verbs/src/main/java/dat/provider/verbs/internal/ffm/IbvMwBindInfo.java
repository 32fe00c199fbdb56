// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct ibv_mw_bind_info} (verbs.h): the region a memory window is bound to.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type           field
 *      0    8  struct ibv_mr *  mr
 *      8    8  uint64_t         addr
 *     16    8  uint64_t         length
 *     24    4  unsigned int     mw_access_flags
 * sizeof 32, alignof 8</pre>
 */
public final class IbvMwBindInfo {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("mr"),
            JAVA_LONG.withName("addr"),
            JAVA_LONG.withName("length"),
            JAVA_INT.withName("mw_access_flags"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_mw_bind_info");

    /** {@code sizeof(struct ibv_mw_bind_info)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code mr}. */
    public static final long MR = NativeTypes.offset(LAYOUT, "mr");

    /** Offset of {@code addr}. */
    public static final long ADDR = NativeTypes.offset(LAYOUT, "addr");

    /** Offset of {@code length}. */
    public static final long LENGTH = NativeTypes.offset(LAYOUT, "length");

    /** Offset of {@code mw_access_flags}. */
    public static final long MW_ACCESS_FLAGS = NativeTypes.offset(LAYOUT, "mw_access_flags");

    private IbvMwBindInfo() {
    }
}
