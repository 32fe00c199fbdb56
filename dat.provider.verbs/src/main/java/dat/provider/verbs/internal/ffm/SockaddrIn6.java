// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;

/**
 * {@code struct sockaddr_in6} (netinet/in.h): an IPv6 socket address; port and address in network byte order.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type           field
 *      0    2  sa_family_t      sin6_family
 *      2    2  in_port_t        sin6_port
 *      4    4  uint32_t         sin6_flowinfo
 *      8   16  struct in6_addr  sin6_addr
 *     24    4  uint32_t         sin6_scope_id
 * sizeof 28, alignof 4</pre>
 */
public final class SockaddrIn6 {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sin6_family"),
            JAVA_SHORT.withName("sin6_port"),
            JAVA_INT.withName("sin6_flowinfo"),
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withByteAlignment(4).withName("sin6_addr"),
            JAVA_INT.withName("sin6_scope_id")).withName("struct sockaddr_in6");

    /** {@code sizeof(struct sockaddr_in6)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code sin6_family}. */
    public static final long SIN6_FAMILY = NativeTypes.offset(LAYOUT, "sin6_family");

    /** Offset of {@code sin6_port}. */
    public static final long SIN6_PORT = NativeTypes.offset(LAYOUT, "sin6_port");

    /** Offset of {@code sin6_flowinfo}. */
    public static final long SIN6_FLOWINFO = NativeTypes.offset(LAYOUT, "sin6_flowinfo");

    /** Offset of {@code sin6_addr}. */
    public static final long SIN6_ADDR = NativeTypes.offset(LAYOUT, "sin6_addr");

    /** Offset of {@code sin6_scope_id}. */
    public static final long SIN6_SCOPE_ID = NativeTypes.offset(LAYOUT, "sin6_scope_id");

    private SockaddrIn6() {
    }
}
