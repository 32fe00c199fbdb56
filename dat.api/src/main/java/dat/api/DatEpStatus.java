// SPDX-License-Identifier: Apache-2.0
package dat.api;

/**
 * What {@code dat_ep_get_status} reports.
 *
 * @param epState the EP state
 * @param recvIdle {@code recv_idle}: no receive is outstanding on the EP
 * @param requestIdle {@code request_idle}: no request (send, RDMA, bind) is outstanding
 */
public record DatEpStatus(DatEpState epState, boolean recvIdle, boolean requestIdle) {
}
