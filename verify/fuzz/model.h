/*
 * model.h -- a small reference model of the session rules, written from docs/design.md sections
 * 2-4 and include/inactivity.h, independently of Sources/InactivityCore.
 *
 * The fuzz target drives the real engine (manual clock, host delivery) and this model with
 * the same inputs at the same times, and compares status, state, reason, the state-changed
 * events (previous state, state, reason, time) and the engine's info after every step.
 *
 * The model knows nothing about the snapshot's byte format: it keeps its own record of what a
 * snapshot holds (section 4) next to the bytes the engine wrote.
 */
#ifndef INACT_FUZZ_MODEL_H
#define INACT_FUZZ_MODEL_H

#include <stdint.h>

#include "inactivity.h"

#define M_NEVER INT64_MAX
/* SessionPolicy's bound on finite durations (docs/design.md, "Policy": every finite duration
 * is at most 100 years, which keeps every deadline sum far from overflow). */
#define M_100_YEARS (100LL * 31557600000LL)
#define M_MAX_SCOPES 64 /* the fuzz target never opens more than this many */
#define M_MAX_EVENTS 600 /* the fuzz target keeps one advance under this many wake-ups */

typedef struct m_event {
    int32_t kind; /* INACT_EVENT_STATE_CHANGED, INACT_EVENT_TICK or INACT_EVENT_KEEPALIVE */
    int32_t previous_state, state, reason;
    int64_t time_ms, now_ms, remaining_ms;
    int32_t required_auth; /* inact_auth at now_ms */
    int32_t time_any; /* the model does not know time_ms (only that it is <= now_ms) */
} m_event;

/* What a snapshot holds (docs/design.md section 4), in the model's own terms. */
typedef struct m_snapshot {
    int32_t state, reason;
    int64_t started_at, last_activity, background_since, locked_at;
    uint32_t failures;
    int64_t mono, wall;
    uint64_t boot;
    int32_t idle_paused;          /* idle countdown was paused (pause_idle_in_background) */
    int64_t idle_used_at_pause;   /* idle time used before the pause */
    uint64_t generation;          /* the newest refresh-token generation seen */
    int64_t last_contact;         /* the last successful server contact (format 2) */
    int64_t last_credential;      /* the last credential verification (sign-in, credential unlock) */
    int32_t credential_required;  /* biometrics changed, or an untrusted restore (flag bit 2) */
} m_snapshot;

typedef struct m_scope {
    uint64_t id;      /* the engine's id (the model cannot predict ids) */
    int64_t timeout;
} m_scope;

typedef struct model {
    inact_policy p;
    /* the clock */
    int64_t now, wall;
    uint64_t boot;
    int64_t evaluated_at;  /* the time of the last evaluation: catch-up deadlines act no earlier */
    /* the session */
    int32_t state, reason;
    int32_t seen_state;    /* the state the host last saw (the previous_state of the next event) */
    int64_t started_at, last_activity, locked_at;
    uint32_t failures;
    /* background: explicit (inact_background) or by windows (count 0 for longer than grace) */
    int32_t explicit_bg;
    int64_t explicit_bg_since;
    int32_t windows;
    int64_t windows_zero_since; /* M_NEVER unless the count dropped to 0 and no window came back */
    int32_t windows_bg;         /* the grace has passed: background by windows is in effect */
    /* pause_idle_in_background */
    int32_t idle_paused;
    int64_t idle_used_at_pause;
    /* scopes and holds */
    m_scope scopes[M_MAX_SCOPES];
    int32_t n_scopes;
    uint64_t holds[M_MAX_SCOPES];
    int32_t n_holds;
    /* set by an untrusted restore; cleared by start/unlock: the model asserts "never ACTIVE" */
    int32_t untrusted;
    /* the newest refresh-token generation seen (refresh results and rotations); 0 at start */
    uint64_t generation;
    /* offline limits: the last successful server contact (sign-in, 2xx refresh,
     * inact_server_contact); M_NEVER before any */
    int64_t last_contact;
    /* managed ceilings (inact_set_ceilings); "no limit" everywhere until set */
    inact_ceilings ceilings;
    /* unlock strength (docs/session-features.md section 1): the last credential verification
     * (M_NEVER before a sign-in) and the flag that the credential is required whatever the
     * time (biometrics changed; an untrusted restore under a finite strong-auth timeout) */
    int64_t last_credential;
    int32_t credential_required;
    /* an announced expected interruption (docs/session-features.md section 2): a background
     * that begins in [intr_start, intr_end] does not lock before intr_end; M_NEVER: none */
    int64_t intr_start, intr_end;
    /* the events the last step must have delivered */
    m_event events[M_MAX_EVENTS];
    int32_t n_events;
    /* time of the last applied deadline / input (the time of the next folded event) */
    int64_t change_time;
    int32_t change_time_any;
    int32_t changed;
    int64_t last_tick_remaining; /* idle time left at the last tick or WARNING event */
    int32_t wakes; /* wake-ups of the last advance (deadlines and ticks on the way) */
    /* what other holders reported (inact_holder_report): an adopted idle deadline and the
     * instant of its report (counted activity after it supersedes it), an adopted absolute
     * deadline; M_NEVER: none */
    int64_t adopted_idle, adopted_idle_at, adopted_abs;
    /* the keepalive (policy.keepalive_interval_ms): the last KEEPALIVE (a sign-in counts), the
     * user activity it carried, the last user activity (INT64_MIN: long ago), the instant up to
     * which an interval with nothing to carry has ended (M_NEVER: quiet since a reset), and a
     * KEEPALIVE due for the host (ka_due_set) with the activity it carries */
    int64_t ka_pinged, ka_carried, ka_user, ka_passed, ka_due;
    int32_t ka_due_set;
    /* a host callback that calls inact_lock on its engine at the first event of an advance */
    int32_t lock_on_first_event;
    int32_t lock_status;
} model;

/* Policy validation as the header states it. Returns INACT_OK or INACT_E_INVALID_ARGUMENT
 * (INACT_E_STRUCT_SIZE for the size). A 1.0-sized policy (80 bytes) is read up to its size. */
int32_t m_policy_validate(const inact_policy *p);
/* The policy an engine uses for `p` (a published size): `p` up to its size, the header's
 * defaults beyond; size set to this version's. Returns INACT_OK or INACT_E_STRUCT_SIZE. */
#define M_POLICY_SIZE_1_0 80u
#define M_POLICY_SIZE_1_1 120u
#define M_INFO_SIZE_1_0 104u
int32_t m_policy_read(const inact_policy *p, inact_policy *out);

/* Managed ceilings (docs/session-features.md section 6). */
void m_ceilings_none(inact_ceilings *c);
/* INACT_OK, INACT_E_STRUCT_SIZE or INACT_E_INVALID_ARGUMENT (the ceilings on their own). */
int32_t m_ceilings_validate(const inact_ceilings *c);
/* The fields of `c` that m_ceilings_validate refuses (at most `max`): their C names and values. */
int32_t m_ceilings_invalid(const inact_ceilings *c, const char **names, int64_t *values, int32_t max);
/* INACT_OK or INACT_E_CEILING: is `p` (read, valid) at least as strict as `c` everywhere? */
int32_t m_ceilings_check(const inact_ceilings *c, const inact_policy *p);
int32_t m_set_ceilings(model *m, const inact_ceilings *c);
/* The fields of `p` laxer than `c` (at most `max`): their C names and limits (1 for a flag). */
int32_t m_ceilings_laxer(const inact_ceilings *c, const inact_policy *p, const char **names, int64_t *limits,
                         int32_t max);

void m_init(model *m, const inact_policy *p, int64_t mono, int64_t wall, uint64_t boot);

/* Inputs: each returns the status the engine must return and fills m->events. Those the
 * generated fuzz ops call are declared in generated/model_inputs.h (from the header). */
#include "generated/model_inputs.h"
int32_t m_start(model *m);
int32_t m_activity(model *m, uint32_t kind);
int32_t m_continue(model *m);
int32_t m_lock(model *m);
int32_t m_unlock(model *m);
int32_t m_unlock_failed(model *m, uint32_t *out_failures);
int32_t m_unlock_with(model *m, int32_t method);
int32_t m_unlock_failed_with(model *m, int32_t method, uint32_t *out_failures);
int32_t m_biometrics_changed(model *m);
int32_t m_expect_interruption(model *m, int64_t max_ms);
int32_t m_end(model *m, int32_t reason);
int32_t m_holder_report(model *m, int32_t kind, int32_t reason, int64_t ms);
int32_t m_refresh(model *m, int32_t http_status, const char *oauth_error, uint64_t generation,
                  int32_t *out_outcome);
int32_t m_token_rotated(model *m, uint64_t generation);
int32_t m_device_locked(model *m);
int32_t m_server_contact(model *m);
int32_t m_background(model *m);
int32_t m_foreground(model *m);
int32_t m_window_shown(model *m);
int32_t m_window_hidden(model *m);
int32_t m_scope_push_check(const model *m, int64_t timeout);
void m_scope_pushed(model *m, uint64_t id, int64_t timeout);
int32_t m_scope_pop(model *m, uint64_t id);
void m_hold_acquired(model *m, uint64_t id);
int32_t m_hold_release(model *m, uint64_t id);
int32_t m_set_policy(model *m, const inact_policy *p);
int32_t m_query(model *m);            /* any query or poll: evaluates */
int32_t m_advance(model *m, int64_t ms); /* wakes at every deadline and tick on the way */
int32_t m_freeze(model *m, int64_t ms);  /* nothing delivered; the next call catches up */
int32_t m_jump_wall(model *m, int64_t delta);
int32_t m_reboot(model *m, int64_t downtime, uint64_t new_boot);
int32_t m_snapshot_take(model *m, m_snapshot *out);
/* The snapshot of a session that never started: EXPIRED, its start, last activity and last
 * credential verification at its own clock (a restore has no start and no verification). */
int32_t m_snapshot_never_started(const m_snapshot *s);
/* Restore of an intact snapshot. Returns INACT_OK or INACT_E_INVALID_STATE. */
int32_t m_restore(model *m, const m_snapshot *s);
/* After a call whose events the model has: the host callback calls inact_lock at the first
 * of them (lock_status is its status; 99 when there was no event). */
void m_lock_in_callback(model *m);
/* Restore of corrupt bytes: EXPIRED (RESTORE_FAILED) unless not LOADING. */
int32_t m_restore_corrupt(model *m, int32_t status_from_engine);
void m_begin_step(model *m);

/* Queries of the model after a step. */
int64_t m_remaining(const model *m);
int64_t m_effective_idle(const model *m);
int32_t m_in_background(const model *m);
int64_t m_idle_deadline(const model *m);
int64_t m_warning_deadline(const model *m);
int64_t m_background_since(const model *m);
/* inact_info.needs_server_contact: LOCKED and the offline timeout has passed since the last
 * contact (an unlock is refused with INACT_E_OFFLINE). */
int32_t m_needs_server_contact(const model *m);
int32_t m_required_auth(const model *m);      /* inact_auth an unlock needs at m->now */
int64_t m_strong_auth_deadline(const model *m);
int64_t m_interruption_until(const model *m); /* inact_info.interruption_until_ms */

const char *m_state_name(int32_t s);
const char *m_reason_name(int32_t r);

#endif
