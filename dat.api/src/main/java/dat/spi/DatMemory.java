// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import java.lang.foreign.MemorySegment;

/**
 * The memory-safety rules every provider applies to the consumer's segments, in one place.
 *
 * <p>A provider touches registered memory from threads the consumer does not control (a loopback delivery runs on
 * the peer's posting thread; an HCA writes at any time), and long after {@code dat_lmr_create} returned. So a
 * region must be alive and shared: registering memory of a closed arena, or of a confined one, is refused at create
 * ({@code DAT_INVALID_PARAMETER}); memory the consumer closes while still registered is the consumer's breach of
 * {@code dat_lmr_free}-before-free, which a provider that copies in software turns into an unsuccessful completion
 * and never a crash. An {@link dat.api.Iov} whose own memory is dead or confined to another thread is a malformed
 * argument of the post: the data path returns {@code DAT_INVALID_PARAMETER} and never throws.
 */
public final class DatMemory {

    /** A thread that never runs and owns no arena: a segment it may access is accessible by every thread. */
    private static final Thread NO_OWNER = Thread.ofPlatform().unstarted(() -> { });

    private DatMemory() {
    }

    /**
     * {@return whether the segment's arena is still open}
     *
     * @param segment memory
     */
    public static boolean alive(MemorySegment segment) {
        return segment.scope().isAlive();
    }

    /**
     * {@return whether any thread may access the segment (a shared, automatic or global arena; not a confined one)}
     *
     * @param segment memory
     */
    public static boolean shared(MemorySegment segment) {
        return segment.isAccessibleBy(NO_OWNER);
    }
}
