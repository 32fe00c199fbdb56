// SPDX-License-Identifier: Apache-2.0
package dat.provider.verbs.internal.ffm;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_context} (verbs.h): an open device; {@code ops} holds the data-path function pointers.
 *
 * <p>Offsets as on Linux x86_64 with rdma-core 44; {@code VerbsLayoutOffsetTest} checks every field against
 * the C compiler. The pthread types are 48 bytes on aarch64, which moves the fields after them.
 *
 * <pre>
 * offset size  C type                  field
 *      0    8  struct ibv_device *     device
 *      8  256  struct ibv_context_ops  ops
 *    264    4  int                     cmd_fd
 *    268    4  int                     async_fd
 *    272    4  int                     num_comp_vectors
 *    280   40  pthread_mutex_t         mutex
 *    320    8  void *                  abi_compat
 * sizeof 328, alignof 8</pre>
 */
public final class IbvContext {

    /** The C layout; its name is the C type, its member names the C field names. */
    public static final GroupLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("device"),
            IbvContextOps.LAYOUT.withName("ops"),
            JAVA_INT.withName("cmd_fd"),
            JAVA_INT.withName("async_fd"),
            JAVA_INT.withName("num_comp_vectors"),
            MemoryLayout.paddingLayout(4),
            NativeTypes.PTHREAD_MUTEX_T.withName("mutex"),
            ADDRESS.withName("abi_compat")).withName("struct ibv_context");

    /** {@code sizeof(struct ibv_context)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of {@code device}. */
    public static final long DEVICE = NativeTypes.offset(LAYOUT, "device");

    /** Offset of {@code ops}. */
    public static final long OPS = NativeTypes.offset(LAYOUT, "ops");

    /** Offset of {@code cmd_fd}. */
    public static final long CMD_FD = NativeTypes.offset(LAYOUT, "cmd_fd");

    /** Offset of {@code async_fd}. */
    public static final long ASYNC_FD = NativeTypes.offset(LAYOUT, "async_fd");

    /** Offset of {@code num_comp_vectors}. */
    public static final long NUM_COMP_VECTORS = NativeTypes.offset(LAYOUT, "num_comp_vectors");

    /** Offset of {@code mutex}. */
    public static final long MUTEX = NativeTypes.offset(LAYOUT, "mutex");

    /** Offset of {@code abi_compat}. */
    public static final long ABI_COMPAT = NativeTypes.offset(LAYOUT, "abi_compat");

    // Each accessor reads and writes its member through the member's own layout, so a call site cannot
    // restate its width; VerbsLayoutOffsetTest checks every $LAYOUT against the C member.
    static final ValueLayout.OfInt ASYNC_FD$LAYOUT = NativeTypes.member(LAYOUT, "async_fd", ValueLayout.OfInt.class);

    /**
     * {@return {@code async_fd} ({@code int})}
     *
     * @param struct a {@code struct ibv_context}
     */
    public static int asyncFd(MemorySegment struct) {
        return struct.get(ASYNC_FD$LAYOUT, ASYNC_FD);
    }

    private IbvContext() {
    }
}
