// SPDX-License-Identifier: Apache-2.0
package dat.cli;

/**
 * One row of a {@code dat perf} report: what one message size measured. Rates follow fi_pingpong: MB/sec is
 * 10<sup>6</sup> bytes per second, {@code total} counts every transfer (both directions of a pingpong).
 *
 * @param bytes the message size
 * @param iters timed iterations
 * @param sent operations the client posted in the timed part
 * @param acked operations the peer or the completion queue confirmed: echoes received (pingpong), messages the
 *     receiver counted (send streams), successful completions (RDMA streams and reads)
 * @param totalBytes bytes moved: {@code bytes * iters * transfers per iteration}
 * @param nanos elapsed time of the timed part
 * @param xfers transfers in the timed part
 * @param p50Nanos median per-transfer latency, or -1 when not measured (streams)
 * @param p99Nanos 99th percentile per-transfer latency, or -1 when not measured
 */
record PerfResult(long bytes, int iters, long sent, long acked, long totalBytes, long nanos, long xfers,
                  long p50Nanos, long p99Nanos) {

    /** {@return elapsed seconds} */
    double seconds() {
        return nanos / 1e9;
    }

    /** {@return 10<sup>6</sup> bytes per second} */
    double mbPerSec() {
        return nanos == 0 ? Double.NaN : totalBytes * 1e3 / nanos;
    }

    /** {@return microseconds per transfer: for a send or write pingpong, the one-way latency (RTT / 2)} */
    double usecPerXfer() {
        return xfers == 0 ? Double.NaN : nanos / 1e3 / xfers;
    }

    /** {@return millions of transfers per second} */
    double mxfersPerSec() {
        return nanos == 0 ? Double.NaN : xfers * 1e3 / nanos;
    }

    /** {@return the median latency in microseconds, or NaN when not measured} */
    double p50Usec() {
        return p50Nanos < 0 ? Double.NaN : p50Nanos / 1e3;
    }

    /** {@return the 99th percentile latency in microseconds, or NaN when not measured} */
    double p99Usec() {
        return p99Nanos < 0 ? Double.NaN : p99Nanos / 1e3;
    }
}
