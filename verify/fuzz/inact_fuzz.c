/*
 * inact_fuzz.c -- libFuzzer target over the C ABI, checked step by step against the
 * reference model in model.c.
 *
 * An input is a program: each op byte picks an operation, the following bytes its arguments
 * (bytes past the end read as 0). Up to three engines live at once (MANUAL clock, HOST or
 * THREAD delivery: a manual clock never uses the scheduler thread, so every event arrives
 * inside the call that caused it). After every step the target compares the engine with the
 * model: the status, every state-changed event (previous state, state, reason, time, now,
 * remaining, required auth), the countdown ticks, and the engine's info (state, reason, clock,
 * background, windows, scopes, holds, failures, effective idle timeout, remaining, required
 * auth, last credential verification, strong-auth deadline, announced interruption). Any
 * difference, any callback after destroy, any user_data_free not run exactly once, and any
 * sanitizer report is a crash.
 *
 * Operations: every input of the ABI (start, activity of every kind and of bad kinds,
 * continue, lock, unlock, unlock failed, unlock and failed unlock with a method (every int32_t),
 * biometrics changed, expected interruptions (around the policy cap, and every int64_t), device
 * lock, token rotations, end with good and bad reasons, refresh results with every class of
 * status, background, foreground, windows, scopes, holds, set policy with good and bad
 * policies), queries (get_required_auth included), poll, manual-clock advances (small, large, huge), wall-clock
 * jumps, simulated reboots, snapshot then restore into a new engine on the same boot, after a
 * reboot, with the clock set back, with a wall-clock jump, of intact or mutated bytes in format 3
 * or rewritten in format 2 or 1 (truncated, bit flips, extended, random, fields set to the ends of
 * their type with the checksum made right; the target's own decoder of the documented format
 * predicts the status, and the model restores what accepted bytes hold; every written snapshot
 * is checked field by field against the model), destroy, destroy from inside the callback (of
 * an advance or of a restore), presence (background, device lock, windows) and a server contact
 * reported in LOADING before a restore, re-entrant calls from the callback, stale handles, forged handles, NULL pointers, wrong
 * struct sizes, undersized buffers, bad configs, and a SYSTEM-clock engine (WRONG_CLOCK).
 *
 * Build: verify/fuzz/build.sh. Replay without libFuzzer: build with -DINACT_FUZZ_MAIN.
 * INACT_FUZZ_TRACE=1 prints every step.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inactivity.h"
#include "model.h"
#include "generated/ops.h"

#define SLOTS 3
#define MAX_CTX 64
#define MAX_OPS 256
#define MAX_STALE 16
#define MAX_SNAPS 4

/* ---- input reader ------------------------------------------------------------------------ */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint8_t rd8(reader *r) {
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}
static uint16_t rd16(reader *r) { return (uint16_t)(rd8(r) | (rd8(r) << 8)); }
static uint32_t rd32(reader *r) { return (uint32_t)rd16(r) | ((uint32_t)rd16(r) << 16); }
static uint64_t rd64(reader *r) { return (uint64_t)rd32(r) | ((uint64_t)rd32(r) << 32); }

static int64_t sadd(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* The ends of each C type, for the full-width arguments (header, "Argument ranges"). */
static const int64_t wide64[] = {INT64_MIN, INT64_MIN + 1, -M_100_YEARS, -1, 0, 1,
                                 M_100_YEARS - 1, M_100_YEARS, M_100_YEARS + 1, 10 * M_100_YEARS,
                                 INT64_C(1) << 62, INACT_NEVER - 1, INACT_NEVER};
static const int32_t wide32[] = {INT32_MIN, INT32_MIN + 1, -2, -1, 0, 1, 2, 255, 256, 65536,
                                 INT32_MAX - 1, INT32_MAX};
static const size_t wide_sizes[] = {0, 1, INACT_SNAPSHOT_MAX_SIZE, INACT_SNAPSHOT_MAX_SIZE + 1,
                                    4096, SIZE_MAX / 2, SIZE_MAX / 2 + 1, SIZE_MAX - 1, SIZE_MAX};
#define PICK(menu, b) (menu)[(b) % (sizeof(menu) / sizeof((menu)[0]))]
static int64_t rd_wide64(reader *r) { return PICK(wide64, rd8(r)); }
static int32_t rd_wide32(reader *r) { return PICK(wide32, rd8(r)); }

/* A duration from a menu of interesting values, the ends of int64_t, or raw. */
static int64_t rd_duration(reader *r) {
    static const int64_t menu[] = {0, 1, 2, 3, 5, 10, 100, 250, 500, 700, 999, 1000, 1001, 2000,
                                   3000, 3500, 5000, 7000, 10000, 30000, 60000, 900000, 3600000,
                                   -1, INACT_NEVER, M_100_YEARS, M_100_YEARS + 1};
    uint8_t b = rd8(r);
    if (b < 200) return menu[b % (sizeof menu / sizeof menu[0])];
    if (b < 235) return rd16(r);
    if (b < 245) return rd_wide64(r);
    if (b < 252) return (int64_t)rd32(r);
    return (int64_t)rd64(r);
}

/* A clock advance: mostly small steps, sometimes long ones, rarely huge. */
static int64_t rd_advance(reader *r) {
    static const int64_t menu[] = {0, 1, 10, 100, 250, 299, 300, 500, 699, 700, 999, 1000,
                                   2000, 2500, 3000, 4999, 5000, 7000, 10000, 60000, 3600000};
    uint8_t b = rd8(r);
    if (b < 220) return menu[b % (sizeof menu / sizeof menu[0])];
    if (b < 245) return rd16(r);
    if (b < 253) return (int64_t)rd32(r);
    if (b == 253) return -1 - (int64_t)rd8(r);
    if (b == 254) return rd_wide64(r);
    return (int64_t)rd64(r);
}

/* ---- failure reporting --------------------------------------------------------------------- */

static char g_trace[1 << 16];
static size_t g_trace_len;
static int g_verbose;

static void trace(const char *fmt, ...) {
    va_list ap;
    char line[512];
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (g_verbose) fprintf(stderr, "%s\n", line);
    size_t n = strlen(line);
    if (g_trace_len + n + 2 < sizeof g_trace) {
        memcpy(g_trace + g_trace_len, line, n);
        g_trace_len += n;
        g_trace[g_trace_len++] = '\n';
        g_trace[g_trace_len] = 0;
    }
}

static void fail(const char *fmt, ...) {
    va_list ap;
    if (!g_verbose) fprintf(stderr, "---- steps so far ----\n%s", g_trace);
    fprintf(stderr, "MODEL MISMATCH: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    abort();
}

/* ---- engines and their callback --------------------------------------------------------- */

typedef struct ctx {
    int used;
    int frees;              /* user_data_free calls */
    int destroy_returned;   /* inact_destroy returned: no callback may run after this */
    int destroy_in_callback;
    int lock_in_callback;   /* re-entrant inact_lock from the callback */
    int reentrant_status;
    inact_engine handle;
    inact_event ev[M_MAX_EVENTS + 8];
    int n_ev;
    int n_dropped;
} ctx;

static ctx g_ctx[MAX_CTX];
static int g_n_ctx;

static void on_event(const inact_event *e, void *user_data) {
    ctx *c = user_data;
    if (c->destroy_returned || c->frees) fail("a callback ran after destroy returned");
    if (c->n_ev < M_MAX_EVENTS + 8)
        c->ev[c->n_ev++] = *e;
    else
        c->n_dropped++;
    if (c->destroy_in_callback) {
        c->destroy_in_callback = 0;
        int32_t rc = inact_destroy(c->handle);
        if (rc != INACT_OK) fail("destroy from inside the callback returned %d", rc);
        if (c->frees) fail("destroy from inside the callback freed user_data before the callback returned");
    }
    if (c->lock_in_callback) {
        c->lock_in_callback = 0;
        c->reentrant_status = inact_lock(c->handle);
    }
}

static void on_free(void *user_data) {
    ctx *c = user_data;
    c->frees++;
}

typedef struct snap {
    int used;
    uint8_t bytes[INACT_SNAPSHOT_MAX_SIZE];
    size_t len;
} snap;

typedef struct slot {
    int live;
    inact_engine h;
    ctx *c;
    model m;
    int modeled;      /* 0: the model lost track (inputs in LOADING before a restore, a reboot
                       * under a session): invariants only until a restore into a new engine */
    int inputs_in_loading; /* lifecycle inputs before restore: restore is then not modeled */
    uint64_t scope_ids[M_MAX_SCOPES];
    int n_scope_ids;
    uint64_t hold_ids[M_MAX_SCOPES];
    int n_hold_ids;
} slot;

static slot g_slots[SLOTS];
static int g_skip_info;
static snap g_snaps[MAX_SNAPS];
static inact_engine g_stale[MAX_STALE];
static int g_n_stale;

/* Figures for RELIABILITY.md (printed at exit by scripts/fuzz through -print_final_stats is not
 * enough: these are the target's own counters). */
static uint64_t g_inputs, g_steps, g_restores_modeled, g_never_started_restores, g_corrupt_rejected, g_forged_accepted,
    g_events_checked, g_stale_calls, g_bad_arg_calls;

static ctx *new_ctx(void) {
    if (g_n_ctx >= MAX_CTX) return NULL;
    ctx *c = &g_ctx[g_n_ctx++];
    memset(c, 0, sizeof *c);
    c->used = 1;
    return c;
}

/* ---- invariants that hold for every engine, modeled or not --------------------------------- */

static int reason_fits_state(int32_t state, int32_t reason) {
    switch (state) {
    case INACT_STATE_LOADING: return reason == INACT_REASON_NONE;
    case INACT_STATE_ACTIVE:
        return reason == INACT_REASON_STARTED || reason == INACT_REASON_RESTORED ||
               reason == INACT_REASON_CONTINUED || reason == INACT_REASON_ACTIVITY ||
               reason == INACT_REASON_UNLOCKED || reason == INACT_REASON_EXTENDED;
    case INACT_STATE_WARNING: return reason == INACT_REASON_IDLE || reason == INACT_REASON_RESTORED;
    case INACT_STATE_LOCKED:
        return reason == INACT_REASON_IDLE_TIMEOUT || reason == INACT_REASON_BACKGROUND_TIMEOUT ||
               reason == INACT_REASON_MANUAL_LOCK || reason == INACT_REASON_RESTORED ||
               reason == INACT_REASON_UNTRUSTED_CLOCK || reason == INACT_REASON_DEVICE_LOCKED ||
               reason == INACT_REASON_OFFLINE_TIMEOUT || reason == INACT_REASON_RESTART;
    case INACT_STATE_EXPIRED:
        return reason == INACT_REASON_IDLE_TIMEOUT || reason == INACT_REASON_ABSOLUTE_TIMEOUT ||
               reason == INACT_REASON_LOCKED_TIMEOUT || reason == INACT_REASON_UNLOCK_FAILURES ||
               reason == INACT_REASON_LOGOUT || reason == INACT_REASON_REVOKED ||
               reason == INACT_REASON_PASSWORD_CHANGED || reason == INACT_REASON_RESTORE_FAILED ||
               reason == INACT_REASON_RESTORED || reason == INACT_REASON_UNTRUSTED_CLOCK ||
               reason == INACT_REASON_OFFLINE_EXPIRY || reason == INACT_REASON_DEVICE_LIMIT;
    }
    return 0;
}

static const char *kind_name(int32_t kind) {
    return kind == INACT_EVENT_TICK ? "tick" : kind == INACT_EVENT_KEEPALIVE ? "keepalive" : "change";
}

static void check_event_shape(const slot *s, const inact_event *e, int64_t now) {
    if (e->size != sizeof(inact_event)) fail("event.size %u", e->size);
    if (e->engine != s->h) fail("event.engine %" PRIx64 " != %" PRIx64, e->engine, s->h);
    if (e->state == INACT_STATE_LOCKED
            ? e->required_auth != INACT_AUTH_BIOMETRIC && e->required_auth != INACT_AUTH_CREDENTIAL
            : e->required_auth != INACT_AUTH_NONE)
        fail("event.required_auth %d in %s", e->required_auth, m_state_name(e->state));
    if (e->kind != INACT_EVENT_STATE_CHANGED && e->kind != INACT_EVENT_TICK && e->kind != INACT_EVENT_KEEPALIVE)
        fail("event.kind %d", e->kind);
    if (e->kind == INACT_EVENT_KEEPALIVE &&
        (e->state != e->previous_state || (e->state != INACT_STATE_ACTIVE && e->state != INACT_STATE_WARNING)))
        fail("a keepalive outside a live session (%s -> %s)", m_state_name(e->previous_state), m_state_name(e->state));
    if (!reason_fits_state(e->state, e->reason))
        fail("event %s with reason %s", m_state_name(e->state), m_reason_name(e->reason));
    if (e->now_ms > now) fail("event.now_ms %" PRId64 " after the clock %" PRId64, e->now_ms, now);
    if (e->time_ms > e->now_ms) fail("event.time_ms %" PRId64 " after now_ms %" PRId64, e->time_ms, e->now_ms);
    if (e->remaining_ms < 0) fail("event.remaining_ms %" PRId64, e->remaining_ms);
    if (e->kind == INACT_EVENT_TICK &&
        (e->state != INACT_STATE_WARNING || e->previous_state != INACT_STATE_WARNING))
        fail("a tick outside WARNING (%s -> %s)", m_state_name(e->previous_state), m_state_name(e->state));
    if (e->kind == INACT_EVENT_STATE_CHANGED && e->state == e->previous_state)
        fail("a state change from %s to itself", m_state_name(e->state));
}

static void get_info(const slot *s, inact_info *info) {
    memset(info, 0, sizeof *info);
    info->size = sizeof *info;
    int32_t rc = inact_get_info(s->h, info);
    if (rc != INACT_OK) fail("get_info on a live engine returned %d", rc);
}

/* ---- the comparison after each step ---------------------------------------------------------- */

static void compare_strength_interruption(const slot *s, const inact_info *info, const char *what);
/* What the unlock-strength and interruption rules did in checked steps (printed with the
 * other figures). */
static uint64_t g_weak_auth_refusals, g_credential_locks, g_interruptions_announced, g_covered_backgrounds;

static void compare_offline(const slot *s, const inact_info *info, const char *what);
/* What the offline and ceiling rules did in checked steps (printed with the other figures). */
static uint64_t g_offline_locks, g_offline_expiries, g_offline_refusals, g_ceiling_refusals, g_ceilings_set,
    g_ceiling_messages;

/* What the holder reports and the keepalive did in checked steps (printed with the others). */
static uint64_t g_holder_accepted, g_holder_refused, g_keepalives;

static void note_offline_ceilings(const slot *s, int32_t rc) {
    if (!s->modeled) return;
    if (rc == INACT_E_OFFLINE) g_offline_refusals++;
    if (rc == INACT_E_CEILING) g_ceiling_refusals++;
    for (int i = 0; i < s->c->n_ev; i++) {
        if (s->c->ev[i].kind != INACT_EVENT_STATE_CHANGED) continue;
        if (s->c->ev[i].reason == INACT_REASON_OFFLINE_TIMEOUT) g_offline_locks++;
        if (s->c->ev[i].reason == INACT_REASON_OFFLINE_EXPIRY) g_offline_expiries++;
    }
}

static void compare(slot *s, const char *what, int32_t rc, int32_t expected_rc) {
    ctx *c = s->c;
    g_steps++;
    if (s->modeled && rc == INACT_E_WEAK_AUTH) g_weak_auth_refusals++;
    note_offline_ceilings(s, rc);
    if (s->modeled && rc != expected_rc)
        fail("%s returned %d (%s), the model expects %d (%s)", what, rc, inact_status_string(rc),
             expected_rc, inact_status_string(expected_rc));
    if (rc != INACT_OK && inact_last_error()[0] == 0) fail("%s failed (%d) with an empty inact_last_error", what, rc);
    if (c->n_dropped) fail("more than %d events in one step", M_MAX_EVENTS + 8);

    int64_t now = 0, wall = 0;
    uint64_t boot = 0;
    inact_clock_now(s->h, &now, &wall, &boot);
    if (s->modeled && now != s->m.now) fail("clock %" PRId64 " != model %" PRId64, now, s->m.now);
    if (s->modeled && (wall != s->m.wall || boot != s->m.boot))
        fail("%s: wall clock %" PRId64 " boot %" PRIu64 ", model %" PRId64 " boot %" PRIu64, what, wall, boot,
             s->m.wall, s->m.boot);

    /* events: in order, exactly the model's (state changes and ticks) */
    int32_t prev_seen = -1;
    for (int i = 0; i < c->n_ev; i++) {
        const inact_event *e = &c->ev[i];
        trace("    event %s %s -> %s (%s) time %" PRId64 " now %" PRId64 " remaining %" PRId64,
              kind_name(e->kind), m_state_name(e->previous_state),
              m_state_name(e->state), m_reason_name(e->reason), e->time_ms, e->now_ms, e->remaining_ms);
        check_event_shape(s, e, i + 1 < c->n_ev ? e->now_ms : now);
        if (i > 0 && e->now_ms < c->ev[i - 1].now_ms) fail("%s: events out of time order", what);
        g_events_checked++;
        if (e->kind == INACT_EVENT_KEEPALIVE && s->modeled) g_keepalives++;
        if (e->kind == INACT_EVENT_STATE_CHANGED) {
            if (prev_seen >= 0 && e->previous_state != prev_seen)
                fail("%s: event %d previous_state %s, the host last saw %s", what, i,
                     m_state_name(e->previous_state), m_state_name(prev_seen));
            prev_seen = e->state;
        }
        if (!s->modeled) continue;
        if (i >= s->m.n_events)
            fail("%s: unexpected event %d: %s %s -> %s (%s) at %" PRId64, what, i,
                 kind_name(e->kind), m_state_name(e->previous_state),
                 m_state_name(e->state), m_reason_name(e->reason), e->time_ms);
        const m_event *x = &s->m.events[i];
        if (e->kind != x->kind || e->previous_state != x->previous_state || e->state != x->state ||
            e->reason != x->reason || (e->time_ms != x->time_ms && !x->time_any) || e->now_ms != x->now_ms ||
            e->remaining_ms != x->remaining_ms || e->required_auth != x->required_auth)
            fail("%s: event %d: %s %s -> %s (%s) time %" PRId64 " now %" PRId64 " remaining %" PRId64
                 " auth %d; the model expects %s %s -> %s (%s) time %" PRId64 " now %" PRId64 " remaining %" PRId64
                 " auth %d",
                 what, i, kind_name(e->kind), m_state_name(e->previous_state),
                 m_state_name(e->state), m_reason_name(e->reason), e->time_ms, e->now_ms, e->remaining_ms,
                 e->required_auth, kind_name(x->kind), m_state_name(x->previous_state),
                 m_state_name(x->state), m_reason_name(x->reason), x->time_ms, x->now_ms, x->remaining_ms,
                 x->required_auth);
        if (e->kind == INACT_EVENT_TICK && s->m.p.tick_ms == 0) fail("%s: a tick with tick_ms 0", what);
    }
    if (s->modeled && c->n_ev != s->m.n_events) {
        const m_event *x = &s->m.events[c->n_ev];
        fail("%s: %d event(s) delivered, the model expects %d (next: %s %s -> %s (%s) at %" PRId64 ")",
             what, c->n_ev, s->m.n_events, kind_name(x->kind),
             m_state_name(x->previous_state), m_state_name(x->state), m_reason_name(x->reason), x->time_ms);
    }
    c->n_ev = 0;
    if (g_skip_info || s->m.evaluated_at != s->m.now) {
        /* After a freeze, or a call that failed before evaluating: a query would catch up,
         * which is the next step's job. */
        g_skip_info = 0;
        return;
    }

    /* info (a query: right after an evaluation nothing is due, so it delivers nothing) */
    inact_info info;
    get_info(s, &info);
    if (c->n_ev != 0) {
        if (s->modeled) fail("get_info after %s delivered %d event(s)", what, c->n_ev);
        /* An engine the model lost track of may have a clock ahead of the model's (after a
         * reboot under a session the model refuses a 1000-year freeze the engine accepts): the
         * query delivered the catch-up of that freeze. Invariants only. */
        for (int i = 0; i < c->n_ev; i++) check_event_shape(s, &c->ev[i], c->ev[i].now_ms);
        c->n_ev = 0;
    }
    if (!reason_fits_state(info.state, info.reason))
        fail("info: %s with reason %s", m_state_name(info.state), m_reason_name(info.reason));
    if (info.now_ms != now) fail("info.now_ms %" PRId64 " != clock %" PRId64, info.now_ms, now);
    if (info.remaining_ms < 0) fail("info.remaining_ms %" PRId64, info.remaining_ms);
    if (info.next_deadline_ms != INACT_NEVER && info.next_deadline_ms <= now)
        fail("info.next_deadline_ms %" PRId64 " is not after now %" PRId64 " right after an evaluation",
             info.next_deadline_ms, now);
    if (info.open_scopes < 0 || info.open_holds < 0 || info.visible_windows < 0) fail("info: negative counts");
    {
        int64_t delay = -1;
        if (inact_next_deadline(s->h, &delay) != INACT_OK) fail("next_deadline failed");
        if (delay < 0) fail("next_deadline %" PRId64, delay);
        if (info.next_deadline_ms == INACT_NEVER ? delay != INACT_NEVER : delay != info.next_deadline_ms - now)
            fail("next_deadline %" PRId64 " disagrees with info.next_deadline_ms %" PRId64, delay, info.next_deadline_ms);
    }
    if (!s->modeled) return;
    const model *m = &s->m;
    if (m->untrusted && (info.state == INACT_STATE_ACTIVE || info.state == INACT_STATE_WARNING))
        fail("%s: ACTIVE after an untrusted restore, with no unlock or start", what);
    if (info.state != m->state || info.reason != m->reason)
        fail("%s: engine %s (%s), the model expects %s (%s)", what, m_state_name(info.state),
             m_reason_name(info.reason), m_state_name(m->state), m_reason_name(m->reason));
    if (info.unlock_failures != m->failures)
        fail("%s: unlock_failures %u, model %u", what, info.unlock_failures, m->failures);
    compare_strength_interruption(s, &info, what);
    if (info.visible_windows != m->windows) fail("%s: visible_windows %d, model %d", what, info.visible_windows, m->windows);
    if (info.open_scopes != m->n_scopes) fail("%s: open_scopes %d, model %d", what, info.open_scopes, m->n_scopes);
    if (info.open_holds != m->n_holds) fail("%s: open_holds %d, model %d", what, info.open_holds, m->n_holds);
    if (info.in_background != m_in_background(m))
        fail("%s: in_background %d, model %d", what, info.in_background, m_in_background(m));
    if (info.effective_idle_timeout_ms != m_effective_idle(m))
        fail("%s: effective_idle_timeout_ms %" PRId64 ", model %" PRId64, what, info.effective_idle_timeout_ms,
             m_effective_idle(m));
    if (info.remaining_ms != m_remaining(m))
        fail("%s: remaining_ms %" PRId64 ", model %" PRId64, what, info.remaining_ms, m_remaining(m));
    if (m->state == INACT_STATE_LOCKED && info.locked_at_ms != m->locked_at)
        fail("%s: locked_at_ms %" PRId64 ", model %" PRId64, what, info.locked_at_ms, m->locked_at);
    if (m->state != INACT_STATE_LOADING && info.started_at_ms != m->started_at)
        fail("%s: started_at_ms %" PRId64 ", model %" PRId64, what, info.started_at_ms, m->started_at);
    compare_offline(s, &info, what);
}

/* ---- policies and configs ------------------------------------------------------------------- */

static void small_policy(inact_policy *p) {
    inact_policy_init(p);
    p->idle_timeout_ms = 10000;
    p->warning_ms = 3000;
    p->tick_ms = 1000;
    p->background_timeout_ms = 5000;
    p->absolute_timeout_ms = 3600000;
}

/* Edits of issue 13's offline limits and of the 1.0 layout (fuzz-b). */
static void rd_policy_offline_edit(reader *r, inact_policy *p, int which) {
    switch (which) {
    case 0: p->offline_timeout_ms = rd_duration(r); break;
    case 1: p->offline_expiry_ms = rd_duration(r); break;
    case 2: { /* the keepalive: mostly valid intervals around the small policy's idle */
        static const int64_t menu[] = {0, 1000, 1500, 2000, 3000, 999, 9999, 10000};
        uint8_t b = rd8(r);
        p->keepalive_interval_ms = b < 240 ? menu[b % 8] : rd_duration(r);
        break;
    }
    default: {
        /* A caller built against the 1.0 header: 80 bytes, and what lies beyond is not its
         * policy (garbage here, which the library must not read); or sizes no header had. */
        static const uint32_t sizes[] = {M_POLICY_SIZE_1_0, M_POLICY_SIZE_1_0, M_POLICY_SIZE_1_0,
                                         M_POLICY_SIZE_1_0 - 1, M_POLICY_SIZE_1_0 + 1, M_POLICY_SIZE_1_0 + 8};
        uint8_t b = rd8(r);
        p->size = PICK(sizes, b);
        if (b & 0x80) {
            p->lock_on_device_lock = rd_wide32(r);
            p->lock_on_restart = rd_wide32(r);
            p->strong_auth_timeout_ms = rd_wide64(r);
            p->expected_interruption_max_ms = rd_wide64(r);
            p->offline_timeout_ms = rd_wide64(r);
            p->offline_expiry_ms = rd_wide64(r);
        }
        break;
    }
    }
}

/* A policy from the input: a base, then edits. Often valid, sometimes not. */
static void rd_policy(reader *r, inact_policy *p) {
    uint8_t base = rd8(r);
    if (base % 8 < 5)
        small_policy(p);
    else if (base % 8 == 5)
        inact_policy_init(p);
    else if (inact_policy_preset(p, (int32_t)(base >> 3) % 7) != INACT_OK)
        fail("preset %d refused", (base >> 3) % 7);
    uint8_t edits = rd8(r) % 6;
    for (int i = 0; i < edits; i++) {
        uint8_t f = rd8(r);
        if (f >= 232) { /* the top of the byte: the edits added for issue 13 (fuzz-b) */
            rd_policy_offline_edit(r, p, f % 4);
            continue;
        }
        switch (f % 20) {
        case 0: p->idle_timeout_ms = rd_duration(r); break;
        case 1: p->warning_ms = rd_duration(r); break;
        case 2: p->background_timeout_ms = rd_duration(r); break;
        case 3: p->absolute_timeout_ms = rd_duration(r); break;
        case 4: p->locked_timeout_ms = rd_duration(r); break;
        case 5: p->tick_ms = rd_duration(r); break;
        case 6: p->background_grace_ms = rd_duration(r); break;
        case 7: p->idle_action = f & 0x80 ? rd_wide32(r) : rd8(r) % 3; break;
        case 8: p->activity_kinds = rd8(r) < 240 ? (uint32_t)rd8(r) & 0x7F : rd32(r); break;
        case 9: p->max_unlock_failures = f & 0x80 ? (uint32_t)rd_wide32(r) : rd8(r) % 5u; break;
        case 10: p->activity_dismisses_warning = f & 0x80 ? rd_wide32(r) : rd8(r) % 3; break;
        case 11: p->pause_idle_in_background = f & 0x80 ? rd_wide32(r) : rd8(r) % 3; break;
        case 12: { /* sizes refused before any byte is read (below 80, above 65536), and sizes
                    * between layouts, read as the 80-byte one with a tail that must be zero */
            static const uint32_t sizes[] = {0, 1, sizeof(inact_policy) - 8, sizeof(inact_policy) - 1,
                                             65537, 0x80000000u, UINT32_MAX};
            p->size = PICK(sizes, rd8(r));
            break;
        }
        case 13: p->warning_ms = sadd(p->idle_timeout_ms, -(int64_t)(rd8(r) % 3)); break;
        /* issue 13's flags that the model reads (device lock, lock on restart); 2 is invalid */
        case 14: p->lock_on_device_lock = rd8(r) % 3; break;
        case 15: p->lock_on_restart = rd8(r) % 3; break;
        /* unlock strength: twice as likely as one other edit, so that finite timeouts (0 =
         * always the credential) meet biometric unlocks often */
        case 16: case 17: p->strong_auth_timeout_ms = rd_duration(r); break;
        /* expected interruption: the cap (0 refuses every announcement; NEVER is invalid) */
        case 18: case 19: p->expected_interruption_max_ms = rd_duration(r); break;
        }
    }
}

static void describe_policy(const inact_policy *p, char *buf, size_t n) {
    snprintf(buf, n,
             "size=%u idle=%" PRId64 " warn=%" PRId64 " bg=%" PRId64 " abs=%" PRId64 " locked=%" PRId64
             " tick=%" PRId64 " grace=%" PRId64 " action=%d kinds=%#x maxfail=%u dismiss=%d pause=%d"
             " strong=%" PRId64 " intr_max=%" PRId64 " offline=%" PRId64 " offline_expiry=%" PRId64,
             p->size, p->idle_timeout_ms, p->warning_ms, p->background_timeout_ms, p->absolute_timeout_ms,
             p->locked_timeout_ms, p->tick_ms, p->background_grace_ms, p->idle_action, p->activity_kinds,
             p->max_unlock_failures, p->activity_dismisses_warning, p->pause_idle_in_background,
             p->strong_auth_timeout_ms, p->expected_interruption_max_ms, p->offline_timeout_ms, p->offline_expiry_ms);
}

/* Creates an engine in slot `s` with a manual clock at (mono, wall, boot). Returns the status. */
static int32_t create_in(slot *s, const inact_policy *p, int64_t mono, int64_t wall, uint64_t boot, int thread_delivery) {
    inact_config cfg;
    inact_config_init(&cfg);
    cfg.clock = INACT_CLOCK_MANUAL;
    cfg.delivery = thread_delivery ? INACT_DELIVERY_THREAD : INACT_DELIVERY_HOST;
    cfg.manual_start_ms = mono;
    cfg.manual_wall_ms = wall;
    cfg.manual_boot_id = boot;
    ctx *c = new_ctx();
    if (!c) return INACT_E_LIMIT;
    inact_engine h = 0xdeadbeef;
    char desc[400];
    describe_policy(p, desc, sizeof desc);
    /* the config is checked before the policy */
    int32_t expected = (mono < 0 || mono > M_100_YEARS || boot == 0) ? INACT_E_INVALID_ARGUMENT : m_policy_validate(p);
    int32_t rc = inact_engine_create(&cfg, p, on_event, c, on_free, &h);
    trace("create mono=%" PRId64 " wall=%" PRId64 " boot=%" PRIu64 " %s -> %d", mono, wall, boot, desc, rc);
    if (rc != expected) fail("create returned %d, the model expects %d", rc, expected);
    if (rc != INACT_OK) {
        if (h != 0xdeadbeef) fail("a failed create wrote out_engine");
        if (c->frees || c->n_ev) fail("a failed create called user_data_free or the callback");
        if (inact_last_error()[0] == 0) fail("a failed create left inact_last_error empty");
        return rc;
    }
    if (h == 0) fail("create returned handle 0");
    for (int i = 0; i < SLOTS; i++)
        if (g_slots[i].live && g_slots[i].h == h) fail("create returned a live handle again");
    memset(s, 0, sizeof *s);
    s->live = 1;
    s->h = h;
    s->c = c;
    c->handle = h;
    s->modeled = 1;
    m_init(&s->m, p, mono, wall, boot);
    return rc;
}

static void destroy_slot(slot *s, const char *why) {
    if (!s->live) return;
    int32_t rc = inact_destroy(s->h);
    trace("destroy (%s) -> %d", why, rc);
    if (rc != INACT_OK) fail("destroy of a live engine returned %d", rc);
    s->c->destroy_returned = 1;
    if (s->c->frees != 1) fail("user_data_free ran %d times by the time destroy returned", s->c->frees);
    if (g_n_stale < MAX_STALE) g_stale[g_n_stale++] = s->h;
    s->live = 0;
}

static slot *pick_live(reader *r) {
    uint8_t b = rd8(r);
    for (int i = 0; i < SLOTS; i++) {
        slot *s = &g_slots[(b + i) % SLOTS];
        if (s->live) return s;
    }
    return NULL;
}

/* Refreshes the model's wall clock and boot id from the engine's clock (the clock is an input,
 * not session logic). */
static void sync_clock(slot *s) {
    int64_t wall;
    uint64_t boot;
    inact_clock_now(s->h, NULL, &wall, &boot);
    s->m.wall = wall;
    s->m.boot = boot;
}

/* ---- the snapshot's bytes ------------------------------------------------------------------
 * Written from the format's description (docs/design.md section 4, docs/session-features.md
 * "Snapshot formats 2 and 3", the layout table at the top of Sources/InactivityCore/Snapshot.swift),
 * not from its code: little-endian; "INAS", version u16, state u8, reason u8, unlock failures
 * u32, flags u32 (bit 0 background start present, bit 1 locked-at present, bit 2 the credential
 * is required: formats 2 and 3), then i64 session start, last activity, background start and
 * locked-at (0 when absent), boot id u64, monotonic and wall clock i64; format 2 adds the last
 * credential verification, the last server contact (i64) and the newest token generation
 * (u64). Format 3 (written now) holds format 2's fields in 96 bytes: in LOCKED the last activity
 * is the session start, so its slot (24) holds locked-at, and the fields after it move up by 8
 * (background start 32, boot id 40, clocks 48 and 56, credential 64, contact 72, generation 80).
 * The last 8 bytes are the FNV-1a 64 of the bytes before them: 80 bytes in format 1, 104 in
 * format 2, 96 in format 3 (INACT_SNAPSHOT_MAX_SIZE: every snapshot written fits it). */
#define SNAP_V1_SIZE 80u
#define SNAP_V2_SIZE 104u
#define SNAP_V3_SIZE 96u
/* The longest format a restore reads (format 2), and a buffer with room beyond it. */
#define SNAP_BUF (SNAP_V2_SIZE + 8u)

static uint64_t fnv1a64(const uint8_t *b, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}
static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static int64_t get_i64(const uint8_t *p) { return (int64_t)get_le(p, 8); }
/* Sets the checksum of `len` bytes of format `len`'s version (the last 8 bytes). */
static void snap_seal(uint8_t *b, size_t len) { put_le(b + len - 8, fnv1a64(b, len - 8), 8); }

/* Encodes `rec` (times as a snapshot holds them: see snap_decode) in format `version`; returns
 * the length. Format 1 has no place for the credential flag and the three later fields. */
static size_t snap_encode(const m_snapshot *rec, int version, uint8_t *b) {
    size_t len = version == 1 ? SNAP_V1_SIZE : version == 2 ? SNAP_V2_SIZE : SNAP_V3_SIZE;
    memset(b, 0, len);
    memcpy(b, "INAS", 4);
    put_le(b + 4, (uint64_t)version, 2);
    b[6] = (uint8_t)rec->state;
    b[7] = (uint8_t)rec->reason;
    put_le(b + 8, rec->failures, 4);
    uint32_t flags = (rec->background_since != M_NEVER ? 1u : 0u) | (rec->locked_at != M_NEVER ? 2u : 0u) |
                     (version >= 2 && rec->credential_required ? 4u : 0u);
    put_le(b + 12, flags, 4);
    put_le(b + 16, (uint64_t)rec->started_at, 8);
    if (version == 3) {
        put_le(b + 24, (uint64_t)(rec->locked_at != M_NEVER ? rec->locked_at : rec->last_activity), 8);
        put_le(b + 32, rec->background_since != M_NEVER ? (uint64_t)rec->background_since : 0, 8);
        put_le(b + 40, rec->boot, 8);
        put_le(b + 48, (uint64_t)rec->mono, 8);
        put_le(b + 56, (uint64_t)rec->wall, 8);
        put_le(b + 64, (uint64_t)rec->last_credential, 8);
        put_le(b + 72, (uint64_t)rec->last_contact, 8);
        put_le(b + 80, rec->generation, 8);
        snap_seal(b, len);
        return len;
    }
    put_le(b + 24, (uint64_t)rec->last_activity, 8);
    put_le(b + 32, rec->background_since != M_NEVER ? (uint64_t)rec->background_since : 0, 8);
    put_le(b + 40, rec->locked_at != M_NEVER ? (uint64_t)rec->locked_at : 0, 8);
    put_le(b + 48, rec->boot, 8);
    put_le(b + 56, (uint64_t)rec->mono, 8);
    put_le(b + 64, (uint64_t)rec->wall, 8);
    if (version >= 2) {
        put_le(b + 72, (uint64_t)rec->last_credential, 8);
        put_le(b + 80, (uint64_t)rec->last_contact, 8);
        put_le(b + 88, rec->generation, 8);
    }
    snap_seal(b, len);
    return len;
}

/* What inact_restore in LOADING must return for `len` bytes (header, inact_restore: "_TRUNCATED
 * when shorter, _INVALID when longer, _VERSION for another format version whatever the length";
 * docs/design.md 4: a bad checksum, "impossible values"), and on INACT_OK the record it holds.
 * Format 1's missing fields "read as the credential and the server last seen at the session
 * start", generation 0, no credential flag. Impossible values: anything no session can have
 * had, as the format states it: a state other than ACTIVE..EXPIRED, a reason the header does
 * not give that state, an unknown flag bit, a time written for an absent field, locked-at
 * present other than exactly in LOCKED, a negative clock, boot id 0 (no clock has it), times
 * out of order (start <= last activity <= clock; background start <= clock; locked-at, the last
 * credential verification and the last server contact between the start and the clock). */
static int32_t snap_decode(const uint8_t *b, size_t len, m_snapshot *rec) {
    if (len < 6) return INACT_E_SNAPSHOT_TRUNCATED;   /* not even the magic and the version */
    if (memcmp(b, "INAS", 4) != 0) return INACT_E_SNAPSHOT_INVALID;
    uint64_t version = get_le(b + 4, 2);
    if (version < 1 || version > 3) return INACT_E_SNAPSHOT_VERSION;
    size_t size = version == 1 ? SNAP_V1_SIZE : version == 2 ? SNAP_V2_SIZE : SNAP_V3_SIZE;
    if (len < size) return INACT_E_SNAPSHOT_TRUNCATED;
    if (len > size) return INACT_E_SNAPSHOT_INVALID;
    if (get_le(b + size - 8, 8) != fnv1a64(b, size - 8)) return INACT_E_SNAPSHOT_CHECKSUM;
    m_snapshot r;
    memset(&r, 0, sizeof r);
    r.state = b[6];
    r.reason = b[7];
    if (r.state < INACT_STATE_ACTIVE || r.state > INACT_STATE_EXPIRED || !reason_fits_state(r.state, r.reason))
        return INACT_E_SNAPSHOT_INVALID;
    uint32_t flags = (uint32_t)get_le(b + 12, 4);
    if (flags & ~(version == 1 ? 3u : 7u)) return INACT_E_SNAPSHOT_INVALID;
    if (!(flags & 1) && get_i64(b + 32) != 0) return INACT_E_SNAPSHOT_INVALID;
    r.failures = (uint32_t)get_le(b + 8, 4);
    r.started_at = get_i64(b + 16);
    r.background_since = flags & 1 ? get_i64(b + 32) : M_NEVER;
    r.credential_required = (flags & 4) != 0;
    if (version == 3) {
        r.last_activity = flags & 2 ? r.started_at : get_i64(b + 24);
        r.locked_at = flags & 2 ? get_i64(b + 24) : M_NEVER;
        r.boot = get_le(b + 40, 8);
        r.mono = get_i64(b + 48);
        r.wall = get_i64(b + 56);
        r.last_credential = get_i64(b + 64);
        r.last_contact = get_i64(b + 72);
        r.generation = get_le(b + 80, 8);
    } else {
        if (!(flags & 2) && get_i64(b + 40) != 0) return INACT_E_SNAPSHOT_INVALID;
        r.last_activity = get_i64(b + 24);
        r.locked_at = flags & 2 ? get_i64(b + 40) : M_NEVER;
        r.boot = get_le(b + 48, 8);
        r.mono = get_i64(b + 56);
        r.wall = get_i64(b + 64);
        r.last_credential = version >= 2 ? get_i64(b + 72) : r.started_at;
        r.last_contact = version >= 2 ? get_i64(b + 80) : r.started_at;
        r.generation = version >= 2 ? get_le(b + 88, 8) : 0;
    }
    if (r.mono < 0 || r.boot == 0) return INACT_E_SNAPSHOT_INVALID;
    if (!(r.started_at <= r.last_activity && r.last_activity <= r.mono)) return INACT_E_SNAPSHOT_INVALID;
    if (r.background_since != M_NEVER && r.background_since > r.mono) return INACT_E_SNAPSHOT_INVALID;
    if ((r.state == INACT_STATE_LOCKED) != (r.locked_at != M_NEVER)) return INACT_E_SNAPSHOT_INVALID;
    const int64_t between[] = {r.locked_at != M_NEVER ? r.locked_at : r.started_at, r.last_credential, r.last_contact};
    for (int i = 0; i < 3; i++)
        if (between[i] < r.started_at || between[i] > r.mono) return INACT_E_SNAPSHOT_INVALID;
    if (rec) *rec = r;
    return INACT_OK;
}

/* ---- snapshot / restore ------------------------------------------------------------------- */

/* The bytes an engine wrote are a format-3 snapshot that restores (an invariant), and hold what
 * the model's record says (docs/design.md 4: "holds the state, reason, unlock failures, session
 * start, last activity, background start and locked-at, the last credential verification, the
 * last server contact, the newest refresh-token generation and whether a credential is
 * required, and for its own instant the boot id, the monotonic clock and the wall clock"). */
static uint64_t g_snapshots_checked;
static void check_snapshot_bytes(const slot *s, const uint8_t *b, size_t len, const m_snapshot *rec) {
    m_snapshot got;
    int32_t rc = snap_decode(b, len, &got);
    if (rc != INACT_OK || len != SNAP_V3_SIZE || get_le(b + 4, 2) != 3)
        fail("the engine wrote a snapshot of %zu bytes that its format refuses (%d)", len, rc);
    if (!s->modeled) return;
    m_snapshot want = *rec;
    /* READING (engine): a session not ACTIVE or WARNING has no running idle countdown; its
     * snapshot's last activity is its start. */
    if (want.state != INACT_STATE_ACTIVE && want.state != INACT_STATE_WARNING) want.last_activity = want.started_at;
    struct { const char *name; int64_t got, want; } f[] = {
        {"state", got.state, want.state}, {"reason", got.reason, want.reason},
        {"unlock failures", got.failures, want.failures}, {"session start", got.started_at, want.started_at},
        {"last activity", got.last_activity, want.last_activity},
        {"background start", got.background_since, want.background_since},
        {"locked-at", got.locked_at, want.locked_at}, {"boot id", (int64_t)got.boot, (int64_t)want.boot},
        {"monotonic clock", got.mono, want.mono}, {"wall clock", got.wall, want.wall},
        {"last credential verification", got.last_credential, want.last_credential},
        {"last server contact", got.last_contact, want.last_contact},
        {"token generation", (int64_t)got.generation, (int64_t)want.generation},
        {"credential required", got.credential_required, want.credential_required},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].got != f[i].want)
            fail("snapshot (%s): %s %" PRId64 ", the model %" PRId64, m_state_name(want.state), f[i].name, f[i].got,
                 f[i].want);
    g_snapshots_checked++;
}

/* `capacity`: the buffer's size as the caller states it (any size_t at least the snapshot's;
 * the buffer itself has INACT_SNAPSHOT_MAX_SIZE + 8 bytes). */
static snap *take_snapshot(slot *s, size_t capacity) {
    snap *sn = NULL;
    for (int i = 0; i < MAX_SNAPS; i++)
        if (!g_snaps[i].used) { sn = &g_snaps[i]; break; }
    if (!sn) sn = &g_snaps[(g_steps) % MAX_SNAPS];
    size_t size = 0;
    int32_t rc_size = inact_snapshot_size(s->h, &size);
    m_snapshot rec;
    uint8_t buf[INACT_SNAPSHOT_MAX_SIZE + 8];
    memset(buf, 0xA5, sizeof buf);
    size_t written = 777;
    int32_t rc = inact_snapshot_write(s->h, buf, capacity, &written);
    int32_t expected = m_snapshot_take(&s->m, &rec);
    trace("snapshot (capacity %zu) -> %d (%zu bytes)", capacity, rc, written);
    compare(s, "snapshot_write", rc, expected);
    if (rc_size != rc) fail("snapshot_size returned %d, snapshot_write %d", rc_size, rc);
    if (rc != INACT_OK) {
        if (written != 777) fail("a failed snapshot_write wrote out_written");
        return NULL;
    }
    if (written != size || written == 0 || written > INACT_SNAPSHOT_MAX_SIZE)
        fail("snapshot of %zu bytes, snapshot_size %zu, max %d", written, size, INACT_SNAPSHOT_MAX_SIZE);
    for (size_t i = written; i < sizeof buf; i++)
        if (buf[i] != 0xA5) fail("snapshot_write wrote past its length");
    /* an undersized buffer: nothing written */
    uint8_t small[INACT_SNAPSHOT_MAX_SIZE];
    memset(small, 0x5A, sizeof small);
    size_t w2 = 777;
    int32_t rc2 = inact_snapshot_write(s->h, small, written - 1, &w2);
    if (rc2 != INACT_E_BUFFER_TOO_SMALL || w2 != 777) fail("snapshot_write into %zu bytes returned %d", written - 1, rc2);
    for (size_t i = 0; i < sizeof small; i++)
        if (small[i] != 0x5A) fail("snapshot_write wrote into a buffer that was too small");
    if (s->c->n_ev) fail("snapshot_write delivered events");
    check_snapshot_bytes(s, buf, written, &rec);
    sn->used = 1;
    memcpy(sn->bytes, buf, written);
    sn->len = written;
    return sn;
}

/* Restores `bytes` into the LOADING engine of slot `s`. The model learns what they hold from the
 * bytes themselves (snap_decode): an engine's snapshot, a format-1 one, or mutated bytes, which
 * must be refused with the status the format gives, or restore what they say. */
static uint64_t g_v1_restores, g_v2_restores, g_resealed_accepted, g_restore_callback_destroys, g_restore_callback_locks;

/* The restore's event reached a callback that destroyed its engine: "takes effect when the
 * callback returns (queued events are dropped)"; the restore still returns its own status. */
static void restore_destroyed_in_callback(slot *s, int32_t rc, int32_t expected) {
    if (s->modeled && rc != expected) fail("restore with destroy in the callback returned %d, the model %d", rc, expected);
    s->c->destroy_returned = 1;
    if (s->c->frees != 1) fail("destroy from the restore's callback: user_data_free ran %d times", s->c->frees);
    if (s->c->n_ev != 1) fail("destroy from the restore's callback: %d events delivered", s->c->n_ev);
    const inact_event *e = &s->c->ev[0];
    check_event_shape(s, e, e->now_ms);
    if (e->previous_state != INACT_STATE_LOADING) fail("the restore's event is not from LOADING");
    if (s->modeled && (s->m.n_events < 1 || e->state != s->m.events[0].state || e->reason != s->m.events[0].reason ||
                       e->time_ms != s->m.events[0].time_ms))
        fail("the restore's event before a destroy from the callback differs from the model");
    int32_t st;
    if (inact_get_state(s->h, &st) != INACT_E_INVALID_HANDLE) fail("the engine destroyed from its callback still answers");
    if (g_n_stale < MAX_STALE) g_stale[g_n_stale++] = s->h;
    s->live = 0;
    g_restore_callback_destroys++;
}

/* `arm`: 1 the callback destroys its engine at the restore's event, 2 it calls inact_lock. */
static void restore_into(slot *s, const uint8_t *bytes, size_t len, int intact, int v1, int resealed, int arm) {
    m_snapshot rec;
    int32_t predicted = snap_decode(bytes, len, &rec);
    s->c->destroy_in_callback = arm == 1;
    s->c->lock_in_callback = arm == 2;
    s->c->reentrant_status = 99;
    int32_t rc = inact_restore(s->h, bytes, len);
    trace("restore %zu bytes (%s%s%s%s) -> %d, the format says %d", len, v1 == 1 ? "format 1, " : v1 == 2 ? "format 2, " : "",
          intact ? "intact" : "mutated", resealed ? ", resealed" : "",
          arm == 1 ? ", destroy in the callback" : arm == 2 ? ", lock in the callback" : "", rc, predicted);
    if (predicted == INACT_OK && !intact)
        trace("  holds %s (%s) failures %u start %" PRId64 " activity %" PRId64 " background %" PRId64 " locked %" PRId64
              " boot %" PRIu64 " clock %" PRId64 " wall %" PRId64 " credential %" PRId64 " contact %" PRId64
              " generation %" PRIu64 " required %d",
              m_state_name(rec.state), m_reason_name(rec.reason), rec.failures, rec.started_at, rec.last_activity,
              rec.background_since, rec.locked_at, rec.boot, rec.mono, rec.wall, rec.last_credential, rec.last_contact,
              rec.generation, rec.credential_required);
    int fired = arm == 1 ? !s->c->destroy_in_callback : arm == 2 ? !s->c->lock_in_callback : 0;
    s->c->destroy_in_callback = s->c->lock_in_callback = 0;
    if (arm && !fired) fail("restore delivered no event from LOADING");
    if (!s->modeled || s->inputs_in_loading) {
        /* Not modeled: the engine went through inputs in LOADING first. Invariants only from
         * here on. */
        s->modeled = 0;
        if (arm == 1) {
            restore_destroyed_in_callback(s, rc, rc);
            return;
        }
        compare(s, "restore (unmodeled)", rc, rc);
        return;
    }
    int32_t expected;
    if (predicted == INACT_OK) {
        int never_started = m_snapshot_never_started(&rec);
        expected = m_restore(&s->m, &rec);
        if (expected == INACT_OK) {
            g_restores_modeled++;
            g_never_started_restores += never_started;
            g_v1_restores += v1 == 1;
            g_v2_restores += v1 == 2;
            g_forged_accepted += !intact;
            g_resealed_accepted += resealed && !intact;
        }
    } else {
        expected = m_restore_corrupt(&s->m, predicted);
        if (expected == predicted) g_corrupt_rejected++;
    }
    if (arm == 1) {
        restore_destroyed_in_callback(s, rc, expected);
        return;
    }
    if (arm == 2) {
        /* lock from inside the callback: after the restore's event, delivered before the
         * restore returns */
        m_lock_in_callback(&s->m);
        if (s->c->reentrant_status != s->m.lock_status)
            fail("lock from the restore's callback returned %d, the model %d", s->c->reentrant_status, s->m.lock_status);
        g_restore_callback_locks++;
    }
    compare(s, intact ? "restore" : "restore (mutated bytes)", rc, expected);
}

/* A snapshot buffer's stated capacity: mostly its real size, sometimes "big enough" at the
 * top of size_t. */
static size_t rd_capacity(reader *r) {
    static const size_t menu[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX / 2 + 1, SIZE_MAX / 2};
    uint8_t b = rd8(r);
    return b < 192 ? INACT_SNAPSHOT_MAX_SIZE : PICK(menu, b);
}

/* Bytes derived from a snapshot: as written, or rewritten in format 1 or 2 (what a 1.0 or a 1.1
 * library wrote for the same session: format 1 without the later fields), then intact or mutated
 * in one of several ways. Returns 1 when the bytes are the snapshot (in its format) unchanged;
 * *v1 (1 or 2: rewritten in that format) and *resealed say what was done. `out` has SNAP_BUF
 * bytes. */
static int mutate(reader *r, const snap *sn, uint8_t *out, size_t *len, int *v1, int *resealed) {
    uint8_t base[SNAP_BUF];
    size_t base_len = sn->len;
    memcpy(base, sn->bytes, sn->len);
    uint8_t how = rd8(r);
    *v1 = (how & 0x60) == 0x60 ? 1 : (how & 0x60) == 0x40 ? 2 : 0;
    *resealed = 0;
    if (*v1) {
        m_snapshot rec;
        if (snap_decode(sn->bytes, sn->len, &rec) != INACT_OK) fail("a stored snapshot no longer decodes");
        base_len = snap_encode(&rec, *v1, base);
    }
    memcpy(out, base, base_len);
    *len = base_len;
    switch (how % 8) {
    case 0: case 1: case 2: case 3:
        return 1;
    case 4: /* truncated */
        *len = rd8(r) % base_len;
        break;
    case 5:
        if (how & 0x30) { /* one field set to an end of its type, a neighbour of another field or any
                           * value, with the checksum made right: every validity rule at its edge */
            static const uint8_t offsets[] = {4, 6, 7, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88};
            static const uint8_t widths[] = {2, 1, 1, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8};
            uint8_t n = 1 + rd8(r) % 3;
            for (int k = 0; k < n; k++) {
                uint8_t fi = rd8(r) % sizeof offsets;
                if (offsets[fi] + widths[fi] > base_len - 8) continue;
                uint8_t vb = rd8(r);
                uint64_t v;
                if (vb < 64) v = (uint64_t)rd_wide64(r);
                else if (vb < 192) { /* another 8-byte field's value, or one off it */
                    uint8_t o = offsets[5 + rd8(r) % 10];
                    v = o + 8 <= base_len - 8 ? get_le(out + o, 8) : 0;
                    v += (uint64_t)((int64_t)(vb % 3) - 1);
                } else if (vb < 224) v = (uint64_t)rd_wide32(r);
                else v = rd64(r);
                put_le(out + offsets[fi], v, widths[fi]);
            }
            snap_seal(out, base_len);
            *resealed = 1;
            break;
        }
        { /* bit flips */
            uint8_t n = 1 + rd8(r) % 4;
            for (int i = 0; i < n; i++) {
                uint8_t pos = rd8(r);
                uint8_t bit = rd8(r);
                out[pos % base_len] ^= (uint8_t)(1u << (bit % 8));
            }
        }
        break;
    case 6: /* extended by a few bytes, or a length anywhere in size_t (the library reads at
             * most 105 bytes, the longest format read and one more, all of them set here) */
        for (size_t i = base_len; i < SNAP_BUF; i++) out[i] = 0;
        *len = base_len + 1 + rd8(r) % 8;
        if (*len > SNAP_BUF) *len = SNAP_BUF;
        for (size_t i = base_len; i < *len; i++) out[i] = rd8(r);
        if (rd8(r) >= 192) *len = PICK(wide_sizes, rd8(r));
        break;
    case 7: /* overwritten from the input (lets libFuzzer forge fields), the checksum made right
             * or not */
        for (size_t i = 0; i < base_len; i++) out[i] = rd8(r);
        if (how & 0x10) {
            snap_seal(out, base_len);
            *resealed = 1;
        }
        break;
    }
    return *len == base_len && memcmp(out, base, base_len) == 0;
}

/* "The process died": snapshot an engine, destroy it, create a new one whose clock continues
 * (same boot), went back, or rebooted, maybe with a new policy, and restore into it. */
static void op_restart(reader *r) {
    slot *s = pick_live(r);
    if (!s) return;
    snap *sn = take_snapshot(s, INACT_SNAPSHOT_MAX_SIZE);
    if (!sn) return;
    model old = s->m;
    destroy_slot(s, "restart");
    uint8_t how = rd8(r);
    int64_t later = rd_advance(r);
    if (later < 0) later = 0;
    int64_t mono = old.now, wall = old.wall;
    uint64_t boot = old.boot;
    switch (how % 5) {
    case 0: case 1: /* same boot, later */
        mono = sadd(old.now, later);
        wall = sadd(old.wall, later);
        break;
    case 2: /* rebooted: new boot id, the clock restarts */
        mono = later % 100000;
        wall = sadd(old.wall, later);
        boot = old.boot + 1 + rd8(r);
        break;
    case 3: /* same boot id but the monotonic clock reads earlier (impossible: untrusted) */
        mono = old.now > 0 ? (int64_t)(rd32(r) % (uint64_t)old.now) : 0;
        wall = sadd(old.wall, later);
        break;
    case 4: /* rebooted and the wall clock set back */
        mono = later % 100000;
        wall = sadd(old.wall, -1 - (int64_t)rd32(r));
        boot = old.boot + 1;
        break;
    }
    if (mono > M_100_YEARS) mono = old.now;
    inact_policy p = old.p;
    if (rd8(r) & 1) rd_policy(r, &p);
    uint8_t delivery = rd8(r);
    if (create_in(s, &p, mono, wall, boot, delivery & 1) != INACT_OK) return;
    /* bits 1-3: 1 the callback destroys the engine at the restore's event, 2 it locks */
    int arm = (delivery >> 1) & 7;
    /* the model learns the session from the bytes, even of an engine it had lost track of */
    uint8_t bytes[SNAP_BUF];
    size_t len;
    int v1, resealed;
    int intact = mutate(r, sn, bytes, &len, &v1, &resealed);
    restore_into(s, bytes, len, intact, v1, resealed, arm <= 2 ? arm : 0);
}

/* ---- the program ---------------------------------------------------------------------------- */

enum {
    OP_CREATE, OP_DESTROY, OP_START, OP_ACTIVITY, OP_CONTINUE, OP_LOCK, OP_UNLOCK, OP_UNLOCK_FAILED,
    OP_END, OP_REFRESH, OP_BACKGROUND, OP_FOREGROUND, OP_WINDOW_SHOWN, OP_WINDOW_HIDDEN, OP_SCOPE_PUSH,
    OP_SCOPE_POP, OP_HOLD_ACQUIRE, OP_HOLD_RELEASE, OP_SET_POLICY, OP_QUERY, OP_ADVANCE, OP_ADVANCE2,
    OP_ADVANCE3, OP_FREEZE, OP_JUMP_WALL, OP_REBOOT, OP_SNAPSHOT, OP_RESTART, OP_RESTORE, OP_STALE, OP_BAD_ARGS,
    OP_DESTROY_IN_CALLBACK, OP_LOCK_IN_CALLBACK, OP_TOKEN_ROTATED, OP_DEVICE_LOCKED,
    OP_UNLOCK_WITH, OP_UNLOCK_FAILED_WITH, OP_BIOMETRICS_CHANGED,
    OP_SERVER_CONTACT, OP_SET_CEILINGS, OP_COMPAT_QUERY,
    OP_EXPECT_INTERRUPTION, OP_REQUIRED_AUTH,
    OP_HOLDER_REPORT,
    /* the inputs of the header that have no op above (generated/ops.h) */
#define FUZZ_OP_ENUM(name) OP_GEN_##name,
    FUZZ_GENERATED_OPS(FUZZ_OP_ENUM)
#undef FUZZ_OP_ENUM
    OP_SERVER_DECIDE,
    OP_COUNT
};

/* ---- a server's decision over a stored record (inact_server_decide) -------------------------- */

static uint8_t g_record[INACT_SNAPSHOT_MAX_SIZE];
static size_t g_record_len;

/* One decision over the record kept between steps (a sign-in makes one; bytes may be flipped
 * or cut), with fuzzed input, argument, clock and precision. No model: the checks are the
 * call's own promises. An error writes nothing; a success writes exactly the record it says;
 * a record written is stable (decided again at the decision's instant, machine traffic changes
 * nothing) and the instant is never before the clock given. */
static void op_server_decide(reader *r) {
    inact_policy p;
    rd_policy(r, &p);
    uint8_t b = rd8(r);
    int32_t input = b < 200 ? 1 + b % 8 : rd_wide32(r);
    int64_t arg = (b >> 3) % 4 == 0 ? rd_wide64(r) : input == INACT_SERVER_HOLDER_ACTIVITY ? rd_duration(r)
                : input == INACT_SERVER_LOCK || input == INACT_SERVER_END ? (int64_t)(rd8(r) % 26) : 0;
    int64_t now = rd8(r) < 250 ? 1700000000000LL + (int64_t)rd32(r) : rd_wide64(r);
    int64_t precision = rd8(r) < 240 ? (int64_t)(rd16(r) % 2000) : rd_duration(r);
    uint8_t bytes[INACT_SNAPSHOT_MAX_SIZE + 8];
    size_t len = g_record_len;
    memcpy(bytes, g_record, sizeof g_record);
    uint8_t m = rd8(r);
    if (m >= 240 && len > 0) bytes[rd8(r) % len] ^= (uint8_t)(1 + rd8(r) % 255);
    if (m == 239 && len > 0) len = rd8(r) % len;
    inact_decision d;
    inact_decision_init(&d);
    d.now_ms = -7;
    uint8_t out[INACT_SNAPSHOT_MAX_SIZE];
    memset(out, 0xA5, sizeof out);
    size_t out_len = 12345;
    int32_t rc = inact_server_decide(&p, len || input == INACT_SERVER_SIGN_IN ? bytes : NULL, len, now, input, arg,
                                     precision, &d, out, sizeof out, &out_len);
    trace("server decide input %d arg %" PRId64 " now %" PRId64 " precision %" PRId64 " (record %zu bytes) -> %d",
          input, arg, now, precision, len, rc);
    if (rc != INACT_OK) {
        if (rc != INACT_E_INVALID_ARGUMENT && rc != INACT_E_NULL_POINTER && rc != INACT_E_STRUCT_SIZE)
            fail("server decide returned %d (only an argument or the policy's size is refused here)", rc);
        if (out_len != 12345 || d.now_ms != -7 || out[0] != 0xA5) fail("a refused server decision wrote");
        return;
    }
    if (out_len != (d.write ? INACT_SNAPSHOT_MAX_SIZE : 0u)) fail("out_length %zu with write %d", out_len, d.write);
    if (d.now_ms < now) fail("decided at %" PRId64 ", before the clock given %" PRId64, d.now_ms, now);
    if (d.state < INACT_STATE_ACTIVE || d.state > INACT_STATE_EXPIRED) fail("decided state %d", d.state);
    if (!d.write) return;
    inact_decision again;
    inact_decision_init(&again);
    uint8_t out2[INACT_SNAPSHOT_MAX_SIZE];
    size_t out2_len = 0;
    if (inact_server_decide(&p, out, out_len, d.now_ms, INACT_SERVER_MACHINE, 0, 0, &again, out2, sizeof out2, &out2_len) != INACT_OK)
        fail("the record written is refused: %s", inact_last_error());
    if (again.write || again.state != d.state || again.reason != d.reason || again.unlock_failures != d.unlock_failures)
        fail("the record written is not stable: %d/%d -> %d/%d write %d", d.state, d.reason, again.state, again.reason,
             again.write);
    memcpy(g_record, out, sizeof g_record);
    g_record_len = out_len;
}

/* ---- unlock strength and expected interruption (issue 13 sections 1 and 2) ------------------ */

/* OP_EXPECT_INTERRUPTION and OP_REQUIRED_AUTH. Returns 0 when the step was checked here, 1
 * when the caller compares rc with ex. */
static int op_strength_interruption(reader *r, slot *s, int op, int32_t *rc, int32_t *ex, char *what, size_t n) {
    model *m = &s->m;
    if (op == OP_EXPECT_INTERRUPTION) {
        /* around the policy cap, short announcements, or any int64_t (its ends included) */
        int64_t cap = m->p.expected_interruption_max_ms, max_ms;
        uint8_t b = rd8(r);
        switch (b % 8) {
        case 0: max_ms = cap; break;
        case 1: max_ms = cap - 1; break;
        case 2: max_ms = sadd(cap, 1); break;
        case 3: max_ms = 0; break;
        case 4: case 5: max_ms = cap > 0 ? (int64_t)(rd32(r) % (uint64_t)cap) + 1 : 1; break;
        case 6: max_ms = rd_duration(r); break;
        default: max_ms = rd_wide64(r); break;
        }
        *rc = inact_expect_interruption(s->h, max_ms);
        *ex = m_expect_interruption(m, max_ms);
        if (*rc == INACT_OK && s->modeled && max_ms > 0) g_interruptions_announced++;
        snprintf(what, n, "expect_interruption(%" PRId64 ")", max_ms);
        return 1;
    }
    /* inact_get_required_auth, or its NULL pointer (refused after the catch-up) */
    int32_t auth = -9;
    int use_null = rd8(r) >= 240;
    *rc = inact_get_required_auth(s->h, use_null ? NULL : &auth);
    *ex = m_query(m) == INACT_OK && use_null ? INACT_E_NULL_POINTER : INACT_OK;
    snprintf(what, n, "get_required_auth%s", use_null ? "(NULL)" : "");
    if (!use_null && s->modeled && auth != m_required_auth(m))
        fail("get_required_auth %d, the model %d (state %s, last credential %" PRId64 ", required %d)", auth,
             m_required_auth(m), m_state_name(m->state), m->last_credential, m->credential_required);
    if (use_null && auth != -9) fail("get_required_auth(NULL) wrote something");
    return 1;
}

/* After every modeled step: the unlock-strength and interruption fields of inact_info. */
static void compare_strength_interruption(const slot *s, const inact_info *info, const char *what) {
    const model *m = &s->m;
    if (info->required_auth != m_required_auth(m))
        fail("%s: required_auth %d, model %d", what, info->required_auth, m_required_auth(m));
    if (info->last_credential_ms != m->last_credential)
        fail("%s: last_credential_ms %" PRId64 ", model %" PRId64, what, info->last_credential_ms, m->last_credential);
    if (info->strong_auth_deadline_ms != m_strong_auth_deadline(m))
        fail("%s: strong_auth_deadline_ms %" PRId64 ", model %" PRId64, what, info->strong_auth_deadline_ms,
             m_strong_auth_deadline(m));
    if (info->interruption_until_ms != m_interruption_until(m))
        fail("%s: interruption_until_ms %" PRId64 ", model %" PRId64, what, info->interruption_until_ms,
             m_interruption_until(m));
    if (info->required_auth == INACT_AUTH_CREDENTIAL) g_credential_locks++;
    if (info->interruption_until_ms != INACT_NEVER && (info->in_background || info->visible_windows == 0))
        g_covered_backgrounds++;
}

/* ---- offline limits, managed ceilings, 1.0-sized structs (fuzz-b) -------------------------- */

/* Ceilings in a buffer with room beyond the struct (sizes larger than this version's). */
typedef union ceil_buf {
    inact_ceilings c;
    uint8_t bytes[sizeof(inact_ceilings) + 16];
} ceil_buf;

static void describe_ceilings(const inact_ceilings *c, char *buf, size_t n) {
    snprintf(buf, n,
             "size=%u idle=%" PRId64 " bg=%" PRId64 " abs=%" PRId64 " locked=%" PRId64 " strong=%" PRId64
             " interruption=%" PRId64 " offline=%" PRId64 " offline_expiry=%" PRId64 " maxfail=%u devlock=%d restart=%d",
             c->size, c->idle_timeout_ms, c->background_timeout_ms, c->absolute_timeout_ms, c->locked_timeout_ms,
             c->strong_auth_timeout_ms, c->expected_interruption_max_ms, c->offline_timeout_ms, c->offline_expiry_ms,
             c->max_unlock_failures, c->lock_on_device_lock, c->lock_on_restart);
}

/* A limit: from the duration menu (the ends of int64_t included), or the policy's own value
 * and its neighbours (the edge of "at least as strict"). */
static int64_t rd_limit(reader *r, int64_t policy_value) {
    uint8_t b = rd8(r);
    if (b < 128) return rd_duration(r);
    int64_t v = sadd(policy_value, (int64_t)(b % 3) - 1);
    return v == INT64_MAX - 1 && policy_value == INT64_MAX ? INT64_MAX : v;
}

static void rd_ceilings(reader *r, ceil_buf *b, const inact_policy *current) {
    memset(b, 0, sizeof *b);
    inact_ceilings_init(&b->c);
    uint8_t edits = rd8(r) % 5;
    for (int i = 0; i < edits; i++) {
        uint8_t f = rd8(r);
        inact_ceilings *c = &b->c;
        switch (f % 13) {
        case 0: c->idle_timeout_ms = rd_limit(r, current->idle_timeout_ms); break;
        case 1: c->background_timeout_ms = rd_limit(r, current->background_timeout_ms); break;
        case 2: c->absolute_timeout_ms = rd_limit(r, current->absolute_timeout_ms); break;
        case 3: c->locked_timeout_ms = rd_limit(r, current->locked_timeout_ms); break;
        case 4: c->strong_auth_timeout_ms = rd_limit(r, current->strong_auth_timeout_ms); break;
        case 5: c->expected_interruption_max_ms = rd_limit(r, current->expected_interruption_max_ms); break;
        case 6: c->offline_timeout_ms = rd_limit(r, current->offline_timeout_ms); break;
        case 7: c->offline_expiry_ms = rd_limit(r, current->offline_expiry_ms); break;
        case 8: {
            uint8_t v = rd8(r);
            c->max_unlock_failures = v < 200 ? v % 7u : v < 230 ? current->max_unlock_failures + v % 3u - 1u
                                                                : (uint32_t)rd_wide32(r);
            break;
        }
        case 9: c->lock_on_device_lock = f & 0x80 ? rd_wide32(r) : rd8(r) % 3; break;
        case 10: c->lock_on_restart = f & 0x80 ? rd_wide32(r) : rd8(r) % 3; break;
        case 11: { /* sizes: one published layout; larger with a zero or non-zero tail */
            static const uint32_t sizes[] = {0, 1, sizeof(inact_ceilings) - 8, sizeof(inact_ceilings) - 1,
                                             sizeof(inact_ceilings) + 8, sizeof(inact_ceilings) + 16,
                                             65537, UINT32_MAX};
            uint8_t v = rd8(r);
            c->size = PICK(sizes, v);
            if (v & 0x80) b->bytes[sizeof(inact_ceilings) + v % 16] = 1;
            break;
        }
        default: /* ceilings the current policy already meets, so that later policies meet them */
            c->idle_timeout_ms = current->idle_timeout_ms;
            c->offline_timeout_ms = current->offline_timeout_ms;
            c->offline_expiry_ms = current->offline_expiry_ms;
            break;
        }
    }
}

/* get_ceilings, checked against the model's, at a size from the struct convention. */
static void check_get_ceilings(slot *s, reader *r) {
    ceil_buf b;
    memset(&b, 0xA5, sizeof b);
    static const uint32_t sizes[] = {sizeof(inact_ceilings), sizeof(inact_ceilings), sizeof(inact_ceilings) + 8,
                                     sizeof(inact_ceilings) + 16, sizeof(inact_ceilings) - 1, 4, 0, 65537};
    uint8_t v = rd8(r);
    uint32_t size = PICK(sizes, v);
    b.c.size = size;
    int zero_tail = size > sizeof(inact_ceilings) && size <= sizeof b && !(v & 0x80);
    if (size > sizeof(inact_ceilings) && size <= sizeof b)
        memset(b.bytes + sizeof(inact_ceilings), zero_tail ? 0 : 3, size - sizeof(inact_ceilings));
    ceil_buf before = b;
    int32_t rc = inact_get_ceilings(s->h, &b.c);
    int32_t ex = (size == sizeof(inact_ceilings) || zero_tail) ? INACT_OK : INACT_E_STRUCT_SIZE;
    m_query(&s->m);
    trace("get_ceilings(size %u) -> %d", size, rc);
    if (!s->modeled) {
        compare(s, "get_ceilings", rc, rc);
        return;
    }
    if (rc != ex) fail("get_ceilings(size %u) returned %d, the model expects %d", size, rc, ex);
    if (rc != INACT_OK) {
        if (memcmp(&b, &before, sizeof b) != 0) fail("a failed get_ceilings wrote the struct");
    } else {
        inact_ceilings want = s->m.ceilings;
        want.size = size; /* "size is kept as given" */
        if (memcmp(&b.c, &want, sizeof want) != 0) {
            char got_d[400], want_d[400];
            describe_ceilings(&b.c, got_d, sizeof got_d);
            describe_ceilings(&want, want_d, sizeof want_d);
            fail("get_ceilings: %s, the model %s", got_d, want_d);
        }
        if (memcmp(b.bytes + sizeof(inact_ceilings), before.bytes + sizeof(inact_ceilings),
                   sizeof b - sizeof(inact_ceilings)) != 0)
            fail("get_ceilings wrote past this version's struct");
    }
    compare(s, "get_ceilings", rc, rc);
}

/* The 1.0 layouts of the output structs: written up to their size, not one byte beyond, and
 * the same bytes as this version's struct (header, "an output struct is written up to its
 * size only"). */
static void get_in_old_layout(slot *s, int info, uint8_t *buf, size_t capacity, uint32_t size) {
    memset(buf, 0xA5, capacity);
    memcpy(buf, &size, sizeof size);
    int32_t rc = info ? inact_get_info(s->h, (inact_info *)(void *)buf)
                      : inact_get_policy(s->h, (inact_policy *)(void *)buf);
    m_query(&s->m);
    const char *what = info ? "get_info" : "get_policy";
    trace("%s(size %u) -> %d", what, size, rc);
    if (rc != INACT_OK) fail("%s with the 1.0 size (%u) returned %d", what, size, rc);
    for (size_t i = size; i < capacity; i++)
        if (buf[i] != 0xA5) fail("%s(%u) wrote byte %zu", what, size, i);
}

static void check_compat_outputs(slot *s, reader *r) {
    uint8_t v = rd8(r);
    uint32_t size = v & 1 ? M_INFO_SIZE_1_0 : M_POLICY_SIZE_1_0;
    if (v & 1) {
        uint8_t old[sizeof(inact_info) + 8], full[sizeof(inact_info)];
        get_in_old_layout(s, 1, old, sizeof old, size);
        inact_info info;
        get_info(s, &info);
        memcpy(full, &info, sizeof full);
        memcpy(full, &size, sizeof size); /* the caller's size is kept */
        if (memcmp(old, full, size) != 0) fail("get_info(104) differs from the first 104 bytes of get_info");
    } else {
        uint8_t old[sizeof(inact_policy) + 8];
        get_in_old_layout(s, 0, old, sizeof old, size);
        inact_policy want = s->m.p;
        want.size = size;
        if (s->modeled && memcmp(old, &want, size) != 0) fail("get_policy(80) differs from the model's policy");
    }
    compare(s, v & 1 ? "get_info(104)" : "get_policy(80)", INACT_OK, INACT_OK);
}

/* "Bad input gets a clear error naming the argument and the rule": a refused set_ceilings names
 * the struct's size, one of the fields the model finds invalid with its value, or (a tightened
 * policy that is invalid) says so and names the policy field. */
static void check_set_ceilings_message(const slot *s, const inact_ceilings *c, int32_t rc) {
    if (!s->modeled) return;
    const char *msg = inact_last_error();
    char want[96];
    if (rc == INACT_E_STRUCT_SIZE) {
        snprintf(want, sizeof want, "inact_ceilings->size (%u)", c->size);
        if (!strstr(msg, want)) fail("set_ceilings refused with STRUCT_SIZE: \"%s\" does not name %s", msg, want);
        g_ceiling_messages++;
        return;
    }
    if (rc != INACT_E_INVALID_ARGUMENT) return;
    const char *names[12];
    int64_t values[12];
    int32_t n = m_ceilings_invalid(c, names, values, 12);
    for (int32_t i = 0; i < n; i++) {
        snprintf(want, sizeof want, "ceilings.%s (%" PRId64 ")", names[i], values[i]);
        if (strstr(msg, want)) {
            g_ceiling_messages++;
            return;
        }
    }
    if (n > 0)
        fail("set_ceilings refused with INVALID_ARGUMENT: \"%s\" names none of the %d invalid field(s), e.g. "
             "ceilings.%s (%" PRId64 ")", msg, n, names[0], values[0]);
    /* valid ceilings, and the current policy made as strict as them is invalid */
    if (strncmp(msg, "ceilings", 8) != 0 || !strstr(msg, "policy."))
        fail("set_ceilings refused a tightened policy: \"%s\" does not say that the ceilings make a policy field "
             "invalid", msg);
    g_ceiling_messages++;
}

/* OP_SERVER_CONTACT, OP_SET_CEILINGS, OP_COMPAT_QUERY. Returns 0 when the step was checked
 * here (or skipped), 1 when the caller compares rc with ex. */
static int op_offline_ceilings(reader *r, slot *s, int op, int32_t *rc, int32_t *ex, char *what, size_t n) {
    model *m = &s->m;
    switch (op) {
    case OP_SERVER_CONTACT:
        *rc = inact_server_contact(s->h);
        *ex = m_server_contact(m);
        snprintf(what, n, "server_contact");
        return 1;
    case OP_SET_CEILINGS: {
        uint8_t how = rd8(r);
        if (how >= 250) {
            *rc = inact_set_ceilings(s->h, NULL);
            m_query(m);
            *ex = INACT_E_NULL_POINTER;
            snprintf(what, n, "set_ceilings(NULL)");
            return 1;
        }
        ceil_buf b;
        rd_ceilings(r, &b, &m->p);
        char desc[400];
        describe_ceilings(&b.c, desc, sizeof desc);
        *rc = inact_set_ceilings(s->h, &b.c);
        *ex = m_set_ceilings(m, &b.c);
        if (*rc == *ex && *rc != INACT_OK) check_set_ceilings_message(s, &b.c, *rc);
        if (*rc == INACT_OK && s->modeled) g_ceilings_set++;
        trace("  ceilings %s", desc);
        snprintf(what, n, "set_ceilings");
        if (*rc == INACT_OK && s->modeled) {
            /* the policy made as strict as the ceilings */
            inact_policy back;
            memset(&back, 0xEE, sizeof back);
            back.size = sizeof back;
            if (inact_get_policy(s->h, &back) != INACT_OK) fail("get_policy failed");
            if (memcmp(&back, &m->p, sizeof back) != 0) {
                char got_d[400], want_d[400];
                describe_policy(&back, got_d, sizeof got_d);
                describe_policy(&m->p, want_d, sizeof want_d);
                fail("set_ceilings: the policy is %s, the model %s", got_d, want_d);
            }
        }
        return 1;
    }
    default:
        if (rd8(r) & 1) check_get_ceilings(s, r);
        else check_compat_outputs(s, r);
        return 0;
    }
}

/* "a laxer one is refused with an error that names the field and the limit": the message of a
 * CEILING refusal names one of the fields the model finds laxer, with its limit. */
static void check_ceiling_message(const slot *s, const inact_policy *given) {
    inact_policy q;
    if (!s->modeled || m_policy_read(given, &q) != INACT_OK) return;
    const char *names[12];
    int64_t limits[12];
    int32_t n = m_ceilings_laxer(&s->m.ceilings, &q, names, limits, 12);
    const char *msg = inact_last_error();
    for (int32_t i = 0; i < n; i++) {
        char field[64], limit[32];
        snprintf(field, sizeof field, "policy.%s", names[i]);
        snprintf(limit, sizeof limit, "%" PRId64, limits[i]);
        if (strstr(msg, field) && strstr(msg, limit)) return;
    }
    fail("set_policy refused with CEILING: \"%s\" names none of the %d laxer field(s) with its limit%s%s", msg, n,
         n ? ", e.g. " : "", n ? names[0] : "");
}

/* After every modeled step: the offline fields of inact_info. */
static void compare_offline(const slot *s, const inact_info *info, const char *what) {
    const model *m = &s->m;
    if (info->needs_server_contact != m_needs_server_contact(m))
        fail("%s: needs_server_contact %d, the model %d (last contact %" PRId64 ", offline timeout %" PRId64 ")", what,
             info->needs_server_contact, m_needs_server_contact(m), m->last_contact, m->p.offline_timeout_ms);
    /* READING: an EXPIRED session's last contact has no use (no deadline runs, a start sets
     * it); after a failed restore or of a snapshot of a session never started it is the
     * library's choice. */
    if (m->state != INACT_STATE_EXPIRED && info->last_server_contact_ms != m->last_contact)
        fail("%s: last_server_contact_ms %" PRId64 ", the model %" PRId64, what, info->last_server_contact_ms,
             m->last_contact);
}

static void op_on_live(reader *r, int op) {
    slot *s = pick_live(r);
    if (!s) return;
    model *m = &s->m;
    int32_t rc, ex;
    char what[96];
    int loading_input = m->state == INACT_STATE_LOADING;
    switch (op) {
    FUZZ_GENERATED_CASES
    case OP_START:
        rc = inact_start(s->h); ex = m_start(m); snprintf(what, sizeof what, "start");
        loading_input = 0;
        break;
    case OP_ACTIVITY: {
        uint8_t b = rd8(r);
        uint32_t kind = b < 240 ? 1u << (b % 7) : (b < 250 ? (uint32_t)rd8(r) : rd32(r));
        rc = inact_activity(s->h, kind); ex = m_activity(m, kind);
        snprintf(what, sizeof what, "activity(%#x)", kind);
        break;
    }
    case OP_CONTINUE: rc = inact_continue(s->h); ex = m_continue(m); snprintf(what, sizeof what, "continue"); break;
    case OP_LOCK: rc = inact_lock(s->h); ex = m_lock(m); snprintf(what, sizeof what, "lock"); break;
    case OP_UNLOCK: rc = inact_unlock(s->h); ex = m_unlock(m); snprintf(what, sizeof what, "unlock"); break;
    case OP_UNLOCK_FAILED: {
        uint32_t got = 12345, want = 12345;
        int use_null = rd8(r) & 1;
        rc = inact_unlock_failed(s->h, use_null ? NULL : &got);
        ex = m_unlock_failed(m, &want);
        snprintf(what, sizeof what, "unlock_failed");
        if (!use_null && s->modeled && got != want) fail("unlock_failed wrote %u, the model counts %u", got, want);
        break;
    }
    case OP_END: {
        uint8_t b = rd8(r);
        static const int32_t reasons[] = {INACT_REASON_LOGOUT, INACT_REASON_REVOKED, INACT_REASON_PASSWORD_CHANGED,
                                          INACT_REASON_DEVICE_LIMIT};
        int32_t reason = b < 240 ? reasons[b % 4] : b < 250 ? (int32_t)rd32(r) : rd_wide32(r);
        rc = inact_end(s->h, reason); ex = m_end(m, reason);
        snprintf(what, sizeof what, "end(%d)", reason);
        loading_input = 0;
        break;
    }
    case OP_REFRESH: {
        static const int32_t statuses[] = {0, 200, 204, 299, 400, 401, 403, 404, 408, 429, 500, 503, 599,
                                           100, 99, 600, -1, 302};
        static const char *errors[] = {NULL, "invalid_grant", "invalid_request", "", "INVALID_GRANT"};
        uint8_t b = rd8(r);
        int32_t status = b < 240 ? statuses[b % (sizeof statuses / sizeof statuses[0])]
                         : b < 250 ? rd_wide32(r) : (int32_t)rd32(r);
        const char *err = errors[rd8(r) % 5];
        uint64_t generation = rd8(r) % 6; /* 0 = not tracked */
        int32_t got = -77, want = -77;
        rc = inact_refresh_result_gen(s->h, status, err, generation, &got);
        ex = m_refresh(m, status, err, generation, &want);
        snprintf(what, sizeof what, "refresh_result(%d, %s, gen %" PRIu64 ")", status, err ? err : "NULL", generation);
        if (s->modeled && rc == INACT_OK && got != want) fail("%s: outcome %d, the model expects %d", what, got, want);
        if (rc != INACT_OK && got != -77) fail("a failed refresh_result wrote out_outcome");
        loading_input = 0;
        break;
    }
    case OP_BACKGROUND:
        rc = inact_background(s->h); ex = m_background(m); snprintf(what, sizeof what, "background");
        loading_input = 0; /* the model keeps a background reported in LOADING through the restore */
        break;
    case OP_UNLOCK_WITH: case OP_UNLOCK_FAILED_WITH: {
        /* mostly the two methods; sometimes NONE or any value (INVALID_ARGUMENT) */
        uint8_t b = rd8(r);
        int32_t method = b < 120 ? INACT_AUTH_BIOMETRIC : b < 220 ? INACT_AUTH_CREDENTIAL
                       : b < 240 ? INACT_AUTH_NONE : rd_wide32(r);
        if (op == OP_UNLOCK_WITH) {
            rc = inact_unlock_with(s->h, method);
            ex = m_unlock_with(m, method);
            snprintf(what, sizeof what, "unlock_with(%d)", method);
        } else {
            uint32_t got = 12345, want = 12345;
            rc = inact_unlock_failed_with(s->h, method, &got);
            ex = m_unlock_failed_with(m, method, &want);
            snprintf(what, sizeof what, "unlock_failed_with(%d)", method);
            if (rc != INACT_OK && got != 12345) fail("%s wrote out_failures on error %d", what, rc);
            if (s->modeled && rc == INACT_OK && got != want) fail("%s wrote %u, the model counts %u", what, got, want);
        }
        break;
    }
    case OP_BIOMETRICS_CHANGED:
        rc = inact_biometrics_changed(s->h); ex = m_biometrics_changed(m); snprintf(what, sizeof what, "biometrics_changed");
        loading_input = 0; /* the model keeps it in LOADING ("added to what a restore brings") */
        break;
    case OP_EXPECT_INTERRUPTION: case OP_REQUIRED_AUTH:
        if (!op_strength_interruption(r, s, op, &rc, &ex, what, sizeof what)) return;
        loading_input = 0; /* a query, or refused in LOADING (changes nothing) */
        break;
    case OP_DEVICE_LOCKED:
        rc = inact_device_locked(s->h); ex = m_device_locked(m); snprintf(what, sizeof what, "device_locked");
        loading_input = 0; /* a background in LOADING, kept through the restore */
        break;
    case OP_SERVER_CONTACT: case OP_SET_CEILINGS: case OP_COMPAT_QUERY:
        if (!op_offline_ceilings(r, s, op, &rc, &ex, what, sizeof what)) return;
        /* the model keeps a contact and the ceilings (the policy they tighten) in LOADING */
        loading_input = 0;
        break;
    case OP_HOLDER_REPORT: {
        /* mostly valid kinds with a reason of the right state (and sometimes of another),
         * ages and times left around the policy's durations; sometimes any value */
        uint8_t b = rd8(r);
        int32_t kind = b < 240 ? 1 + b % 5 : rd_wide32(r);
        uint8_t c = rd8(r);
        static const int32_t reasons[] = {INACT_REASON_NONE, INACT_REASON_MANUAL_LOCK, INACT_REASON_IDLE_TIMEOUT,
                                          INACT_REASON_BACKGROUND_TIMEOUT, INACT_REASON_DEVICE_LIMIT,
                                          INACT_REASON_REVOKED, INACT_REASON_LOGOUT, INACT_REASON_IDLE};
        int32_t reason = c < 64 ? (kind == INACT_HOLDER_LOCKED ? INACT_REASON_MANUAL_LOCK
                                   : kind == INACT_HOLDER_EXPIRED ? INACT_REASON_DEVICE_LIMIT : INACT_REASON_NONE)
                         : c < 250 ? reasons[c % 8] : rd_wide32(r);
        uint8_t d = rd8(r);
        int64_t ms = d < 200 ? (int64_t)(d % 50) * 250 : d < 240 ? rd_duration(r) : rd_wide64(r);
        rc = inact_holder_report(s->h, kind, reason, ms);
        ex = m_holder_report(m, kind, reason, ms);
        if (s->modeled) *(rc == INACT_OK ? &g_holder_accepted : &g_holder_refused) += 1;
        snprintf(what, sizeof what, "holder_report(%d, %d, %" PRId64 ")", kind, reason, ms);
        loading_input = 0; /* modeled in LOADING: an expiry follows, the others are refused or no-ops */
        break;
    }
    case OP_TOKEN_ROTATED: {
        uint64_t generation = rd8(r) % 6;
        rc = inact_token_rotated(s->h, generation);
        ex = m_token_rotated(m, generation);
        snprintf(what, sizeof what, "token_rotated(%" PRIu64 ")", generation);
        break;
    }
    /* Presence reported in LOADING is modeled: the restore keeps a background (explicit, a
     * device lock, or every window hidden with the grace running) and ends it otherwise. */
    case OP_FOREGROUND:
        rc = inact_foreground(s->h); ex = m_foreground(m); snprintf(what, sizeof what, "foreground");
        loading_input = 0;
        break;
    case OP_WINDOW_SHOWN:
        if (m->windows >= 40) return;
        rc = inact_window_shown(s->h); ex = m_window_shown(m); snprintf(what, sizeof what, "window_shown");
        loading_input = 0;
        break;
    case OP_WINDOW_HIDDEN:
        rc = inact_window_hidden(s->h); ex = m_window_hidden(m); snprintf(what, sizeof what, "window_hidden");
        loading_input = 0;
        break;
    case OP_SCOPE_PUSH: {
        if (s->n_scope_ids >= M_MAX_SCOPES - 1) return;
        int64_t t = rd_duration(r);
        uint64_t id = 0;
        int use_null = rd8(r) == 255;
        rc = inact_scope_push(s->h, t, use_null ? NULL : &id);
        snprintf(what, sizeof what, "scope_push(%" PRId64 ")%s", t, use_null ? " NULL" : "");
        if (use_null) {
            ex = INACT_E_NULL_POINTER;
            m_query(m);   /* refused after the catch-up, as every call */
        } else {
            ex = m_scope_push_check(m, t);
            if (ex == INACT_OK && rc == INACT_OK) {
                if (id == 0) fail("scope id 0");
                for (int i = 0; i < s->n_scope_ids; i++)
                    if (s->scope_ids[i] == id) fail("scope id %" PRIu64 " given twice", id);
                m_scope_pushed(m, id, t);
                s->scope_ids[s->n_scope_ids++] = id;
            } else {
                /* A bad argument is refused after the catch-up, as in every other call. */
                m_query(m);
                if (rc != INACT_OK && id != 0) fail("a failed scope_push wrote out_scope_id");
            }
        }
        break;
    }
    case OP_SCOPE_POP: {
        uint8_t b = rd8(r);
        uint64_t id = s->n_scope_ids && b < 200 ? s->scope_ids[b % s->n_scope_ids] : (b < 230 ? b : rd64(r));
        rc = inact_scope_pop(s->h, id); ex = m_scope_pop(m, id);
        snprintf(what, sizeof what, "scope_pop(%" PRIu64 ")", id);
        break;
    }
    case OP_HOLD_ACQUIRE: {
        if (s->n_hold_ids >= M_MAX_SCOPES - 1) return;
        uint64_t id = 0;
        int use_null = rd8(r) == 255;
        rc = inact_hold_acquire(s->h, use_null ? NULL : &id);
        snprintf(what, sizeof what, "hold_acquire%s", use_null ? " NULL" : "");
        if (use_null) {
            ex = INACT_E_NULL_POINTER;
            m_query(m);
        } else {
            ex = INACT_OK;
            if (rc == INACT_OK) {
                if (id == 0) fail("hold id 0");
                for (int i = 0; i < s->n_hold_ids; i++)
                    if (s->hold_ids[i] == id) fail("hold id %" PRIu64 " given twice", id);
                m_hold_acquired(m, id);
                s->hold_ids[s->n_hold_ids++] = id;
            }
        }
        break;
    }
    case OP_HOLD_RELEASE: {
        uint8_t b = rd8(r);
        uint64_t id = s->n_hold_ids && b < 200 ? s->hold_ids[b % s->n_hold_ids] : (b < 230 ? b : rd64(r));
        rc = inact_hold_release(s->h, id); ex = m_hold_release(m, id);
        snprintf(what, sizeof what, "hold_release(%" PRIu64 ")", id);
        break;
    }
    case OP_SET_POLICY: {
        inact_policy p;
        rd_policy(r, &p);
        char desc[400];
        describe_policy(&p, desc, sizeof desc);
        rc = inact_set_policy(s->h, &p); ex = m_set_policy(m, &p);
        if (rc == INACT_E_CEILING) check_ceiling_message(s, &p);
        snprintf(what, sizeof what, "set_policy");
        trace("  policy %s", desc);
        if (rc == INACT_OK) {
            inact_policy back;
            memset(&back, 0xEE, sizeof back);
            back.size = sizeof back;
            if (inact_get_policy(s->h, &back) != INACT_OK) fail("get_policy failed");
            inact_policy used;
            m_policy_read(&p, &used); /* a 1.0 policy: its fields, and the defaults beyond */
            if (memcmp(&back, &used, sizeof used) != 0) fail("get_policy does not return the policy set");
        }
        break;
    }
    case OP_QUERY: {
        uint8_t b = rd8(r);
        int32_t v = -9;
        int64_t d = -9;
        switch (b % 6) {
        case 0: rc = inact_get_state(s->h, &v); break;
        case 1: rc = inact_get_reason(s->h, &v); break;
        case 2: rc = inact_get_remaining(s->h, &d); break;
        case 3: rc = inact_next_deadline(s->h, &d); break;
        case 4: rc = inact_poll(s->h); break;
        default: {
            inact_policy p;
            memset(&p, 0, sizeof p);
            p.size = sizeof p;
            rc = inact_get_policy(s->h, &p);
            break;
        }
        }
        ex = m_query(m);
        if (b % 6 == 0 && s->modeled && v != m->state) fail("get_state %d, model %d", v, m->state);
        if (b % 6 == 1 && s->modeled && v != m->reason) fail("get_reason %d, model %d", v, m->reason);
        if (b % 6 == 2 && s->modeled && d != m_remaining(m)) fail("get_remaining %" PRId64 ", model %" PRId64, d, m_remaining(m));
        snprintf(what, sizeof what, "query %d", b % 6);
        loading_input = 0;
        break;
    }
    case OP_ADVANCE: case OP_ADVANCE2: case OP_ADVANCE3: {
        int64_t ms = rd_advance(r);
        /* Every deadline and tick on the way is a wake-up: keep one advance to a few hundred
         * (a 1 ms tick over an hour would be 3.6 million events). */
        static model probe;
        probe = *m;
        m_advance(&probe, ms);
        if (probe.wakes > 300) return;
        /* an unmodeled engine cannot be predicted: keep its advances short (a 1 ms tick) */
        if (!s->modeled && (ms < 0 || ms > 100)) ms = ms < 0 ? ms : ms % 101;
        rc = inact_clock_advance(s->h, ms); ex = m_advance(m, ms);
        snprintf(what, sizeof what, "advance(%" PRId64 ") to %" PRId64, ms, m->now);
        loading_input = 0;
        break;
    }
    case OP_FREEZE: {
        int64_t ms = rd_advance(r);
        rc = inact_clock_freeze(s->h, ms); ex = m_freeze(m, ms);
        g_skip_info = 1;
        snprintf(what, sizeof what, "freeze(%" PRId64 ") to %" PRId64, ms, m->now);
        loading_input = 0;
        break;
    }
    case OP_JUMP_WALL: {
        int64_t delta = (int64_t)(int32_t)rd32(r) * (rd8(r) % 4 == 0 ? 1000 : 1);
        uint8_t wide = rd8(r);
        if (wide == 255) delta = (int64_t)rd64(r);
        if (wide == 254) delta = rd_wide64(r);
        rc = inact_clock_jump_wall(s->h, delta); ex = m_jump_wall(m, delta);
        sync_clock(s);
        snprintf(what, sizeof what, "jump_wall(%" PRId64 ")", delta);
        loading_input = 0;
        break;
    }
    case OP_REBOOT: {
        int64_t down = rd_advance(r);
        if (!s->modeled) return; /* the model's state may not be the engine's */
        uint64_t old_boot = m->boot;
        int32_t was = m->state;
        rc = inact_clock_reboot(s->h, down);
        int64_t wall; uint64_t boot;
        inact_clock_now(s->h, NULL, &wall, &boot);
        if (rc == INACT_OK && boot == old_boot) fail("reboot kept boot id %" PRIu64, boot);
        if (was != INACT_STATE_LOADING && rc == INACT_OK) {
            /* A reboot under a live session cannot happen for real (the process dies with the
             * boot); the engine fails secure: a running session is LOCKED (UNTRUSTED_CLOCK) at
             * the next call, and its instants are rebased (not modeled: invariants only). */
            trace("reboot(%" PRId64 ") under %s -> %d", down, m_state_name(was), rc);
            if (s->c->n_ev) fail("a reboot delivered events (\"nothing is delivered\")");
            int32_t st = -1, reason = -1;
            if (inact_poll(s->h) != INACT_OK || inact_get_state(s->h, &st) != INACT_OK ||
                inact_get_reason(s->h, &reason) != INACT_OK)
                fail("poll after a reboot failed");
            if ((was == INACT_STATE_ACTIVE || was == INACT_STATE_WARNING) &&
                !(st == INACT_STATE_LOCKED && reason == INACT_REASON_UNTRUSTED_CLOCK) &&
                st != INACT_STATE_EXPIRED /* e.g. a locked timeout of 0 */)
                fail("a %s session whose clock rebooted is %s (%s), not LOCKED (UNTRUSTED_CLOCK)",
                     m_state_name(was), m_state_name(st), m_reason_name(reason));
            if (was == INACT_STATE_EXPIRED && st != INACT_STATE_EXPIRED) fail("a reboot revived an expired session");
            for (int i = 0; i < s->c->n_ev; i++)
                check_event_shape(s, &s->c->ev[i], s->c->ev[i].now_ms);
            s->c->n_ev = 0;
            s->modeled = 0;
            return;
        }
        ex = m_reboot(m, down, rc == INACT_OK ? boot : old_boot);
        sync_clock(s);
        snprintf(what, sizeof what, "reboot(%" PRId64 ")", down);
        loading_input = 0;
        break;
    }
    default:
        return;
    }
    if (loading_input && m->state == INACT_STATE_LOADING) s->inputs_in_loading = 1;
    trace("s%d %s -> %d  [%s %s now=%" PRId64 " last=%" PRId64 " paused=%d used=%" PRId64 " bg=%d idleD=%" PRId64
          " lastTickRem=%" PRId64 " scopes=%d holds=%d]", (int)(s - g_slots), what, rc,
          m_state_name(m->state), m_reason_name(m->reason), m->now, m->last_activity, m->idle_paused,
          m->idle_used_at_pause, m_in_background(m), m_idle_deadline(m), m->last_tick_remaining, m->n_scopes, m->n_holds);
    compare(s, what, rc, ex);
}

static int is_live_handle(inact_engine h) {
    for (int i = 0; i < SLOTS; i++)
        if (g_slots[i].live && g_slots[i].h == h) return 1;
    return 0;
}

/* A call with a destroyed, forged or zero handle: INACT_E_INVALID_HANDLE, and no live engine
 * notices anything. */
static void op_stale(reader *r) {
    uint8_t b = rd8(r);
    inact_engine h;
    if (b % 4 == 0 && g_n_stale)
        h = g_stale[rd8(r) % g_n_stale];
    else if (b % 4 == 1) {
        slot *s = pick_live(r);
        h = s ? s->h ^ (1ull << (rd8(r) % 64)) : 12345;
    } else if (b % 4 == 2)
        h = rd64(r);
    else
        h = 0;
    if (is_live_handle(h)) return;
    uint8_t f = rd8(r);
    int32_t rc, v;
    int64_t d;
    uint64_t id;
    uint8_t buf[INACT_SNAPSHOT_MAX_SIZE];
    size_t n;
    inact_info info;
    info.size = sizeof info;
    inact_policy p;
    small_policy(&p);
    switch (f % 16) {
    case 0: rc = inact_destroy(h); break;
    case 1: rc = inact_start(h); break;
    case 2: rc = inact_activity(h, INACT_ACTIVITY_KEY); break;
    case 3: rc = inact_lock(h); break;
    case 4: rc = inact_end(h, INACT_REASON_LOGOUT); break;
    case 5: rc = inact_get_state(h, &v); break;
    case 6: rc = inact_get_info(h, &info); break;
    case 7: rc = inact_clock_advance(h, 1000); break;
    case 8: rc = inact_snapshot_write(h, buf, sizeof buf, &n); break;
    case 9: rc = inact_restore(h, buf, 10); break;
    case 10: rc = inact_scope_push(h, 5000, &id); break;
    case 11: rc = inact_hold_release(h, 1); break;
    case 12: rc = inact_set_policy(h, &p); break;
    case 13: rc = inact_poll(h); break;
    case 14: rc = inact_next_deadline(h, &d); break;
    default: rc = inact_clock_now(h, &d, NULL, NULL); break;
    }
    g_stale_calls++;
    trace("stale/forged handle %#" PRIx64 " call %d -> %d", h, f % 16, rc);
    int32_t expected = (h == 0 && f % 16 == 0) ? INACT_OK : INACT_E_INVALID_HANDLE;
    if (rc != expected) fail("call %d with handle %#" PRIx64 " returned %d, expected %d", f % 16, h, rc, expected);
    for (int i = 0; i < SLOTS; i++)
        if (g_slots[i].live && g_slots[i].c->n_ev) fail("a call with a bad handle delivered an event to a live engine");
}

/* NULL pointers, wrong struct sizes, bad configs, a SYSTEM-clock engine: each fails with its
 * own status and changes nothing. */
static void op_bad_args(reader *r) {
    uint8_t f = rd8(r);
    slot *s = pick_live(r);
    int32_t rc = 0, expected = 0;
    g_bad_arg_calls++;
    if (f % 12 >= 8 || !s) {
        /* library-level calls that need no engine */
        inact_config cfg;
        inact_config_init(&cfg);
        inact_policy p;
        small_policy(&p);
        inact_engine h = 0x1234;
        switch (f % 6) {
        case 0: cfg.size = 4; expected = INACT_E_STRUCT_SIZE; break;
        case 1: cfg.reserved0 = 1; expected = INACT_E_INVALID_ARGUMENT; break;
        case 2: cfg.delivery = 2 + rd8(r); expected = INACT_E_INVALID_ARGUMENT; break;
        case 3: cfg.clock = -1 - rd8(r); expected = INACT_E_INVALID_ARGUMENT; break;
        case 4: cfg.clock = INACT_CLOCK_MANUAL; cfg.manual_boot_id = 0; expected = INACT_E_INVALID_ARGUMENT; break;
        case 5: cfg.clock = INACT_CLOCK_MANUAL; cfg.manual_start_ms = -1 - rd8(r); expected = INACT_E_INVALID_ARGUMENT; break;
        }
        ctx *c = new_ctx();
        if (!c) return;
        c->destroy_returned = 1; /* any callback would be a bug */
        rc = inact_engine_create(&cfg, &p, on_event, c, on_free, &h);
        trace("create with bad config %d -> %d", f % 6, rc);
        if (rc != expected || h != 0x1234 || c->frees) fail("create with bad config %d returned %d (expected %d)", f % 6, rc, expected);
        if (inact_engine_create(NULL, NULL, NULL, NULL, NULL, NULL) != INACT_E_NULL_POINTER)
            fail("create with a NULL out_engine");
        /* a SYSTEM-clock, HOST-delivery engine: the manual-clock calls say WRONG_CLOCK */
        inact_config_init(&cfg);
        cfg.delivery = INACT_DELIVERY_HOST;
        if (inact_engine_create(&cfg, NULL, NULL, NULL, NULL, &h) != INACT_OK) fail("SYSTEM engine create failed");
        if (inact_clock_advance(h, 1) != INACT_E_WRONG_CLOCK || inact_clock_jump_wall(h, 1) != INACT_E_WRONG_CLOCK ||
            inact_clock_reboot(h, 0) != INACT_E_WRONG_CLOCK)
            fail("manual-clock calls on a SYSTEM clock engine are not WRONG_CLOCK");
        if (inact_clock_now(h, NULL, NULL, NULL) != INACT_OK) fail("clock_now with NULLs");
        if (inact_destroy(h) != INACT_OK || inact_destroy(h) != INACT_E_INVALID_HANDLE) fail("double destroy");
        if (inact_status_string((int32_t)rd32(r)) == NULL || inact_last_error() == NULL) fail("NULL strings");
        if (inact_policy_init(NULL) != INACT_E_NULL_POINTER || inact_config_init(NULL) != INACT_E_NULL_POINTER ||
            inact_policy_preset(NULL, 0) != INACT_E_NULL_POINTER || inact_policy_validate(NULL) != INACT_E_NULL_POINTER)
            fail("init functions accept NULL");
        inact_policy q, before;
        small_policy(&q);
        before = q;
        uint8_t pb = rd8(r);
        int32_t preset = pb < 128 ? 7 + pb : PICK(wide32, pb);
        if (preset >= 0 && preset <= 6) preset = -1 - preset;
        if (inact_policy_preset(&q, preset) != INACT_E_INVALID_ARGUMENT || memcmp(&q, &before, sizeof q) != 0)
            fail("an unknown preset %d changed the policy or was accepted", preset);
        inact_policy pv;
        rd_policy(r, &pv);
        if (inact_policy_validate(&pv) != m_policy_validate(&pv)) {
            char desc[400];
            describe_policy(&pv, desc, sizeof desc);
            fail("policy_validate(%s) returned %d, the model %d", desc, inact_policy_validate(&pv), m_policy_validate(&pv));
        }
        return;
    }
    model *m = &s->m;
    const char *what = "?";
    switch (f % 8) {
    case 0: what = "get_state(NULL)"; rc = inact_get_state(s->h, NULL); expected = INACT_E_NULL_POINTER; break;
    case 1: {
        inact_info info;
        memset(&info, 0, sizeof info);
        /* below the 1.0 layout (104); 104 .. 151 with a zero tail are accepted (test_compat.c) */
        info.size = (uint32_t)(rd8(r) % M_INFO_SIZE_1_0);
        what = "get_info(small size)";
        rc = inact_get_info(s->h, &info);
        expected = INACT_E_STRUCT_SIZE;
        break;
    }
    case 2: {
        inact_policy p;
        small_policy(&p);
        p.size = 8;
        what = "set_policy(size 8)";
        rc = inact_set_policy(s->h, &p);
        expected = INACT_E_STRUCT_SIZE;
        break;
    }
    case 3: what = "set_policy(NULL)"; rc = inact_set_policy(s->h, NULL); expected = INACT_E_NULL_POINTER; break;
    case 4: {
        size_t n = PICK(wide_sizes, rd8(r));
        what = "restore(NULL, n > 0)";
        rc = inact_restore(s->h, NULL, n ? n : 5);
        expected = INACT_E_NULL_POINTER;
        break;
    }
    case 5: {
        size_t n = 99;
        what = "snapshot_write(NULL)";
        rc = inact_snapshot_write(s->h, NULL, 64, &n);
        expected = m->state == INACT_STATE_LOADING ? rc : INACT_E_NULL_POINTER;
        if (m->state == INACT_STATE_LOADING && rc != INACT_E_NULL_POINTER && rc != INACT_E_INVALID_STATE) expected = INACT_E_NULL_POINTER;
        break;
    }
    case 6: what = "get_remaining(NULL)"; rc = inact_get_remaining(s->h, NULL); expected = INACT_E_NULL_POINTER; break;
    default: {
        inact_info info;
        unsigned char big[sizeof(inact_info) + 16];
        memset(big, 0, sizeof big);
        memcpy(&info, big, sizeof info);
        info.size = sizeof big;
        memcpy(big, &info, sizeof info);
        big[sizeof(inact_info) + 3] = 1; /* a non-zero byte beyond this version's struct */
        what = "get_info(larger size, non-zero tail)";
        rc = inact_get_info(s->h, (inact_info *)(void *)big);
        expected = INACT_E_STRUCT_SIZE;
        break;
    }
    }
    m_query(m);   /* a call refused for its argument first catches up */
    trace("%s -> %d", what, rc);
    compare(s, what, rc, expected);
}

/* Sets the callback to destroy its own engine (or to call lock on it) at the next event, then
 * causes events with a clock advance. */
static void op_in_callback(reader *r, int destroy) {
    slot *s = pick_live(r);
    if (!s) return;
    model *m = &s->m;
    int64_t ms = rd_advance(r);
    if (ms < 0) ms = 0;
    static model probe;
    probe = *m;
    m_advance(&probe, ms);
    if (probe.wakes > 300) return;
    if (!s->modeled) ms %= 101;
    if (destroy) s->c->destroy_in_callback = 1;
    else s->c->lock_in_callback = 1;
    s->c->reentrant_status = 99;
    m->lock_on_first_event = !destroy;
    m->lock_status = 99;
    int32_t rc = inact_clock_advance(s->h, ms);
    int32_t ex = m_advance(m, ms);
    m->lock_on_first_event = 0;
    trace("advance(%" PRId64 ") with %s in the callback -> %d", ms, destroy ? "destroy" : "lock", rc);
    /* an unmodeled engine's clock may differ from the model's (a reboot under a session), so
     * near the 1000-year limit the two may disagree on the status */
    if (s->modeled && rc != ex) fail("advance returned %d, model %d", rc, ex);
    int fired = destroy ? !s->c->destroy_in_callback : !s->c->lock_in_callback;
    s->c->destroy_in_callback = s->c->lock_in_callback = 0;
    if (!fired) {
        compare(s, "advance (callback armed, no event)", rc, ex);
        return;
    }
    if (destroy) {
        /* "takes effect when the callback returns (queued events are dropped)" */
        s->c->destroy_returned = 1;
        if (s->c->frees != 1) fail("destroy from the callback: user_data_free ran %d times", s->c->frees);
        if (s->c->n_ev < 1) fail("no event recorded");
        int32_t st;
        if (inact_get_state(s->h, &st) != INACT_E_INVALID_HANDLE) fail("the engine destroyed from its callback still answers");
        if (s->modeled && m->n_events >= 1) {
            const inact_event *e = &s->c->ev[0];
            const m_event *x = &m->events[0];
            if (e->state != x->state || e->reason != x->reason || e->time_ms != x->time_ms)
                fail("first event before a destroy from the callback differs from the model");
        }
        if (g_n_stale < MAX_STALE) g_stale[g_n_stale++] = s->h;
        s->live = 0;
        return;
    }
    /* lock from inside the callback: applied at the first event's instant, its events
     * delivered after that callback returns, and the advance goes on */
    if (s->modeled && s->c->reentrant_status != m->lock_status && s->c->n_ev > 0)
        trace("    first event: %s -> %s (%s) time %" PRId64, m_state_name(s->c->ev[0].previous_state),
              m_state_name(s->c->ev[0].state), m_reason_name(s->c->ev[0].reason), s->c->ev[0].time_ms);
    if (s->modeled && s->c->reentrant_status != m->lock_status)
        fail("lock from inside the callback returned %d, the model %d", s->c->reentrant_status, m->lock_status);
    compare(s, "advance with lock in the callback", rc, ex);
}

static void op_restore_direct(reader *r) {
    slot *s = pick_live(r);
    if (!s) return;
    snap *sn = &g_snaps[rd8(r) % MAX_SNAPS];
    if (!sn->used) return;
    uint8_t bytes[SNAP_BUF];
    size_t len;
    int v1, resealed;
    int intact = mutate(r, sn, bytes, &len, &v1, &resealed);
    if (s->m.state != INACT_STATE_LOADING) {
        int32_t rc = inact_restore(s->h, bytes, len);
        int32_t ex = m_query(&s->m) == INACT_OK ? INACT_E_INVALID_STATE : 0;
        trace("restore into %s -> %d", m_state_name(s->m.state), rc);
        compare(s, "restore (not LOADING)", rc, ex);
        return;
    }
    restore_into(s, bytes, len, intact, v1, resealed, 0);
}

static void run(const uint8_t *data, size_t size) {
    reader r = {data, size};
    g_inputs++;
    g_trace_len = 0;
    g_trace[0] = 0;
    g_n_ctx = 0;
    g_n_stale = 0;
    memset(g_slots, 0, sizeof g_slots);
    memset(g_snaps, 0, sizeof g_snaps);
    g_record_len = 0;
    for (int n = 0; n < MAX_OPS && r.n > 0; n++) {
        uint8_t op = rd8(&r) % OP_COUNT;
        switch (op) {
        case OP_CREATE: {
            slot *s = NULL;
            for (int i = 0; i < SLOTS; i++)
                if (!g_slots[i].live) { s = &g_slots[i]; break; }
            if (!s) break;
            inact_policy p;
            rd_policy(&r, &p);
            uint8_t b = rd8(&r);
            int64_t mono = b & 1 ? rd16(&r) : 0;
            int64_t wall = 1700000000000LL + (b & 2 ? (int64_t)rd32(&r) : 0);
            uint64_t boot = 1 + (b >> 4);
            if (b == 255) mono = -1;
            if (b == 254) boot = 0;
            if (b == 253) mono = rd_wide64(&r);        /* the ends of int64_t */
            if (b == 252) wall = rd_wide64(&r);
            if (b == 251) boot = UINT64_MAX;
            create_in(s, &p, mono, wall, boot, (b >> 2) & 1);
            break;
        }
        case OP_DESTROY: {
            slot *s = pick_live(&r);
            if (s) destroy_slot(s, "op");
            break;
        }
        case OP_SNAPSHOT: {
            slot *s = pick_live(&r);
            if (s) take_snapshot(s, rd_capacity(&r));
            break;
        }
        case OP_RESTART: op_restart(&r); break;
        case OP_RESTORE: op_restore_direct(&r); break;
        case OP_STALE: op_stale(&r); break;
        case OP_BAD_ARGS: op_bad_args(&r); break;
        case OP_DESTROY_IN_CALLBACK: op_in_callback(&r, 1); break;
        case OP_LOCK_IN_CALLBACK: op_in_callback(&r, 0); break;
        case OP_SERVER_DECIDE: op_server_decide(&r); break;
        default: op_on_live(&r, op); break;
        }
    }
    for (int i = 0; i < SLOTS; i++) destroy_slot(&g_slots[i], "end of input");
    for (int i = 0; i < g_n_ctx; i++) {
        if (g_ctx[i].handle && g_ctx[i].frees != 1)
            fail("engine %d: user_data_free ran %d times", i, g_ctx[i].frees);
        if (!g_ctx[i].handle && g_ctx[i].frees != 0) fail("a failed create ran user_data_free");
    }
}

static int g_stats;

static void print_stats(void) {
    if (g_stats)
        fprintf(stderr,
                "inact_fuzz: %" PRIu64 " inputs, %" PRIu64 " checked steps, %" PRIu64 " events checked, %" PRIu64
                " modeled restores (%" PRIu64 " of a session never started, %" PRIu64 " in format 1, %" PRIu64 " in format 2, %" PRIu64
                " of mutated bytes, %" PRIu64 " of them with a forged checksum), %" PRIu64 " corrupt snapshots rejected"
                " with the format's status, %" PRIu64 " written snapshots checked field by field, %" PRIu64 " restores whose callback destroyed the engine, %" PRIu64
                " whose callback locked it, %" PRIu64 " stale/forged handle calls, %" PRIu64 " bad-argument calls"
                "; %" PRIu64 " WEAK_AUTH refusals, %" PRIu64 " checks of a lock needing the credential, %" PRIu64
                " interruptions announced, %" PRIu64 " checks of a covered background"
                "; %" PRIu64 " offline locks, %" PRIu64 " offline expiries, %" PRIu64 " OFFLINE refusals, %" PRIu64
                " ceilings set, %" PRIu64 " CEILING refusals, %" PRIu64 " set_ceilings refusal messages checked"
                "; %" PRIu64 " holder reports accepted, %" PRIu64 " refused, %" PRIu64 " keepalives checked\n",
                g_inputs, g_steps, g_events_checked, g_restores_modeled, g_never_started_restores, g_v1_restores, g_v2_restores,
                g_forged_accepted, g_resealed_accepted, g_corrupt_rejected, g_snapshots_checked, g_restore_callback_destroys,
                g_restore_callback_locks, g_stale_calls,
                g_bad_arg_calls, g_weak_auth_refusals, g_credential_locks, g_interruptions_announced, g_covered_backgrounds,
                g_offline_locks, g_offline_expiries, g_offline_refusals, g_ceilings_set, g_ceiling_refusals,
                g_ceiling_messages, g_holder_accepted, g_holder_refused, g_keepalives);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    g_verbose = getenv("INACT_FUZZ_TRACE") != NULL;
    g_stats = getenv("INACT_FUZZ_STATS") != NULL;
    atexit(print_stats);
    if (inact_version_number() != INACT_VERSION_NUMBER) fail("library version %u, header %u", inact_version_number(), INACT_VERSION_NUMBER);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static uint64_t runs;
    run(data, size);
    /* libFuzzer leaves with _Exit: print the target's own figures as it goes (powers of 2) */
    runs++;
    if ((runs & (runs - 1)) == 0 && g_stats) print_stats();
    return 0;
}

#ifdef INACT_FUZZ_MAIN
/* Replays files without libFuzzer (gcc, valgrind): inact_fuzz_replay FILE... */
int main(int argc, char **argv) {
    LLVMFuzzerInitialize(&argc, &argv);
    static uint8_t buf[1 << 20];
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) { perror(argv[i]); return 2; }
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        if (g_verbose) fprintf(stderr, "== %s (%zu bytes)\n", argv[i], n);
        run(buf, n);
    }
    fprintf(stderr, "replayed %d input(s)\n", argc - 1);
    return 0;
}
#endif
