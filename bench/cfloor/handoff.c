// SPDX-License-Identifier: Apache-2.0
/*
 * The C floor of bench/compare.sh: a ping-pong between two threads of one process, each pinned to its own core,
 * that does the least any shared-memory transport can do per message. The sender copies the message into the
 * peer's buffer; the last 8 bytes of the message are a sequence number, stored with release semantics after the
 * rest, and the receiver spins on them with acquire loads. At 64 bytes the whole message, payload and flag, is one
 * cache line: one line moves to the other core and one moves back per round trip, which is what "cache-line
 * handoff" means in the comparison. Larger messages add the memcpy.
 *
 * Waiting is the same as jDAT's dat perf: a pause instruction per empty poll, and sched_yield() after every 1024
 * empty polls so that a thread whose peer was descheduled on a busy machine gives its core back.
 *
 * Usage: handoff --plan SIZE:ITERS:WARMUP[,SIZE:ITERS:WARMUP...] [--cpus PING,PONG]
 * Prints one JSON object per size on stdout: the round-trip samples' median and 99th percentile halved (one-way),
 * and the mean one-way latency from the wall time of the timed loop (RTT / 2, as ucx_perftest and fi_pingpong).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SIZES 64
#define YIELD_EVERY 1024

struct step {
    size_t size;
    long iters;
    long warmup;
};

static struct step plan[MAX_SIZES];
static int steps;
static int cpus[2] = {0, 1};
static unsigned char *to_pong;
static unsigned char *to_ping;
static unsigned char *src_ping;
static unsigned char *src_pong;
static pthread_barrier_t barrier;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void pin(int cpu, const char *who) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    if (rc != 0) {
        fprintf(stderr, "handoff: cannot pin the %s thread to CPU %d: %s\n", who, cpu, strerror(rc));
        exit(2);
    }
}

/* The sequence word sits in the last 8 bytes of the message; sizes below 8 are refused when parsing the plan. */
static _Atomic uint64_t *seq_at(unsigned char *buf, size_t size) {
    return (_Atomic uint64_t *) (buf + size - sizeof(uint64_t));
}

static void send_msg(unsigned char *dst, const unsigned char *src, size_t size, uint64_t seq) {
    memcpy(dst, src, size - sizeof(uint64_t));
    /* Release: the payload stores above become visible no later than the sequence number that announces them. */
    atomic_store_explicit(seq_at(dst, size), seq, memory_order_release);
}

static void await_msg(unsigned char *buf, size_t size, uint64_t seq) {
    _Atomic uint64_t *flag = seq_at(buf, size);
    unsigned spins = 0;
    while (atomic_load_explicit(flag, memory_order_acquire) != seq) {
        if (++spins % YIELD_EVERY == 0) {
            sched_yield();
        } else {
            __builtin_ia32_pause();
        }
    }
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *) a;
    uint64_t y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of n sorted samples, as dat perf computes it. */
static uint64_t percentile(const uint64_t *sorted, long n, double q) {
    long rank = (long) (q * (double) n + 0.999999999) - 1;
    if (rank < 0) {
        rank = 0;
    }
    return sorted[rank];
}

static void *pong(void *arg) {
    (void) arg;
    pin(cpus[1], "pong");
    uint64_t seq = 0;
    for (int s = 0; s < steps; s++) {
        size_t size = plan[s].size;
        long total = plan[s].warmup + plan[s].iters;
        pthread_barrier_wait(&barrier);
        for (long i = 0; i < total; i++) {
            seq++;
            await_msg(to_pong, size, seq);
            send_msg(to_ping, src_pong, size, seq);
        }
        pthread_barrier_wait(&barrier);
    }
    return NULL;
}

static int parse_plan(char *text) {
    for (char *item = strtok(text, ","); item != NULL; item = strtok(NULL, ",")) {
        if (steps == MAX_SIZES) {
            fprintf(stderr, "handoff: --plan has more than %d sizes\n", MAX_SIZES);
            return -1;
        }
        long long size;
        long iters;
        long warmup;
        char tail;
        if (sscanf(item, "%lld:%ld:%ld%c", &size, &iters, &warmup, &tail) != 3) {
            fprintf(stderr, "handoff: plan entry '%s' is not SIZE:ITERS:WARMUP\n", item);
            return -1;
        }
        if (size < 8) {
            fprintf(stderr, "handoff: size %lld is below 8 bytes, the sequence word\n", size);
            return -1;
        }
        if (iters < 1 || warmup < 0) {
            fprintf(stderr, "handoff: plan entry '%s' needs ITERS >= 1 and WARMUP >= 0\n", item);
            return -1;
        }
        plan[steps++] = (struct step) {(size_t) size, iters, warmup};
    }
    return steps > 0 ? 0 : -1;
}

static unsigned char *buffer(size_t size) {
    void *p = NULL;
    if (posix_memalign(&p, 4096, size) != 0) {
        fprintf(stderr, "handoff: cannot allocate %zu bytes\n", size);
        exit(2);
    }
    memset(p, 0x5a, size);
    return p;
}

int main(int argc, char **argv) {
    char *plan_text = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--plan") == 0 && i + 1 < argc) {
            plan_text = argv[++i];
        } else if (strcmp(argv[i], "--cpus") == 0 && i + 1 < argc) {
            char tail;
            if (sscanf(argv[++i], "%d,%d%c", &cpus[0], &cpus[1], &tail) != 2 || cpus[0] < 0 || cpus[1] < 0) {
                fprintf(stderr, "handoff: --cpus takes PING,PONG, two CPU numbers, not '%s'\n", argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: handoff --plan SIZE:ITERS:WARMUP[,...] [--cpus PING,PONG]\n");
            return 2;
        }
    }
    if (plan_text == NULL || parse_plan(plan_text) != 0) {
        fprintf(stderr, "usage: handoff --plan SIZE:ITERS:WARMUP[,...] [--cpus PING,PONG]\n");
        return 2;
    }
    size_t max_size = 0;
    long max_iters = 0;
    for (int s = 0; s < steps; s++) {
        max_size = plan[s].size > max_size ? plan[s].size : max_size;
        max_iters = plan[s].iters > max_iters ? plan[s].iters : max_iters;
    }
    to_pong = buffer(max_size);
    to_ping = buffer(max_size);
    src_ping = buffer(max_size);
    src_pong = buffer(max_size);
    memset(to_pong, 0, max_size);
    memset(to_ping, 0, max_size);
    uint64_t *samples = malloc(sizeof(uint64_t) * (size_t) max_iters);
    if (samples == NULL) {
        fprintf(stderr, "handoff: cannot allocate %ld samples\n", max_iters);
        return 2;
    }
    pthread_barrier_init(&barrier, NULL, 2);
    pthread_t peer;
    int rc = pthread_create(&peer, NULL, pong, NULL);
    if (rc != 0) {
        fprintf(stderr, "handoff: pthread_create: %s\n", strerror(rc));
        return 2;
    }
    pin(cpus[0], "ping");
    uint64_t seq = 0;
    for (int s = 0; s < steps; s++) {
        size_t size = plan[s].size;
        pthread_barrier_wait(&barrier);
        /*
         * Sequence numbers keep rising across sizes, so a word left at this offset by an earlier size (an older
         * sequence number, or payload bytes 0x5a5a... of a larger size) never equals the one awaited.
         */
        for (long i = 0; i < plan[s].warmup; i++) {
            seq++;
            send_msg(to_pong, src_ping, size, seq);
            await_msg(to_ping, size, seq);
        }
        uint64_t start = now_ns();
        for (long i = 0; i < plan[s].iters; i++) {
            uint64_t t0 = now_ns();
            seq++;
            send_msg(to_pong, src_ping, size, seq);
            await_msg(to_ping, size, seq);
            samples[i] = now_ns() - t0;
        }
        uint64_t end = now_ns();
        pthread_barrier_wait(&barrier);
        long n = plan[s].iters;
        qsort(samples, (size_t) n, sizeof(uint64_t), compare_u64);
        printf("{\"bytes\": %zu, \"iters\": %ld, \"warmup\": %ld, \"seconds\": %.6f, "
               "\"mean_oneway_usec\": %.4f, \"p50_oneway_usec\": %.4f, \"p99_oneway_usec\": %.4f}\n",
               size, n, plan[s].warmup, (double) (end - start) / 1e9,
               (double) (end - start) / (double) n / 2.0 / 1e3,
               (double) percentile(samples, n, 0.50) / 2.0 / 1e3,
               (double) percentile(samples, n, 0.99) / 2.0 / 1e3);
        fflush(stdout);
    }
    pthread_join(peer, NULL);
    return 0;
}
