// SPDX-License-Identifier: Apache-2.0
// A null verbs device for VerbsOverheadBenchmark: functions with the signatures of struct ibv_context_ops' post_send,
// poll_cq and req_notify_cq that do the least a driver could (read the request's id, report an empty CQ), and C
// loops that call them through a function pointer as libibverbs' inline ibv_post_send does. Java calls the same
// functions through dat.provider.verbs' IbvOps, so the difference is what the Java side costs per call.
// Built by the benchmark at its set-up: gcc -O2 -shared -fPIC.
#include <stdint.h>

struct null_send_wr {
    uint64_t wr_id;
};

static volatile uint64_t last_wr_id;

__attribute__((noinline)) int null_post_send(void *qp, struct null_send_wr *wr, void **bad_wr) {
    (void) qp;
    (void) bad_wr;
    last_wr_id = wr->wr_id;
    return 0;
}

__attribute__((noinline)) int null_poll_cq(void *cq, int num_entries, void *wc) {
    (void) cq;
    (void) wc;
    return num_entries < 0 ? -1 : 0;
}

__attribute__((noinline)) int null_req_notify_cq(void *cq, int solicited_only) {
    (void) cq;
    return solicited_only < 0 ? -1 : 0;
}

typedef int (*post_send_fn)(void *, struct null_send_wr *, void **);
typedef int (*poll_cq_fn)(void *, int, void *);

// The pointers are volatile so that the compiler calls through them each time, as a driver's ops table is read.
int64_t c_post_send_loop(post_send_fn fn, void *qp, struct null_send_wr *wr, void **bad_wr, int64_t n) {
    post_send_fn volatile f = fn;
    int64_t failed = 0;
    for (int64_t i = 0; i < n; i++) {
        wr->wr_id = (uint64_t) i;
        failed += f(qp, wr, bad_wr) != 0;
    }
    return failed;
}

int64_t c_poll_cq_loop(poll_cq_fn fn, void *cq, int num_entries, void *wc, int64_t n) {
    poll_cq_fn volatile f = fn;
    int64_t found = 0;
    for (int64_t i = 0; i < n; i++) {
        found += f(cq, num_entries, wc);
    }
    return found;
}
