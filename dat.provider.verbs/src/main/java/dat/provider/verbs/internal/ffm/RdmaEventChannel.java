// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_event_channel} (rdma_cma.h): the file descriptor rdma_cm events arrive on.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type  field
 *      0    4  int  fd
 * sizeof 4, alignof 4</pre>
 */
public final class RdmaEventChannel {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("fd")).withName("struct rdma_event_channel");

    /** {@code sizeof(struct rdma_event_channel)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code fd}. */
    public static final long FD = NativeTypes.offset(LAYOUT, "fd");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfInt FD$LAYOUT = NativeTypes.member(LAYOUT, "fd", ValueLayout.OfInt.class);

    /**
     * {@return {@code fd} ({@code int})}
     *
     * @param struct a {@code struct rdma_event_channel}
     */
    public static int fd(MemorySegment struct) {
        return struct.get(FD$LAYOUT, FD);
    }

    private RdmaEventChannel() {
    }
}
