// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one {@code dat perf} run measures: the test, the operation, and per message size the warm-up and timed
 * iteration counts. Also the size-list parser and the default iteration rules, kept beside the plan they feed.
 *
 * @param test the test
 * @param op the data transfer operation
 * @param sizes message sizes in bytes, in the order given
 * @param iters timed iterations per size
 * @param warmups warm-up iterations per size, run before the timed ones and not reported
 * @param window most operations outstanding at once in {@code bw} and {@code rate}
 * @param timeoutNanos how long one size (warm-up and timed) may take before the watchdog aborts the run
 */
record PerfPlan(Test test, Op op, long[] sizes, int[] iters, int[] warmups, int window, long timeoutNanos) {

    /** Pingpong iterations for sizes below {@link #SCALE_FROM}, as fi_pingpong runs them. */
    static final int PINGPONG_ITERS_DEFAULT = 10_000;
    /** Streamed operations per size in {@code bw}, before scaling for large sizes. */
    static final int BW_ITERS_DEFAULT = 100_000;
    /** Streamed sends per size in {@code rate}, before scaling for large sizes. */
    static final int RATE_ITERS_DEFAULT = 1_000_000;
    /** Sizes from which the default iteration count shrinks so that one size moves a bounded amount of data. */
    static final long SCALE_FROM = 64 * 1024;
    /** Pingpong: about this many bytes moved per size, once sizes reach {@link #SCALE_FROM}. */
    static final long PINGPONG_BYTES_PER_SIZE = 256L << 20;
    /** Bw and rate: about this many bytes moved per size, once sizes reach {@link #SCALE_FROM}. */
    static final long STREAM_BYTES_PER_SIZE = 1L << 30;
    /** No default iteration count goes below this, however large the size. */
    static final int MIN_ITERS = 10;
    /** Largest window of outstanding operations, as fi_pingpong's and ib_send_bw's default tx depth. */
    static final int MAX_WINDOW = 64;
    /**
     * Most sizes one run measures: the plan message a two-node run sends (16 bytes a size) stays far below DAT's
     * smallest {@code max_message_size}, and a serving node never sizes a buffer from a client's count beyond it.
     */
    static final int MAX_SIZES = 64;

    /** The three measurements. */
    enum Test {
        /** Round trips; one-way latency. */
        PINGPONG("8,64,4k,64k,1m"),
        /** A window of operations streamed; bandwidth. */
        BW("8,64,4k,64k,1m"),
        /** A window of small sends streamed; message rate. */
        RATE("8");

        private final String defaultSizes;

        Test(String defaultSizes) {
            this.defaultSizes = defaultSizes;
        }

        /** {@return the size list used without {@code --sizes}} */
        String defaultSizes() {
            return defaultSizes;
        }

        /** {@return the name on the command line} */
        String cliName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * {@return the test, or {@code null} for an unknown name}
         *
         * @param name a command-line name
         */
        static Test parse(String name) {
            for (Test t : values()) {
                if (t.cliName().equals(name)) {
                    return t;
                }
            }
            return null;
        }
    }

    /** The DAT data transfer operations measured. */
    enum Op {
        /** {@code dat_ep_post_send} into the peer's posted {@code dat_ep_post_recv}. */
        SEND,
        /** {@code dat_ep_post_rdma_write}. */
        WRITE,
        /** {@code dat_ep_post_rdma_read}. */
        READ;

        /** {@return the name on the command line} */
        String cliName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * {@return the operation, or {@code null} for an unknown name}
         *
         * @param name a command-line name
         */
        static Op parse(String name) {
            for (Op o : values()) {
                if (o.cliName().equals(name)) {
                    return o;
                }
            }
            return null;
        }
    }

    /** {@return the largest size of the plan} */
    long maxSize() {
        long max = 0;
        for (long s : sizes) {
            max = Math.max(max, s);
        }
        return max;
    }

    /**
     * Transfers one iteration makes: a pingpong over send or write crosses the wire twice (fi_pingpong counts
     * both, so its usec/xfer is the one-way latency); an RDMA read and a streamed operation once.
     *
     * @return 2 or 1
     */
    int xfersPerIter() {
        return test == Test.PINGPONG && op != Op.READ ? 2 : 1;
    }

    /**
     * The default timed iteration count for one size.
     *
     * @param test the test
     * @param op the operation
     * @param size the message size
     * @return {@link #PINGPONG_ITERS_DEFAULT}, {@link #BW_ITERS_DEFAULT} or {@link #RATE_ITERS_DEFAULT}, scaled
     *     down from {@link #SCALE_FROM} so one size moves about {@link #PINGPONG_BYTES_PER_SIZE} or
     *     {@link #STREAM_BYTES_PER_SIZE}, never below {@link #MIN_ITERS}
     */
    static int defaultIters(Test test, Op op, long size) {
        int base = switch (test) {
            case PINGPONG -> PINGPONG_ITERS_DEFAULT;
            case BW -> BW_ITERS_DEFAULT;
            case RATE -> RATE_ITERS_DEFAULT;
        };
        if (size < SCALE_FROM) {
            return base;
        }
        long xfers = test == Test.PINGPONG && op != Op.READ ? 2 : 1;
        long budget = test == Test.PINGPONG ? PINGPONG_BYTES_PER_SIZE : STREAM_BYTES_PER_SIZE;
        return (int) Math.max(MIN_ITERS, Math.min(base, budget / (size * xfers)));
    }

    /**
     * Parses a size list such as {@code 8,64,4k,64k,1m}: decimal numbers with an optional {@code k}, {@code m} or
     * {@code g} suffix (powers of 1024, either case).
     *
     * @param text the list
     * @return the sizes in the order given
     * @throws IllegalArgumentException naming the offending entry when one is empty, not a number, not positive,
     *     or too large
     */
    static long[] parseSizes(String text) {
        List<Long> sizes = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String entry = part.strip();
            if (entry.isEmpty()) {
                throw new IllegalArgumentException("--sizes '" + text + "' has an empty entry");
            }
            sizes.add(parseSize(entry));
        }
        return sizes.stream().mapToLong(Long::longValue).toArray();
    }

    private static long parseSize(String entry) {
        char last = Character.toLowerCase(entry.charAt(entry.length() - 1));
        int shift = switch (last) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> 0;
        };
        String digits = shift == 0 ? entry : entry.substring(0, entry.length() - 1);
        if (digits.startsWith("-")) {
            throw new IllegalArgumentException("size " + entry + " is negative; sizes must be at least 1 byte");
        }
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("size '" + entry
                    + "' is not a number of bytes (digits with an optional k, m or g suffix, e.g. 8,64,4k,64k,1m)");
        }
        long value;
        try {
            value = Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size " + entry + " is too large", e);
        }
        if (value == 0) {
            throw new IllegalArgumentException("size " + entry + " is 0; sizes must be at least 1 byte");
        }
        if (value > (Long.MAX_VALUE >>> shift)) {
            throw new IllegalArgumentException("size " + entry + " is too large");
        }
        return value << shift;
    }

    /**
     * {@return the size as {@link #parseSizes} reads it back, with the largest exact suffix: 4096 is {@code 4k}}
     *
     * @param bytes a size
     */
    static String sizeName(long bytes) {
        String[] suffixes = {"g", "m", "k"};
        int[] shifts = {30, 20, 10};
        for (int i = 0; i < shifts.length; i++) {
            long unit = 1L << shifts[i];
            if (bytes >= unit && bytes % unit == 0) {
                return (bytes >> shifts[i]) + suffixes[i];
            }
        }
        return Long.toString(bytes);
    }
}
