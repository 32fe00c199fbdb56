// SPDX-License-Identifier: Apache-2.0
package dat.spi;

/**
 * Sizing of the preallocated rings a provider keeps on the data path (request slots, receive slots, event slots).
 *
 * <p>A ring indexed by a running sequence number wraps with {@code seq & (size - 1)} when its size is a power of
 * two: one AND where {@code seq % size} is an integer division on every post and every completion. The consumer's
 * limit ({@code max_request_dtos}, {@code evd_qlen}) stays the limit: the array only rounds up, and the provider
 * keeps counting against the number the consumer asked for.
 */
public final class Rings {

    /** The largest size {@link #size} returns: the largest power of two an {@code int} holds. */
    public static final int MAX_SIZE = 1 << 30;

    private Rings() {
    }

    /**
     * {@return the smallest power of two that holds {@code limit} entries}
     *
     * @param limit how many entries the ring must hold at once, 1 to {@link #MAX_SIZE}
     * @throws IllegalArgumentException if {@code limit} is out of that range (a provider checks limits against its
     *         attributes first, so this is a provider bug)
     */
    public static int size(int limit) {
        if (limit < 1 || limit > MAX_SIZE) {
            throw new IllegalArgumentException("ring limit " + limit + " is outside 1.." + MAX_SIZE);
        }
        return limit == 1 ? 1 : Integer.highestOneBit(limit - 1) << 1;
    }
}
