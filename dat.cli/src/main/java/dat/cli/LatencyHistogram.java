// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import java.util.Arrays;

/**
 * Latency samples counted in a histogram of fixed size, so a pingpong of any iteration count needs no memory per
 * iteration and {@link #record} allocates nothing. Buckets are log-linear, as HdrHistogram's: every value below
 * {@value #EXACT_BELOW} ns has its own bucket (exact), and above that each power-of-two range is cut into
 * {@value #HALF} buckets, so a value above 16 µs is known to within one part in {@value #HALF} (about 0.01%). A
 * percentile is the nearest rank, as over sorted samples, reported as the middle of its bucket.
 */
final class LatencyHistogram {

    /** Bits of the exact range. */
    private static final int BITS = 14;
    /** Values below this many nanoseconds are counted exactly. */
    static final long EXACT_BELOW = 1L << BITS;
    /** Buckets per power-of-two range above the exact one. */
    static final int HALF = 1 << (BITS - 1);

    /** Enough buckets for any non-negative {@code long}: the exact range, then one range per higher bit. */
    private final int[] counts = new int[(Long.SIZE - BITS + 1) * HALF];
    private long total;

    /** Empties the histogram for the next size. */
    void reset() {
        Arrays.fill(counts, 0);
        total = 0;
    }

    /**
     * Counts one sample.
     *
     * @param nanos the sample; a negative one counts as 0
     */
    void record(long nanos) {
        counts[index(Math.max(0, nanos))]++;
        total++;
    }

    /** {@return how many samples were recorded} */
    long count() {
        return total;
    }

    /**
     * {@return the nearest-rank percentile: the value of the sample at rank {@code ceil(quantile * n)}, within its
     * bucket's precision; 0 when empty}
     *
     * @param quantile from 0 to 1
     */
    long percentile(double quantile) {
        long rank = Math.max(1, (long) Math.ceil(quantile * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return value(i);
            }
        }
        return 0;
    }

    static int index(long value) {
        if (value < EXACT_BELOW) {
            return (int) value;
        }
        int shift = (Long.SIZE - 1 - Long.numberOfLeadingZeros(value)) - (BITS - 1);
        return shift * HALF + (int) (value >>> shift);
    }

    static long value(int index) {
        if (index < EXACT_BELOW) {
            return index;
        }
        int shift = index / HALF - 1;
        long low = (long) (index - shift * HALF) << shift;
        return low + ((1L << shift) >>> 1);
    }
}
