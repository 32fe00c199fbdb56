// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_mw} (verbs.h): a memory window (DAT RMR).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler.
 *
 * <pre>
 * offset size  C type                field
 *      0    8  struct ibv_context *  context
 *      8    8  struct ibv_pd *       pd
 *     16    4  uint32_t              rkey
 *     20    4  uint32_t              handle
 *     24    4  enum ibv_mw_type      type
 * sizeof 32, alignof 8</pre>
 */
public final class IbvMw {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("pd"),
            JAVA_INT.withName("rkey"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("type"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_mw");

    /** {@code sizeof(struct ibv_mw)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code context}. */
    public static final long CONTEXT = NativeTypes.offset(LAYOUT, "context");

    /** Offset of {@code pd}. */
    public static final long PD = NativeTypes.offset(LAYOUT, "pd");

    /** Offset of {@code rkey}. */
    public static final long RKEY = NativeTypes.offset(LAYOUT, "rkey");

    /** Offset of {@code handle}. */
    public static final long HANDLE = NativeTypes.offset(LAYOUT, "handle");

    /** Offset of {@code type}. */
    public static final long TYPE = NativeTypes.offset(LAYOUT, "type");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final AddressLayout CONTEXT$LAYOUT = NativeTypes.member(LAYOUT, "context", AddressLayout.class);
    static final AddressLayout PD$LAYOUT = NativeTypes.member(LAYOUT, "pd", AddressLayout.class);
    static final ValueLayout.OfInt RKEY$LAYOUT = NativeTypes.member(LAYOUT, "rkey", ValueLayout.OfInt.class);
    static final ValueLayout.OfInt TYPE$LAYOUT = NativeTypes.member(LAYOUT, "type", ValueLayout.OfInt.class);

    /**
     * {@return {@code context} ({@code struct ibv_context *}), a zero-length segment}
     *
     * @param struct a {@code struct ibv_mw}
     */
    public static MemorySegment context(MemorySegment struct) {
        return struct.get(CONTEXT$LAYOUT, CONTEXT);
    }

    /**
     * {@return {@code pd} ({@code struct ibv_pd *}), a zero-length segment}
     *
     * @param struct a {@code struct ibv_mw}
     */
    public static MemorySegment pd(MemorySegment struct) {
        return struct.get(PD$LAYOUT, PD);
    }

    /**
     * {@return {@code rkey} ({@code uint32_t}, unsigned)}
     *
     * @param struct a {@code struct ibv_mw}
     */
    public static int rkey(MemorySegment struct) {
        return struct.get(RKEY$LAYOUT, RKEY);
    }

    /**
     * {@return {@code type} ({@code enum ibv_mw_type})}
     *
     * @param struct a {@code struct ibv_mw}
     */
    public static int type(MemorySegment struct) {
        return struct.get(TYPE$LAYOUT, TYPE);
    }

    /**
     * Sets {@code context} ({@code struct ibv_context *}).
     *
     * @param struct a {@code struct ibv_mw}
     * @param value the new value
     */
    public static void context(MemorySegment struct, MemorySegment value) {
        struct.set(CONTEXT$LAYOUT, CONTEXT, value);
    }

    /**
     * Sets {@code type} ({@code enum ibv_mw_type}).
     *
     * @param struct a {@code struct ibv_mw}
     * @param value the new value
     */
    public static void type(MemorySegment struct, int value) {
        struct.set(TYPE$LAYOUT, TYPE, value);
    }

    /**
     * Sets {@code pd} ({@code struct ibv_pd *}).
     *
     * @param struct a {@code struct ibv_mw}
     * @param value the new value
     */
    public static void pd(MemorySegment struct, MemorySegment value) {
        struct.set(PD$LAYOUT, PD, value);
    }

    private IbvMw() {
    }
}
