// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.List;

/**
 * Writes the {@code dat perf --json} report by hand: one object with the run's identity and a {@code results}
 * array, one object per size. Numbers are written in plain decimal notation with six significant digits; a figure that
 * was not measured
 * (percentiles of a stream) or has no finite value is {@code null}.
 */
final class PerfJson {

    private static final MathContext SIGNIFICANT = new MathContext(6);

    private PerfJson() {
    }

    /**
     * {@return the JSON text, without a trailing newline}
     *
     * @param provider the provider name
     * @param ia the IA name
     * @param peer the peer's {@code HOST:CONN_QUAL} of a two-node run, or {@code null} (then not written)
     * @param test the test name
     * @param op the operation name
     * @param results one per size, in order
     */
    static String report(String provider, String ia, String peer, String test, String op,
                         List<PerfResult> results) {
        StringBuilder sb = new StringBuilder(256 + 256 * results.size());
        sb.append("{\n  \"provider\": ");
        string(sb, provider);
        sb.append(",\n  \"ia\": ");
        string(sb, ia);
        if (peer != null) {
            sb.append(",\n  \"peer\": ");
            string(sb, peer);
        }
        sb.append(",\n  \"test\": ");
        string(sb, test);
        sb.append(",\n  \"op\": ");
        string(sb, op);
        sb.append(",\n  \"results\": [");
        for (int i = 0; i < results.size(); i++) {
            PerfResult r = results.get(i);
            sb.append(i == 0 ? "\n    {" : ",\n    {");
            sb.append("\"bytes\": ").append(r.bytes());
            sb.append(", \"iters\": ").append(r.iters());
            sb.append(", \"total_bytes\": ").append(r.totalBytes());
            sb.append(", \"seconds\": ");
            number(sb, r.seconds());
            sb.append(", \"mb_per_sec\": ");
            number(sb, r.mbPerSec());
            sb.append(", \"usec_per_xfer\": ");
            number(sb, r.usecPerXfer());
            sb.append(", \"mxfers_per_sec\": ");
            number(sb, r.mxfersPerSec());
            sb.append(", \"p50_usec\": ");
            number(sb, r.p50Usec());
            sb.append(", \"p99_usec\": ");
            number(sb, r.p99Usec());
            sb.append('}');
        }
        sb.append(results.isEmpty() ? "]\n}" : "\n  ]\n}");
        return sb.toString();
    }

    /** Six significant digits in plain notation (no exponent): {@code 0.0000123457}, {@code 5123.46}. */
    private static void number(StringBuilder sb, double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            sb.append("null");
        } else {
            sb.append(new BigDecimal(value).round(SIGNIFICANT).stripTrailingZeros().toPlainString());
        }
    }

    /** The one JSON string writer: a provider name in {@code dat perf --json} is escaped as in {@code dat info}. */
    private static void string(StringBuilder sb, String s) {
        Json.quote(sb, s);
    }
}
