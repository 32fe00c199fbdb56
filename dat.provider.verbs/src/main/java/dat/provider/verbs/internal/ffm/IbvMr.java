// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_mr} (verbs.h): a registered memory region (DAT LMR); {@code lkey} and {@code rkey} are the DAT LMR
 * and RMR contexts.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                field
 *      0    8  struct ibv_context *  context
 *      8    8  struct ibv_pd *       pd
 *     16    8  void *                addr
 *     24    8  size_t                length
 *     32    4  uint32_t              handle
 *     36    4  uint32_t              lkey
 *     40    4  uint32_t              rkey
 * sizeof 48, alignof 8</pre>
 */
public final class IbvMr {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("addr"),
            JAVA_LONG.withName("length"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("lkey"),
            JAVA_INT.withName("rkey"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_mr");

    /** {@code sizeof(struct ibv_mr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code context}. */
    public static final long CONTEXT = NativeTypes.offset(LAYOUT, "context");

    /** Offset of {@code pd}. */
    public static final long PD = NativeTypes.offset(LAYOUT, "pd");

    /** Offset of {@code addr}. */
    public static final long ADDR = NativeTypes.offset(LAYOUT, "addr");

    /** Offset of {@code length}. */
    public static final long LENGTH = NativeTypes.offset(LAYOUT, "length");

    /** Offset of {@code handle}. */
    public static final long HANDLE = NativeTypes.offset(LAYOUT, "handle");

    /** Offset of {@code lkey}. */
    public static final long LKEY = NativeTypes.offset(LAYOUT, "lkey");

    /** Offset of {@code rkey}. */
    public static final long RKEY = NativeTypes.offset(LAYOUT, "rkey");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final AddressLayout PD$LAYOUT = NativeTypes.member(LAYOUT, "pd", AddressLayout.class);
    static final ValueLayout.OfInt LKEY$LAYOUT = NativeTypes.member(LAYOUT, "lkey", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt RKEY$LAYOUT = NativeTypes.member(LAYOUT, "rkey", ValueLayout.OfInt.class);

    /**
     * {@return {@code pd} ({@code struct ibv_pd *}), a zero-length segment}
     *
     * @param struct a {@code struct ibv_mr}
     */
    public static MemorySegment pd(MemorySegment struct) {
        return struct.get(PD$LAYOUT, PD);
    }

    /**
     * {@return {@code lkey} ({@code uint32_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_mr}
     */
    public static int lkey(MemorySegment struct) {
        return struct.get(LKEY$LAYOUT, LKEY);
    }

    /**
     * {@return {@code rkey} ({@code uint32_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_mr}
     */
    public static int rkey(MemorySegment struct) {
        return struct.get(RKEY$LAYOUT, RKEY);
    }

    /**
     * Sets {@code pd} ({@code struct ibv_pd *}).
     *
     * @param struct a {@code struct ibv_mr}
     * @param value the new value
     */
    public static void pd(MemorySegment struct, MemorySegment value) {
        struct.set(PD$LAYOUT, PD, value);
    }

    private IbvMr() {
    }
}
