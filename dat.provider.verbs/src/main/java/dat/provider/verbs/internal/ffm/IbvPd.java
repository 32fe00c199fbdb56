// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

/**
 * {@code struct ibv_pd} (verbs.h): a protection domain (DAT PZ).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                field
 *      0    8  struct ibv_context *  context
 *      8    4  uint32_t              handle
 * sizeof 16, alignof 8</pre>
 */
public final class IbvPd {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            JAVA_INT.withName("handle"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_pd");

    /** {@code sizeof(struct ibv_pd)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code context}. */
    public static final long CONTEXT = NativeTypes.offset(LAYOUT, "context");

    /** Offset of {@code handle}. */
    public static final long HANDLE = NativeTypes.offset(LAYOUT, "handle");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final AddressLayout CONTEXT$LAYOUT = NativeTypes.member(LAYOUT, "context", AddressLayout.class);

    /**
     * {@return {@code context} ({@code struct ibv_context *}), a zero-length segment}
     *
     * @param struct a {@code struct ibv_pd}
     */
    public static MemorySegment context(MemorySegment struct) {
        return struct.get(CONTEXT$LAYOUT, CONTEXT);
    }

    /**
     * Sets {@code context} ({@code struct ibv_context *}).
     *
     * @param struct a {@code struct ibv_pd}
     * @param value the new value
     */
    public static void context(MemorySegment struct, MemorySegment value) {
        struct.set(CONTEXT$LAYOUT, CONTEXT, value);
    }

    private IbvPd() {
    }
}
