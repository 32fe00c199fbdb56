// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SequenceLayout;

/**
 * {@code union ibv_gid} (verbs.h): a 128-bit port GID (for RoCE an IPv6 or IPv4-mapped address).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type       field
 *      0   16  uint8_t[16]  raw
 *      0    8  __be64       global.subnet_prefix
 *      8    8  __be64       global.interface_id
 * sizeof 16, alignof 8</pre>
 */
public final class IbvGid {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.unionLayout(
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("raw"),
            MemoryLayout.structLayout(
                    JAVA_LONG.withName("subnet_prefix"),
                    JAVA_LONG.withName("interface_id")).withName("global")).withName("union ibv_gid");

    /** {@code sizeof(union ibv_gid)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code raw}. */
    public static final long RAW = NativeTypes.offset(LAYOUT, "raw");

    /** Offset of {@code global.subnet_prefix}. */
    public static final long GLOBAL_SUBNET_PREFIX = NativeTypes.offset(LAYOUT, "global.subnet_prefix");

    /** Offset of {@code global.interface_id}. */
    public static final long GLOBAL_INTERFACE_ID = NativeTypes.offset(LAYOUT, "global.interface_id");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final SequenceLayout RAW$LAYOUT = NativeTypes.member(LAYOUT, "raw", SequenceLayout.class);

    /**
     * {@return {@code raw} ({@code uint8_t[16]}), its bytes in place: a slice of {@code struct}}
     *
     * @param struct a {@code union ibv_gid}
     */
    public static MemorySegment raw(MemorySegment struct) {
        return struct.asSlice(RAW, RAW$LAYOUT.byteSize());
    }

    private IbvGid() {
    }
}
