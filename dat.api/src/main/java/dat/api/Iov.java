// SPDX-License-Identifier: Apache-2.0
package dat.api;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A reusable vector of DAT 1.2 LMR triplets ({@code DAT_LMR_TRIPLET}): the {@code local_iov} argument of
 * {@code dat_ep_post_send}, {@code dat_ep_post_recv}, {@code dat_ep_post_rdma_read},
 * {@code dat_ep_post_rdma_write} and {@code dat_srq_post_recv}.
 *
 * <p>The triplets live in a segment of the caller's choosing, laid out exactly as DAT 1.2 lays them out in C,
 * so a provider may hand them to native code without copying:
 *
 * <pre>
 *  offset  0        4        8                16               24
 *          +--------+--------+----------------+----------------+
 *          | lmr_   | pad    | virtual_address| segment_length | triplet 0
 *          | context| (0)    | (u64)          | (u64)          |
 *          +--------+--------+----------------+----------------+
 *          | ...                                                | triplet 1 at 24, ...
 * </pre>
 *
 * <p>An {@code Iov} is a flyweight: setting and reading triplets allocates nothing, so one instance can be
 * filled and posted in a loop forever. Whether the consumer may refill it as soon as a post returns, or only
 * after the DTO completes, is the provider's {@link DatProviderAttr#iovOwnershipOnReturn()}.
 * It is not thread safe; give each posting thread its own.
 */
public final class Iov {

    /** Size in bytes of one {@code DAT_LMR_TRIPLET}. */
    public static final long TRIPLET_SIZE = 24;
    /** Offset of {@code lmr_context} (u32) in a triplet. */
    public static final long LMR_CONTEXT_OFFSET = 0;
    /** Offset of {@code virtual_address} (u64) in a triplet. */
    public static final long VIRTUAL_ADDRESS_OFFSET = 8;
    /** Offset of {@code segment_length} (u64) in a triplet. */
    public static final long SEGMENT_LENGTH_OFFSET = 16;

    /** The C layout of one {@code DAT_LMR_TRIPLET}. */
    public static final MemoryLayout TRIPLET_LAYOUT = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("lmr_context"),
            ValueLayout.JAVA_INT.withName("pad"),
            ValueLayout.JAVA_LONG.withName("virtual_address"),
            ValueLayout.JAVA_LONG.withName("segment_length"));

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final MemorySegment triplets;
    private final int capacity;

    private Iov(MemorySegment triplets) {
        this.triplets = triplets;
        this.capacity = (int) (triplets.byteSize() / TRIPLET_SIZE);
    }

    /**
     * Allocates a zeroed vector of {@code capacity} triplets in {@code arena}.
     *
     * @param arena owns the triplet memory; the IOV must not outlive it
     * @param capacity how many triplets the vector can hold, at least 1
     * @return a new vector
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} when {@code capacity < 1}
     */
    public static Iov allocate(Arena arena, int capacity) {
        Objects.requireNonNull(arena, "arena");
        if (capacity < 1) {
            throw new DatException(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG2,
                    "capacity must be at least 1, was " + capacity);
        }
        return new Iov(arena.allocate(TRIPLET_LAYOUT, capacity));
    }

    /**
     * Views existing memory as a vector of triplets, for example an array of {@code DAT_LMR_TRIPLET}
     * shared with native code.
     *
     * @param segment memory holding whole triplets, 8-byte aligned
     * @return a vector over {@code segment}
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} when the size is not a non-zero multiple of
     *     {@link #TRIPLET_SIZE} or the segment is not 8-byte aligned
     */
    public static Iov wrap(MemorySegment segment) {
        Objects.requireNonNull(segment, "segment");
        long size = segment.byteSize();
        if (size == 0 || size % TRIPLET_SIZE != 0 || size / TRIPLET_SIZE > Integer.MAX_VALUE) {
            throw new DatException(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "segment size " + size + " is not a non-zero multiple of " + TRIPLET_SIZE
                            + " (one DAT_LMR_TRIPLET)");
        }
        if (!segment.isNative() || segment.address() % 8 != 0) {
            throw new DatException(DatReturn.INVALID_PARAMETER, DatReturnSubtype.INVALID_ARG1,
                    "segment must be native memory aligned to 8 bytes");
        }
        return new Iov(segment);
    }

    /**
     * Sets triplet {@code index} to a range of a registered region, by offset within the LMR.
     *
     * <p>Nothing is checked against the LMR here: the post that uses the triplet checks it and answers
     * {@link DatReturn#DAT_INVALID_PARAMETER} for a range outside the LMR, as DAT requires.
     *
     * @param index triplet index, {@code 0 <= index < capacity()}
     * @param lmr the region; its {@link DatLmr#lmrContext()} and {@link DatLmr#address()} are used
     * @param offset byte offset of the range within the LMR
     * @param length byte length of the range
     * @return this vector
     */
    public Iov set(int index, DatLmr lmr, long offset, long length) {
        return set(index, lmr.lmrContext(), lmr.address() + offset, length);
    }

    /**
     * Sets triplet {@code index} verbatim, as C code fills a {@code DAT_LMR_TRIPLET}.
     *
     * @param index triplet index, {@code 0 <= index < capacity()}
     * @param lmrContext the LMR's {@code lmr_context}
     * @param virtualAddress the absolute virtual address of the first byte
     * @param segmentLength the byte length
     * @return this vector
     */
    public Iov set(int index, int lmrContext, long virtualAddress, long segmentLength) {
        long base = offsetOf(index);
        triplets.set(ValueLayout.JAVA_INT, base + LMR_CONTEXT_OFFSET, lmrContext);
        triplets.set(ValueLayout.JAVA_INT, base + LMR_CONTEXT_OFFSET + 4, 0);
        triplets.set(ValueLayout.JAVA_LONG, base + VIRTUAL_ADDRESS_OFFSET, virtualAddress);
        triplets.set(ValueLayout.JAVA_LONG, base + SEGMENT_LENGTH_OFFSET, segmentLength);
        return this;
    }

    /**
     * {@return the {@code lmr_context} of triplet {@code index}}
     *
     * @param index triplet index
     */
    public int lmrContext(int index) {
        return triplets.get(ValueLayout.JAVA_INT, offsetOf(index) + LMR_CONTEXT_OFFSET);
    }

    /**
     * {@return the {@code virtual_address} of triplet {@code index}}
     *
     * @param index triplet index
     */
    public long virtualAddress(int index) {
        return triplets.get(ValueLayout.JAVA_LONG, offsetOf(index) + VIRTUAL_ADDRESS_OFFSET);
    }

    /**
     * {@return the {@code segment_length} of triplet {@code index}}
     *
     * @param index triplet index
     */
    public long segmentLength(int index) {
        return triplets.get(ValueLayout.JAVA_LONG, offsetOf(index) + SEGMENT_LENGTH_OFFSET);
    }

    /**
     * Reads triplet {@code index} whole: {@code into[at]} gets its {@code lmr_context} (sign-extended, so
     * {@code (int) into[at]} gives it back), {@code into[at + 1]} its {@code virtual_address} and {@code into[at + 2]}
     * its {@code segment_length}.
     *
     * <p>For a provider's post, which reads every triplet it is given: the index is checked once for the triplet, and
     * a triplet read while another thread closes the IOV's shared arena is either read whole or not at all (the call
     * then throws, whatever it stored). The words are three loads, not a bulk copy into the array: that copy is a call
     * into the runtime's copy stub, which cost the loopback provider's 64 B RDMA write more than the checks it saves
     * (its share of the post's samples fell from 7.9% to 4.5%). {@code at} lets the caller place the three words away
     * from the ends of its array, for example to keep them off cache lines that other threads write.
     *
     * @param index triplet index, {@code 0 <= index < capacity()}
     * @param into receives the three words
     * @param at where in {@code into} the first goes
     * @throws IndexOutOfBoundsException when {@code index} is outside the vector or {@code into} has no room for
     *     three words at {@code at}
     * @throws IllegalStateException when the arena of the triplet memory is closed
     * @throws WrongThreadException when that arena is confined to another thread
     */
    public void read(int index, long[] into, int at) {
        Objects.checkFromIndexSize(at, 3, into.length);
        long base = offsetOf(index);
        long head = triplets.get(ValueLayout.JAVA_LONG, base);
        long address = triplets.get(ValueLayout.JAVA_LONG, base + VIRTUAL_ADDRESS_OFFSET);
        long length = triplets.get(ValueLayout.JAVA_LONG, base + SEGMENT_LENGTH_OFFSET);
        // lmr_context is the first four bytes of the first word, then the pad: the low half on a little-endian
        // machine, the high half on a big-endian one.
        into[at] = (int) (LITTLE_ENDIAN ? head : head >>> 32);
        into[at + 1] = address;
        into[at + 2] = length;
    }

    /**
     * The sum of the first {@code count} segment lengths.
     *
     * @param count how many triplets to add up, {@code 0 <= count <= capacity()}
     * @return the total byte length
     */
    public long totalLength(int count) {
        Objects.checkFromToIndex(0, count, capacity);
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += segmentLength(i);
        }
        return total;
    }

    /** {@return how many triplets this vector holds} */
    public int capacity() {
        return capacity;
    }

    /** {@return the triplet memory, laid out as {@link #TRIPLET_LAYOUT} repeated {@link #capacity()} times} */
    public MemorySegment segment() {
        return triplets;
    }

    private long offsetOf(int index) {
        return Objects.checkIndex(index, capacity) * TRIPLET_SIZE;
    }
}
