// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct ibv_mw} (verbs.h): a memory window (DAT RMR).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                field
 *      0    8  struct ibv_context *  context
 *      8    8  struct ibv_pd *       pd
 *     16    4  uint32_t              rkey
 *     20    4  uint32_t              handle
 *     24    4  enum ibv_mw_type      type
 * sizeof 32, alignof 8</pre>
 */
public final class IbvMw {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("pd"),
            JAVA_INT.withName("rkey"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("type"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_mw");

    /** {@code sizeof(struct ibv_mw)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code context}. */
    public static final long CONTEXT = NativeTypes.offset(LAYOUT, "context");

    /** Offset of {@code pd}. */
    public static final long PD = NativeTypes.offset(LAYOUT, "pd");

    /** Offset of {@code rkey}. */
    public static final long RKEY = NativeTypes.offset(LAYOUT, "rkey");

    /** Offset of {@code handle}. */
    public static final long HANDLE = NativeTypes.offset(LAYOUT, "handle");

    /** Offset of {@code type}. */
    public static final long TYPE = NativeTypes.offset(LAYOUT, "type");

    private IbvMw() {
    }
}
