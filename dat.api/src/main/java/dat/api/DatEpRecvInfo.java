// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * One {@code dat_ep_recv_query} snapshot. Both counts describe the same set of buffers, so
 * {@code bufsAllocSpan >= nbufsAllocated} whenever both are known.
 *
 * @param nbufsAllocated buffers allocated to the EP whose completion has not been generated, or
 *     {@link Dat#DAT_VALUE_UNKNOWN}
 * @param bufsAllocSpan how many more successful receive completions the EP can generate if every message it is
 *     receiving completes, or {@link Dat#DAT_VALUE_UNKNOWN}
 */
public record DatEpRecvInfo(int nbufsAllocated, int bufsAllocSpan) {
}
