// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_mw_bind} (verbs.h): the argument of {@code ibv_bind_mw} (type 1 windows).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                   field
 *      0    8  uint64_t                 wr_id
 *      8    4  unsigned int             send_flags
 *     16   32  struct ibv_mw_bind_info  bind_info
 * sizeof 48, alignof 8</pre>
 */
public final class IbvMwBind {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("wr_id"),
            JAVA_INT.withName("send_flags"),
            MemoryLayout.paddingLayout(4),
            IbvMwBindInfo.LAYOUT.withName("bind_info")).withName("struct ibv_mw_bind");

    /** {@code sizeof(struct ibv_mw_bind)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code wr_id}. */
    public static final long WR_ID = NativeTypes.offset(LAYOUT, "wr_id");

    /** Offset of {@code send_flags}. */
    public static final long SEND_FLAGS = NativeTypes.offset(LAYOUT, "send_flags");

    /** Offset of {@code bind_info}. */
    public static final long BIND_INFO = NativeTypes.offset(LAYOUT, "bind_info");

    /** Offset of {@code bind_info.mr}. */
    public static final long BIND_INFO_MR = NativeTypes.offset(LAYOUT, "bind_info.mr");

    /** Offset of {@code bind_info.addr}. */
    public static final long BIND_INFO_ADDR = NativeTypes.offset(LAYOUT, "bind_info.addr");

    /** Offset of {@code bind_info.length}. */
    public static final long BIND_INFO_LENGTH = NativeTypes.offset(LAYOUT, "bind_info.length");

    /** Offset of {@code bind_info.mw_access_flags}. */
    public static final long BIND_INFO_MW_ACCESS_FLAGS = NativeTypes.offset(LAYOUT, "bind_info.mw_access_flags");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfLong WR_ID$LAYOUT = NativeTypes.member(LAYOUT, "wr_id", ValueLayout.OfLong.class);
    static final ValueLayout.OfInt SEND_FLAGS$LAYOUT =
            NativeTypes.member(LAYOUT, "send_flags", ValueLayout.OfInt.class);
    static final AddressLayout BIND_INFO_MR$LAYOUT = NativeTypes.member(LAYOUT, "bind_info.mr", AddressLayout.class);
    static final ValueLayout.OfLong BIND_INFO_ADDR$LAYOUT =
            NativeTypes.member(LAYOUT, "bind_info.addr", ValueLayout.OfLong.class);
    static final ValueLayout.OfLong BIND_INFO_LENGTH$LAYOUT =
            NativeTypes.member(LAYOUT, "bind_info.length", ValueLayout.OfLong.class);
    static final ValueLayout.OfInt BIND_INFO_MW_ACCESS_FLAGS$LAYOUT =
            NativeTypes.member(LAYOUT, "bind_info.mw_access_flags", ValueLayout.OfInt.class);

    /**
     * Sets {@code wr_id} ({@code uint64_t}, unsigned).
     *
     * @param struct a {@code struct ibv_mw_bind}
     * @param value the new value
     */
    public static void wrId(MemorySegment struct, long value) {
        struct.set(WR_ID$LAYOUT, WR_ID, value);
    }

    /**
     * Sets {@code send_flags} ({@code unsigned int}, unsigned).
     *
     * @param struct a {@code struct ibv_mw_bind}
     * @param value the new value
     */
    public static void sendFlags(MemorySegment struct, int value) {
        struct.set(SEND_FLAGS$LAYOUT, SEND_FLAGS, value);
    }

    /**
     * {@return {@code bind_info.mr} ({@code struct ibv_mr *}), a zero-length segment}
     *
     * @param struct a {@code struct ibv_mw_bind}
     */
    public static MemorySegment bindInfoMr(MemorySegment struct) {
        return struct.get(BIND_INFO_MR$LAYOUT, BIND_INFO_MR);
    }

    /**
     * Sets {@code bind_info.mr} ({@code struct ibv_mr *}).
     *
     * @param struct a {@code struct ibv_mw_bind}
     * @param value the new value
     */
    public static void bindInfoMr(MemorySegment struct, MemorySegment value) {
        struct.set(BIND_INFO_MR$LAYOUT, BIND_INFO_MR, value);
    }

    /**
     * {@return {@code bind_info.addr} ({@code uint64_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_mw_bind}
     */
    public static long bindInfoAddr(MemorySegment struct) {
        return struct.get(BIND_INFO_ADDR$LAYOUT, BIND_INFO_ADDR);
    }

    /**
     * Sets {@code bind_info.addr} ({@code uint64_t}, unsigned).
     *
     * @param struct a {@code struct ibv_mw_bind}
     * @param value the new value
     */
    public static void bindInfoAddr(MemorySegment struct, long value) {
        struct.set(BIND_INFO_ADDR$LAYOUT, BIND_INFO_ADDR, value);
    }

    /**
     * {@return {@code bind_info.length} ({@code uint64_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_mw_bind}
     */
    public static long bindInfoLength(MemorySegment struct) {
        return struct.get(BIND_INFO_LENGTH$LAYOUT, BIND_INFO_LENGTH);
    }

    /**
     * Sets {@code bind_info.length} ({@code uint64_t}, unsigned).
     *
     * @param struct a {@code struct ibv_mw_bind}
     * @param value the new value
     */
    public static void bindInfoLength(MemorySegment struct, long value) {
        struct.set(BIND_INFO_LENGTH$LAYOUT, BIND_INFO_LENGTH, value);
    }

    /**
     * Sets {@code bind_info.mw_access_flags} ({@code unsigned int}, unsigned).
     *
     * @param struct a {@code struct ibv_mw_bind}
     * @param value the new value
     */
    public static void bindInfoMwAccessFlags(MemorySegment struct, int value) {
        struct.set(BIND_INFO_MW_ACCESS_FLAGS$LAYOUT, BIND_INFO_MW_ACCESS_FLAGS, value);
    }

    private IbvMwBind() {
    }
}
