// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_comp_channel} (verbs.h): a completion event channel: a file descriptor a thread blocks on in {@code
 * ibv_get_cq_event}.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                field
 *      0    8  struct ibv_context *  context
 *      8    4  int                   fd
 *     12    4  int                   refcnt
 * sizeof 16, alignof 8</pre>
 */
public final class IbvCompChannel {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            JAVA_INT.withName("fd"),
            JAVA_INT.withName("refcnt")).withName("struct ibv_comp_channel");

    /** {@code sizeof(struct ibv_comp_channel)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code context}. */
    public static final long CONTEXT = NativeTypes.offset(LAYOUT, "context");

    /** Offset of {@code fd}. */
    public static final long FD = NativeTypes.offset(LAYOUT, "fd");

    /** Offset of {@code refcnt}. */
    public static final long REFCNT = NativeTypes.offset(LAYOUT, "refcnt");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfInt FD$LAYOUT = NativeTypes.member(LAYOUT, "fd", ValueLayout.OfInt.class);

    /**
     * {@return {@code fd} ({@code int})}
     *
     * @param struct a {@code struct ibv_comp_channel}
     */
    public static int fd(MemorySegment struct) {
        return struct.get(FD$LAYOUT, FD);
    }

    private IbvCompChannel() {
    }
}
