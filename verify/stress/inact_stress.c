/*
 * inact_stress.c -- multi-threaded stress of the C ABI, meant to run under ThreadSanitizer
 * (scripts/stress builds it and a TSan copy of libinactivity.so).
 *
 *   inact_stress [ops_per_thread=1000000] [threads=8]
 *
 * Every engine is THREAD delivery on the SYSTEM clock with timeouts of a few milliseconds, so
 * the process-wide scheduler thread delivers WARNING, ticks and locks while the workers call
 * in. Each worker mixes, over two shared engines and engines of its own:
 *   activity (the lock-free path), lock/unlock, unlock failures, background/foreground,
 *   windows, scopes, holds, snapshot write + restore into a fresh engine, queries, poll,
 *   start/end, refresh results, create/destroy, destroy right after a timer is due (racing
 *   the scheduler thread's callback), destroy from inside the callback, and replacing a shared
 *   engine while the other workers use its handle (they must get INACT_E_INVALID_HANDLE or
 *   success, never anything else).
 *
 * Checks (besides TSan's own reports, counted by scripts/stress):
 *   - no callback runs after inact_destroy has returned (a per-engine flag in user_data);
 *   - user_data_free runs exactly once, by the time destroy returns;
 *   - callbacks of one engine never overlap (serialized per engine);
 *   - every status is one the header allows for that call;
 *   - every event is well-formed (size, engine, state/reason ranges, time_ms <= now_ms).
 * Prints one line of figures and exits 1 on any violation.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inactivity.h"

#define MAGIC 0x1A7C71F1u
#define GRAVEYARD 512 /* user_data kept this long after destroy, so a late callback is caught, not a use-after-free */

typedef struct probe {
    uint32_t magic;
    atomic_int destroyed;       /* set right after inact_destroy returned */
    atomic_int frees;           /* user_data_free calls */
    atomic_int in_callback;     /* callbacks running now (must stay <= 1) */
    atomic_int cb_destroy;      /* 0; 1: the next callback destroys its engine; 2: it did */
    _Atomic inact_engine handle;
    atomic_long events;
} probe;

static atomic_long g_violations, g_events, g_engines, g_ops, g_invalid_handle, g_cb_destroys;
static atomic_long g_restores, g_races;

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void violation(const char *fmt, ...) {
    if (atomic_fetch_add(&g_violations, 1) < 20) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "VIOLATION: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
}

static void on_event(const inact_event *e, void *user_data) {
    probe *p = user_data;
    if (p->magic != MAGIC) violation("callback with bad user_data");
    if (atomic_load(&p->destroyed)) violation("callback after destroy returned (engine %#" PRIx64 ")", e->engine);
    if (atomic_load(&p->frees)) violation("callback after user_data_free");
    if (atomic_fetch_add(&p->in_callback, 1) != 0) violation("two callbacks of one engine at once");
    if (e->size != sizeof *e || e->engine != atomic_load(&p->handle) || e->state < 0 || e->state > 4 ||
        e->previous_state < 0 || e->previous_state > 4 || e->reason < 0 || e->reason > 18 ||
        e->time_ms > e->now_ms || (e->kind != INACT_EVENT_STATE_CHANGED && e->kind != INACT_EVENT_TICK))
        violation("malformed event kind %d state %d reason %d time %" PRId64 " now %" PRId64, e->kind, e->state,
                  e->reason, e->time_ms, e->now_ms);
    atomic_fetch_add(&p->events, 1);
    atomic_fetch_add(&g_events, 1);
    /* a re-entrant query: queued events wait, nothing recurses */
    int32_t st;
    int32_t rc = inact_get_state(e->engine, &st);
    if (rc != INACT_OK && rc != INACT_E_INVALID_HANDLE) violation("get_state in callback: %d", rc);
    int armed = 1;
    if (atomic_compare_exchange_strong(&p->cb_destroy, &armed, 2)) {
        rc = inact_destroy(e->engine);
        if (rc != INACT_OK) violation("destroy from the callback: %d", rc);
        atomic_fetch_add(&g_cb_destroys, 1);
    }
    atomic_fetch_sub(&p->in_callback, 1);
}

static void on_free(void *user_data) {
    probe *p = user_data;
    if (atomic_fetch_add(&p->frees, 1) != 0) violation("user_data_free ran twice");
}

/* ---- per-thread helpers --------------------------------------------------------------- */

typedef struct worker {
    int id;
    long ops;
    uint64_t rng;
    probe *graveyard[GRAVEYARD];
    int grave_next;
    inact_engine own[4];
    probe *own_probe[4];
    uint64_t scopes[16];
    int n_scopes;
    uint64_t holds[16];
    int n_holds;
} worker;

static uint32_t next_rand(worker *w) {
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return (uint32_t)(w->rng >> 16);
}

static void fast_policy(inact_policy *p, worker *w) {
    inact_policy_init(p);
    p->idle_timeout_ms = 20 + next_rand(w) % 30;
    p->warning_ms = 10;
    p->tick_ms = next_rand(w) % 2 ? 2 : 0;
    p->background_timeout_ms = next_rand(w) % 3 ? 15 : 0;
    p->background_grace_ms = 5;
    p->locked_timeout_ms = 40;
    p->max_unlock_failures = 3;
    p->activity_dismisses_warning = (int32_t)(next_rand(w) % 2);
    p->pause_idle_in_background = (int32_t)(next_rand(w) % 2);
}

static inact_engine create_engine(worker *w, probe **out_probe) {
    probe *p = calloc(1, sizeof *p);
    p->magic = MAGIC;
    inact_config cfg;
    inact_config_init(&cfg); /* THREAD delivery, SYSTEM clock */
    inact_policy pol;
    fast_policy(&pol, w);
    inact_engine h = 0;
    int32_t rc = inact_engine_create(&cfg, &pol, on_event, p, on_free, &h);
    if (rc != INACT_OK) {
        violation("create: %d (%s)", rc, inact_last_error());
        free(p);
        return 0;
    }
    atomic_store(&p->handle, h);
    atomic_fetch_add(&g_engines, 1);
    *out_probe = p;
    return h;
}

static void bury(worker *w, probe *p) {
    probe *old = w->graveyard[w->grave_next];
    if (old) {
        if (atomic_load(&old->frees) != 1) violation("user_data_free ran %d times", atomic_load(&old->frees));
        free(old);
    }
    w->graveyard[w->grave_next] = p;
    w->grave_next = (w->grave_next + 1) % GRAVEYARD;
}

static void destroy_engine(worker *w, inact_engine h, probe *p) {
    int32_t rc = inact_destroy(h);
    int by_callback = atomic_load(&p->cb_destroy) == 2;
    if (rc != INACT_OK && !(rc == INACT_E_INVALID_HANDLE && by_callback))
        violation("destroy: %d", rc);
    atomic_store(&p->destroyed, 1);
    /* the handle is dead for good, on the lock-free path too (generations never repeat) */
    int32_t st;
    if (inact_activity(h, INACT_ACTIVITY_KEY) != INACT_E_INVALID_HANDLE || inact_get_state(h, &st) != INACT_E_INVALID_HANDLE)
        violation("a destroyed handle still answers");
    if (atomic_load(&p->frees) != 1 && !by_callback)
        violation("destroy returned before user_data_free ran (%d)", atomic_load(&p->frees));
    bury(w, p);
}

/* ---- the shared engines ------------------------------------------------------------------- */

#define SHARED 2
static _Atomic inact_engine g_shared[SHARED];
static probe *g_shared_probe[SHARED];
static pthread_mutex_t g_shared_lock = PTHREAD_MUTEX_INITIALIZER; /* only for replacing one */

/* A status is fine if it is OK, or one of the errors the call may return in some state. */
static void expect(int32_t rc, int shared, const char *what, int32_t a, int32_t b) {
    if (rc == INACT_OK || rc == a || rc == b) return;
    if (shared && rc == INACT_E_INVALID_HANDLE) {
        atomic_fetch_add(&g_invalid_handle, 1);
        return;
    }
    violation("%s returned %d (%s)", what, rc, inact_status_string(rc));
}

static void one_op(worker *w, inact_engine h, int shared) {
    uint32_t r = next_rand(w) % 100;
    int32_t rc;
    if (r < 40) {
        rc = inact_activity(h, 1u << (next_rand(w) % 7));
        expect(rc, shared, "activity", 0, 0);
    } else if (r < 45) {
        rc = inact_lock(h);
        expect(rc, shared, "lock", INACT_E_INVALID_STATE, 0);
    } else if (r < 50) {
        rc = inact_unlock(h);
        expect(rc, shared, "unlock", INACT_E_INVALID_STATE, 0);
    } else if (r < 52) {
        uint32_t n;
        rc = inact_unlock_failed(h, &n);
        expect(rc, shared, "unlock_failed", INACT_E_INVALID_STATE, 0);
    } else if (r < 56) {
        rc = inact_background(h);
        expect(rc, shared, "background", 0, 0);
    } else if (r < 60) {
        rc = inact_foreground(h);
        expect(rc, shared, "foreground", 0, 0);
    } else if (r < 63) {
        rc = inact_window_shown(h);
        expect(rc, shared, "window_shown", INACT_E_LIMIT, 0);
    } else if (r < 66) {
        rc = inact_window_hidden(h);
        expect(rc, shared, "window_hidden", INACT_E_INVALID_STATE, 0);
    } else if (r < 69) {
        uint64_t id = 0;
        rc = inact_scope_push(h, 20 + next_rand(w) % 40, &id);
        expect(rc, shared, "scope_push", INACT_E_LIMIT, INACT_E_INVALID_ARGUMENT);
        if (rc == INACT_OK && w->n_scopes < 16) w->scopes[w->n_scopes++] = id;
    } else if (r < 72) {
        if (w->n_scopes) {
            /* another thread may have replaced the engine: NOT_FOUND is fine */
            rc = inact_scope_pop(h, w->scopes[--w->n_scopes]);
            expect(rc, shared, "scope_pop", INACT_E_NOT_FOUND, 0);
        }
    } else if (r < 75) {
        uint64_t id = 0;
        rc = inact_hold_acquire(h, &id);
        expect(rc, shared, "hold_acquire", INACT_E_LIMIT, 0);
        if (rc == INACT_OK && w->n_holds < 16) w->holds[w->n_holds++] = id;
    } else if (r < 78) {
        if (w->n_holds) {
            rc = inact_hold_release(h, w->holds[--w->n_holds]);
            expect(rc, shared, "hold_release", INACT_E_NOT_FOUND, 0);
        }
    } else if (r < 82) {
        uint8_t buf[INACT_SNAPSHOT_MAX_SIZE];
        size_t n = 0;
        rc = inact_snapshot_write(h, buf, sizeof buf, &n);
        expect(rc, shared, "snapshot_write", INACT_E_INVALID_STATE, 0);
        if (rc == INACT_OK && next_rand(w) % 8 == 0) {
            probe *p;
            inact_engine e = create_engine(w, &p);
            if (e) {
                int32_t rr = inact_restore(e, buf, n);
                if (rr != INACT_OK) {
                    char hex[2 * INACT_SNAPSHOT_MAX_SIZE + 1];
                    for (size_t i = 0; i < n; i++) snprintf(hex + 2 * i, 3, "%02x", buf[i]);
                    violation("restore of a fresh snapshot: %d (%s) bytes %s", rr, inact_last_error(), hex);
                }
                atomic_fetch_add(&g_restores, 1);
                destroy_engine(w, e, p);
            }
        }
    } else if (r < 88) {
        inact_info info;
        info.size = sizeof info;
        rc = inact_get_info(h, &info);
        expect(rc, shared, "get_info", 0, 0);
        if (rc == INACT_OK && (info.state < 0 || info.state > 4)) violation("info.state %d", info.state);
    } else if (r < 90) {
        rc = inact_poll(h);
        expect(rc, shared, "poll", 0, 0);
    } else if (r < 93) {
        rc = inact_start(h);
        expect(rc, shared, "start", INACT_E_INVALID_STATE, 0);
    } else if (r < 95) {
        rc = inact_end(h, INACT_REASON_LOGOUT);
        expect(rc, shared, "end", 0, 0);
    } else if (r < 97) {
        int32_t outcome;
        static const int32_t statuses[] = {200, 0, 503, 401, 400};
        rc = inact_refresh_result(h, statuses[next_rand(w) % 5], "invalid_grant", &outcome);
        expect(rc, shared, "refresh_result", 0, 0);
    } else {
        int64_t d;
        rc = inact_next_deadline(h, &d);
        expect(rc, shared, "next_deadline", 0, 0);
    }
}

/* Create an engine whose idle deadline is a few ms away, wait until about then, destroy it:
 * the destroy races the scheduler thread's callback. Sometimes the callback destroys it. */
static void destroy_race(worker *w) {
    probe *p;
    inact_engine h = create_engine(w, &p);
    if (!h) return;
    inact_start(h);
    if (next_rand(w) % 4 == 0) atomic_store(&p->cb_destroy, 1);
    struct timespec ts = {0, (long)(next_rand(w) % 30) * 1000000L};
    nanosleep(&ts, NULL);
    atomic_fetch_add(&g_races, 1);
    destroy_engine(w, h, p);
}

static long g_ops_per_thread;

static void *run_worker(void *arg) {
    worker *w = arg;
    for (int i = 0; i < 4; i++) w->own[i] = create_engine(w, &w->own_probe[i]);
    for (int i = 0; i < 4; i++) inact_start(w->own[i]);
    for (long n = 0; n < g_ops_per_thread; n++) {
        uint32_t r = next_rand(w) % 1000;
        if (r < 500) {
            inact_engine h = atomic_load(&g_shared[next_rand(w) % SHARED]);
            one_op(w, h, 1);
        } else if (r < 990) {
            int k = (int)(next_rand(w) % 4);
            /* an engine armed to destroy itself from its callback may be gone at any moment */
            if (w->own[k]) one_op(w, w->own[k], atomic_load(&w->own_probe[k]->cb_destroy) != 0);
        } else if (r < 996) {
            /* replace one of my engines (its scopes and holds go with it) */
            int k = (int)(next_rand(w) % 4);
            if (w->own[k]) destroy_engine(w, w->own[k], w->own_probe[k]);
            w->own[k] = create_engine(w, &w->own_probe[k]);
            w->n_scopes = w->n_holds = 0;
        } else if (r < 998) {
            /* replace a shared engine while the others call it */
            int k = (int)(next_rand(w) % SHARED);
            pthread_mutex_lock(&g_shared_lock);
            probe *np;
            inact_engine nh = create_engine(w, &np);
            inact_engine old = atomic_exchange(&g_shared[k], nh);
            probe *op = g_shared_probe[k];
            g_shared_probe[k] = np;
            pthread_mutex_unlock(&g_shared_lock);
            inact_start(nh);
            destroy_engine(w, old, op);
        } else if (n % 64 == 0 || g_ops_per_thread < 100000) {
            destroy_race(w);
        }
        /* a destroy from inside a callback may have ended one of my engines */
        for (int k = 0; k < 4; k++) {
            if (w->own[k] && atomic_load(&w->own_probe[k]->cb_destroy) == 2) {
                destroy_engine(w, w->own[k], w->own_probe[k]); /* INVALID_HANDLE expected */
                w->own[k] = create_engine(w, &w->own_probe[k]);
            }
        }
        if (next_rand(w) % 5000 == 0 && w->own[0]) {
            int zero = 0;
            atomic_compare_exchange_strong(&w->own_probe[0]->cb_destroy, &zero, 1);
        }
        w->ops++;
    }
    for (int i = 0; i < 4; i++)
        if (w->own[i]) destroy_engine(w, w->own[i], w->own_probe[i]);
    for (int i = 0; i < GRAVEYARD; i++) {
        probe *p = w->graveyard[i];
        if (p) {
            if (atomic_load(&p->frees) != 1) violation("user_data_free ran %d times", atomic_load(&p->frees));
            free(p);
        }
    }
    atomic_fetch_add(&g_ops, w->ops);
    return NULL;
}

int main(int argc, char **argv) {
    g_ops_per_thread = argc > 1 ? atol(argv[1]) : 1000000;
    int threads = argc > 2 ? atoi(argv[2]) : 8;
    if (g_ops_per_thread <= 0 || threads <= 0 || threads > 64) {
        fprintf(stderr, "usage: %s [ops_per_thread] [threads]\n", argv[0]);
        return 2;
    }
    if (inact_version_number() != INACT_VERSION_NUMBER) {
        fprintf(stderr, "library version %u, header %u\n", inact_version_number(), INACT_VERSION_NUMBER);
        return 2;
    }
    worker seed = {.rng = 0x9E3779B97F4A7C15ull};
    for (int k = 0; k < SHARED; k++) {
        probe *p;
        g_shared[k] = create_engine(&seed, &p);
        g_shared_probe[k] = p;
        inact_start(g_shared[k]);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t tid[64];
    worker *ws = calloc((size_t)threads, sizeof *ws);
    for (int i = 0; i < threads; i++) {
        ws[i].id = i;
        ws[i].rng = 0x243F6A8885A308D3ull * (uint64_t)(i + 1);
        pthread_create(&tid[i], NULL, run_worker, &ws[i]);
    }
    for (int i = 0; i < threads; i++) pthread_join(tid[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (int k = 0; k < SHARED; k++) {
        worker w = {.rng = 1};
        destroy_engine(&w, g_shared[k], g_shared_probe[k]);
        if (atomic_load(&g_shared_probe[k]->frees) != 1) violation("shared user_data_free");
        free(g_shared_probe[k]);
    }
    free(ws);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("stress: %d threads, %ld operations, %ld engines created, %ld events delivered, %ld restores, "
           "%ld destroy/callback races, %ld destroys from a callback, %ld calls on a replaced shared engine, "
           "%ld violations, %.1f s\n",
           threads, atomic_load(&g_ops), atomic_load(&g_engines), atomic_load(&g_events), atomic_load(&g_restores),
           atomic_load(&g_races), atomic_load(&g_cb_destroys), atomic_load(&g_invalid_handle),
           atomic_load(&g_violations), secs);
    return atomic_load(&g_violations) ? 1 : 0;
}
