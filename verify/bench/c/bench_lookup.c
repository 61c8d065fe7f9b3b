/*
 * bench_lookup.c -- calls on distinct engines share no lock (issue 26 item 7): two threads on
 * two engines against one thread on one, in the same process, the runs interleaved.
 *
 *   one        1 thread, N calls of inact_get_state on engine A: the baseline;
 *   two        2 threads at once, N calls each, thread 1 on engine A, thread 2 on engine B;
 *   shared     2 threads at once, N calls each, both on engine A (they share its lock: what
 *              sharing a lock costs on this machine, for scale);
 *   churn      1 thread, N calls on engine A, while a second thread creates, starts and
 *              destroys engines in a loop (what changes the set of engines takes the registry's
 *              process-wide lock; a lookup that took it too would wait for each of them).
 *
 * inact_get_state is a locked call: it finds the engine from its handle (the lookup), takes the
 * engine's lock, catches up and answers. Engines: HOST delivery, SYSTEM clock, default policy,
 * started (nothing is due, no timer is armed). Figures: CPU ns per call (the threads' CPU time
 * over the calls, which does not depend on how many cores the machine gives the run) and the
 * aggregate rate in wall time. If the lookups shared a lock, `two` would cost more CPU per call
 * than `one` (the lock's cache line moving between cores, futex sleeps and wake-ups) as `shared`
 * does; with per-engine locks only, `two` costs what `one` does.
 *
 * Usage: bench_lookup [runs=9] [calls_per_thread=2000000] -- prints one JSON object on stdout.
 */
#include "bench_common.h"

#include <pthread.h>
#include <stdatomic.h>

static inact_engine engine_a, engine_b;
static uint64_t calls;
static atomic_int ready, go, churning;
static long churned;

static void *churn(void *arg) {
    (void)arg;
    inact_config config;
    CHECK_OK(inact_config_init(&config));
    config.delivery = INACT_DELIVERY_HOST;
    config.clock = INACT_CLOCK_SYSTEM;
    atomic_fetch_add(&ready, 1);
    while (!atomic_load(&go)) {
    }
    while (atomic_load(&churning)) {
        inact_engine e;
        CHECK_OK(inact_engine_create(&config, NULL, NULL, NULL, NULL, &e));
        CHECK_OK(inact_start(e));
        CHECK_OK(inact_destroy(e));
        churned++;
    }
    return NULL;
}

struct worker {
    inact_engine engine;
    int64_t cpu_ns;
};

static void *work(void *arg) {
    struct worker *w = arg;
    int32_t state = -1;
    atomic_fetch_add(&ready, 1);
    while (!atomic_load(&go)) {
    }
    int64_t cpu0 = bench_ns(CLOCK_THREAD_CPUTIME_ID);
    for (uint64_t i = 0; i < calls; i++) CHECK_OK(inact_get_state(w->engine, &state));
    w->cpu_ns = bench_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    CHECK(state == INACT_STATE_ACTIVE, "the engine left ACTIVE (state %d)", state);
    return NULL;
}

/* Runs `n` threads on the engines given (and the churning thread if `with_churn`); returns the
 * wall ns, sets *cpu to the calling threads' CPU ns. */
static int64_t run(int n, const inact_engine *engines, int64_t *cpu, int with_churn) {
    pthread_t ids[2], churner;
    struct worker w[2];
    atomic_store(&ready, 0);
    atomic_store(&go, 0);
    atomic_store(&churning, 1);
    for (int i = 0; i < n; i++) {
        w[i].engine = engines[i];
        CHECK(pthread_create(&ids[i], NULL, work, &w[i]) == 0, "pthread_create failed");
    }
    if (with_churn) CHECK(pthread_create(&churner, NULL, churn, NULL) == 0, "pthread_create failed");
    while (atomic_load(&ready) < n + with_churn) {
    }
    int64_t t0 = now_ns();
    atomic_store(&go, 1);
    *cpu = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(ids[i], NULL);
        *cpu += w[i].cpu_ns;
    }
    int64_t wall = now_ns() - t0;
    atomic_store(&churning, 0);
    if (with_churn) pthread_join(churner, NULL);
    return wall;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 9;
    calls = argc > 2 ? (uint64_t)atoll(argv[2]) : 2000000;
    CHECK(runs >= 1 && runs <= 1000 && calls >= 1000, "usage: bench_lookup [runs 1..1000] [calls >= 1000]");
    inact_config config;
    CHECK_OK(inact_config_init(&config));
    config.delivery = INACT_DELIVERY_HOST;
    config.clock = INACT_CLOCK_SYSTEM;
    CHECK_OK(inact_engine_create(&config, NULL, NULL, NULL, NULL, &engine_a));
    CHECK_OK(inact_engine_create(&config, NULL, NULL, NULL, NULL, &engine_b));
    CHECK_OK(inact_start(engine_a));
    CHECK_OK(inact_start(engine_b));

    double *one_cpu = calloc((size_t)runs, sizeof(double)), *two_cpu = calloc((size_t)runs, sizeof(double));
    double *shared_cpu = calloc((size_t)runs, sizeof(double)), *one_rate = calloc((size_t)runs, sizeof(double));
    double *two_rate = calloc((size_t)runs, sizeof(double)), *shared_rate = calloc((size_t)runs, sizeof(double));
    double *churn_cpu = calloc((size_t)runs, sizeof(double)), *churn_rate = calloc((size_t)runs, sizeof(double));
    CHECK(one_cpu && two_cpu && shared_cpu && one_rate && two_rate && shared_rate && churn_cpu && churn_rate,
          "out of memory");
    inact_engine distinct[2] = {engine_a, engine_b}, same[2] = {engine_a, engine_a};
    int64_t cpu;
    (void)run(2, distinct, &cpu, 0); /* warm-up */
    for (int r = 0; r < runs; r++) {
        int64_t wall = run(1, distinct, &cpu, 0);
        one_cpu[r] = (double)cpu / (double)calls;
        one_rate[r] = (double)calls / ((double)wall / 1e9);
        wall = run(2, distinct, &cpu, 0);
        two_cpu[r] = (double)cpu / (double)(2 * calls);
        two_rate[r] = (double)(2 * calls) / ((double)wall / 1e9);
        wall = run(2, same, &cpu, 0);
        shared_cpu[r] = (double)cpu / (double)(2 * calls);
        shared_rate[r] = (double)(2 * calls) / ((double)wall / 1e9);
        wall = run(1, distinct, &cpu, 1);
        churn_cpu[r] = (double)cpu / (double)calls;
        churn_rate[r] = (double)calls / ((double)wall / 1e9);
    }
    double oc = median(one_cpu, runs), tc = median(two_cpu, runs), sc = median(shared_cpu, runs);
    double orate = median(one_rate, runs), trate = median(two_rate, runs), srate = median(shared_rate, runs);
    double cc = median(churn_cpu, runs), crate = median(churn_rate, runs);
    printf("{\"mode\": \"lookup\", \"runs\": %d, \"calls_per_thread\": %" PRIu64 ", \"call\": \"inact_get_state\",\n"
           " \"one_thread\": {\"cpu_ns_per_call\": %.1f, \"calls_per_s\": %.0f},\n"
           " \"two_threads_two_engines\": {\"cpu_ns_per_call\": %.1f, \"calls_per_s\": %.0f},\n"
           " \"two_threads_one_engine\": {\"cpu_ns_per_call\": %.1f, \"calls_per_s\": %.0f},\n"
           " \"one_thread_beside_churn\": {\"cpu_ns_per_call\": %.1f, \"calls_per_s\": %.0f, \"engines_churned\": %ld},\n"
           " \"two_engines_cpu_vs_one_thread\": %.2f, \"two_engines_rate_vs_one_thread\": %.2f,"
           " \"one_engine_cpu_vs_one_thread\": %.2f, \"churn_cpu_vs_one_thread\": %.2f}\n",
           runs, calls, oc, orate, tc, trate, sc, srate, cc, crate, churned, tc / oc, trate / orate, sc / oc, cc / oc);
    CHECK_OK(inact_destroy(engine_a));
    CHECK_OK(inact_destroy(engine_b));
    return 0;
}
