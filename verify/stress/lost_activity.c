/*
 * lost_activity.c -- activity that returned INACT_OK is never lost under load (issue 26).
 *
 *   lost_activity [engines=2048] [idle_ms=40] [activity_threads=2] [busy_threads=1] [seconds=10]
 *
 * Many THREAD engines on the SYSTEM clock (idle `idle_ms`, no warning, no ticks), split among
 * `activity_threads` threads that call inact_activity(TOUCH_DOWN) on their engines round-robin
 * as fast as they can, while `busy_threads` threads spin to load the other core, so that the
 * scheduler thread, which wakes every engine once per idle period to move its deadline, is
 * preempted at random places while it applies them.
 *
 * The check knows nothing of the engine's internals. A call that starts and ends within one
 * millisecond t of the engine's clock (CLOCK_BOOTTIME, read here at ns precision before and
 * after the call) and returns OK on an ACTIVE engine is activity stamped at t. The activity
 * threads mark, per engine, the milliseconds in which such a call happened (the last 4 s). A
 * lock by IDLE_TIMEOUT taking effect at D (the event's time_ms) then requires that no activity
 * was stamped in (D - idle, D): a marked millisecond t with D - idle < t < D is activity lost.
 * The callback checks this when the lock is delivered (a mark written late is missed: a missed
 * violation, never a false one). Locks for which the threads really paused for an idle period
 * (the machine starved them) are legitimate: they are counted, and the activity thread unlocks
 * the engine and goes on.
 *
 * Prints one line of figures; exits 1 on a violation (naming up to 10), 0 otherwise.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "inactivity.h"

#define HISTORY_MS 4096 /* a power of two: the marks of the last 4 s, per engine */

static long engines = 2048;
static int64_t idle_ms = 40;
static int activity_threads = 2;
static int busy_threads = 1;
static double seconds = 10;

static inact_engine *handles;
/* marks[i * HISTORY_MS + t % HISTORY_MS] == (uint32_t)(t + 1): a call to engine i was stamped at
 * ms t (32 bits: a false match would need two marks 49 days apart). */
static _Atomic uint32_t *marks;
static atomic_int *needs_unlock;
static atomic_bool stop;
static atomic_long legit_locks, violations, bad_status, other_events;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_event(const inact_event *ev, void *user_data) {
    long i = (long)(intptr_t)user_data;
    if (ev->state == INACT_STATE_ACTIVE) return;
    if (ev->state != INACT_STATE_LOCKED || ev->reason != INACT_REASON_IDLE_TIMEOUT) {
        atomic_fetch_add(&other_events, 1);
        return;
    }
    int64_t d = ev->time_ms, lost = -1;
    for (int64_t t = d - 1; t > d - idle_ms; t--) { /* the latest first */
        if (atomic_load_explicit(&marks[i * HISTORY_MS + (t & (HISTORY_MS - 1))], memory_order_relaxed) == (uint32_t)(t + 1)) {
            lost = t;
            break;
        }
    }
    if (lost >= 0) {
        if (atomic_fetch_add(&violations, 1) < 10)
            fprintf(stderr, "lost_activity: engine %ld LOCKED (IDLE_TIMEOUT) at %" PRId64 " ms, but activity "
                    "returned OK at %" PRId64 " ms, %" PRId64 " ms before (idle %" PRId64 " ms)\n",
                    i, d, lost, d - lost, idle_ms);
    } else {
        atomic_fetch_add(&legit_locks, 1);
    }
    atomic_store(&needs_unlock[i], 1);
}

struct slice { long first, count; long calls; };

static void *activity(void *arg) {
    struct slice *s = arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        for (long i = s->first; i < s->first + s->count; i++) {
            if (atomic_load_explicit(&needs_unlock[i], memory_order_relaxed)) {
                atomic_store(&needs_unlock[i], 0);
                (void)inact_unlock(handles[i]);   /* a new idle period; nothing marked meanwhile */
                continue;
            }
            int64_t start = now_ns();
            int32_t rc = inact_activity(handles[i], INACT_ACTIVITY_TOUCH_DOWN);
            int64_t end = now_ns();
            if (rc != INACT_OK) atomic_fetch_add(&bad_status, 1);
            int64_t t = start / 1000000;
            if (t == end / 1000000)
                atomic_store_explicit(&marks[i * HISTORY_MS + (t & (HISTORY_MS - 1))], (uint32_t)(t + 1),
                                      memory_order_relaxed);
            s->calls++;
        }
    }
    return NULL;
}

static void *busy(void *arg) {
    volatile uint64_t x = (uint64_t)(uintptr_t)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) x = x * 6364136223846793005ULL + 1;
    return NULL;
}

static void check(int32_t rc, const char *what) {
    if (rc != INACT_OK) {
        fprintf(stderr, "lost_activity: %s: status %d (%s)\n", what, rc, inact_last_error());
        exit(3);
    }
}

int main(int argc, char **argv) {
    if (argc > 1) engines = atol(argv[1]);
    if (argc > 2) idle_ms = atol(argv[2]);
    if (argc > 3) activity_threads = atoi(argv[3]);
    if (argc > 4) busy_threads = atoi(argv[4]);
    if (argc > 5) seconds = atof(argv[5]);
    if (activity_threads < 1 || engines < activity_threads || idle_ms < 2 || idle_ms > 1000 ||
        busy_threads < 0 || busy_threads > 64 || seconds <= 0) {
        fprintf(stderr, "usage: lost_activity [engines >= threads] [idle_ms 2..1000] [activity_threads >= 1] "
                        "[busy_threads 0..64] [seconds > 0]\n");
        return 3;
    }
    handles = calloc((size_t)engines, sizeof *handles);
    marks = calloc((size_t)engines * HISTORY_MS, sizeof *marks);
    needs_unlock = calloc((size_t)engines, sizeof *needs_unlock);
    pthread_t *ids = calloc((size_t)activity_threads, sizeof *ids);
    struct slice *slices = calloc((size_t)activity_threads, sizeof *slices);
    if (!handles || !marks || !needs_unlock || !ids || !slices) return 3;

    inact_config config;
    check(inact_config_init(&config), "inact_config_init");
    config.delivery = INACT_DELIVERY_THREAD;
    config.clock = INACT_CLOCK_SYSTEM;
    inact_policy policy;
    check(inact_policy_init(&policy), "inact_policy_init");
    policy.idle_timeout_ms = idle_ms;
    policy.warning_ms = 0;
    policy.tick_ms = 0;
    for (long i = 0; i < engines; i++) {
        check(inact_engine_create(&config, &policy, on_event, (void *)(intptr_t)i, NULL, &handles[i]),
              "inact_engine_create");
        check(inact_start(handles[i]), "inact_start");
    }

    pthread_t busy_ids[64];
    for (int b = 0; b < busy_threads; b++) pthread_create(&busy_ids[b], NULL, busy, (void *)(uintptr_t)(b + 1));
    long per = engines / activity_threads;
    for (int t = 0; t < activity_threads; t++) {
        slices[t].first = t * per;
        slices[t].count = t == activity_threads - 1 ? engines - t * per : per;
        pthread_create(&ids[t], NULL, activity, &slices[t]);
    }
    struct timespec run = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&run, &run) != 0) {
    }
    atomic_store(&stop, 1);
    long calls = 0;
    for (int t = 0; t < activity_threads; t++) {
        pthread_join(ids[t], NULL);
        calls += slices[t].calls;
    }
    for (int b = 0; b < busy_threads; b++) pthread_join(busy_ids[b], NULL);
    /* Locks delivered from here on are checked like the others (the marks stay). */
    for (long i = 0; i < engines; i++) check(inact_destroy(handles[i]), "inact_destroy");

    printf("lost_activity: %ld engines, idle %" PRId64 " ms, %d activity threads, %d busy, %.1f s: %ld calls, "
           "%ld locks after a real pause (the machine starved a thread), %ld other events, %ld bad statuses, "
           "%ld violations\n",
           engines, idle_ms, activity_threads, busy_threads, seconds, calls, atomic_load(&legit_locks),
           atomic_load(&other_events), atomic_load(&bad_status), atomic_load(&violations));
    return atomic_load(&violations) > 0 || atomic_load(&bad_status) > 0 || atomic_load(&other_events) > 0 ? 1 : 0;
}
