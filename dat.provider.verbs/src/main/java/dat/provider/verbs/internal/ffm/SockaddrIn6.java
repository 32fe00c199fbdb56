// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.ValueLayout;

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

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfShort SIN6_FAMILY$LAYOUT =
            NativeTypes.member(LAYOUT, "sin6_family", ValueLayout.OfShort.class);
    static final ValueLayout.OfShort SIN6_PORT$LAYOUT =
            NativeTypes.member(LAYOUT, "sin6_port", ValueLayout.OfShort.class);
    static final SequenceLayout SIN6_ADDR$LAYOUT = NativeTypes.member(LAYOUT, "sin6_addr", SequenceLayout.class);

    /**
     * Sets {@code sin6_family} ({@code sa_family_t}, unsigned).
     *
     * @param struct a {@code struct sockaddr_in6}
     * @param value the new value
     */
    public static void sin6Family(MemorySegment struct, short value) {
        struct.set(SIN6_FAMILY$LAYOUT, SIN6_FAMILY, value);
    }

    /**
     * Sets {@code sin6_port} ({@code in_port_t}, unsigned).
     *
     * @param struct a {@code struct sockaddr_in6}
     * @param value the new value
     */
    public static void sin6Port(MemorySegment struct, short value) {
        struct.set(SIN6_PORT$LAYOUT, SIN6_PORT, value);
    }

    /**
     * {@return {@code sin6_addr} ({@code struct in6_addr}), its bytes in place: a slice of {@code struct}}
     *
     * @param struct a {@code struct sockaddr_in6}
     */
    public static MemorySegment sin6Addr(MemorySegment struct) {
        return struct.asSlice(SIN6_ADDR, SIN6_ADDR$LAYOUT.byteSize());
    }

    private SockaddrIn6() {
    }
}
