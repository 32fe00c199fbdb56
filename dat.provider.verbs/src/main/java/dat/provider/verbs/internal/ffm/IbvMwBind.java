// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct ibv_mw_bind} (verbs.h): the argument of {@code ibv_bind_mw} (type 1 windows).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                   field
 *      0    8  uint64_t                 wr_id
 *      8    4  unsigned int             send_flags
 *     16   32  struct ibv_mw_bind_info  bind_info
 * sizeof 48, alignof 8</pre>
 */
public final class IbvMwBind {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("send_flags"),
            MemoryLayout.paddingLayout(4),
            IbvMwBindInfo.LAYOUT.withName("bind_info")).withName("struct ibv_mw_bind");

    /** {@code sizeof(struct ibv_mw_bind)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code wr_id}. */
    public static final long WR_ID = NativeTypes.offset(LAYOUT, "wr_id");

    /** Offset of {@code send_flags}. */
    public static final long SEND_FLAGS = NativeTypes.offset(LAYOUT, "send_flags");

    /** Offset of {@code bind_info}. */
    public static final long BIND_INFO = NativeTypes.offset(LAYOUT, "bind_info");

    private IbvMwBind() {
    }
}
