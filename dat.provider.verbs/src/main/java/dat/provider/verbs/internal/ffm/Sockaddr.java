// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct sockaddr} (sys/socket.h): the generic socket address header.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type       field
 *      0    2  sa_family_t  sa_family
 *      2   14  char[14]     sa_data
 * sizeof 16, alignof 2</pre>
 */
public final class Sockaddr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sa_family"),
            MemoryLayout.sequenceLayout(14, JAVA_BYTE).withName("sa_data")).withName("struct sockaddr");

    /** {@code sizeof(struct sockaddr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code sa_family}. */
    public static final long SA_FAMILY = NativeTypes.offset(LAYOUT, "sa_family");

    /** Offset of {@code sa_data}. */
    public static final long SA_DATA = NativeTypes.offset(LAYOUT, "sa_data");

    private Sockaddr() {
    }
}
