// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

/**
 * {@code struct ibv_cq} (verbs.h): a completion queue (DAT DTO EVD).
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler. The pthread types are 48 bytes on aarch64, which moves the fields after them.
 *
 * <pre>
 * offset size  C type                     field
 *      0    8  struct ibv_context *       context
 *      8    8  struct ibv_comp_channel *  channel
 *     16    8  void *                     cq_context
 *     24    4  uint32_t                   handle
 *     28    4  int                        cqe
 *     32   40  pthread_mutex_t            mutex
 *     72   48  pthread_cond_t             cond
 *    120    4  uint32_t                   comp_events_completed
 *    124    4  uint32_t                   async_events_completed
 * sizeof 128, alignof 8</pre>
 */
public final class IbvCq {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("channel"),
            ADDRESS.withName("cq_context"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("cqe"),
            NativeTypes.PTHREAD_MUTEX_T.withName("mutex"),
            NativeTypes.PTHREAD_COND_T.withName("cond"),
            JAVA_INT.withName("comp_events_completed"),
            JAVA_INT.withName("async_events_completed")).withName("struct ibv_cq");

    /** {@code sizeof(struct ibv_cq)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code context}. */
    public static final long CONTEXT = NativeTypes.offset(LAYOUT, "context");

    /** Offset of {@code channel}. */
    public static final long CHANNEL = NativeTypes.offset(LAYOUT, "channel");

    /** Offset of {@code cq_context}. */
    public static final long CQ_CONTEXT = NativeTypes.offset(LAYOUT, "cq_context");

    /** Offset of {@code handle}. */
    public static final long HANDLE = NativeTypes.offset(LAYOUT, "handle");

    /** Offset of {@code cqe}. */
    public static final long CQE = NativeTypes.offset(LAYOUT, "cqe");

    /** Offset of {@code mutex}. */
    public static final long MUTEX = NativeTypes.offset(LAYOUT, "mutex");

    /** Offset of {@code cond}. */
    public static final long COND = NativeTypes.offset(LAYOUT, "cond");

    /** Offset of {@code comp_events_completed}. */
    public static final long COMP_EVENTS_COMPLETED = NativeTypes.offset(LAYOUT, "comp_events_completed");

    /** Offset of {@code async_events_completed}. */
    public static final long ASYNC_EVENTS_COMPLETED = NativeTypes.offset(LAYOUT, "async_events_completed");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final AddressLayout CONTEXT$LAYOUT = NativeTypes.member(LAYOUT, "context", AddressLayout.class);
    static final AddressLayout CQ_CONTEXT$LAYOUT = NativeTypes.member(LAYOUT, "cq_context", AddressLayout.class);

    /**
     * {@return {@code cq_context} ({@code void *}), a zero-length segment}
     *
     * @param struct a {@code struct ibv_cq}
     */
    public static MemorySegment cqContext(MemorySegment struct) {
        return struct.get(CQ_CONTEXT$LAYOUT, CQ_CONTEXT);
    }

    /**
     * Sets {@code context} ({@code struct ibv_context *}).
     *
     * @param struct a {@code struct ibv_cq}
     * @param value the new value
     */
    public static void context(MemorySegment struct, MemorySegment value) {
        struct.set(CONTEXT$LAYOUT, CONTEXT, value);
    }

    private IbvCq() {
    }
}
