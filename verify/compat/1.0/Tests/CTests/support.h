/*
 * support.h -- shared fixtures of the C suite: an event recorder usable as an engine
 * callback, engine factories for the manual clock, and checks that a rejected call
 * changed nothing.
 */
#ifndef INACT_CTESTS_SUPPORT_H
#define INACT_CTESTS_SUPPORT_H

#include <pthread.h>
#include <stdint.h>

#include "harness.h"
#include "inactivity.h"

#define SECOND_MS 1000LL
#define MINUTE_MS (60LL * SECOND_MS)
#define HOUR_MS (60LL * MINUTE_MS)
#define YEAR_MS (365LL * 24LL * HOUR_MS)

/* One delivered event, as the callback saw it. */
typedef struct recorded_event {
    inact_event event;
    pthread_t thread;   /* the thread that ran the callback */
    int64_t wall_ns;    /* CLOCK_MONOTONIC when it arrived (real-clock tests) */
    int nested;         /* 1 when it arrived while another callback of it ran */
} recorded_event;

#define RECORDER_CAPACITY 512

typedef struct recorder recorder;
/* Runs inside the callback after the event is recorded (re-entrancy, destroy tests). */
typedef void (*recorder_hook)(recorder *rec, const inact_event *event);

struct recorder {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    recorded_event events[RECORDER_CAPACITY];
    int count;
    int overflowed;
    int depth;       /* callbacks of this recorder running now */
    int recursions;  /* callbacks that started while another one ran */
    int frees;       /* user_data_free calls */
    recorder_hook hook;
    void *hook_context;
};

void recorder_init(recorder *rec);
void recorder_deinit(recorder *rec);
/* The inact_callback and inact_user_data_free to pass with `rec` as user_data. */
void recorder_callback(const inact_event *event, void *user_data);
void recorder_free(void *user_data);
int recorder_count(recorder *rec);
int recorder_frees(recorder *rec);
/* Copy of event `index` (0-based); zeroed if there is none. */
recorded_event recorder_at(recorder *rec, int index);
/* Waits until at least `count` events arrived or `timeout_ms` passed; returns the count. */
int recorder_wait(recorder *rec, int count, int64_t timeout_ms);
/* Number of STATE_CHANGED / TICK events from `from` on. */
int recorder_count_kind(recorder *rec, int32_t kind, int from);

/* A policy that makes manual-clock arithmetic easy to read: idle 60 s, warning 10 s,
 * tick 1 s, background 30 s, grace 700 ms, absolute 12 h, locked never, LOCK. */
inact_policy test_policy(void);

/* Creates a MANUAL-clock engine (monotonic 0, wall default, boot 1) with `rec`
 * (may be NULL: no callback). Fails the test if creation fails. */
inact_engine make_manual_engine(recorder *rec, const inact_policy *policy, int32_t delivery);
/* Same with an explicit config. */
inact_engine make_engine(recorder *rec, const inact_config *config, const inact_policy *policy);

/* Queries that fail the test when the call fails. */
int32_t state_of(inact_engine engine);
int32_t reason_of(inact_engine engine);
int64_t remaining_of(inact_engine engine);
inact_info info_of(inact_engine engine);
int64_t now_of(inact_engine engine);

/* Drives a manual engine: advance and check the status. */
void advance(inact_engine engine, int64_t ms);
/* Freezes the manual clock for `ms` (nothing delivered), then polls once: the catch-up. */
void freeze_then_poll(inact_engine engine, int64_t ms);

/* Everything observable about an engine, to check that a rejected call changed nothing. */
typedef struct fingerprint {
    inact_info info;
    inact_policy policy;
    int events;
} fingerprint;
void fingerprint_take(inact_engine engine, recorder *rec, fingerprint *out);

/* Checks one rejected call: its status, a non-empty last error that contains
 * `mention` (when not NULL), and that the engine did not change (when engine != 0). */
void check_rejected_(const char *file, int line, const char *expr, int32_t got,
                     int32_t expected, const char *message, const char *mention,
                     inact_engine engine, recorder *rec, const fingerprint *before);

#define CHECK_REJECTED(engine, rec, call, expected, mention)                          \
    do {                                                                              \
        fingerprint before_;                                                          \
        char message_[512];                                                           \
        int32_t got_;                                                                 \
        if ((engine) != 0) fingerprint_take((engine), (rec), &before_);               \
        got_ = (call);                                                                \
        strncpy(message_, inact_last_error(), sizeof message_ - 1);                   \
        message_[sizeof message_ - 1] = '\0';                                         \
        check_rejected_(__FILE__, __LINE__, #call, got_, (expected), message_,        \
                        (mention), (engine), (rec), &before_);                        \
    } while (0)

/* Checks recorded event `index`: a STATE_CHANGED from `prev` to `state` with `reason`,
 * taking effect at `time_ms` (pass -1 to skip the time). */
void check_transition_(const char *file, int line, recorder *rec, int index, int32_t prev,
                       int32_t state, int32_t reason, int64_t time_ms);
#define CHECK_TRANSITION(rec, index, prev, state, reason, time_ms) \
    check_transition_(__FILE__, __LINE__, (rec), (index), (prev), (state), (reason), (time_ms))

/* Checks recorded event `index`: a TICK in WARNING with `remaining_ms` at `time_ms`. */
void check_tick_(const char *file, int line, recorder *rec, int index, int64_t remaining_ms,
                 int64_t time_ms);
#define CHECK_TICK(rec, index, remaining_ms, time_ms) \
    check_tick_(__FILE__, __LINE__, (rec), (index), (remaining_ms), (time_ms))

/* Real-clock helpers. */
int64_t monotonic_ms(void);
void sleep_ms(int64_t ms);

#endif
