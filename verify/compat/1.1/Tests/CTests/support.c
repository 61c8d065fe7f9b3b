/*
 * support.c -- fixtures shared by the C suite (see support.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t monotonic_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void sleep_ms(int64_t ms) {
    struct timespec ts;
    ts.tv_sec = (time_t)(ms / 1000);
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void recorder_init(recorder *rec) {
    memset(rec, 0, sizeof *rec);
    pthread_mutex_init(&rec->mutex, NULL);
    pthread_cond_init(&rec->changed, NULL);
}

void recorder_deinit(recorder *rec) {
    pthread_cond_destroy(&rec->changed);
    pthread_mutex_destroy(&rec->mutex);
}

void recorder_callback(const inact_event *event, void *user_data) {
    recorder *rec = (recorder *)user_data;
    recorder_hook hook;
    pthread_mutex_lock(&rec->mutex);
    rec->depth++;
    if (rec->depth > 1) rec->recursions++;
    if (rec->count < RECORDER_CAPACITY) {
        recorded_event *slot = &rec->events[rec->count++];
        memset(slot, 0, sizeof *slot);
        /* Copy at most what both sides know; the library's event may be newer. */
        memcpy(&slot->event, event,
               event->size < sizeof(inact_event) ? event->size : sizeof(inact_event));
        slot->thread = pthread_self();
        slot->wall_ns = monotonic_ns();
        slot->nested = rec->depth > 1;
    } else {
        rec->overflowed = 1;
    }
    hook = rec->hook;
    pthread_cond_broadcast(&rec->changed);
    pthread_mutex_unlock(&rec->mutex);

    if (hook != NULL) hook(rec, event);

    pthread_mutex_lock(&rec->mutex);
    rec->depth--;
    pthread_mutex_unlock(&rec->mutex);
}

void recorder_free(void *user_data) {
    recorder *rec = (recorder *)user_data;
    pthread_mutex_lock(&rec->mutex);
    rec->frees++;
    pthread_cond_broadcast(&rec->changed);
    pthread_mutex_unlock(&rec->mutex);
}

int recorder_count(recorder *rec) {
    int count;
    pthread_mutex_lock(&rec->mutex);
    count = rec->count;
    pthread_mutex_unlock(&rec->mutex);
    return count;
}

int recorder_frees(recorder *rec) {
    int frees;
    pthread_mutex_lock(&rec->mutex);
    frees = rec->frees;
    pthread_mutex_unlock(&rec->mutex);
    return frees;
}

recorded_event recorder_at(recorder *rec, int index) {
    recorded_event copy;
    memset(&copy, 0, sizeof copy);
    pthread_mutex_lock(&rec->mutex);
    if (index >= 0 && index < rec->count) copy = rec->events[index];
    pthread_mutex_unlock(&rec->mutex);
    return copy;
}

int recorder_count_kind(recorder *rec, int32_t kind, int from) {
    int i, n = 0;
    pthread_mutex_lock(&rec->mutex);
    for (i = from; i < rec->count; i++)
        if (rec->events[i].event.kind == kind) n++;
    pthread_mutex_unlock(&rec->mutex);
    return n;
}

int recorder_wait(recorder *rec, int count, int64_t timeout_ms) {
    struct timespec deadline;
    int got;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)(timeout_ms / 1000);
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&rec->mutex);
    while (rec->count < count) {
        if (pthread_cond_timedwait(&rec->changed, &rec->mutex, &deadline) == ETIMEDOUT) break;
    }
    got = rec->count;
    pthread_mutex_unlock(&rec->mutex);
    return got;
}

inact_policy test_policy(void) {
    inact_policy policy;
    memset(&policy, 0, sizeof policy);
    if (inact_policy_init(&policy) != INACT_OK) {
        harness_fail(__FILE__, __LINE__, "inact_policy_init failed: %s", inact_last_error());
        harness_abort_test();
    }
    policy.idle_action = INACT_IDLE_ACTION_LOCK;
    policy.idle_timeout_ms = 60 * SECOND_MS;
    policy.warning_ms = 10 * SECOND_MS;
    policy.tick_ms = 1 * SECOND_MS;
    policy.background_timeout_ms = 30 * SECOND_MS;
    policy.background_grace_ms = 700;
    policy.absolute_timeout_ms = 12 * HOUR_MS;
    policy.locked_timeout_ms = INACT_NEVER;
    policy.max_unlock_failures = 0;
    return policy;
}

inact_engine make_engine(recorder *rec, const inact_config *config, const inact_policy *policy) {
    inact_engine engine = 0;
    int32_t status = inact_engine_create(config, policy, rec ? recorder_callback : NULL, rec,
                                         rec ? recorder_free : NULL, &engine);
    if (status != INACT_OK || engine == 0) {
        harness_fail(__FILE__, __LINE__, "inact_engine_create returned %s: %s",
                     harness_status_name(status), inact_last_error());
        harness_abort_test();
    }
    return engine;
}

inact_engine make_manual_engine(recorder *rec, const inact_policy *policy, int32_t delivery) {
    inact_config config;
    if (inact_config_init(&config) != INACT_OK) {
        harness_fail(__FILE__, __LINE__, "inact_config_init failed");
        harness_abort_test();
    }
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = delivery;
    return make_engine(rec, &config, policy);
}

#define QUERY_OR_ABORT(call)                                                          \
    do {                                                                              \
        int32_t s_ = (call);                                                          \
        if (s_ != INACT_OK) {                                                         \
            harness_fail(__FILE__, __LINE__, "%s returned %s: %s", #call,             \
                         harness_status_name(s_), inact_last_error());                \
            harness_abort_test();                                                     \
        }                                                                             \
    } while (0)

int32_t state_of(inact_engine engine) {
    int32_t state = -1;
    QUERY_OR_ABORT(inact_get_state(engine, &state));
    return state;
}

int32_t reason_of(inact_engine engine) {
    int32_t reason = -1;
    QUERY_OR_ABORT(inact_get_reason(engine, &reason));
    return reason;
}

int64_t remaining_of(inact_engine engine) {
    int64_t remaining = -1;
    QUERY_OR_ABORT(inact_get_remaining(engine, &remaining));
    return remaining;
}

inact_info info_of(inact_engine engine) {
    inact_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    QUERY_OR_ABORT(inact_get_info(engine, &info));
    return info;
}

int64_t now_of(inact_engine engine) {
    int64_t now = -1;
    QUERY_OR_ABORT(inact_clock_now(engine, &now, NULL, NULL));
    return now;
}

void advance(inact_engine engine, int64_t ms) { QUERY_OR_ABORT(inact_clock_advance(engine, ms)); }

void freeze_then_poll(inact_engine engine, int64_t ms) {
    QUERY_OR_ABORT(inact_clock_freeze(engine, ms));
    QUERY_OR_ABORT(inact_poll(engine));
}

void fingerprint_take(inact_engine engine, recorder *rec, fingerprint *out) {
    memset(out, 0, sizeof *out);
    out->info = info_of(engine);
    out->policy.size = sizeof out->policy;
    QUERY_OR_ABORT(inact_get_policy(engine, &out->policy));
    if (out->info.clock == INACT_CLOCK_SYSTEM) {
        /* The system clock moves between two reads: compare the rest. */
        out->info.now_ms = 0;
        out->info.remaining_ms = 0;
        out->info.next_deadline_ms = 0;
    }
    out->events = rec ? recorder_count(rec) : 0;
}

void check_rejected_(const char *file, int line, const char *expr, int32_t got,
                     int32_t expected, const char *message, const char *mention,
                     inact_engine engine, recorder *rec, const fingerprint *before) {
    if (got != expected) {
        harness_fail(file, line, "%s returned %s (%d), expected %s (%d); last error: \"%s\"",
                     expr, harness_status_name(got), (int)got, harness_status_name(expected),
                     (int)expected, message);
        return;
    }
    if (expected == INACT_OK) return;
    if (message[0] == '\0')
        harness_fail(file, line, "%s: inact_last_error() is empty after %s", expr,
                     harness_status_name(got));
    else if (mention != NULL && strstr(message, mention) == NULL)
        harness_fail(file, line, "%s: last error \"%s\" does not name \"%s\"", expr, message,
                     mention);
    if (engine != 0) {
        fingerprint after;
        fingerprint_take(engine, rec, &after);
        if (memcmp(&before->info, &after.info, sizeof after.info) != 0)
            harness_fail(file, line, "%s changed the engine's info (state %d->%d)", expr,
                         (int)before->info.state, (int)after.info.state);
        if (memcmp(&before->policy, &after.policy, sizeof after.policy) != 0)
            harness_fail(file, line, "%s changed the engine's policy", expr);
        if (before->events != after.events)
            harness_fail(file, line, "%s delivered %d event(s)", expr,
                         after.events - before->events);
    }
}

void check_transition_(const char *file, int line, recorder *rec, int index, int32_t prev,
                       int32_t state, int32_t reason, int64_t time_ms) {
    recorded_event got;
    if (index >= recorder_count(rec)) {
        harness_fail(file, line, "expected event #%d (%d->%d reason %d), only %d arrived",
                     index, (int)prev, (int)state, (int)reason, recorder_count(rec));
        return;
    }
    got = recorder_at(rec, index);
    if (got.event.kind != INACT_EVENT_STATE_CHANGED || got.event.previous_state != prev ||
        got.event.state != state || got.event.reason != reason ||
        (time_ms >= 0 && got.event.time_ms != time_ms)) {
        harness_fail(file, line,
                     "event #%d: kind %d %d->%d reason %d at %lld; expected STATE_CHANGED "
                     "%d->%d reason %d at %lld",
                     index, (int)got.event.kind, (int)got.event.previous_state,
                     (int)got.event.state, (int)got.event.reason, (long long)got.event.time_ms,
                     (int)prev, (int)state, (int)reason, (long long)time_ms);
    }
}

void check_tick_(const char *file, int line, recorder *rec, int index, int64_t remaining_ms,
                 int64_t time_ms) {
    recorded_event got;
    if (index >= recorder_count(rec)) {
        harness_fail(file, line, "expected tick #%d (remaining %lld), only %d events arrived",
                     index, (long long)remaining_ms, recorder_count(rec));
        return;
    }
    got = recorder_at(rec, index);
    if (got.event.kind != INACT_EVENT_TICK || got.event.state != INACT_STATE_WARNING ||
        got.event.previous_state != INACT_STATE_WARNING ||
        got.event.remaining_ms != remaining_ms || got.event.time_ms != time_ms) {
        harness_fail(file, line,
                     "event #%d: kind %d %d->%d remaining %lld at %lld; expected TICK in "
                     "WARNING remaining %lld at %lld",
                     index, (int)got.event.kind, (int)got.event.previous_state,
                     (int)got.event.state, (long long)got.event.remaining_ms,
                     (long long)got.event.time_ms, (long long)remaining_ms, (long long)time_ms);
    }
}

int thread_count(void) {
    DIR *dir = opendir("/proc/self/task");
    struct dirent *entry;
    int n = 0;
    if (dir == NULL) return -1;
    while ((entry = readdir(dir)) != NULL)
        if (entry->d_name[0] != '.') n++;
    closedir(dir);
    return n;
}
