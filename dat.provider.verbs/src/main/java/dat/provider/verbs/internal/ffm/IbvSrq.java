// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

/**
 * {@code struct ibv_srq} (verbs.h): a shared receive queue (DAT SRQ).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler. The pthread types are 48 bytes on aarch64, which moves the fields after them.
 *
 * <pre>
 * offset size  C type                field
 *      0    8  struct ibv_context *  context
 *      8    8  void *                srq_context
 *     16    8  struct ibv_pd *       pd
 *     24    4  uint32_t              handle
 *     32   40  pthread_mutex_t       mutex
 *     72   48  pthread_cond_t        cond
 *    120    4  uint32_t              events_completed
 * sizeof 128, alignof 8</pre>
 */
public final class IbvSrq {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("srq_context"),
            ADDRESS.withName("pd"),
            JAVA_INT.withName("handle"),
            MemoryLayout.paddingLayout(4),
            NativeTypes.PTHREAD_MUTEX_T.withName("mutex"),
            NativeTypes.PTHREAD_COND_T.withName("cond"),
            JAVA_INT.withName("events_completed"),
            MemoryLayout.paddingLayout(4)).withName("struct ibv_srq");

    /** {@code sizeof(struct ibv_srq)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code context}. */
    public static final long CONTEXT = NativeTypes.offset(LAYOUT, "context");

    /** Offset of {@code srq_context}. */
    public static final long SRQ_CONTEXT = NativeTypes.offset(LAYOUT, "srq_context");

    /** Offset of {@code pd}. */
    public static final long PD = NativeTypes.offset(LAYOUT, "pd");

    /** Offset of {@code handle}. */
    public static final long HANDLE = NativeTypes.offset(LAYOUT, "handle");

    /** Offset of {@code mutex}. */
    public static final long MUTEX = NativeTypes.offset(LAYOUT, "mutex");

    /** Offset of {@code cond}. */
    public static final long COND = NativeTypes.offset(LAYOUT, "cond");

    /** Offset of {@code events_completed}. */
    public static final long EVENTS_COMPLETED = NativeTypes.offset(LAYOUT, "events_completed");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final AddressLayout CONTEXT$LAYOUT = NativeTypes.member(LAYOUT, "context", AddressLayout.class);
    static final AddressLayout SRQ_CONTEXT$LAYOUT = NativeTypes.member(LAYOUT, "srq_context", AddressLayout.class);

    /**
     * {@return {@code srq_context} ({@code void *}), a zero-length segment}
     *
     * @param struct a {@code struct ibv_srq}
     */
    public static MemorySegment srqContext(MemorySegment struct) {
        return struct.get(SRQ_CONTEXT$LAYOUT, SRQ_CONTEXT);
    }

    /**
     * Sets {@code context} ({@code struct ibv_context *}).
     *
     * @param struct a {@code struct ibv_srq}
     * @param value the new value
     */
    public static void context(MemorySegment struct, MemorySegment value) {
        struct.set(CONTEXT$LAYOUT, CONTEXT, value);
    }

    private IbvSrq() {
    }
}
