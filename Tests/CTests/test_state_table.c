/*
 * test_state_table.c -- the state diagram is behaviour: every input in every state, every
 * deadline in every state it runs in, every restore outcome and the clock rule, driven through
 * the C API, and each transition observed compared with the edges of the diagram.
 *
 * state_edges.inc is generated from the rule tables (Sources/InactivityCore/SessionRules.swift)
 * by the same code that draws the README's diagram (scripts/state-diagram; the Swift test
 * StateDiagramTests fails when it is stale). This test checks it against the library:
 * - every STATE_CHANGED event observed is an edge (from, to, reason) whose cause is what was
 *   driven: the input itself, or a deadline or rule the input made due (a background with a
 *   timeout of 0 locks by the background deadline);
 * - every edge is observed at least once;
 * - every cell holds: refused is INACT_E_INVALID_STATE with no event, a no-op succeeds with no
 *   event, an applied input succeeds, a move makes its edge; a conditional cell is run with its
 *   condition off (no transition by the input) and on (the transition).
 */
#include "support.h"

#include <stdio.h>
#include <string.h>

enum cause_kind { INPUT, DEADLINE, RULE, RESTORE };
enum outcome { REFUSED, NOOP, APPLIED, APPLIED_IF };
enum move { STAYS, TO, TO_IF, TO_NAMED, TO_SNAPSHOT };

typedef struct edge {
    int32_t from, to, reason;
    int kind;
    const char *cause;
    int seen;
} edge;

static edge edges[] = {
#define EDGE(from, to, reason, kind, cause) \
    {INACT_STATE_##from, INACT_STATE_##to, INACT_REASON_##reason, kind, cause, 0},
#define CELL(input, state, outcome, move)
#include "state_edges.inc"
#undef CELL
#undef EDGE
};
#define EDGE_COUNT ((int)(sizeof edges / sizeof edges[0]))

typedef struct cell {
    const char *input;
    int32_t state;
    int outcome, move;
} cell;

static const cell cells[] = {
#define EDGE(from, to, reason, kind, cause)
#define CELL(input, state, outcome, move) {input, INACT_STATE_##state, outcome, move},
#include "state_edges.inc"
#undef CELL
#undef EDGE
};
#define CELL_COUNT ((int)(sizeof cells / sizeof cells[0]))

static const char *state_name(int32_t s) {
    static const char *names[] = {"LOADING", "ACTIVE", "WARNING", "LOCKED", "EXPIRED"};
    return s >= 0 && s <= 4 ? names[s] : "?";
}

/* Matches the STATE_CHANGED events from index `from_event` on against the edges, for an action
 * of `kind` named `cause`. Returns the number of transitions that were edges of that very
 * cause (an input's own move), or -1 after recording a failure. */
static int observe(recorder *rec, int from_event, int kind, const char *cause) {
    int own = 0, failed = 0;
    for (int i = from_event; i < recorder_count(rec); i++) {
        recorded_event r = recorder_at(rec, i);
        if (r.event.kind != INACT_EVENT_STATE_CHANGED) continue;
        int32_t f = r.event.previous_state, t = r.event.state, why = r.event.reason;
        edge *match = NULL;
        for (int e = 0; e < EDGE_COUNT && match == NULL; e++) {
            edge *x = &edges[e];
            if (x->from == f && x->to == t && x->reason == why && x->kind == kind && strcmp(x->cause, cause) == 0)
                match = x;
        }
        if (match != NULL) {
            own++;
        } else if (kind == INPUT || kind == DEADLINE) {
            /* What the call made due: a deadline, or WARNING ending by its own rule. */
            for (int e = 0; e < EDGE_COUNT && match == NULL; e++) {
                edge *x = &edges[e];
                if (x->from == f && x->to == t && x->reason == why && (x->kind == DEADLINE || x->kind == RULE))
                    match = x;
            }
        }
        if (match == NULL) {
            harness_fail(__FILE__, __LINE__, "%s -> %s (reason %d) by %s: not an edge of the state diagram",
                         state_name(f), state_name(t), (int)why, cause);
            failed = 1;
        } else {
            match->seen = 1;
        }
    }
    return failed ? -1 : own;
}

/* The policies: a condition off (the library's defaults for the conditional fields) or on. */
static inact_policy table_policy(int conditions_on) {
    inact_policy p = test_policy();
    p.tick_ms = 0;
    p.activity_dismisses_warning = conditions_on;
    p.lock_on_device_lock = conditions_on;
    p.max_unlock_failures = conditions_on ? 1 : 0;
    return p;
}

/* A fresh engine in `state` at a quiet instant (nothing due). WARNING is reached at 50 s. */
static inact_engine rig(recorder *rec, const inact_policy *policy, int32_t state) {
    inact_engine e = make_manual_engine(rec, policy, INACT_DELIVERY_HOST);
    switch (state) {
    case INACT_STATE_LOADING: break;
    case INACT_STATE_ACTIVE: REQUIRE_OK(inact_start(e)); break;
    case INACT_STATE_WARNING: REQUIRE_OK(inact_start(e)); advance(e, 50 * SECOND_MS); break;
    case INACT_STATE_LOCKED: REQUIRE_OK(inact_start(e)); REQUIRE_OK(inact_lock(e)); break;
    case INACT_STATE_EXPIRED: REQUIRE_OK(inact_start(e)); REQUIRE_OK(inact_end(e, INACT_REASON_LOGOUT)); break;
    default: REQUIRE(0);
    }
    REQUIRE(state_of(e) == state);
    return e;
}

/* Snapshot bytes of an engine in `state` under `policy`, taken at its clock's instant. */
static size_t snapshot_in(const inact_policy *policy, int32_t state, uint8_t *bytes, int64_t *at) {
    inact_engine source = rig(NULL, policy, state);
    size_t written = 0;
    REQUIRE_OK(inact_snapshot_write(source, bytes, INACT_SNAPSHOT_MAX_SIZE, &written));
    *at = now_of(source);
    inact_destroy(source);
    return written;
}

/* Makes `input` (its Swift name, Input.name) on `e`; the set-up an input needs (a window shown
 * before one is hidden, a scope pushed before it is popped) happens first and its events are
 * skipped. Returns the input's status; *first_event is where its events begin. */
static int32_t make_input(const char *input, inact_engine e, recorder *rec, int conditions_on,
                          int32_t end_reason, int *first_event) {
    uint64_t id = 0;
    uint32_t failures = 0;
    int32_t outcome = 0;
    if (strcmp(input, "window hidden") == 0) (void)inact_window_shown(e);
    if (strcmp(input, "pop scope") == 0) (void)inact_scope_push(e, 55 * SECOND_MS, &id);
    if (strcmp(input, "release hold") == 0) (void)inact_hold_acquire(e, &id);
    if ((strcmp(input, "set policy") == 0 || strcmp(input, "set ceilings") == 0) && state_of(e) == INACT_STATE_LOCKED) {
        /* one failure counted under no limit, so that the limit of 1 the input brings (its
         * condition on) is spent */
        inact_policy unlimited = table_policy(0);
        (void)inact_set_policy(e, &unlimited);
        (void)inact_unlock_failed(e, &failures);
    }
    *first_event = recorder_count(rec);
    if (strcmp(input, "start") == 0) return inact_start(e);
    if (strcmp(input, "restore") == 0) {
        uint8_t bytes[INACT_SNAPSHOT_MAX_SIZE];
        int64_t at;
        inact_policy p = table_policy(conditions_on);
        size_t n = snapshot_in(&p, INACT_STATE_ACTIVE, bytes, &at);
        return inact_restore(e, bytes, n);   /* taken at 0 on the same boot: ACTIVE (RESTORED) */
    }
    if (strcmp(input, "activity") == 0)
        return inact_activity(e, conditions_on ? INACT_ACTIVITY_KEY : INACT_ACTIVITY_PROGRAMMATIC);
    if (strcmp(input, "continue") == 0) return inact_continue(e);
    if (strcmp(input, "lock") == 0) return inact_lock(e);
    if (strcmp(input, "unlock") == 0) return inact_unlock(e);
    if (strcmp(input, "unlock failed") == 0) return inact_unlock_failed(e, &failures);
    if (strcmp(input, "end") == 0) return inact_end(e, end_reason);
    if (strcmp(input, "refresh result") == 0) return inact_refresh_result(e, 503, NULL, &outcome);
    if (strcmp(input, "revoked refresh") == 0) return inact_refresh_result(e, 401, NULL, &outcome);
    if (strcmp(input, "background") == 0) return inact_background(e);
    if (strcmp(input, "foreground") == 0) return inact_foreground(e);
    if (strcmp(input, "window shown") == 0) return inact_window_shown(e);
    if (strcmp(input, "window hidden") == 0) return inact_window_hidden(e);
    if (strcmp(input, "push scope") == 0) return inact_scope_push(e, 55 * SECOND_MS, &id);
    if (strcmp(input, "pop scope") == 0) return inact_scope_pop(e, id);
    if (strcmp(input, "acquire hold") == 0) return inact_hold_acquire(e, &id);
    if (strcmp(input, "release hold") == 0) return inact_hold_release(e, id);
    if (strcmp(input, "set policy") == 0) {
        inact_policy p = table_policy(conditions_on);
        p.tick_ms = 500;
        return inact_set_policy(e, &p);
    }
    if (strcmp(input, "expect interruption") == 0) return inact_expect_interruption(e, SECOND_MS);
    if (strcmp(input, "device locked") == 0) return inact_device_locked(e);
    if (strcmp(input, "biometrics changed") == 0) return inact_biometrics_changed(e);
    if (strcmp(input, "token rotated") == 0) return inact_token_rotated(e, 3);
    if (strcmp(input, "server contact") == 0) return inact_server_contact(e);
    if (strcmp(input, "set ceilings") == 0) {
        inact_ceilings c;
        REQUIRE_OK(inact_ceilings_init(&c));
        c.max_unlock_failures = conditions_on ? 1 : 0;
        return inact_set_ceilings(e, &c);
    }
    if (strcmp(input, "snapshot") == 0) {
        size_t size = 0;
        return inact_snapshot_size(e, &size);
    }
    /* What another holder reports, one input of the table per kind; `end_reason` is the
     * holder's reason for a lock or an expiry. */
    if (strcmp(input, "holder activity") == 0) return inact_holder_report(e, INACT_HOLDER_ACTIVITY, 0, 0);
    if (strcmp(input, "holder locked") == 0) return inact_holder_report(e, INACT_HOLDER_LOCKED, end_reason, 0);
    if (strcmp(input, "holder expired") == 0) return inact_holder_report(e, INACT_HOLDER_EXPIRED, end_reason, 0);
    /* earlier than the rig's own deadlines, and not due at once */
    if (strcmp(input, "holder idle deadline") == 0)
        return inact_holder_report(e, INACT_HOLDER_IDLE_DEADLINE, 0, 55 * SECOND_MS);
    if (strcmp(input, "holder absolute deadline") == 0)
        return inact_holder_report(e, INACT_HOLDER_ABSOLUTE_DEADLINE, 0, HOUR_MS);
    /* generated: inputs (tools/generate: the engine-only inputs not driven above; do not edit) */
    /* end generated: inputs */
    harness_fail(__FILE__, __LINE__, "the table names an input this test does not drive: \"%s\"", input);
    return INACT_E_INTERNAL;
}

static int state_changes(recorder *rec, int from_event) {
    int n = 0;
    for (int i = from_event; i < recorder_count(rec); i++)
        if (recorder_at(rec, i).event.kind == INACT_EVENT_STATE_CHANGED) n++;
    return n;
}

/* The reasons an input whose cell moves to "the reason given" can name (0-terminated), as
 * the library's boundary accepts them; NULL for every other input. */
static const int32_t *named_reasons(const char *input) {
    static const int32_t ending[] = {INACT_REASON_LOGOUT, INACT_REASON_REVOKED, INACT_REASON_PASSWORD_CHANGED,
                                     INACT_REASON_DEVICE_LIMIT, 0};
    static const int32_t locked[] = {INACT_REASON_IDLE_TIMEOUT, INACT_REASON_BACKGROUND_TIMEOUT, INACT_REASON_MANUAL_LOCK,
                                     INACT_REASON_RESTORED, INACT_REASON_UNTRUSTED_CLOCK, INACT_REASON_DEVICE_LOCKED,
                                     INACT_REASON_OFFLINE_TIMEOUT, INACT_REASON_RESTART, 0};
    static const int32_t expired[] = {INACT_REASON_IDLE_TIMEOUT, INACT_REASON_ABSOLUTE_TIMEOUT, INACT_REASON_LOCKED_TIMEOUT,
                                      INACT_REASON_UNLOCK_FAILURES, INACT_REASON_LOGOUT, INACT_REASON_REVOKED,
                                      INACT_REASON_PASSWORD_CHANGED, INACT_REASON_RESTORE_FAILED, INACT_REASON_RESTORED,
                                      INACT_REASON_UNTRUSTED_CLOCK, INACT_REASON_OFFLINE_EXPIRY, INACT_REASON_DEVICE_LIMIT, 0};
    if (strcmp(input, "end") == 0) return ending;
    if (strcmp(input, "holder locked") == 0) return locked;
    if (strcmp(input, "holder expired") == 0) return expired;
    return NULL;
}

/* One cell, with its condition off or on, and for an input that names its reason each reason. */
static void drive_cell(const cell *c, int conditions_on, int32_t end_reason) {
    recorder rec;
    recorder_init(&rec);
    inact_policy policy = table_policy(conditions_on);
    inact_engine e = rig(&rec, &policy, c->state);
    int first = 0;
    int32_t status = make_input(c->input, e, &rec, conditions_on, end_reason, &first);
    int kind = strcmp(c->input, "restore") == 0 ? RESTORE : INPUT;
    int own = observe(&rec, first, kind, kind == RESTORE ? "restore" : c->input);
    int changes = state_changes(&rec, first);
    const char *where = state_name(c->state);
    const char *cond = conditions_on ? "on" : "off";
    switch (c->outcome) {
    case REFUSED:
        if (status != INACT_E_INVALID_STATE || changes != 0)
            harness_fail(__FILE__, __LINE__, "%s in %s (conditions %s): the table refuses it, the library returned %s with %d transitions",
                         c->input, where, cond, harness_status_name(status), changes);
        break;
    case NOOP:
        if (status != INACT_OK || changes != 0)
            harness_fail(__FILE__, __LINE__, "%s in %s (conditions %s): a no-op in the table, the library returned %s with %d transitions",
                         c->input, where, cond, harness_status_name(status), changes);
        break;
    case APPLIED:
    case APPLIED_IF: {
        if (status != INACT_OK)
            harness_fail(__FILE__, __LINE__, "%s in %s (conditions %s): applied in the table, the library returned %s (%s)",
                         c->input, where, cond, harness_status_name(status), inact_last_error());
        /* A cell that moves makes its edge, unless its condition is off. */
        int conditional = c->outcome == APPLIED_IF || c->move == TO_IF;
        int moves = c->move == TO || c->move == TO_NAMED || c->move == TO_SNAPSHOT || c->move == TO_IF;
        if (conditional && !conditions_on && changes != 0)
            harness_fail(__FILE__, __LINE__, "%s in %s: its condition is off, yet %d transitions", c->input, where, changes);
        if (moves && (!conditional || conditions_on) && own < 1)
            harness_fail(__FILE__, __LINE__, "%s in %s (conditions %s): the table moves it, no edge of it was made",
                         c->input, where, cond);
        break;
    }
    default: harness_fail(__FILE__, __LINE__, "unknown outcome %d", c->outcome);
    }
    inact_destroy(e);
    recorder_deinit(&rec);
}

/* A policy with every timeout off, for deadlines and restores one at a time. */
static inact_policy quiet_policy(void) {
    inact_policy p = test_policy();
    p.idle_timeout_ms = INACT_NEVER;
    p.warning_ms = 0;
    p.tick_ms = 0;
    p.background_timeout_ms = INACT_NEVER;
    p.absolute_timeout_ms = INACT_NEVER;
    p.locked_timeout_ms = INACT_NEVER;
    return p;
}

enum deadline { D_ABSOLUTE, D_OFFLINE_EXPIRY, D_LOCKED, D_IDLE_EXPIRE, D_OFFLINE_LOCK, D_BACKGROUND, D_IDLE_LOCK, D_WARNING, D_COUNT };

/* The policy under which deadline `d` is the first to fall, at 70 s (20 s after WARNING starts
 * at 50 s, when `from` is WARNING). */
static inact_policy deadline_policy(int d, int32_t from) {
    inact_policy p = quiet_policy();
    if (from == INACT_STATE_WARNING || d == D_WARNING) {
        p.idle_timeout_ms = 100 * SECOND_MS;
        p.warning_ms = 50 * SECOND_MS;
    }
    switch (d) {
    case D_ABSOLUTE: p.absolute_timeout_ms = 70 * SECOND_MS; break;
    case D_OFFLINE_EXPIRY: p.offline_expiry_ms = 70 * SECOND_MS; break;
    case D_LOCKED: p.locked_timeout_ms = 70 * SECOND_MS; break;
    case D_OFFLINE_LOCK: p.offline_timeout_ms = 70 * SECOND_MS; break;
    case D_BACKGROUND: p.background_timeout_ms = 20 * SECOND_MS; break;   /* background at the rig */
    case D_IDLE_EXPIRE:
    case D_IDLE_LOCK:
        p.idle_action = d == D_IDLE_EXPIRE ? INACT_IDLE_ACTION_EXPIRE : INACT_IDLE_ACTION_LOCK;
        p.idle_timeout_ms = 70 * SECOND_MS;
        p.warning_ms = from == INACT_STATE_WARNING ? 20 * SECOND_MS : 0;
        break;
    case D_WARNING: break;
    default: REQUIRE(0);
    }
    return p;
}

/* Every deadline in every live state, on a live clock (advance: delivered at its instant). */
static void drive_deadlines(void) {
    static const int32_t froms[] = {INACT_STATE_LOADING, INACT_STATE_ACTIVE, INACT_STATE_WARNING,
                                    INACT_STATE_LOCKED, INACT_STATE_EXPIRED};
    for (int d = 0; d < D_COUNT; d++) {
        for (int f = 0; f < 5; f++) {
            recorder rec;
            recorder_init(&rec);
            inact_policy p = deadline_policy(d, froms[f]);
            inact_engine e = rig(&rec, &p, froms[f]);
            if (d == D_BACKGROUND) REQUIRE_OK(inact_background(e));
            int first = recorder_count(&rec);
            advance(e, 200 * SECOND_MS);
            (void)observe(&rec, first, DEADLINE, "");
            inact_destroy(e);
            recorder_deinit(&rec);
        }
    }
}

/* A clock that jumps back or changes boots under a running session. */
static void drive_clock_rule(void) {
    for (int32_t s = INACT_STATE_LOADING; s <= INACT_STATE_EXPIRED; s++) {
        recorder rec;
        recorder_init(&rec);
        inact_policy p = test_policy();
        inact_engine e = rig(&rec, &p, s);
        int first = recorder_count(&rec);
        REQUIRE_OK(inact_clock_reboot(e, 0));
        REQUIRE_OK(inact_poll(e));
        (void)observe(&rec, first, RULE, "clock discontinuity");
        inact_destroy(e);
        recorder_deinit(&rec);
    }
}

/* Restores `bytes` into a new engine `elapsed_ms` after `at`, on the same boot or another one,
 * with the wall clock moved by `wall_delta_ms` from the snapshot's. */
static void restore_into(const inact_policy *policy, const uint8_t *bytes, size_t n, int64_t at,
                         int64_t elapsed_ms, int same_boot, int64_t wall_delta_ms) {
    recorder rec;
    recorder_init(&rec);
    inact_config config;
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    int64_t wall0 = config.manual_wall_ms;
    config.manual_start_ms = same_boot ? at + elapsed_ms : elapsed_ms;
    config.manual_boot_id = same_boot ? config.manual_boot_id : config.manual_boot_id + 1;
    config.manual_wall_ms = wall0 + at + wall_delta_ms;
    inact_engine e = make_engine(&rec, &config, policy);
    (void)inact_restore(e, bytes, n);
    (void)observe(&rec, 0, RESTORE, "restore");
    inact_destroy(e);
    recorder_deinit(&rec);
}

static void drive_restores(void) {
    uint8_t bytes[INACT_SNAPSHOT_MAX_SIZE];
    int64_t at;
    size_t n;
    inact_policy p = test_policy();
    /* As saved, in each state a snapshot can hold. */
    for (int32_t s = INACT_STATE_ACTIVE; s <= INACT_STATE_EXPIRED; s++) {
        n = snapshot_in(&p, s, bytes, &at);
        restore_into(&p, bytes, n, at, 0, 1, 0);
    }
    /* Corrupt bytes. */
    n = snapshot_in(&p, INACT_STATE_ACTIVE, bytes, &at);
    bytes[n - 1] ^= 0xFF;
    restore_into(&p, bytes, n, at, 0, 1, 0);
    /* Another boot: estimated; with the wall clock behind as well: unknown. */
    n = snapshot_in(&p, INACT_STATE_ACTIVE, bytes, &at);
    restore_into(&p, bytes, n, at, SECOND_MS, 0, SECOND_MS);
    restore_into(&p, bytes, n, at, SECOND_MS, 0, -HOUR_MS);
    /* Lock on restart. */
    inact_policy restart = test_policy();
    restart.lock_on_restart = 1;
    n = snapshot_in(&restart, INACT_STATE_ACTIVE, bytes, &at);
    restore_into(&restart, bytes, n, at, 0, 1, 0);
    /* A failure limit the restoring engine's policy brings to the failures counted. */
    inact_policy unlimited = test_policy();
    inact_engine source = rig(NULL, &unlimited, INACT_STATE_LOCKED);
    REQUIRE_OK(inact_unlock_failed(source, NULL));
    REQUIRE_OK(inact_snapshot_write(source, bytes, sizeof bytes, &n));
    at = now_of(source);
    inact_destroy(source);
    inact_policy limited = test_policy();
    limited.max_unlock_failures = 1;
    restore_into(&limited, bytes, n, at, 0, 1, 0);
    /* Each lock or expiry deadline falling due while the process was dead (200 s later). */
    for (int d = 0; d < D_COUNT; d++) {
        if (d == D_WARNING) continue;
        inact_policy q = deadline_policy(d, INACT_STATE_ACTIVE);
        n = snapshot_in(&q, d == D_LOCKED ? INACT_STATE_LOCKED : INACT_STATE_ACTIVE, bytes, &at);
        restore_into(&q, bytes, n, at, 200 * SECOND_MS, 1, 200 * SECOND_MS);
    }
}

TEST(every_input_in_every_state_makes_only_the_diagram_edges) {
    REQUIRE(EDGE_COUNT > 0 && CELL_COUNT > 0);
    for (int i = 0; i < CELL_COUNT; i++) {
        for (int on = 0; on <= 1; on++) {
            const int32_t *named = named_reasons(cells[i].input);
            if (named) {
                for (; *named; named++) drive_cell(&cells[i], on, *named);
            } else {
                drive_cell(&cells[i], on, 0);
            }
        }
    }
    drive_deadlines();
    drive_clock_rule();
    drive_restores();
    for (int e = 0; e < EDGE_COUNT; e++) {
        if (!edges[e].seen)
            harness_fail(__FILE__, __LINE__, "edge %s -> %s (reason %d) by %s: in the diagram, never observed",
                         state_name(edges[e].from), state_name(edges[e].to), (int)edges[e].reason,
                         edges[e].cause[0] ? edges[e].cause : "a deadline");
    }
}
