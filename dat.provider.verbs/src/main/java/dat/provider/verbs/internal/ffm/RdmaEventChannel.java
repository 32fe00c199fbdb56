// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

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

    private RdmaEventChannel() {
    }
}
