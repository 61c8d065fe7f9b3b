/*
 * model.c -- the reference model of the session rules (see model.h).
 *
 * Written from docs/design.md sections 2-4 and the header only. Where those texts leave a choice
 * open, the choice made here is marked "READING:" and listed in RELIABILITY.md.
 *
 * Theory of operation. The model keeps the session's times (start, last activity, background
 * start, locked-at) and computes its deadlines from them. Every step first evaluates: it
 * applies every deadline that is due at `now` in time order (a deadline that became due
 * because of an input acts at the input's time, never earlier), then delivers one folded
 * event from the state the host last saw to the final state. Then it applies the input,
 * evaluates again at `now` and delivers again.
 */
#include "model.h"

#include <stddef.h>
#include <string.h>

enum {
    K_GRACE,      /* all windows hidden for the grace: background takes effect */
    K_WARNING,    /* ACTIVE -> WARNING (IDLE) */
    /* Deadlines that fall at the same instant apply in this order (the first that changes the
     * state gives the reason). READING (engine): the most severe outcome first ("the most
     * severe due outcome wins"): the absolute expiry, an idle expiry, then the background lock
     * before the idle lock (the design does not order two locks that fall together). */
    K_ABSOLUTE,   /* ACTIVE/WARNING/LOCKED -> EXPIRED (ABSOLUTE_TIMEOUT) */
    /* docs/session-features.md section 5: "the offline expiry ranks right after the absolute
     * expiry"; "the offline lock wins" over another lock at the same instant (it also blocks
     * the unlock). READING: an idle expiry at that instant still comes first: EXPIRED is more
     * severe than any LOCKED. */
    K_OFFLINE_EXPIRY, /* ACTIVE/WARNING/LOCKED -> EXPIRED (OFFLINE_EXPIRY) */
    K_IDLE_EXPIRE, /* ACTIVE/WARNING -> EXPIRED (IDLE_TIMEOUT), idle action EXPIRE */
    K_OFFLINE_LOCK, /* ACTIVE/WARNING -> LOCKED (OFFLINE_TIMEOUT) */
    K_BACKGROUND, /* ACTIVE/WARNING -> LOCKED (BACKGROUND_TIMEOUT) */
    K_IDLE,       /* ACTIVE/WARNING -> LOCKED (IDLE_TIMEOUT), idle action LOCK */
    K_LOCKED,     /* LOCKED -> EXPIRED (LOCKED_TIMEOUT) */
    /* "A due keepalive is dropped when the session locks or expires": after every state change
     * at the same instant. */
    K_KEEPALIVE,  /* ACTIVE/WARNING: a KEEPALIVE event, no state change */
    K_COUNT
};

static int64_t sat_add(int64_t t, int64_t d) {
    if (t == M_NEVER || d == M_NEVER) return M_NEVER;
    if (d > 0 && t > INT64_MAX - d) return M_NEVER;
    if (d < 0 && t < INT64_MIN - d) return INT64_MIN;
    return t + d;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static int is_live(int32_t s) { return s == INACT_STATE_ACTIVE || s == INACT_STATE_WARNING; }

/* ---- policy ---------------------------------------------------------------------------- */

static int bad_duration(int64_t v, int allow_never, int positive) {
    if (v < 0) return 1;
    if (positive && v == 0) return 1;
    if (v == M_NEVER) return !allow_never;
    return v > M_100_YEARS;
}

/* inact_policy_init's defaults as the header lists them. */
static void policy_defaults(inact_policy *p) {
    memset(p, 0, sizeof *p);
    p->size = sizeof *p;
    p->idle_action = INACT_IDLE_ACTION_LOCK;
    p->idle_timeout_ms = 15 * 60000;
    p->warning_ms = 30000;
    p->background_timeout_ms = 60000;
    p->absolute_timeout_ms = 12 * 3600000LL;
    p->locked_timeout_ms = M_NEVER;
    p->max_unlock_failures = 0;
    p->tick_ms = 1000;
    p->background_grace_ms = 700;
    p->activity_kinds = INACT_ACTIVITY_USER;
    p->strong_auth_timeout_ms = M_NEVER;
    p->expected_interruption_max_ms = 60000;
    p->offline_timeout_ms = M_NEVER;
    p->offline_expiry_ms = M_NEVER;
    p->keepalive_interval_ms = 0;
}

/* "A size S is accepted from the struct's first layout up to 65536, and is read as the largest
 * published layout L <= S ... The bytes from L to S are the tail and must all be zero ... An
 * input struct is read up to L, and the fields beyond L take the values its init function
 * fills (the defaults)." Published policy layouts: 80 (1.0) and 120. */
int32_t m_policy_read(const inact_policy *p, inact_policy *out) {
    if (p->size > 65536) return INACT_E_STRUCT_SIZE; /* header: at most 65536, nothing read */
    if (p->size < M_POLICY_SIZE_1_0) return INACT_E_STRUCT_SIZE;
    size_t layout = p->size >= sizeof(inact_policy) ? sizeof(inact_policy)
                    : p->size >= M_POLICY_SIZE_1_1 ? M_POLICY_SIZE_1_1 : M_POLICY_SIZE_1_0;
    const uint8_t *bytes = (const uint8_t *)p;
    for (size_t i = layout; i < p->size; i++)
        if (bytes[i] != 0) return INACT_E_STRUCT_SIZE;
    policy_defaults(out);
    memcpy(out, p, layout); /* the caller's layout only: a straddling field is not read */
    out->size = sizeof(inact_policy);
    return INACT_OK;
}

int32_t m_policy_validate(const inact_policy *given) {
    inact_policy q;
    int32_t rc = m_policy_read(given, &q);
    if (rc != INACT_OK) return rc;
    const inact_policy *p = &q;
    if (bad_duration(p->idle_timeout_ms, 1, 1)) return INACT_E_INVALID_ARGUMENT;
    if (bad_duration(p->warning_ms, 0, 0)) return INACT_E_INVALID_ARGUMENT;
    if (bad_duration(p->background_timeout_ms, 1, 0)) return INACT_E_INVALID_ARGUMENT;
    /* READING: the header lists "idle timeout 0" only; the engine also refuses an absolute
     * timeout of 0 (a session that expires as it starts). Kept: it is the safe choice. */
    if (bad_duration(p->absolute_timeout_ms, 1, 1)) return INACT_E_INVALID_ARGUMENT;
    if (bad_duration(p->locked_timeout_ms, 1, 0)) return INACT_E_INVALID_ARGUMENT;
    if (bad_duration(p->tick_ms, 0, 0)) return INACT_E_INVALID_ARGUMENT;
    if (bad_duration(p->background_grace_ms, 0, 0)) return INACT_E_INVALID_ARGUMENT;
    if (p->warning_ms >= p->idle_timeout_ms) return INACT_E_INVALID_ARGUMENT;
    if (p->idle_action != INACT_IDLE_ACTION_LOCK && p->idle_action != INACT_IDLE_ACTION_EXPIRE)
        return INACT_E_INVALID_ARGUMENT;
    if (p->activity_kinds & ~INACT_ACTIVITY_ALL) return INACT_E_INVALID_ARGUMENT;
    if (p->activity_dismisses_warning != 0 && p->activity_dismisses_warning != 1)
        return INACT_E_INVALID_ARGUMENT;
    if (p->pause_idle_in_background != 0 && p->pause_idle_in_background != 1)
        return INACT_E_INVALID_ARGUMENT;
    /* issue 13's fields: the header's rules for them */
    if (bad_duration(p->strong_auth_timeout_ms, 1, 0)) return INACT_E_INVALID_ARGUMENT;
    if (bad_duration(p->expected_interruption_max_ms, 0, 0)) return INACT_E_INVALID_ARGUMENT;
    if (bad_duration(p->offline_timeout_ms, 1, 1)) return INACT_E_INVALID_ARGUMENT;
    if (bad_duration(p->offline_expiry_ms, 1, 1)) return INACT_E_INVALID_ARGUMENT;
    if (p->lock_on_device_lock != 0 && p->lock_on_device_lock != 1) return INACT_E_INVALID_ARGUMENT;
    if (p->lock_on_restart != 0 && p->lock_on_restart != 1) return INACT_E_INVALID_ARGUMENT;
    /* "0 = off; else >= 1000, finite, < idle" */
    if (p->keepalive_interval_ms != 0 &&
        (bad_duration(p->keepalive_interval_ms, 0, 0) || p->keepalive_interval_ms < 1000 ||
         p->keepalive_interval_ms >= p->idle_timeout_ms))
        return INACT_E_INVALID_ARGUMENT;
    return INACT_OK;
}

/* ---- derived values --------------------------------------------------------------------- */

int64_t m_effective_idle(const model *m) {
    int64_t e = m->p.idle_timeout_ms;
    for (int i = 0; i < m->n_scopes; i++) e = min64(e, m->scopes[i].timeout);
    return e;
}

int32_t m_in_background(const model *m) { return m->explicit_bg || m->windows_bg; }

int64_t m_background_since(const model *m) {
    int64_t since = M_NEVER;
    if (m->explicit_bg) since = m->explicit_bg_since;
    if (m->windows_bg) since = min64(since, m->windows_zero_since);
    return since;
}

static int idle_running(const model *m) {
    return is_live(m->state) && m->n_holds == 0 && !m->idle_paused;
}

/* inact_holder_report: "the earlier of this engine's idle deadline and the holder's is the idle
 * deadline ..., even while a hold suspends this engine's own" (a pause too: READING, the
 * holder's deadline is not this engine's countdown). */
int64_t m_idle_deadline(const model *m) {
    if (!is_live(m->state)) return M_NEVER;
    int64_t own = !idle_running(m) || m->last_activity == M_NEVER ? M_NEVER : sat_add(m->last_activity, m_effective_idle(m));
    return min64(own, m->adopted_idle);
}

int64_t m_warning_deadline(const model *m) {
    int64_t idle = m_idle_deadline(m);
    if (idle == M_NEVER || m->p.warning_ms == 0) return M_NEVER;
    return idle - m->p.warning_ms;
}

/* ---- expected interruption (docs/session-features.md section 2, inact_expect_interruption) -- */

/* When the current background began: explicit or confirmed by the windows, or the instant the
 * last window was hidden while the grace runs ("a background (explicit, by the window count,
 * or its grace)"); M_NEVER in foreground. Not tested on the window count: a window shown
 * ends the grace's background (leave_background) after the count went up. */
static int64_t background_began(const model *m) {
    if (m_in_background(m)) return m_background_since(m);
    return m->windows_zero_since;
}

/* "A background that begins within max_ms from now does not lock before the end of that
 * window": the end when the current background began inside [announcement, end] (both
 * instants included: "within"), else M_NEVER. */
static int64_t interruption_cover(const model *m) {
    int64_t b = background_began(m);
    if (m->intr_end == M_NEVER || b == M_NEVER || b < m->intr_start || b > m->intr_end) return M_NEVER;
    return m->intr_end;
}

/* "... then the background timeout counts from the background start as usual": the lock
 * takes effect at max(background start + timeout, end). No background deadline stays none. */
static int64_t interruption_delays(const model *m, int64_t d) {
    int64_t cover = interruption_cover(m);
    return d == M_NEVER || cover == M_NEVER ? d : max64(d, cover);
}

static void interruption_drop(model *m) { m->intr_start = m->intr_end = M_NEVER; }

/* "unused, it lapses at its end" (no event): past its end with no background it covers. */
static void interruption_lapse(model *m) {
    if (m->intr_end != M_NEVER && m->intr_end < m->now && interruption_cover(m) == M_NEVER) interruption_drop(m);
}

/* "Single use: a foreground after such a background consumes it." */
static void interruption_foreground(model *m) {
    if (interruption_cover(m) != M_NEVER) interruption_drop(m);
}

/* "dropped when the session leaves ACTIVE/WARNING" */
static void interruption_state(model *m) {
    if (!is_live(m->state)) interruption_drop(m);
}

/* "A policy change that lowers the cap shortens a pending announcement at once." */
static void interruption_policy(model *m) {
    if (m->intr_end != M_NEVER && m->intr_end - m->intr_start > m->p.expected_interruption_max_ms)
        m->intr_end = m->intr_start + m->p.expected_interruption_max_ms;
}

int64_t m_interruption_until(const model *m) { return m->intr_end; }

static int64_t background_deadline(const model *m) {
    if (!is_live(m->state)) return M_NEVER;
    int64_t d = M_NEVER;
    if (m->explicit_bg) d = sat_add(m->explicit_bg_since, m->p.background_timeout_ms);
    if (m->windows_bg) {
        d = min64(d, sat_add(m->windows_zero_since, m->p.background_timeout_ms));
    } else if (m->windows == 0 && m->windows_zero_since != M_NEVER) {
        /* While the grace runs: the lock that comes if no window is shown again (for
         * remaining_ms; K_GRACE always comes first). "a background timeout shorter than the
         * grace acts at the end of the grace" */
        d = min64(d, sat_add(m->windows_zero_since, max64(m->p.background_timeout_ms, m->p.background_grace_ms)));
    }
    return interruption_delays(m, d);
}

/* ---- offline limits (docs/session-features.md section 5) ---------------------------------- */

/* "no successful server contact for this long locks an ACTIVE or WARNING session"; "no contact
 * for this long ends the session, from LOCKED too". Before any contact there is no deadline
 * (LOADING only: a sign-in is a contact). */
static int64_t offline_deadline(const model *m, int kind) {
    if (kind == K_OFFLINE_LOCK)
        return is_live(m->state) ? sat_add(m->last_contact, m->p.offline_timeout_ms) : M_NEVER;
    if (is_live(m->state) || m->state == INACT_STATE_LOCKED)
        return sat_add(m->last_contact, m->p.offline_expiry_ms);
    return M_NEVER;
}

/* "past it every unlock returns INACT_E_OFFLINE until a contact succeeds": whatever the reason
 * of the lock ("the rule is about the time offline, not about the reason shown"). */
static int offline_blocked(const model *m) {
    return sat_add(m->last_contact, m->p.offline_timeout_ms) <= m->now;
}

int32_t m_needs_server_contact(const model *m) {
    return m->state == INACT_STATE_LOCKED && offline_blocked(m);
}

static void contact_now(model *m) {
    if (m->last_contact == M_NEVER || m->last_contact < m->now) m->last_contact = m->now;
}

static int64_t deadline_of(const model *m, int kind) {
    switch (kind) {
    case K_GRACE:
        if (m->windows == 0 && m->windows_zero_since != M_NEVER && !m->windows_bg)
            return sat_add(m->windows_zero_since, m->p.background_grace_ms);
        return M_NEVER;
    case K_WARNING:
        return m->state == INACT_STATE_ACTIVE ? m_warning_deadline(m) : M_NEVER;
    case K_IDLE_EXPIRE:
        return m->p.idle_action == INACT_IDLE_ACTION_EXPIRE ? m_idle_deadline(m) : M_NEVER;
    case K_OFFLINE_EXPIRY:
    case K_OFFLINE_LOCK:
        return offline_deadline(m, kind);
    case K_IDLE:
        return m->p.idle_action == INACT_IDLE_ACTION_EXPIRE ? M_NEVER : m_idle_deadline(m);
    case K_BACKGROUND:
        return background_deadline(m);
    case K_ABSOLUTE:
        if (is_live(m->state) || m->state == INACT_STATE_LOCKED)
            return min64(sat_add(m->started_at, m->p.absolute_timeout_ms), m->adopted_abs);
        return M_NEVER;
    case K_LOCKED:
        if (m->state == INACT_STATE_LOCKED) return sat_add(m->locked_at, m->p.locked_timeout_ms);
        return M_NEVER;
    case K_KEEPALIVE: {
        /* "at once for the first such activity after a quiet interval, then at most once per
         * interval"; the end of an interval with nothing to carry is a wake-up too (READING,
         * engine: it takes in what activity the lock-free path stamped) */
        if (m->p.keepalive_interval_ms == 0 || !is_live(m->state)) return M_NEVER;
        int64_t end = sat_add(m->ka_pinged, m->p.keepalive_interval_ms);
        if (m->ka_user > m->ka_carried) return max64(end, m->ka_user);
        return end > m->ka_passed ? end : M_NEVER;
    }
    }
    return M_NEVER;
}

static int64_t next_deadline(const model *m, int *out_kind) {
    int64_t best = M_NEVER;
    *out_kind = -1;
    for (int k = 0; k < K_COUNT; k++) {
        int64_t d = deadline_of(m, k);
        if (d < best) {  /* ties: the lower kind first (the order of the enum) */
            best = d;
            *out_kind = k;
        }
    }
    return best;
}

int64_t m_remaining(const model *m) {
    int64_t d = M_NEVER;
    for (int k = K_ABSOLUTE; k < K_KEEPALIVE; k++) d = min64(d, deadline_of(m, k));
    if (d == M_NEVER) return M_NEVER;
    return d - m->now;
}

/* ---- state changes ----------------------------------------------------------------------- */

static void set_state(model *m, int32_t state, int32_t reason, int64_t t) {
    if (state == INACT_STATE_LOCKED && m->state != INACT_STATE_LOCKED) m->locked_at = t;
    if (state != INACT_STATE_LOCKED) m->locked_at = M_NEVER;
    m->state = state;
    m->reason = reason;
    m->change_time = t;
    m->changed = 1;
    interruption_state(m);
    if (!is_live(state)) m->ka_due_set = 0; /* a due keepalive is dropped */
}

/* Quiet, nothing carried: what a sign-out of the keepalive leaves (a restore, the interval
 * turned on or off). */
static void keepalive_reset(model *m) {
    m->ka_pinged = m->ka_carried = m->ka_user = INT64_MIN;
    m->ka_passed = M_NEVER;
    m->ka_due_set = 0;
}

/* "counted, non-PROGRAMMATIC user activity (local or INACT_HOLDER_ACTIVITY)" at `t` */
static void keepalive_activity(model *m, int64_t t) {
    if (m->p.keepalive_interval_ms != 0 && t > m->ka_user) m->ka_user = t;
}

/* Keeps the idle pause in line with the policy and the background. `pause_from` is when a
 * pause that starts now is considered to have started (the background start). */
static void sync_pause(model *m, int64_t pause_from, int64_t resume_at) {
    int should = m->p.pause_idle_in_background && m_in_background(m);
    if (should && !m->idle_paused) {
        m->idle_paused = 1;
        m->idle_used_at_pause =
            m->last_activity == M_NEVER ? 0 : max64(0, pause_from - m->last_activity);
    } else if (!should && m->idle_paused) {
        /* "resumes the countdown where it was". READING (engine): while a hold is open the
         * countdown is suspended anyway and nothing is shifted (the last release sets it). */
        m->idle_paused = 0;
        if (m->last_activity != M_NEVER && m->n_holds == 0) m->last_activity = resume_at - m->idle_used_at_pause;
    }
}

/* "counted activity of this engine after the report supersedes the adopted one" */
static void supersede_adopted_idle(model *m, int64_t t) {
    if (m->adopted_idle != M_NEVER && t > m->adopted_idle_at) m->adopted_idle = m->adopted_idle_at = M_NEVER;
}

/* The idle countdown restarts now (the last hold released): not activity, so an adopted idle
 * deadline stays. */
static void countdown_restarts(model *m) {
    m->last_activity = m->now;
    m->idle_used_at_pause = 0;
}

static void activity_now(model *m) {
    countdown_restarts(m);
    supersede_adopted_idle(m, m->now);
}

static void normalize_warning(model *m, int64_t t);

static void apply(model *m, int kind, int64_t t) {
    switch (kind) {
    case K_GRACE:
        m->windows_bg = 1;
        sync_pause(m, m->windows_zero_since, t);
        /* a paused countdown is no longer due: WARNING -> ACTIVE (EXTENDED). READING (engine):
         * stamped with the evaluation's now, not the grace's end, when caught up late. */
        normalize_warning(m, m->now);
        break;
    case K_WARNING:
        set_state(m, INACT_STATE_WARNING, INACT_REASON_IDLE, t);
        break;
    case K_IDLE_EXPIRE:
        set_state(m, INACT_STATE_EXPIRED, INACT_REASON_IDLE_TIMEOUT, t);
        break;
    case K_IDLE:
        set_state(m, INACT_STATE_LOCKED, INACT_REASON_IDLE_TIMEOUT, t);
        break;
    case K_BACKGROUND:
        set_state(m, INACT_STATE_LOCKED, INACT_REASON_BACKGROUND_TIMEOUT, t);
        break;
    case K_ABSOLUTE:
        set_state(m, INACT_STATE_EXPIRED, INACT_REASON_ABSOLUTE_TIMEOUT, t);
        break;
    case K_OFFLINE_EXPIRY:
        set_state(m, INACT_STATE_EXPIRED, INACT_REASON_OFFLINE_EXPIRY, t);
        break;
    case K_OFFLINE_LOCK:
        set_state(m, INACT_STATE_LOCKED, INACT_REASON_OFFLINE_TIMEOUT, t);
        break;
    case K_LOCKED:
        set_state(m, INACT_STATE_EXPIRED, INACT_REASON_LOCKED_TIMEOUT, t);
        break;
    case K_KEEPALIVE:
        if (m->ka_user > m->ka_carried) {
            m->ka_due = m->ka_user;
            m->ka_due_set = 1;
            m->ka_pinged = t;
            m->ka_carried = m->ka_user;
        }
        m->ka_passed = t;
        break;
    }
}

/* READING: "WARNING lasts only while its deadline is due": after an input, a WARNING whose
 * warning deadline is no longer due returns to ACTIVE (EXTENDED). */
static void normalize_warning(model *m, int64_t t) {
    if (m->state != INACT_STATE_WARNING) return;
    int64_t w = m_warning_deadline(m);
    if (w == M_NEVER || w > m->now) set_state(m, INACT_STATE_ACTIVE, INACT_REASON_EXTENDED, t);
}

/* Applies every due deadline in time order; none acts before `floor`. */
static void evaluate(model *m, int64_t floor) {
    for (int guard = 0; guard < 64; guard++) {
        int kind;
        int64_t d = next_deadline(m, &kind);
        if (kind < 0 || d > m->now) break;
        int64_t t = d < floor ? floor : d;
        apply(m, kind, t);
        floor = t;
    }
    interruption_lapse(m);
    m->evaluated_at = m->now;
}

static void emit(model *m) {
    if (m->state != m->seen_state && m->n_events < M_MAX_EVENTS) {
        m_event *e = &m->events[m->n_events++];
        e->kind = INACT_EVENT_STATE_CHANGED;
        e->previous_state = m->seen_state;
        e->state = m->state;
        e->reason = m->reason;
        e->time_ms = m->change_time;
        e->now_ms = m->now;
        e->remaining_ms = m_remaining(m);
        e->required_auth = m_required_auth(m);
        e->time_any = m->change_time_any;
        m->change_time_any = 0;
        m->seen_state = m->state;
        /* the WARNING event carries the countdown itself */
        if (m->state == INACT_STATE_WARNING) m->last_tick_remaining = m_idle_deadline(m) - m->now;
    }
    m->changed = 0;
}

void m_begin_step(model *m) { m->n_events = 0; }

/* The next tick instant after `now`, or M_NEVER. */
static int64_t next_tick(const model *m) {
    int64_t d = m_idle_deadline(m), tick = m->p.tick_ms;
    if (m->state != INACT_STATE_WARNING || tick <= 0 || d == M_NEVER || m->now >= d) return M_NEVER;
    int64_t k = (d - m->now + tick - 1) / tick - 1; /* largest k with d - k*tick > now */
    if (k < 1) return M_NEVER;
    return d - k * tick;
}

/* READING (engine): ticks are "aligned to the remaining time": one is due when the remaining
 * idle time has gone down past a multiple of the tick since the last tick (or since the WARNING
 * event, which carries the countdown itself), and only below the warning time. Only the latest
 * such multiple is delivered ("past ticks are not replayed"), at its instant, or at the time of
 * the input that made it due (a scope pushed in WARNING). */
static void maybe_tick(model *m, int64_t floor) {
    int64_t d = m_idle_deadline(m), tick = m->p.tick_ms;
    if (m->state != INACT_STATE_WARNING || tick <= 0 || d == M_NEVER || m->now >= d) return;
    int64_t rem = d - m->now;
    int64_t r = (rem + tick - 1) / tick * tick; /* the smallest multiple >= rem */
    if (r >= m->p.warning_ms || r >= m->last_tick_remaining || m->n_events >= M_MAX_EVENTS) return;
    int64_t t = d - r;
    if (t < floor) t = floor;
    m_event *e = &m->events[m->n_events++];
    e->kind = INACT_EVENT_TICK;
    e->previous_state = e->state = INACT_STATE_WARNING;
    e->reason = m->reason;
    e->time_ms = t;
    e->now_ms = m->now;
    e->remaining_ms = m_remaining(m);
    e->required_auth = INACT_AUTH_NONE; /* ticks are in WARNING only */
    e->time_any = 0;
    m->last_tick_remaining = r;
}

/* A KEEPALIVE due, after the state's event: "after a sleep the catch-up comes first", and a
 * session no longer live sends nothing. */
static void emit_keepalive(model *m) {
    if (!m->ka_due_set) return;
    m->ka_due_set = 0;
    if (!is_live(m->state) || m->n_events >= M_MAX_EVENTS) return;
    m_event *e = &m->events[m->n_events++];
    e->kind = INACT_EVENT_KEEPALIVE;
    e->previous_state = e->state = m->state;
    e->reason = m->reason;
    e->time_ms = m->ka_due;
    e->now_ms = m->now;
    e->remaining_ms = m_remaining(m);
    e->required_auth = INACT_AUTH_NONE;
    e->time_any = 0;
}

/* Catch-up: applies every due deadline, delivers one folded state change, then the latest
 * countdown tick that came due, then a keepalive. */
static void catch_up(model *m) {
    int64_t since = m->evaluated_at;
    evaluate(m, since);
    emit(m);
    maybe_tick(m, since);
    emit_keepalive(m);
}

/* The entry of every call: catch-up evaluation and its events. */
static void enter(model *m) {
    m_begin_step(m);
    catch_up(m);
}

/* The end of an input that changed something: deadlines that the input made due act now. */
static void settle(model *m) {
    normalize_warning(m, m->now);
    evaluate(m, m->now);
    emit(m);
    maybe_tick(m, m->now);
    emit_keepalive(m);
}

/* ---- lifecycle ----------------------------------------------------------------------------- */

void m_init(model *m, const inact_policy *p, int64_t mono, int64_t wall, uint64_t boot) {
    memset(m, 0, sizeof *m);
    m_policy_read(p, &m->p); /* the caller checked it */
    m->last_contact = M_NEVER;
    m_ceilings_none(&m->ceilings);
    m->now = mono;
    m->wall = wall;
    m->boot = boot;
    m->evaluated_at = mono;
    m->state = m->seen_state = INACT_STATE_LOADING;
    m->reason = INACT_REASON_NONE;
    m->started_at = m->last_activity = m->locked_at = M_NEVER;
    m->last_credential = M_NEVER;
    m->adopted_idle = m->adopted_idle_at = m->adopted_abs = M_NEVER;
    keepalive_reset(m);
    interruption_drop(m);
    m->explicit_bg_since = M_NEVER;
    m->windows_zero_since = M_NEVER;
}

/* ---- inputs ----------------------------------------------------------------------------- */

int32_t m_start(model *m) {
    enter(m);
    if (m->state != INACT_STATE_LOADING && m->state != INACT_STATE_EXPIRED) return INACT_E_INVALID_STATE;
    m->started_at = m->now;
    activity_now(m);
    m->failures = 0;
    m->untrusted = 0;
    m->generation = 0; /* "inact_start resets it to 0" */
    m->last_contact = m->now; /* "A successful server contact is a sign-in, ..." */
    /* "A credential verification is a sign-in (inact_start) ...; it clears the biometrics change" */
    m->last_credential = m->now;
    m->credential_required = 0;
    m->adopted_idle = m->adopted_idle_at = m->adopted_abs = M_NEVER; /* a new session */
    /* "A sign-in counts as one (the server saw it)" */
    if (m->p.keepalive_interval_ms != 0) {
        m->ka_pinged = m->ka_carried = m->ka_user = m->ka_passed = m->now;
        m->ka_due_set = 0;
    } else {
        keepalive_reset(m);
    }
    set_state(m, INACT_STATE_ACTIVE, INACT_REASON_STARTED, m->now);
    settle(m);
    return INACT_OK;
}

int32_t m_activity(model *m, uint32_t kind) {
    /* Every entry point first catches up, a call refused for its argument too. */
    enter(m);
    if (kind == 0 || (kind & (kind - 1)) != 0 || (kind & ~INACT_ACTIVITY_ALL) != 0)
        return INACT_E_INVALID_ARGUMENT;
    if (!(m->p.activity_kinds & kind) || m_in_background(m)) return INACT_OK;
    if (m->state == INACT_STATE_ACTIVE) {
        activity_now(m);
    } else if (m->state == INACT_STATE_WARNING && m->p.activity_dismisses_warning) {
        activity_now(m);
        set_state(m, INACT_STATE_ACTIVE, INACT_REASON_ACTIVITY, m->now);
    } else {
        return INACT_OK;
    }
    if (kind != INACT_ACTIVITY_PROGRAMMATIC) keepalive_activity(m, m->now); /* "never for PROGRAMMATIC" */
    settle(m);
    return INACT_OK;
}

int32_t m_continue(model *m) {
    enter(m);
    if (m->state != INACT_STATE_WARNING) return INACT_E_INVALID_STATE;
    activity_now(m);
    keepalive_activity(m, m->now); /* Continue is the user's */
    set_state(m, INACT_STATE_ACTIVE, INACT_REASON_CONTINUED, m->now);
    settle(m);
    return INACT_OK;
}

int32_t m_lock(model *m) {
    enter(m);
    if (m->state == INACT_STATE_LOCKED) return INACT_OK;
    if (!is_live(m->state)) return INACT_E_INVALID_STATE;
    set_state(m, INACT_STATE_LOCKED, INACT_REASON_MANUAL_LOCK, m->now);
    settle(m);
    return INACT_OK;
}

/* "The credential is required when the time since the last credential verification reached
 * strong_auth_timeout_ms, after inact_biometrics_changed, and after a restore whose elapsed
 * time could not be trusted when the strong-auth timeout is finite"; NONE unless LOCKED. */
int32_t m_required_auth(const model *m) {
    if (m->state != INACT_STATE_LOCKED) return INACT_AUTH_NONE;
    if (m->credential_required) return INACT_AUTH_CREDENTIAL;
    int64_t d = m_strong_auth_deadline(m);
    return d != M_NEVER && d <= m->now ? INACT_AUTH_CREDENTIAL : INACT_AUTH_BIOMETRIC;
}

/* inact_info.strong_auth_deadline_ms: "from then a biometric no longer unlocks". READING
 * (engine; the header is silent): with the credential already required by the flag it is the
 * last verification itself, and NEVER before any verification (LOADING). */
int64_t m_strong_auth_deadline(const model *m) {
    if (m->last_credential == M_NEVER) return M_NEVER;
    if (m->credential_required) return m->last_credential;
    return sat_add(m->last_credential, m->p.strong_auth_timeout_ms);
}

static int bad_method(int32_t method) {
    return method != INACT_AUTH_BIOMETRIC && method != INACT_AUTH_CREDENTIAL;
}

int32_t m_unlock_with(model *m, int32_t method) {
    enter(m);
    if (bad_method(method)) return INACT_E_INVALID_ARGUMENT;
    if (m->state != INACT_STATE_LOCKED) return INACT_E_INVALID_STATE;
    /* "refused in background once the background timeout has passed" (the session would lock
     * again at once, LOCKED to LOCKED with no event) */
    if (m_in_background(m) && sat_add(m_background_since(m), m->p.background_timeout_ms) <= m->now)
        return INACT_E_INVALID_STATE;
    /* READING: the header's order of the errors: the background refusal, then OFFLINE, then
     * the method's strength. */
    if (offline_blocked(m)) return INACT_E_OFFLINE;
    /* "An unlock with a weaker method than required returns INACT_E_WEAK_AUTH and changes
     * nothing" (CREDENTIAL > BIOMETRIC, the enum's order) */
    if (method < m_required_auth(m)) return INACT_E_WEAK_AUTH;
    activity_now(m);
    keepalive_activity(m, m->now); /* an unlock is the user's */
    m->failures = 0;
    m->untrusted = 0;
    if (method == INACT_AUTH_CREDENTIAL) {
        m->last_credential = m->now;
        m->credential_required = 0;
    }
    set_state(m, INACT_STATE_ACTIVE, INACT_REASON_UNLOCKED, m->now);
    settle(m);
    return INACT_OK;
}

/* "inact_unlock and inact_unlock_failed are the credential forms" */
int32_t m_unlock(model *m) { return m_unlock_with(m, INACT_AUTH_CREDENTIAL); }

int32_t m_unlock_failed_with(model *m, int32_t method, uint32_t *out_failures) {
    enter(m);
    if (bad_method(method)) return INACT_E_INVALID_ARGUMENT;
    if (m->state != INACT_STATE_LOCKED) return INACT_E_INVALID_STATE;
    /* "a failed biometric attempt while the credential is required does not count toward
     * max_unlock_failures, a failed attempt of an accepted method does" */
    if (method < m_required_auth(m)) return INACT_E_WEAK_AUTH;
    /* READING (engine): the count stops at UINT32_MAX (only a restored snapshot can hold it):
     * wrapping to 0 would forget every failure */
    if (m->failures < UINT32_MAX) m->failures++;
    *out_failures = m->failures;
    if (m->p.max_unlock_failures != 0 && m->failures >= m->p.max_unlock_failures)
        set_state(m, INACT_STATE_EXPIRED, INACT_REASON_UNLOCK_FAILURES, m->now);
    settle(m);
    return INACT_OK;
}

int32_t m_unlock_failed(model *m, uint32_t *out_failures) {
    return m_unlock_failed_with(m, INACT_AUTH_CREDENTIAL, out_failures);
}

/* "until the next credential verification an unlock needs the CREDENTIAL"; every state,
 * LOADING included ("added to what the restore brings") */
int32_t m_biometrics_changed(model *m) {
    enter(m);
    m->credential_required = 1;
    return INACT_OK;
}

/* inact_expect_interruption: "max_ms: 1 .. policy.expected_interruption_max_ms, or 0 to
 * withdraw"; INVALID_STATE "not ACTIVE or WARNING, or already in background or its grace"; a
 * new announcement replaces an unused one. READING (engine; the header does not order two
 * errors): max_ms < 0 (the value alone) first, then the state, then the policy cap, then the
 * background. Nothing is delivered: in foreground it moves no deadline. */
int32_t m_expect_interruption(model *m, int64_t max_ms) {
    enter(m);
    if (max_ms < 0) return INACT_E_INVALID_ARGUMENT;
    if (!is_live(m->state)) return INACT_E_INVALID_STATE;
    if (max_ms > m->p.expected_interruption_max_ms) return INACT_E_INVALID_ARGUMENT;
    if (background_began(m) != M_NEVER) return INACT_E_INVALID_STATE;
    if (max_ms == 0) {
        interruption_drop(m);
    } else {
        m->intr_start = m->now;
        m->intr_end = m->now + max_ms;
    }
    return INACT_OK;
}

int32_t m_end(model *m, int32_t reason) {
    enter(m);
    if (reason != INACT_REASON_LOGOUT && reason != INACT_REASON_REVOKED &&
        reason != INACT_REASON_PASSWORD_CHANGED && reason != INACT_REASON_DEVICE_LIMIT)
        return INACT_E_INVALID_ARGUMENT;
    if (m->state == INACT_STATE_EXPIRED) return INACT_OK;
    set_state(m, INACT_STATE_EXPIRED, reason, m->now);
    settle(m);
    return INACT_OK;
}

/* ---- what another holder reports (inact_holder_report) ------------------------------------ */

static int locked_reason(int32_t r) {
    return r == INACT_REASON_IDLE_TIMEOUT || r == INACT_REASON_BACKGROUND_TIMEOUT || r == INACT_REASON_MANUAL_LOCK ||
           r == INACT_REASON_RESTORED || r == INACT_REASON_UNTRUSTED_CLOCK || r == INACT_REASON_DEVICE_LOCKED ||
           r == INACT_REASON_OFFLINE_TIMEOUT || r == INACT_REASON_RESTART;
}

static int expired_reason(int32_t r) {
    return r == INACT_REASON_IDLE_TIMEOUT || r == INACT_REASON_ABSOLUTE_TIMEOUT || r == INACT_REASON_LOCKED_TIMEOUT ||
           r == INACT_REASON_UNLOCK_FAILURES || r == INACT_REASON_LOGOUT || r == INACT_REASON_REVOKED ||
           r == INACT_REASON_PASSWORD_CHANGED || r == INACT_REASON_RESTORE_FAILED || r == INACT_REASON_RESTORED ||
           r == INACT_REASON_UNTRUSTED_CLOCK || r == INACT_REASON_OFFLINE_EXPIRY || r == INACT_REASON_DEVICE_LIMIT;
}

/* "An instant is now - age, clamped to [L, now]" (L: the later of the session's start and,
 * for activity, the own last activity, for a lock or an expiry, the last change). */
static int64_t placed(const model *m, int64_t age, int64_t floor) {
    int64_t t = m->now - age; /* age <= 100 years, now >= 0: no overflow */
    return t < floor ? floor : t > m->now ? m->now : t;
}

int32_t m_holder_report(model *m, int32_t kind, int32_t reason, int64_t ms) {
    enter(m);
    /* the arguments on their own, in the header's order: kind, ms, reason */
    if (kind < INACT_HOLDER_ACTIVITY || kind > INACT_HOLDER_ABSOLUTE_DEADLINE) return INACT_E_INVALID_ARGUMENT;
    if (ms < 0 || ms > M_100_YEARS) return INACT_E_INVALID_ARGUMENT;
    if (kind == INACT_HOLDER_LOCKED ? !locked_reason(reason)
        : kind == INACT_HOLDER_EXPIRED ? !expired_reason(reason) : reason != INACT_REASON_NONE)
        return INACT_E_INVALID_ARGUMENT;
    switch (kind) {
    case INACT_HOLDER_ACTIVITY: {
        /* "a no-op in LOCKED, EXPIRED, LOADING"; in WARNING only where activity dismisses it */
        if (m->state == INACT_STATE_WARNING && !m->p.activity_dismisses_warning) return INACT_OK;
        if (!is_live(m->state)) return INACT_OK;
        int64_t t = placed(m, ms, max64(m->started_at, m->last_activity));
        /* a paused countdown resumes from the later activity (READING, engine: what was used
         * before the pause counts only up to this activity) */
        m->idle_used_at_pause = max64(0, m->idle_used_at_pause - (t - m->last_activity));
        m->last_activity = t;
        supersede_adopted_idle(m, t);
        keepalive_activity(m, t);
        if (m->state == INACT_STATE_WARNING) set_state(m, INACT_STATE_ACTIVE, INACT_REASON_ACTIVITY, m->now);
        break;
    }
    case INACT_HOLDER_LOCKED:
        if (m->state == INACT_STATE_LOADING) return INACT_E_INVALID_STATE;
        if (!is_live(m->state)) return INACT_OK; /* the strictest wins, the own reason stays */
        set_state(m, INACT_STATE_LOCKED, reason, placed(m, ms, max64(m->started_at, m->change_time)));
        break;
    case INACT_HOLDER_EXPIRED:
        if (m->state == INACT_STATE_EXPIRED) return INACT_OK;
        set_state(m, INACT_STATE_EXPIRED, reason,
                  m->started_at == M_NEVER ? m->now : placed(m, ms, max64(m->started_at, m->change_time)));
        break;
    case INACT_HOLDER_IDLE_DEADLINE: {
        if (m->state == INACT_STATE_LOADING) return INACT_E_INVALID_STATE;
        if (!is_live(m->state)) return INACT_OK;
        int64_t d = sat_add(m->now, ms);
        if (d >= m_idle_deadline(m)) return INACT_OK; /* "never later" */
        m->adopted_idle = d;
        m->adopted_idle_at = m->now;
        /* the countdown goes on from the new remaining time, on its grid: no tick now */
        if (m->state == INACT_STATE_WARNING && m->p.tick_ms > 0 && d > m->now)
            m->last_tick_remaining = (d - m->now + m->p.tick_ms - 1) / m->p.tick_ms * m->p.tick_ms;
        break;
    }
    case INACT_HOLDER_ABSOLUTE_DEADLINE: {
        if (m->state == INACT_STATE_LOADING) return INACT_E_INVALID_STATE;
        if (m->state == INACT_STATE_EXPIRED) return INACT_OK;
        int64_t d = sat_add(m->now, ms);
        if (d < deadline_of(m, K_ABSOLUTE)) m->adopted_abs = d;
        break;
    }
    }
    settle(m);
    return INACT_OK;
}

int32_t m_refresh(model *m, int32_t status, const char *oauth_error, uint64_t generation,
                  int32_t *out_outcome) {
    enter(m);
    if (status != 0 && (status < 100 || status > 599)) return INACT_E_INVALID_ARGUMENT;
    int32_t outcome;
    if (status >= 200 && status <= 299)
        outcome = INACT_REFRESH_OK;
    else if (status == 401 || (status == 400 && oauth_error && strcmp(oauth_error, "invalid_grant") == 0))
        outcome = INACT_REFRESH_REVOKED;
    else if (status == 0 || status == 408 || status == 429 || status >= 500)
        outcome = INACT_REFRESH_RETRY;
    else
        outcome = INACT_REFRESH_FAILED;
    /* "invalid_grant, generation != 0 and older than the newest rotation -> STALE": nothing
       changes; a plain 401 always revokes; only inact_token_rotated moves the newest generation */
    if (outcome == INACT_REFRESH_REVOKED && oauth_error && strcmp(oauth_error, "invalid_grant") == 0 &&
        generation != 0 && generation < m->generation) {
        *out_outcome = INACT_REFRESH_STALE;
        return INACT_OK;
    }
    *out_outcome = outcome;
    if (outcome == INACT_REFRESH_OK) contact_now(m); /* "2xx -> OK (a successful server contact)" */
    if (outcome == INACT_REFRESH_REVOKED && m->state != INACT_STATE_EXPIRED) {
        set_state(m, INACT_STATE_EXPIRED, INACT_REASON_REVOKED, m->now);
        settle(m);
    }
    return INACT_OK;
}

int32_t m_token_rotated(model *m, uint64_t generation) {
    enter(m);
    if (generation < m->generation) return INACT_E_INVALID_ARGUMENT;
    m->generation = generation;
    return INACT_OK;
}

/* "Background starts now (as inact_background) and with policy.lock_on_device_lock an ACTIVE or
 * WARNING session is LOCKED (DEVICE_LOCKED) at once." */
int32_t m_device_locked(model *m) {
    enter(m);
    interruption_drop(m); /* "an announced interruption no longer applies" */
    if (!m_in_background(m)) {
        m->explicit_bg = 1;
        m->explicit_bg_since = m->windows == 0 && m->windows_zero_since != M_NEVER ? m->windows_zero_since : m->now;
        sync_pause(m, m->explicit_bg_since, m->now);
    }
    if (m->p.lock_on_device_lock && is_live(m->state))
        set_state(m, INACT_STATE_LOCKED, INACT_REASON_DEVICE_LOCKED, m->now);
    settle(m);
    return INACT_OK;
}

int32_t m_background(model *m) {
    enter(m);
    if (m_in_background(m)) return INACT_OK;
    m->explicit_bg = 1;
    /* READING (engine): if every window was already hidden (grace running), the background
     * began when the count dropped to 0; the explicit call confirms it, the grace no longer
     * applies. */
    m->explicit_bg_since = m->windows == 0 && m->windows_zero_since != M_NEVER ? m->windows_zero_since : m->now;
    sync_pause(m, m->explicit_bg_since, m->now);
    settle(m);
    return INACT_OK;
}

/* Background ends (foreground, or a window shown). */
static void leave_background(model *m) {
    interruption_foreground(m);
    m->explicit_bg = 0;
    m->explicit_bg_since = M_NEVER;
    m->windows_bg = 0;
    m->windows_zero_since = M_NEVER;
    sync_pause(m, m->now, m->now);
}

int32_t m_foreground(model *m) {
    enter(m);
    leave_background(m);
    settle(m);
    return INACT_OK;
}

int32_t m_window_shown(model *m) {
    enter(m);
    m->windows++;
    if (m->windows == 1) leave_background(m); /* "Going above 0 = foreground" */
    settle(m);
    return INACT_OK;
}

int32_t m_window_hidden(model *m) {
    enter(m);
    if (m->windows == 0) return INACT_E_INVALID_STATE;
    m->windows--;
    if (m->windows == 0) {
        m->windows_zero_since = m->now;
        m->windows_bg = 0;
    }
    settle(m);
    return INACT_OK;
}

int32_t m_scope_push_check(const model *m, int64_t timeout) {
    if (timeout <= 0 || timeout <= m->p.warning_ms || timeout > M_100_YEARS)
        return INACT_E_INVALID_ARGUMENT;
    return INACT_OK;
}

void m_scope_pushed(model *m, uint64_t id, int64_t timeout) {
    enter(m);
    if (m->n_scopes < M_MAX_SCOPES) {
        m->scopes[m->n_scopes].id = id;
        m->scopes[m->n_scopes].timeout = timeout;
        m->n_scopes++;
    }
    /* "ticks stay aligned to the remaining time when a scope moves the idle deadline" */
    if (m->state == INACT_STATE_WARNING) m->last_tick_remaining = m_idle_deadline(m) - m->now;
    settle(m);
}

int32_t m_scope_pop(model *m, uint64_t id) {
    enter(m);
    for (int i = 0; i < m->n_scopes; i++) {
        if (m->scopes[i].id == id) {
            m->scopes[i] = m->scopes[--m->n_scopes];
            if (m->state == INACT_STATE_WARNING) m->last_tick_remaining = m_idle_deadline(m) - m->now;
            settle(m);
            return INACT_OK;
        }
    }
    return INACT_E_NOT_FOUND;
}

void m_hold_acquired(model *m, uint64_t id) {
    enter(m);
    if (m->n_holds < M_MAX_SCOPES) m->holds[m->n_holds++] = id;
    settle(m);
}

int32_t m_hold_release(model *m, uint64_t id) {
    enter(m);
    for (int i = 0; i < m->n_holds; i++) {
        if (m->holds[i] == id) {
            m->holds[i] = m->holds[--m->n_holds];
            if (m->n_holds == 0) countdown_restarts(m);
            settle(m);
            return INACT_OK;
        }
    }
    return INACT_E_NOT_FOUND;
}

static void policy_applied(model *m, const inact_policy *p);

/* The failed unlocks counted reach a limit that was lowered to them (a policy, ceilings, the
 * restoring engine's policy): "the attempts allowed are spent", EXPIRED (UNLOCK_FAILURES) now,
 * where failures count (LOCKED). */
static void failures_spent(model *m) {
    if (m->state == INACT_STATE_LOCKED && m->p.max_unlock_failures != 0 && m->failures >= m->p.max_unlock_failures)
        set_state(m, INACT_STATE_EXPIRED, INACT_REASON_UNLOCK_FAILURES, m->now);
}

int32_t m_set_policy(model *m, const inact_policy *given) {
    enter(m);
    int32_t rc = m_policy_validate(given);
    if (rc != INACT_OK) return rc;
    inact_policy q;
    m_policy_read(given, &q);
    /* READING (engine): the policy against the engine's ceilings before against its open
     * scopes (the header lists both errors, not their order). */
    rc = m_ceilings_check(&m->ceilings, &q);
    if (rc != INACT_OK) return rc;
    for (int i = 0; i < m->n_scopes; i++)
        if (q.warning_ms >= m->scopes[i].timeout) return INACT_E_INVALID_ARGUMENT;
    policy_applied(m, &q);
    return INACT_OK;
}

/* A checked policy takes effect: "recomputes every deadline at once". Every policy change goes
 * through here: inact_set_policy and the tightening of inact_set_ceilings. */
static void policy_applied(model *m, const inact_policy *p) {
    /* "turned on: quiet, the next user activity pings at once"; off: nothing due */
    if ((m->p.keepalive_interval_ms == 0) != (p->keepalive_interval_ms == 0)) keepalive_reset(m);
    m->p = *p;
    m->p.size = sizeof(inact_policy);
    interruption_policy(m);
    /* READING (engine): "deadlines are recomputed at once" as if the new policy had always
     * applied: pausing now pauses from the background's start; no longer pausing counts the
     * whole background. */
    int should = m->p.pause_idle_in_background && m_in_background(m);
    if (should && !m->idle_paused) {
        sync_pause(m, m_background_since(m), m->now);
    } else if (!should && m->idle_paused) {
        m->idle_paused = 0;
    }
    /* A new policy, like a scope, restarts the tick sequence from now (no immediate tick). */
    if (m->state == INACT_STATE_WARNING) m->last_tick_remaining = m_idle_deadline(m) - m->now;
    /* "A max_unlock_failures at or below the failed unlocks already counted (LOCKED) expires
     * the session at once (UNLOCK_FAILURES)" (inact_set_policy; inact_set_ceilings too) */
    failures_spent(m);
    settle(m);
}

/* ---- managed ceilings (docs/session-features.md section 6) -------------------------------- */

/* The durations a ceiling limits, as offsets into both structs. */
#define M_CEIL_FIELD(f) {offsetof(inact_policy, f), offsetof(inact_ceilings, f)}
static const char *const ceiling_names[] = {
    "idle_timeout_ms", "background_timeout_ms", "absolute_timeout_ms", "locked_timeout_ms",
    "strong_auth_timeout_ms", "expected_interruption_max_ms", "offline_timeout_ms", "offline_expiry_ms",
};
static const size_t ceiling_durations[][2] = {
    M_CEIL_FIELD(idle_timeout_ms),          M_CEIL_FIELD(background_timeout_ms),
    M_CEIL_FIELD(absolute_timeout_ms),      M_CEIL_FIELD(locked_timeout_ms),
    M_CEIL_FIELD(strong_auth_timeout_ms),   M_CEIL_FIELD(expected_interruption_max_ms),
    M_CEIL_FIELD(offline_timeout_ms),       M_CEIL_FIELD(offline_expiry_ms),
};
#define M_N_CEIL (sizeof ceiling_durations / sizeof ceiling_durations[0])

static int64_t *policy_field(inact_policy *p, size_t i) {
    return (int64_t *)(void *)((char *)p + ceiling_durations[i][0]);
}
static int64_t ceiling_field(const inact_ceilings *c, size_t i) {
    int64_t v;
    memcpy(&v, (const char *)c + ceiling_durations[i][1], sizeof v);
    return v;
}

/* "Fills ceilings with "no limit" in every field" */
void m_ceilings_none(inact_ceilings *c) {
    memset(c, 0, sizeof *c);
    c->size = sizeof *c;
    for (size_t i = 0; i < M_N_CEIL; i++) {
        int64_t never = M_NEVER;
        memcpy((char *)c + ceiling_durations[i][1], &never, sizeof never);
    }
}

/* "INACT_E_INVALID_ARGUMENT (a limit < 0 or above 100 years and not NEVER, a flag not 0/1"; the
 * size by the struct convention (inact_ceilings has one published layout). */
int32_t m_ceilings_validate(const inact_ceilings *c) {
    if (c->size < sizeof(inact_ceilings) || c->size > 65536) return INACT_E_STRUCT_SIZE;
    const uint8_t *tail = (const uint8_t *)c + sizeof(inact_ceilings);
    for (size_t i = 0; i < c->size - sizeof(inact_ceilings); i++)
        if (tail[i] != 0) return INACT_E_STRUCT_SIZE;
    if ((c->lock_on_device_lock != 0 && c->lock_on_device_lock != 1) ||
        (c->lock_on_restart != 0 && c->lock_on_restart != 1))
        return INACT_E_INVALID_ARGUMENT;
    for (size_t i = 0; i < M_N_CEIL; i++) {
        int64_t v = ceiling_field(c, i);
        if (v < 0 || (v > M_100_YEARS && v != M_NEVER)) return INACT_E_INVALID_ARGUMENT;
    }
    return INACT_OK;
}

/* The fields m_ceilings_validate refuses (flags first, then durations), with their values. */
int32_t m_ceilings_invalid(const inact_ceilings *c, const char **names, int64_t *values, int32_t max) {
    int32_t n = 0;
    if (n < max && c->lock_on_device_lock != 0 && c->lock_on_device_lock != 1) {
        names[n] = "lock_on_device_lock";
        values[n++] = c->lock_on_device_lock;
    }
    if (n < max && c->lock_on_restart != 0 && c->lock_on_restart != 1) {
        names[n] = "lock_on_restart";
        values[n++] = c->lock_on_restart;
    }
    for (size_t i = 0; i < M_N_CEIL && n < max; i++) {
        int64_t v = ceiling_field(c, i);
        if (v < 0 || (v > M_100_YEARS && v != M_NEVER)) {
            names[n] = ceiling_names[i];
            values[n++] = v;
        }
    }
    return n;
}

/* "at least as strict in every limited field": durations at most the limit (NEVER, off, exceeds
 * every finite limit; a NEVER limit is no limit); max_unlock_failures 1..limit when the limit is
 * not 0; a flag the ceilings set must be set. */
int32_t m_ceilings_check(const inact_ceilings *c, const inact_policy *p) {
    inact_policy q = *p;
    for (size_t i = 0; i < M_N_CEIL; i++)
        if (*policy_field(&q, i) > ceiling_field(c, i)) return INACT_E_CEILING;
    if (c->max_unlock_failures != 0 &&
        (p->max_unlock_failures == 0 || p->max_unlock_failures > c->max_unlock_failures))
        return INACT_E_CEILING;
    if (c->lock_on_device_lock && !p->lock_on_device_lock) return INACT_E_CEILING;
    if (c->lock_on_restart && !p->lock_on_restart) return INACT_E_CEILING;
    return INACT_OK;
}

int32_t m_ceilings_laxer(const inact_ceilings *c, const inact_policy *p, const char **names, int64_t *limits,
                         int32_t max) {
    int32_t n = 0;
    inact_policy q = *p;
    for (size_t i = 0; i < M_N_CEIL && n < max; i++)
        if (*policy_field(&q, i) > ceiling_field(c, i)) {
            names[n] = ceiling_names[i];
            limits[n++] = ceiling_field(c, i);
        }
    if (n < max && c->max_unlock_failures != 0 &&
        (p->max_unlock_failures == 0 || p->max_unlock_failures > c->max_unlock_failures)) {
        names[n] = "max_unlock_failures";
        limits[n++] = c->max_unlock_failures;
    }
    if (n < max && c->lock_on_device_lock && !p->lock_on_device_lock) {
        names[n] = "lock_on_device_lock";
        limits[n++] = 1;
    }
    if (n < max && c->lock_on_restart && !p->lock_on_restart) {
        names[n] = "lock_on_restart";
        limits[n++] = 1;
    }
    return n;
}

/* "Sets the administrator's limits (they replace earlier ones) and makes the engine's current
 * policy as strict as them in every limited field, recomputing deadlines at once ... or the
 * tightened policy is invalid ...: nothing changes." */
int32_t m_set_ceilings(model *m, const inact_ceilings *c) {
    enter(m);
    int32_t rc = m_ceilings_validate(c);
    if (rc != INACT_OK) return rc;
    inact_policy q = m->p;
    for (size_t i = 0; i < M_N_CEIL; i++) *policy_field(&q, i) = min64(*policy_field(&q, i), ceiling_field(c, i));
    if (c->max_unlock_failures != 0 &&
        (q.max_unlock_failures == 0 || q.max_unlock_failures > c->max_unlock_failures))
        q.max_unlock_failures = c->max_unlock_failures;
    if (c->lock_on_device_lock) q.lock_on_device_lock = 1;
    if (c->lock_on_restart) q.lock_on_restart = 1;
    if (m_policy_validate(&q) != INACT_OK) return INACT_E_INVALID_ARGUMENT;
    m->ceilings = *c;
    m->ceilings.size = sizeof(inact_ceilings);
    policy_applied(m, &q);
    return INACT_OK;
}

/* "A successful online check ...: the offline deadlines restart from now ... Allowed in every
 * state (kept through a restore from LOADING)." */
int32_t m_server_contact(model *m) {
    enter(m);
    contact_now(m);
    return INACT_OK;
}

int32_t m_query(model *m) {
    enter(m);
    return INACT_OK;
}

/* ---- the clock ---------------------------------------------------------------------------- */

static int bad_clock_move(const model *m, int64_t ms) {
    return ms < 0 || ms > 10 * M_100_YEARS - m->now;
}

/* inact_lock called from inside the callback: applied at once, its events queued after the
 * event being delivered. */
static void lock_from_callback(model *m) {
    if (!m->lock_on_first_event || m->n_events == 0) return;
    m->lock_on_first_event = 0;
    if (m->state == INACT_STATE_LOCKED) {
        m->lock_status = INACT_OK;
    } else if (!is_live(m->state)) {
        m->lock_status = INACT_E_INVALID_STATE;
    } else {
        m->lock_status = INACT_OK;
        set_state(m, INACT_STATE_LOCKED, INACT_REASON_MANUAL_LOCK, m->now);
        settle(m);
    }
}

void m_lock_in_callback(model *m) {
    m->lock_on_first_event = 1;
    m->lock_status = 99;
    lock_from_callback(m);
    m->lock_on_first_event = 0;
}

int32_t m_advance(model *m, int64_t ms) {
    m_begin_step(m);
    m->wakes = 0;
    /* "ms < 0, or the clock would pass 1000 years": refused after the catch-up ("every call
     * on an engine first evaluates its deadlines and delivers what came due, also a call that
     * is then refused"). That catch-up is a delivery like any other: a callback that locks at
     * its event is applied, although the advance itself is refused and the clock stays. */
    if (bad_clock_move(m, ms)) {
        catch_up(m);
        lock_from_callback(m);
        return INACT_E_INVALID_ARGUMENT;
    }
    int64_t target = m->now + ms, start = m->now;
    catch_up(m); /* an entry point: first what was already due (after a freeze) */
    lock_from_callback(m);
    /* As on the real clock while the process lives: wake at each deadline and tick on the way. */
    for (;;) {
        int kind;
        int64_t d = min64(next_deadline(m, &kind), next_tick(m));
        if (d > target) break;
        if (d > m->now) m->now = d;
        m->wakes++;
        catch_up(m);
        lock_from_callback(m);
        if (m->wakes > 100000) break; /* the caller keeps advances far below this */
    }
    m->now = target;
    m->wall = sat_add(m->wall, target - start);
    catch_up(m);
    lock_from_callback(m);
    return INACT_OK;
}

int32_t m_freeze(model *m, int64_t ms) {
    m_begin_step(m);
    if (bad_clock_move(m, ms)) {
        catch_up(m);
        return INACT_E_INVALID_ARGUMENT;
    }
    m->now += ms;
    m->wall = sat_add(m->wall, ms);
    return INACT_OK;
}

int32_t m_jump_wall(model *m, int64_t delta) {
    m_begin_step(m);
    if ((delta > 0 && m->wall > INT64_MAX - delta) || (delta < 0 && m->wall < INT64_MIN - delta)) {
        catch_up(m);
        return INACT_E_INVALID_ARGUMENT;
    }
    m->wall += delta;
    return INACT_OK;
}

int32_t m_reboot(model *m, int64_t downtime, uint64_t new_boot) {
    m_begin_step(m);
    /* "INACT_E_INVALID_ARGUMENT if the wall clock would overflow" */
    if (downtime < 0 || m->wall > INT64_MAX - downtime) {
        catch_up(m);
        return INACT_E_INVALID_ARGUMENT;
    }
    /* READING (engine): the engine's instants are moved onto the new clock by the same shift
     * as the clock (a background that began 5 s before the reboot began at -5000). The fuzz target models reboots of LOADING engines
     * only, whose only instants are the background's. */
    /* READING (engine): the shift is from the engine's last evaluation, not from the clock:
     * time that passed in a freeze just before the reboot is not counted. */
    int64_t shift = -m->evaluated_at;
    if (m->explicit_bg_since != M_NEVER) m->explicit_bg_since += shift;
    if (m->windows_zero_since != M_NEVER) m->windows_zero_since += shift;
    if (m->last_contact != M_NEVER) m->last_contact += shift; /* a contact in LOADING */
    m->now = 0;
    m->wall += downtime;
    m->boot = new_boot;
    m->evaluated_at = 0;
    return INACT_OK;
}

/* ---- snapshot and restore --------------------------------------------------------------- */

int32_t m_snapshot_take(model *m, m_snapshot *s) {
    enter(m);
    if (m->state == INACT_STATE_LOADING) return INACT_E_INVALID_STATE;
    memset(s, 0, sizeof *s);
    s->state = m->state;
    s->reason = m->reason;
    /* "A session that never started (EXPIRED from LOADING) is written with its start, last
     * activity and last credential verification at the snapshot's clock" (docs/design.md 4) */
    s->started_at = m->started_at != M_NEVER ? m->started_at : m->now;
    s->last_activity = m->last_activity;
    /* READING (engine): holds are not kept; an open hold suspends the idle countdown, so the
     * snapshot counts idle from its own instant, as a release now would. */
    if (is_live(m->state) && m->n_holds > 0 && m->last_activity != M_NEVER && m->last_activity < m->now)
        s->last_activity = m->now;
    s->background_since = m_background_since(m);
    /* READING (engine): windows hidden and the grace still running count too: if no window
     * came back before the process died, the background began at the hide. */
    if (m->windows == 0 && m->windows_zero_since != M_NEVER)
        s->background_since = min64(s->background_since, m->windows_zero_since);
    s->locked_at = m->locked_at;
    s->failures = m->failures;
    s->mono = m->now;
    s->wall = m->wall;
    s->boot = m->boot;
    s->idle_paused = m->idle_paused;
    s->idle_used_at_pause = m->idle_used_at_pause;
    s->generation = m->generation;
    /* "the last server contact (between the session start and the snapshot's clock)" */
    int64_t start = m->started_at != M_NEVER ? m->started_at : m->now;
    s->last_contact = m->last_contact == M_NEVER ? start : min64(max64(m->last_contact, start), m->now);
    /* Only a session that never started has none (a start sets it): the snapshot's clock. */
    s->last_credential = m->last_credential != M_NEVER ? m->last_credential : s->started_at;
    s->credential_required = m->credential_required;
    /* "An adopted deadline is kept in a snapshot as an earlier session start or last activity"
     * (docs/design.md, "Other holders") */
    if (m->state != INACT_STATE_EXPIRED && m->adopted_abs != M_NEVER) {
        if (m->p.absolute_timeout_ms != M_NEVER)
            s->started_at = min64(s->started_at, m->adopted_abs - m->p.absolute_timeout_ms);
        else if (is_live(m->state) && m->p.idle_timeout_ms != M_NEVER)
            s->last_activity = min64(s->last_activity, m->adopted_abs - m->p.idle_timeout_ms);
    }
    if (is_live(m->state) && m->adopted_idle != M_NEVER && m->p.idle_timeout_ms != M_NEVER)
        s->last_activity = min64(s->last_activity, m->adopted_idle - m->p.idle_timeout_ms);
    if (is_live(m->state)) s->started_at = min64(s->started_at, s->last_activity);
    return INACT_OK;
}

int32_t m_snapshot_never_started(const m_snapshot *s) {
    /* the last activity lies between the start and the clock: at both when they are equal */
    return s->state == INACT_STATE_EXPIRED && s->started_at == s->mono && s->last_credential == s->started_at;
}

/* A snapshot time on the restoring clock: as long before the snapshot's instant `at` as it was
 * before the snapshot's clock. READING (engine): the age is clamped at 2^61 ms, as the elapsed
 * time is (any age past 100 years makes every deadline due all the same); fail secure, an age
 * past int64_t (forged bytes) is the oldest, never a younger session. */
static int64_t rebase(const m_snapshot *s, int64_t at, int64_t t) {
    if (t == M_NEVER) return M_NEVER;
    int64_t age;
    if (__builtin_sub_overflow(s->mono, t, &age) || age > (INT64_C(1) << 61)) age = INT64_C(1) << 61;
    return at - age;
}

/* The catch-up of a restore with a server contact reported in LOADING: "as if the process had
 * been awake" since the snapshot, the contact takes effect at its own instant, so an offline
 * deadline that fell due before it (while the process was dead) still applies; afterwards
 * "the later of the two counts". */
static void restore_evaluate(model *m, int64_t snap_at, int64_t loading_contact) {
    if (loading_contact != M_NEVER) {
        /* "the catch-up comes first, so every deadline due up to and including that instant
         * is applied (... also one due at the contact's very instant)": at the snapshot's own
         * instant too, and at it for a contact the restoring clock places before it */
        int64_t now = m->now;
        m->now = min64(max64(loading_contact, snap_at), now);
        evaluate(m, snap_at);
        m->now = now;
        if (m->last_contact == M_NEVER || loading_contact > m->last_contact) m->last_contact = loading_contact;
    }
    evaluate(m, snap_at);
}

int32_t m_restore(model *m, const m_snapshot *s) {
    enter(m);
    if (m->state != INACT_STATE_LOADING) return INACT_E_INVALID_STATE;
    m->adopted_idle = m->adopted_idle_at = m->adopted_abs = M_NEVER; /* folded into the snapshot's times */
    keepalive_reset(m); /* "after a restore it is quiet" */
    int trusted = s->boot == m->boot && m->now >= s->mono;
    /* "unless the host reported a background in LOADING (inact_background,
     * inact_device_locked, or every window hidden with the grace still running): then the
     * session stays in background after the restore" (inact_restore) */
    int bg_in_loading = m_in_background(m) || (m->windows == 0 && m->windows_zero_since != M_NEVER);
    m->failures = s->failures;
    /* "EXPIRED when ... the wall clock went backwards": the deadlines already past at the
     * snapshot's instant (elapsed 0) still give their reason (READING, engine); otherwise
     * UNTRUSTED_CLOCK. */
    int wall_back = !trusted && m->wall < s->wall;
    /* READING: with an unknown elapsed time the wall clock is the estimate of the time since
     * the snapshot (so that "the absolute lifetime passed by the wall clock" can be decided),
     * and the result is never ACTIVE. */
    int64_t wall_elapsed;
    if (__builtin_sub_overflow(m->wall, s->wall, &wall_elapsed)) wall_elapsed = m->wall < s->wall ? INT64_MAX : INT64_MAX - 1;
    /* READING (engine): the wall-clock estimate is clamped at 2^61 ms (no overflow later). */
    int64_t snap_at = trusted ? s->mono : m->now - min64(wall_back ? 0 : wall_elapsed, INT64_C(1) << 61);
    m->state = s->state;
    m->reason = INACT_REASON_RESTORED;
    /* a rotation reported in LOADING adds to what the snapshot kept */
    if (s->generation > m->generation) m->generation = s->generation;
    /* "A snapshot of a session that never started (EXPIRED from LOADING) restores with no
     * session start and no credential verification ...; so does one that signed in, ended and
     * was saved within the same millisecond" (header): the written times all at the snapshot's
     * clock. */
    int never_started = m_snapshot_never_started(s);
    m->started_at = never_started ? M_NEVER : rebase(s, snap_at, s->started_at);
    int64_t loading_contact = m->last_contact; /* a contact reported in LOADING */
    m->last_contact = rebase(s, snap_at, s->last_contact);
    m->last_credential = never_started ? M_NEVER : rebase(s, snap_at, s->last_credential);
    /* "The biometrics flag is kept in the snapshot; reported in LOADING it is added" */
    m->credential_required = m->credential_required || s->credential_required;
    /* "An untrusted restore ... with a finite strong-auth timeout requires the credential"
     * (the new engine's policy); READING (engine): an EXPIRED outcome too (the flag is kept) */
    if (!trusted && m->p.strong_auth_timeout_ms != M_NEVER) m->credential_required = 1;
    m->last_activity = rebase(s, snap_at, s->last_activity);
    m->locked_at = rebase(s, snap_at, s->locked_at);
    m->failures = s->failures;
    m->change_time = m->now;
    /* The time since the snapshot counts as background time: one background from the
     * snapshot's background start (or instant); what LOADING reported joins it. */
    m->explicit_bg = 1;
    m->explicit_bg_since = s->background_since != M_NEVER ? rebase(s, snap_at, s->background_since) : snap_at;
    m->windows_bg = 0;
    m->windows_zero_since = M_NEVER;
    m->idle_paused = 0;
    /* A paused countdown is not stored: it follows from the last activity and the background
     * start under the new engine's policy. */
    sync_pause(m, m->explicit_bg_since, snap_at);
    if (m->state == INACT_STATE_WARNING) {
        int64_t w = m_warning_deadline(m);
        if (w == M_NEVER || w > m->now) m->state = INACT_STATE_ACTIVE;
    }
    m->changed = 0;
    /* Deadlines act as if the engine had been awake since the snapshot, and none before it:
     * the session was in the snapshot's state at that instant (with the old policy). */
    restore_evaluate(m, snap_at, loading_contact);
    /* "WARNING: RESTORED when a restore lands inside the warning window" */
    if (m->state == INACT_STATE_WARNING && m->reason == INACT_REASON_IDLE) m->reason = INACT_REASON_RESTORED;
    /* Untrusted: never ACTIVE, and a lock is attributed to the clock, not to a deadline
     * computed from the wall-clock estimate. An expiry keeps its reason. */
    if (wall_back && m->state != INACT_STATE_EXPIRED) {
        set_state(m, INACT_STATE_EXPIRED, INACT_REASON_UNTRUSTED_CLOCK, m->now);
    } else if (!trusted && is_live(m->state)) {
        set_state(m, INACT_STATE_LOCKED, INACT_REASON_UNTRUSTED_CLOCK, m->now);
    } else if (!trusted && m->state == INACT_STATE_LOCKED) {
        /* "the locked timeout counts from the earliest lock the wall-clock estimate shows":
         * any LOCKED result of an untrusted restore is a lock by the clock, taking effect at
         * the restore (UNTRUSTED_CLOCK), but locked_at stays where the estimate put it. */
        m->reason = INACT_REASON_UNTRUSTED_CLOCK;
        m->change_time = m->now;
    }
    /* "With policy.lock_on_restart an ACTIVE or WARNING outcome becomes LOCKED (RESTART)" */
    if (m->p.lock_on_restart && is_live(m->state))
        set_state(m, INACT_STATE_LOCKED, INACT_REASON_RESTART, m->now);
    /* The restore ends the background that the time since the snapshot was, unless LOADING
     * reported one: it goes on. */
    if (!bg_in_loading) leave_background(m);
    evaluate(m, m->now);
    /* "Unlock failures counted at or above the engine's policy.max_unlock_failures ... make a
     * LOCKED outcome EXPIRED (UNLOCK_FAILURES), taking effect at the restore" */
    failures_spent(m);
    /* With the idle countdown paused in background, the warning window is reached only once
     * the restore leaves the background: still a restore inside the warning window. */
    if (m->state == INACT_STATE_WARNING && m->reason == INACT_REASON_IDLE) m->reason = INACT_REASON_RESTORED;
    m->untrusted = !trusted;
    emit(m);
    return INACT_OK;
}

int32_t m_restore_corrupt(model *m, int32_t status) {
    enter(m);
    if (m->state != INACT_STATE_LOADING) return INACT_E_INVALID_STATE;
    set_state(m, INACT_STATE_EXPIRED, INACT_REASON_RESTORE_FAILED, m->now);
    emit(m);
    return status;
}

/* ---- names ------------------------------------------------------------------------------- */

const char *m_state_name(int32_t s) {
    static const char *names[] = {"LOADING", "ACTIVE", "WARNING", "LOCKED", "EXPIRED"};
    return s >= 0 && s <= 4 ? names[s] : "?";
}

const char *m_reason_name(int32_t r) {
    static const char *names[] = {"NONE", "STARTED", "RESTORED", "CONTINUED", "ACTIVITY",
                                  "UNLOCKED", "EXTENDED", "IDLE", "IDLE_TIMEOUT",
                                  "BACKGROUND_TIMEOUT", "MANUAL_LOCK", "UNTRUSTED_CLOCK",
                                  "ABSOLUTE_TIMEOUT", "LOCKED_TIMEOUT", "UNLOCK_FAILURES",
                                  "LOGOUT", "REVOKED", "PASSWORD_CHANGED", "RESTORE_FAILED",
                                  "DEVICE_LOCKED", "OFFLINE_TIMEOUT", "OFFLINE_EXPIRY", "RESTART",
                                  "DEVICE_LIMIT"};
    return r >= 0 && r <= 23 ? names[r] : "?";
}
