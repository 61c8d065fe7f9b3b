/*
 * bench_activity.c -- the cost of inact_activity from C, against the physical floor and the
 * naive patterns, measured in the same process with the runs interleaved so that the ratios
 * hold on a noisy machine.
 *
 *   floor     clock_gettime(CLOCK_BOOTTIME) to ms + a relaxed atomic store: the least any
 *             "remember when the user last did something" can cost.
 *   activity  inact_activity(engine, INACT_ACTIVITY_TOUCH_MOVE) on an ACTIVE engine (SYSTEM
 *             clock, THREAD delivery, the default policy: 15 min idle, so nothing is due).
 *   activity_keepalive  the same on a second engine whose policy sets keepalive_interval_ms to
 *             1000 (the least allowed: the most keepalives, each taking the locked path once
 *             per second of continuous activity); built with -DBENCH_KEEPALIVE, which
 *             scripts/bench passes when the header has the field (1.3 on).
 *   timerfd   the naive pattern of re-arming a kernel timer per event:
 *             timerfd_settime(fd, 0, {15 min}) per event.
 *   heap      the naive pattern of a hand-written timer queue: per event, take its mutex, read
 *             the clock, remove this session's timer from a binary heap of 1024 timers and
 *             insert it again at now + 15 min (libuv's uv_timer_start does remove + insert).
 *
 * Single thread: ns per call (wall time / calls). 4 threads on one engine (one timerfd, one
 * heap, one atomic): CPU ns per call (sum of the threads' CPU time / calls; it does not depend
 * on how many cores the machine has) and the aggregate rate in wall time.
 *
 * Usage: bench_activity [runs] [target_ms_per_run]   -- prints one JSON object on stdout.
 */
#include "bench_common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/timerfd.h>

enum { THREADS = 4, HEAP_TIMERS = 1024 };
#define IDLE_NS (15LL * 60 * 1000000000)

/* ---- floor ------------------------------------------------------------------------------ */

static _Atomic int64_t floor_last_activity_ms;

static void run_floor(uint64_t n, void *ctx) {
    (void)ctx;
    for (uint64_t i = 0; i < n; i++) {
        struct timespec ts;
        clock_gettime(CLOCK_BOOTTIME, &ts);
        atomic_store_explicit(&floor_last_activity_ms, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
                              memory_order_relaxed);
    }
}

/* ---- the engine ------------------------------------------------------------------------- */

static inact_engine engine;

static void run_activity_on(inact_engine e, uint64_t n) {
    int32_t bad = 0;
    for (uint64_t i = 0; i < n; i++) bad |= inact_activity(e, INACT_ACTIVITY_TOUCH_MOVE);
    if (bad != INACT_OK) die("inact_activity failed inside the timed loop");
}

static void run_activity(uint64_t n, void *ctx) {
    (void)ctx;
    run_activity_on(engine, n);
}

#ifdef BENCH_KEEPALIVE
static inact_engine keepalive_engine;

static void run_activity_keepalive(uint64_t n, void *ctx) {
    (void)ctx;
    run_activity_on(keepalive_engine, n);
}
#endif

/* ---- naive: timerfd re-arm -------------------------------------------------------------- */

static int timer_fd = -1;

static void run_timerfd(uint64_t n, void *ctx) {
    (void)ctx;
    struct itimerspec spec = {{0, 0}, {15 * 60, 0}};
    for (uint64_t i = 0; i < n; i++)
        if (timerfd_settime(timer_fd, 0, &spec, NULL) != 0) die("timerfd_settime failed");
}

/* ---- naive: heap re-insert -------------------------------------------------------------- */

struct timer {
    int64_t due_ns;
    int32_t id;
};

static struct {
    pthread_mutex_t mutex;
    struct timer heap[HEAP_TIMERS];
    int32_t position[HEAP_TIMERS]; /* id -> index in heap */
    int32_t count;
} tq = {.mutex = PTHREAD_MUTEX_INITIALIZER};

static void tq_swap(int32_t a, int32_t b) {
    struct timer t = tq.heap[a];
    tq.heap[a] = tq.heap[b];
    tq.heap[b] = t;
    tq.position[tq.heap[a].id] = a;
    tq.position[tq.heap[b].id] = b;
}

static void tq_up(int32_t i) {
    while (i > 0) {
        int32_t parent = (i - 1) / 2;
        if (tq.heap[parent].due_ns <= tq.heap[i].due_ns) break;
        tq_swap(parent, i);
        i = parent;
    }
}

static void tq_down(int32_t i) {
    for (;;) {
        int32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < tq.count && tq.heap[l].due_ns < tq.heap[m].due_ns) m = l;
        if (r < tq.count && tq.heap[r].due_ns < tq.heap[m].due_ns) m = r;
        if (m == i) return;
        tq_swap(i, m);
        i = m;
    }
}

static void tq_insert(int32_t id, int64_t due_ns) {
    int32_t i = tq.count++;
    tq.heap[i] = (struct timer){due_ns, id};
    tq.position[id] = i;
    tq_up(i);
}

static void tq_remove(int32_t id) {
    int32_t i = tq.position[id];
    int32_t last = --tq.count;
    if (i != last) {
        tq_swap(i, last);
        tq_down(i);
        tq_up(i);
    }
    tq.position[id] = -1;
}

static void tq_fill(void) {
    int64_t now = boottime_ns();
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int32_t id = 0; id < HEAP_TIMERS; id++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        tq_insert(id, now + (int64_t)(x % (uint64_t)(2 * IDLE_NS)));
    }
}

static void run_heap(uint64_t n, void *ctx) {
    (void)ctx;
    const int32_t session = 0;
    for (uint64_t i = 0; i < n; i++) {
        pthread_mutex_lock(&tq.mutex);
        int64_t now = boottime_ns();
        tq_remove(session);
        tq_insert(session, now + IDLE_NS);
        pthread_mutex_unlock(&tq.mutex);
    }
}

/* ---- the harness ------------------------------------------------------------------------ */

typedef void (*bench_fn)(uint64_t n, void *ctx);

struct bench {
    const char *name;
    bench_fn fn;
    uint64_t ops1;             /* calls per single-thread run (calibrated) */
    uint64_t ops4;             /* calls per thread per 4-thread run (calibrated) */
    double *single_ns;         /* per run */
    double *multi_cpu_ns;      /* per run: CPU ns per call, 4 threads */
    double *multi_wall_mops;   /* per run: million calls per second, 4 threads, wall */
};

static double time_single(bench_fn fn, uint64_t n) {
    int64_t t0 = now_ns();
    fn(n, NULL);
    return (double)(now_ns() - t0);
}

struct worker {
    pthread_t thread;
    bench_fn fn;
    uint64_t n;
    pthread_barrier_t *start;
    int64_t cpu_ns;
    int64_t begin_ns, end_ns; /* CLOCK_MONOTONIC around the loop */
};

static void *worker_main(void *arg) {
    struct worker *w = arg;
    pthread_barrier_wait(w->start);
    w->begin_ns = now_ns();
    int64_t c0 = bench_ns(CLOCK_THREAD_CPUTIME_ID);
    w->fn(w->n, NULL);
    w->cpu_ns = bench_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    w->end_ns = now_ns();
    return NULL;
}

/* Runs fn on THREADS threads, n calls each; returns wall ns (first start to last end, taken
 * by the workers: the main thread may not run while they do), writes the summed CPU ns. */
static double time_multi(bench_fn fn, uint64_t n, double *cpu_ns) {
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS + 1);
    struct worker w[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t] = (struct worker){.fn = fn, .n = n, .start = &start};
        if (pthread_create(&w[t].thread, NULL, worker_main, &w[t]) != 0) die("pthread_create");
    }
    pthread_barrier_wait(&start);
    double cpu = 0;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(w[t].thread, NULL);
        cpu += (double)w[t].cpu_ns;
        if (w[t].begin_ns < first) first = w[t].begin_ns;
        if (w[t].end_ns > last) last = w[t].end_ns;
    }
    double wall = (double)(last - first);
    pthread_barrier_destroy(&start);
    *cpu_ns = cpu;
    return wall;
}

/* Picks a call count so that one run takes about target_ms. */
static uint64_t calibrate(bench_fn fn, double target_ms) {
    uint64_t n = 1000;
    for (;;) {
        double ns = time_single(fn, n);
        if (ns > 5e6 || n >= (1ull << 34)) {
            double per = ns / (double)n;
            uint64_t want = (uint64_t)(target_ms * 1e6 / per);
            return want < 1000 ? 1000 : want;
        }
        n *= 4;
    }
}

static int64_t engine_last_activity_ms(inact_engine e) {
    inact_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    CHECK_OK(inact_get_info(e, &info));
    CHECK(info.state == INACT_STATE_ACTIVE, "the engine left ACTIVE (state %d): the benchmark is void",
          info.state);
    return info.last_activity_ms;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 11;
    double target_ms = argc > 2 ? atof(argv[2]) : 40;
    if (runs < 1) runs = 1;

    CHECK(inact_version_number() == INACT_VERSION_NUMBER, "library %u, header %u",
          inact_version_number(), (unsigned)INACT_VERSION_NUMBER);

    inact_config config;
    CHECK_OK(inact_config_init(&config));
    config.delivery = INACT_DELIVERY_THREAD;
    config.clock = INACT_CLOCK_SYSTEM;
    inact_policy policy;
    CHECK_OK(inact_policy_init(&policy)); /* 15 min idle, 30 s warning: nothing is due */
    CHECK_OK(inact_engine_create(&config, &policy, NULL, NULL, NULL, &engine));
    CHECK_OK(inact_start(engine));
#ifdef BENCH_KEEPALIVE
    policy.keepalive_interval_ms = 1000;
    CHECK_OK(inact_engine_create(&config, &policy, NULL, NULL, NULL, &keepalive_engine));
    CHECK_OK(inact_start(keepalive_engine));
#endif

    timer_fd = timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC);
    CHECK(timer_fd >= 0, "timerfd_create failed");
    tq_fill();

    struct bench benches[] = {
        {"floor", run_floor, 0, 0, NULL, NULL, NULL},
        {"activity", run_activity, 0, 0, NULL, NULL, NULL},
#ifdef BENCH_KEEPALIVE
        {"activity_keepalive", run_activity_keepalive, 0, 0, NULL, NULL, NULL},
#endif
        {"timerfd_rearm", run_timerfd, 0, 0, NULL, NULL, NULL},
        {"heap_reinsert", run_heap, 0, 0, NULL, NULL, NULL},
    };
    const int nb = (int)(sizeof benches / sizeof benches[0]);
    for (int b = 0; b < nb; b++) {
        benches[b].fn(20000, NULL); /* warm up */
        benches[b].ops1 = calibrate(benches[b].fn, target_ms);
        /* 4 threads: a quarter of the calls each, so a run's CPU time is about the same. */
        benches[b].ops4 = benches[b].ops1 / THREADS + 1;
        benches[b].single_ns = calloc((size_t)runs, sizeof(double));
        benches[b].multi_cpu_ns = calloc((size_t)runs, sizeof(double));
        benches[b].multi_wall_mops = calloc((size_t)runs, sizeof(double));
    }

    /* Interleaved: run r of every benchmark before run r+1 of any, so drift hits all alike. */
    for (int r = 0; r < runs; r++) {
        for (int b = 0; b < nb; b++) {
            int64_t before_ms = boottime_ns() / 1000000;
            benches[b].single_ns[r] = time_single(benches[b].fn, benches[b].ops1) / (double)benches[b].ops1;
            inact_engine measured = benches[b].fn == run_activity ? engine : 0;
#ifdef BENCH_KEEPALIVE
            if (benches[b].fn == run_activity_keepalive) measured = keepalive_engine;
#endif
            if (measured)
                CHECK(engine_last_activity_ms(measured) >= before_ms,
                      "the activity was not recorded (last activity %" PRId64 " < %" PRId64 ")",
                      engine_last_activity_ms(measured), before_ms);
            double cpu = 0;
            before_ms = boottime_ns() / 1000000;
            double wall = time_multi(benches[b].fn, benches[b].ops4, &cpu);
            double calls = (double)benches[b].ops4 * THREADS;
            benches[b].multi_cpu_ns[r] = cpu / calls;
            benches[b].multi_wall_mops[r] = calls / wall * 1e3;
            if (measured)
                CHECK(engine_last_activity_ms(measured) >= before_ms, "the activity (4 threads) was not recorded");
        }
    }

    printf("{\n  \"runs\": %d,\n  \"threads\": %d,\n  \"heap_timers\": %d,\n  \"benchmarks\": {\n", runs,
           THREADS, HEAP_TIMERS);
    for (int b = 0; b < nb; b++) {
        struct bench *x = &benches[b];
        printf("    \"%s\": {\"calls_per_run\": %" PRIu64 ", \"single_ns\": %.3f, \"threads4_cpu_ns\": %.3f, "
               "\"threads4_wall_mcalls_per_s\": %.3f,\n      \"single_ns_runs\": [",
               x->name, x->ops1, median(x->single_ns, runs), median(x->multi_cpu_ns, runs),
               median(x->multi_wall_mops, runs));
        for (int r = 0; r < runs; r++) printf("%s%.3f", r ? ", " : "", x->single_ns[r]);
        printf("],\n      \"threads4_cpu_ns_runs\": [");
        for (int r = 0; r < runs; r++) printf("%s%.3f", r ? ", " : "", x->multi_cpu_ns[r]);
        printf("]}%s\n", b + 1 < nb ? "," : "");
    }
    printf("  }\n}\n");

    CHECK_OK(inact_destroy(engine));
    return 0;
}
