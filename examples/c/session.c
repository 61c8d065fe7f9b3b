/*
 * session.c -- a small C host of libinactivity.
 *
 *   ./session          a whole session on the manual clock, in a few milliseconds:
 *                      sign-in, warning countdown, Continue, idle lock, unlock, a long
 *                      background, a revoked refresh token, and a cold-start restore.
 *   ./session --live   the same engine on the real clock with a short policy: events
 *                      arrive from the library's scheduler thread within ~4 seconds.
 *
 * Build: see README.md beside this file (one command with pkg-config).
 */
#define _POSIX_C_SOURCE 200809L
#include <inactivity.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t origin_ms; /* printed times are relative to this engine-clock instant */

/* The callback: keep it short; a real app posts to its UI thread here. */
static void on_event(const inact_event *event, void *user_data) {
    const char *who = (const char *)user_data;
    if (event->kind == INACT_EVENT_TICK) {
        printf("  [%s] t=%6.1fs  tick: locking in %lld s\n", who,
               (event->time_ms - origin_ms) / 1000.0,
               (long long)(event->remaining_ms / 1000));
    } else {
        printf("  [%s] t=%6.1fs  %s -> %s (%s)\n", who, (event->time_ms - origin_ms) / 1000.0,
               inact_state_string(event->previous_state), inact_state_string(event->state),
               inact_reason_string(event->reason));
    }
}

/* Every call returns a status; on failure inact_last_error() says what and why. */
static int check(int32_t status, const char *what) {
    if (status != INACT_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, inact_status_string(status), inact_last_error());
        return 0;
    }
    return 1;
}
#define TRY(call)                        \
    do {                                 \
        if (!check((call), #call)) return 1; \
    } while (0)

static int simulated(void) {
    inact_config config;
    inact_policy policy;
    inact_engine engine = 0, restored = 0;
    uint8_t snapshot[INACT_SNAPSHOT_MAX_SIZE];
    size_t length = 0;
    int64_t mono = 0, wall = 0;
    uint64_t boot = 0;
    int32_t outcome = 0, state = 0;

    /* A manual clock: time moves only when we say so. */
    TRY(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;

    /* Banking preset (5 min idle, 30 s warning, 30 s background), 5 s warning ticks. */
    TRY(inact_policy_preset(&policy, INACT_PRESET_BANKING));
    policy.tick_ms = 5000;
    TRY(inact_policy_validate(&policy));

    TRY(inact_engine_create(&config, &policy, on_event, (void *)"app", NULL, &engine));
    printf("libinactivity %s: a simulated session\n", inact_version_string());

    TRY(inact_start(engine));                       /* the user signed in */
    TRY(inact_clock_advance(engine, 4 * 60 * 1000 + 30 * 1000)); /* idle 4.5 min */
    TRY(inact_clock_advance(engine, 10 * 1000));    /* countdown ticks */
    TRY(inact_continue(engine));                    /* "Still there?" -> Continue */
    TRY(inact_clock_advance(engine, 5 * 60 * 1000)); /* idle 5 min: locked */
    TRY(inact_unlock(engine));                      /* PIN verified */

    TRY(inact_background(engine));                  /* the app went to background */
    TRY(inact_snapshot_write(engine, snapshot, sizeof snapshot, &length)); /* persist it */
    TRY(inact_clock_advance(engine, 2 * 60 * 1000)); /* 2 min away: locked on time */
    TRY(inact_foreground(engine));
    TRY(inact_unlock(engine));

    TRY(inact_refresh_result(engine, 503, NULL, &outcome)); /* a network error... */
    printf("  [app] refresh 503 -> %s\n", outcome == INACT_REFRESH_RETRY ? "retry" : "?");
    TRY(inact_refresh_result(engine, 400, "invalid_grant", &outcome)); /* ...and a revoke */

    /* Cold start: a new process restores the snapshot written at background time,
     * 10 minutes later on the same boot. */
    TRY(inact_clock_now(engine, &mono, &wall, &boot));
    TRY(inact_destroy(engine));
    config.manual_start_ms = mono - 2 * 60 * 1000 + 10 * 60 * 1000;
    config.manual_wall_ms = wall - 2 * 60 * 1000 + 10 * 60 * 1000;
    config.manual_boot_id = boot;
    TRY(inact_engine_create(&config, &policy, on_event, (void *)"restarted app", NULL, &restored));
    TRY(inact_restore(restored, snapshot, length));
    TRY(inact_get_state(restored, &state));
    TRY(inact_destroy(restored));
    printf("restored state: %s\n", inact_state_string(state));
    return state == INACT_STATE_LOCKED ? 0 : 1;
}

static int live(void) {
    inact_policy policy;
    inact_engine engine = 0;
    struct timespec wait = {4, 500000000L};
    int32_t state = 0;

    TRY(inact_policy_init(&policy));
    policy.idle_timeout_ms = 3000;
    policy.warning_ms = 2000;
    policy.tick_ms = 1000;
    /* NULL config: THREAD delivery on the system clock (CLOCK_BOOTTIME). */
    TRY(inact_engine_create(NULL, &policy, on_event, (void *)"live", NULL, &engine));
    printf("libinactivity %s: idle 3 s, warning 2 s, on the real clock\n",
           inact_version_string());
    TRY(inact_clock_now(engine, &origin_ms, NULL, NULL));
    TRY(inact_start(engine));
    TRY(inact_activity(engine, INACT_ACTIVITY_TOUCH_DOWN)); /* call on every input event */
    nanosleep(&wait, NULL); /* events arrive on the scheduler thread meanwhile */
    TRY(inact_get_state(engine, &state));
    TRY(inact_destroy(engine));
    printf("final state: %s\n", inact_state_string(state));
    return state == INACT_STATE_LOCKED ? 0 : 1;
}

int main(int argc, char **argv) {
    if (inact_version_number() / 10000 != INACT_VERSION_MAJOR) {
        fprintf(stderr, "libinactivity %s is not ABI compatible with this build (%s)\n",
                inact_version_string(), INACT_VERSION_STRING);
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "--live") == 0) return live();
    return simulated();
}
