// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct sockaddr_storage} (sys/socket.h): room for any socket address.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type         field
 *      0    2  sa_family_t    ss_family
 *      2  118  char[118]      __ss_padding
 *    120    8  unsigned long  __ss_align
 * sizeof 128, alignof 8</pre>
 */
public final class SockaddrStorage {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("ss_family"),
            MemoryLayout.sequenceLayout(118, JAVA_BYTE).withName("__ss_padding"),
            JAVA_LONG.withName("__ss_align")).withName("struct sockaddr_storage");

    /** {@code sizeof(struct sockaddr_storage)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code ss_family}. */
    public static final long SS_FAMILY = NativeTypes.offset(LAYOUT, "ss_family");

    private SockaddrStorage() {
    }
}
