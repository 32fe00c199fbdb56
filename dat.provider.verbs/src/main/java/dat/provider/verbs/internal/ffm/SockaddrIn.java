// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct sockaddr_in} (netinet/in.h): an IPv4 socket address; port and address in network byte order.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type            field
 *      0    2  sa_family_t       sin_family
 *      2    2  in_port_t         sin_port
 *      4    4  struct in_addr    sin_addr
 *      8    8  unsigned char[8]  sin_zero
 * sizeof 16, alignof 4</pre>
 */
public final class SockaddrIn {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sin_family"),
            JAVA_SHORT.withName("sin_port"),
            MemoryLayout.sequenceLayout(4, JAVA_BYTE).withByteAlignment(4).withName("sin_addr"),
            MemoryLayout.sequenceLayout(8, JAVA_BYTE).withName("sin_zero")).withName("struct sockaddr_in");

    /** {@code sizeof(struct sockaddr_in)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code sin_family}. */
    public static final long SIN_FAMILY = NativeTypes.offset(LAYOUT, "sin_family");

    /** Offset of {@code sin_port}. */
    public static final long SIN_PORT = NativeTypes.offset(LAYOUT, "sin_port");

    /** Offset of {@code sin_addr}. */
    public static final long SIN_ADDR = NativeTypes.offset(LAYOUT, "sin_addr");

    /** Offset of {@code sin_zero}. */
    public static final long SIN_ZERO = NativeTypes.offset(LAYOUT, "sin_zero");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfShort SIN_FAMILY$LAYOUT =
            NativeTypes.member(LAYOUT, "sin_family", ValueLayout.OfShort.class);
    static final ValueLayout.OfShort SIN_PORT$LAYOUT =
            NativeTypes.member(LAYOUT, "sin_port", ValueLayout.OfShort.class);
    static final SequenceLayout SIN_ADDR$LAYOUT = NativeTypes.member(LAYOUT, "sin_addr", SequenceLayout.class);

    /**
     * Sets {@code sin_family} ({@code sa_family_t}, unsigned).
     *
     * @param struct a {@code struct sockaddr_in}
     * @param value the new value
     */
    public static void sinFamily(MemorySegment struct, short value) {
        struct.set(SIN_FAMILY$LAYOUT, SIN_FAMILY, value);
    }

    /**
     * Sets {@code sin_port} ({@code in_port_t}, unsigned).
     *
     * @param struct a {@code struct sockaddr_in}
     * @param value the new value
     */
    public static void sinPort(MemorySegment struct, short value) {
        struct.set(SIN_PORT$LAYOUT, SIN_PORT, value);
    }

    /**
     * {@return {@code sin_addr} ({@code struct in_addr}), its bytes in place: a slice of {@code struct}}
     *
     * @param struct a {@code struct sockaddr_in}
     */
    public static MemorySegment sinAddr(MemorySegment struct) {
        return struct.asSlice(SIN_ADDR, SIN_ADDR$LAYOUT.byteSize());
    }

    private SockaddrIn() {
    }
}
