// SPDX-License-Identifier: Apache-2.0
package dat.tck.campaign;

/**
 * One step of a campaign: what to call, with raw random arguments that {@link World} maps onto whatever exists
 * when the step runs. Arguments are indexes and sizes, never handles, so a sequence stays meaningful when the
 * shrinker deletes steps before it: a step whose target is gone is skipped, not broken.
 *
 * @param kind the call
 * @param a first argument (usually which pair, side or region)
 * @param b second argument
 * @param c third argument
 * @param d fourth argument (usually a length)
 */
record Op(Kind kind, int a, int b, int c, int d) {

    /** The calls a campaign makes. */
    enum Kind {
        /** dat_ep_post_recv on an EP with its own receive queue. */
        POST_RECV,
        /** dat_srq_post_recv. */
        SRQ_POST,
        /** dat_ep_post_send. */
        SEND,
        /** dat_ep_post_send of a message longer than the receive it will land in: breaks the connection. */
        SEND_TOO_LONG,
        /** dat_ep_post_rdma_write. */
        WRITE,
        /** dat_ep_post_rdma_write into a region without REMOTE_WRITE: refused or breaks the connection. */
        WRITE_UNPRIVILEGED,
        /** dat_ep_post_rdma_read. */
        READ,
        /** dat_rmr_bind of a window onto part of a region, over one EP's connection. */
        BIND,
        /** The peer's RDMA write or read through a bound window: inside it, or just outside (refused). */
        WINDOW_RDMA,
        /** One malformed post (a variant per {@code b}): a status, no completion, nothing moved. */
        BAD_POST,
        /** dat_evd_dequeue on one EVD. */
        DEQUEUE,
        /** Waits until every completion and event the model owes has arrived. */
        DRAIN,
        /** dat_ep_disconnect, abrupt or (with nothing outstanding) graceful. */
        DISCONNECT,
        /** dat_ep_reset of both EPs of a disconnected pair. */
        RESET,
        /** Connects a reset pair again. */
        CONNECT,
        /** dat_ep_free of one EP of a pair, with whatever is outstanding, and a new EP in its place. */
        FREE_EP,
        /** dat_ep_recv_query. */
        RECV_QUERY,
        /** dat_srq_query. */
        SRQ_QUERY,
        /** dat_srq_resize. */
        SRQ_RESIZE,
        /** dat_srq_set_lw. */
        SRQ_SET_LW,
        /** dat_lmr_free of a region no post holds. */
        LMR_FREE,
        /** dat_lmr_create again over a freed region's memory. */
        LMR_CREATE,
        /** dat_lmr_create over memory whose arena is closed: refused. */
        LMR_CREATE_DEAD,
        /** dat_ep_connect on an EP that is not UNCONNECTED, or dat_ep_reset on a connected one: refused. */
        BAD_CONTROL
    }

    @Override
    public String toString() {
        return kind + "(" + a + ", " + b + ", " + c + ", " + d + ")";
    }
}
