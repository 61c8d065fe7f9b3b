/*
 * test_session.c -- sessions driven only through the C ABI on the manual clock:
 * the full life of a session, then one behaviour per test. Times are exact.
 * The policy unless stated: idle 60 s, warning 10 s, tick 1 s, background 30 s,
 * grace 700 ms, absolute 12 h, locked never, idle action LOCK (support.c test_policy).
 */
#include "support.h"

#include <string.h>

TEST(full_session_through_the_abi) {
    /* Steps of at most one deadline each: a longer advance folds what fell due into one
     * transition (one_long_advance_folds_every_due_deadline_into_one_transition). */
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    int32_t outcome = -1;
    int i, seen;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    CHECK_EQ(state_of(engine), INACT_STATE_LOADING);
    CHECK_EQ(reason_of(engine), INACT_REASON_NONE);

    /* start: ACTIVE, delivered before inact_start returns */
    REQUIRE_OK(inact_start(engine));
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_ACTIVE, INACT_REASON_STARTED, 0);
    CHECK_EQ(remaining_of(engine), 60000);

    /* nothing before the warning deadline; WARNING exactly at 50 s */
    advance(engine, 49999);
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    advance(engine, 1);
    REQUIRE(recorder_count(&rec) == 2);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_WARNING, INACT_REASON_IDLE, 50000);
    CHECK_EQ(recorder_at(&rec, 1).event.remaining_ms, 10000);

    /* countdown ticks, aligned to the remaining time */
    for (i = 0; i < 3; i++) {
        advance(engine, 999);
        CHECK_EQ(recorder_count(&rec), 2 + i);
        advance(engine, 1);
        CHECK_EQ(recorder_count(&rec), 3 + i);
        CHECK_TICK(&rec, 2 + i, 9000 - 1000 * i, 51000 + 1000 * i);
    }

    /* continue: ACTIVE, the idle timeout counts from now */
    seen = recorder_count(&rec);
    REQUIRE_OK(inact_continue(engine));
    CHECK_EQ(recorder_count(&rec), seen + 1);
    CHECK_TRANSITION(&rec, seen, INACT_STATE_WARNING, INACT_STATE_ACTIVE,
                     INACT_REASON_CONTINUED, 53000);
    CHECK_EQ(remaining_of(engine), 60000);

    /* idle again: WARNING at 103 s, ticks 9..1 s, LOCKED exactly at 113 s */
    seen = recorder_count(&rec);
    advance(engine, 49999);
    CHECK_EQ(recorder_count(&rec), seen);
    advance(engine, 1);
    CHECK_TRANSITION(&rec, seen, INACT_STATE_ACTIVE, INACT_STATE_WARNING, INACT_REASON_IDLE,
                     103000);
    for (i = 0; i < 9; i++) {
        advance(engine, 1000);
        CHECK_TICK(&rec, seen + 1 + i, 9000 - 1000 * i, 104000 + 1000 * i);
    }
    seen = recorder_count(&rec);
    advance(engine, 999);
    CHECK_EQ(recorder_count(&rec), seen);
    CHECK_EQ(state_of(engine), INACT_STATE_WARNING);
    advance(engine, 1);
    CHECK_EQ(recorder_count(&rec), seen + 1);
    CHECK_TRANSITION(&rec, seen, INACT_STATE_WARNING, INACT_STATE_LOCKED,
                     INACT_REASON_IDLE_TIMEOUT, 113000);
    CHECK_EQ(info_of(engine).locked_at_ms, 113000);

    /* unlock */
    seen = recorder_count(&rec);
    REQUIRE_OK(inact_unlock(engine));
    CHECK_TRANSITION(&rec, seen, INACT_STATE_LOCKED, INACT_STATE_ACTIVE, INACT_REASON_UNLOCKED,
                     113000);
    CHECK_EQ(remaining_of(engine), 60000);

    /* background past the background timeout: LOCKED on time, still LOCKED in foreground
     * (background_past_timeout_locks_on_foreground_before_it_returns covers a host that
     * was not woken in background) */
    seen = recorder_count(&rec);
    REQUIRE_OK(inact_background(engine));
    CHECK_EQ(info_of(engine).in_background, 1);
    CHECK_EQ(info_of(engine).background_since_ms, 113000);
    advance(engine, 29999);
    CHECK_EQ(recorder_count(&rec), seen);
    advance(engine, 1);
    CHECK_EQ(recorder_count(&rec), seen + 1);
    CHECK_TRANSITION(&rec, seen, INACT_STATE_ACTIVE, INACT_STATE_LOCKED,
                     INACT_REASON_BACKGROUND_TIMEOUT, 143000);
    REQUIRE_OK(inact_foreground(engine));
    CHECK_EQ(recorder_count(&rec), seen + 1);
    CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
    CHECK_EQ(info_of(engine).in_background, 0);

    seen = recorder_count(&rec);
    REQUIRE_OK(inact_unlock(engine));
    CHECK_TRANSITION(&rec, seen, INACT_STATE_LOCKED, INACT_STATE_ACTIVE, INACT_REASON_UNLOCKED,
                     143000);

    /* network trouble never ends the session */
    seen = recorder_count(&rec);
    REQUIRE_OK(inact_refresh_result(engine, 503, NULL, &outcome));
    CHECK_EQ(outcome, INACT_REFRESH_RETRY);
    REQUIRE_OK(inact_refresh_result(engine, 0, NULL, &outcome));
    CHECK_EQ(outcome, INACT_REFRESH_RETRY);
    CHECK_EQ(recorder_count(&rec), seen);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);

    /* a revoked refresh token: EXPIRED before the call returns */
    REQUIRE_OK(inact_refresh_result(engine, 400, "invalid_grant", &outcome));
    CHECK_EQ(outcome, INACT_REFRESH_REVOKED);
    CHECK_EQ(recorder_count(&rec), seen + 1);
    CHECK_TRANSITION(&rec, seen, INACT_STATE_ACTIVE, INACT_STATE_EXPIRED, INACT_REASON_REVOKED,
                     143000);
    CHECK_EQ(remaining_of(engine), INACT_NEVER);

    /* and a new sign-in starts a new session */
    advance(engine, 5000);
    seen = recorder_count(&rec);
    REQUIRE_OK(inact_start(engine));
    CHECK_TRANSITION(&rec, seen, INACT_STATE_EXPIRED, INACT_STATE_ACTIVE, INACT_REASON_STARTED,
                     148000);
    CHECK_EQ(info_of(engine).started_at_ms, 148000);
    CHECK_EQ(remaining_of(engine), 60000);

    CHECK_EQ(rec.recursions, 0);
    CHECK_EQ(rec.overflowed, 0);
    REQUIRE_OK(inact_destroy(engine));
    CHECK_EQ(recorder_frees(&rec), 1);
    recorder_deinit(&rec);
}

TEST(past_ticks_are_not_replayed_after_a_freeze) {
    /* A process frozen for 3.5 s in WARNING: of the ticks that fell due only the latest is
     * delivered, by the first call after the freeze. */
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 50000);
    REQUIRE(state_of(engine) == INACT_STATE_WARNING);
    REQUIRE_OK(inact_clock_freeze(engine, 3500));
    CHECK_EQ(recorder_count(&rec), 2); /* nothing while frozen */
    REQUIRE_OK(inact_poll(engine));
    CHECK_EQ(recorder_count(&rec), 3);
    /* the tick of 53 s, seen at 53.5 s: remaining counts from now */
    CHECK_EQ(recorder_at(&rec, 2).event.kind, INACT_EVENT_TICK);
    CHECK_EQ(recorder_at(&rec, 2).event.time_ms, 53000);
    CHECK_EQ(recorder_at(&rec, 2).event.now_ms, 53500);
    CHECK_EQ(recorder_at(&rec, 2).event.remaining_ms, 6500);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(advance_through_the_warning_delivers_every_tick) {
    /* inact_clock_advance is time passing in a live process: the engine wakes at each tick. */
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 50000);
    REQUIRE(state_of(engine) == INACT_STATE_WARNING);
    advance(engine, 3500);
    CHECK_EQ(recorder_count(&rec), 5);
    CHECK_EQ(recorder_at(&rec, 2).event.time_ms, 51000);
    CHECK_EQ(recorder_at(&rec, 3).event.time_ms, 52000);
    CHECK_EQ(recorder_at(&rec, 4).event.time_ms, 53000);
    CHECK_EQ(recorder_at(&rec, 4).event.now_ms, 53000);
    CHECK_EQ(recorder_at(&rec, 4).event.remaining_ms, 7000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(idle_action_expire_expires_at_idle_timeout) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.idle_action = INACT_IDLE_ACTION_EXPIRE;
    policy.tick_ms = 0;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 59999);
    CHECK_EQ(recorder_count(&rec), 2); /* STARTED, WARNING; no ticks with tick 0 */
    advance(engine, 1);
    CHECK_TRANSITION(&rec, 2, INACT_STATE_WARNING, INACT_STATE_EXPIRED, INACT_REASON_IDLE_TIMEOUT,
                     60000);
    CHECK_EQ(recorder_count(&rec), 3);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(activity_postpones_the_idle_deadline) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 30000);
    REQUIRE_OK(inact_activity(engine, INACT_ACTIVITY_TOUCH_DOWN));
    CHECK_EQ(info_of(engine).last_activity_ms, 30000);
    CHECK_EQ(remaining_of(engine), 60000);
    advance(engine, 49999);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    advance(engine, 1);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_WARNING, INACT_REASON_IDLE, 80000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(activity_of_an_uncounted_kind_is_ignored) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 20000);
    /* PROGRAMMATIC is not in the default mask */
    CHECK_STATUS(inact_activity(engine, INACT_ACTIVITY_PROGRAMMATIC), INACT_OK);
    CHECK_EQ(info_of(engine).last_activity_ms, 0);
    CHECK_EQ(remaining_of(engine), 40000);
    /* every user kind counts */
    CHECK_STATUS(inact_activity(engine, INACT_ACTIVITY_SCROLL), INACT_OK);
    CHECK_EQ(info_of(engine).last_activity_ms, 20000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(activity_in_warning_is_not_recorded_by_default) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.tick_ms = 0;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 55000);
    REQUIRE(state_of(engine) == INACT_STATE_WARNING);
    CHECK_STATUS(inact_activity(engine, INACT_ACTIVITY_KEY), INACT_OK);
    CHECK_EQ(state_of(engine), INACT_STATE_WARNING);
    CHECK_EQ(info_of(engine).last_activity_ms, 0);
    advance(engine, 5000);
    CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(activity_dismisses_warning_when_policy_allows) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.tick_ms = 0;
    policy.activity_dismisses_warning = 1;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 55000);
    REQUIRE(state_of(engine) == INACT_STATE_WARNING);
    REQUIRE_OK(inact_activity(engine, INACT_ACTIVITY_KEY));
    CHECK_TRANSITION(&rec, 2, INACT_STATE_WARNING, INACT_STATE_ACTIVE, INACT_REASON_ACTIVITY,
                     55000);
    CHECK_EQ(remaining_of(engine), 60000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(activity_in_background_is_ignored) {
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_background(engine));
    advance(engine, 10000);
    CHECK_STATUS(inact_activity(engine, INACT_ACTIVITY_TOUCH_DOWN), INACT_OK);
    CHECK_EQ(info_of(engine).last_activity_ms, 0);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(absolute_timeout_expires_whatever_the_activity) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    int i;
    recorder_init(&rec);
    policy.absolute_timeout_ms = 5 * MINUTE_MS;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    for (i = 0; i < 9; i++) {
        advance(engine, 30000);
        REQUIRE_OK(inact_activity(engine, INACT_ACTIVITY_TOUCH_DOWN));
    }
    CHECK_EQ(remaining_of(engine), 30000); /* the absolute deadline is the nearer one */
    advance(engine, 29999);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    advance(engine, 1);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_EXPIRED,
                     INACT_REASON_ABSOLUTE_TIMEOUT, 300000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(unlock_keeps_the_absolute_lifetime) {
    inact_policy policy = test_policy();
    inact_engine engine;
    policy.absolute_timeout_ms = 90000;
    engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 60000);
    REQUIRE(state_of(engine) == INACT_STATE_LOCKED);
    REQUIRE_OK(inact_unlock(engine));
    CHECK_EQ(info_of(engine).started_at_ms, 0);
    CHECK_EQ(remaining_of(engine), 30000); /* the absolute deadline, not a new lifetime */
    advance(engine, 29999);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    advance(engine, 1);
    CHECK_EQ(state_of(engine), INACT_STATE_EXPIRED);
    CHECK_EQ(reason_of(engine), INACT_REASON_ABSOLUTE_TIMEOUT);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(locked_timeout_expires_a_locked_session) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.locked_timeout_ms = 2 * MINUTE_MS;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 1000);
    REQUIRE_OK(inact_lock(engine));
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_LOCKED, INACT_REASON_MANUAL_LOCK,
                     1000);
    CHECK_EQ(remaining_of(engine), 120000);
    advance(engine, 119999);
    CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
    advance(engine, 1);
    CHECK_TRANSITION(&rec, 2, INACT_STATE_LOCKED, INACT_STATE_EXPIRED, INACT_REASON_LOCKED_TIMEOUT,
                     121000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(a_freeze_folds_every_due_deadline_into_one_transition) {
    /* A process frozen for 10 minutes: WARNING (50 s), LOCKED (60 s) and the locked
     * timeout (60 s + 1 min) all fell due. Deadlines apply in time order (the locked
     * timeout runs from the lock, not from now), and the host sees one transition from
     * what it saw to the final state, carrying the last deadline's reason and time. */
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.tick_ms = 0;
    policy.locked_timeout_ms = MINUTE_MS;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_THREAD);
    REQUIRE_OK(inact_start(engine));
    freeze_then_poll(engine, 10 * MINUTE_MS);
    CHECK_EQ(recorder_count(&rec), 2);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_EXPIRED,
                     INACT_REASON_LOCKED_TIMEOUT, 120000);
    CHECK_EQ(recorder_at(&rec, 1).event.now_ms, 10 * MINUTE_MS);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(one_long_advance_delivers_every_deadline_in_time_order) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.tick_ms = 0;
    policy.locked_timeout_ms = MINUTE_MS;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_THREAD);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 10 * MINUTE_MS);
    CHECK_EQ(recorder_count(&rec), 4);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_WARNING, INACT_REASON_IDLE, 50000);
    CHECK_TRANSITION(&rec, 2, INACT_STATE_WARNING, INACT_STATE_LOCKED, INACT_REASON_IDLE_TIMEOUT,
                     60000);
    CHECK_TRANSITION(&rec, 3, INACT_STATE_LOCKED, INACT_STATE_EXPIRED,
                     INACT_REASON_LOCKED_TIMEOUT, 120000);
    CHECK_EQ(recorder_at(&rec, 3).event.now_ms, 120000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(catch_up_stops_at_the_state_the_deadlines_reach) {
    /* Frozen 75 min - 1 ms with a 1 h locked timeout: locked at 15 min, not yet expired. */
    recorder rec;
    inact_policy policy;
    inact_engine engine;
    recorder_init(&rec);
    REQUIRE_OK(inact_policy_init(&policy));
    policy.locked_timeout_ms = HOUR_MS;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    freeze_then_poll(engine, 75 * MINUTE_MS - 1);
    CHECK_EQ(recorder_count(&rec), 2);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_LOCKED, INACT_REASON_IDLE_TIMEOUT,
                     15 * MINUTE_MS);
    advance(engine, 1);
    CHECK_TRANSITION(&rec, 2, INACT_STATE_LOCKED, INACT_STATE_EXPIRED,
                     INACT_REASON_LOCKED_TIMEOUT, 75 * MINUTE_MS);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(unlock_failures_expire_at_the_limit) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    uint32_t failures = 99;
    recorder_init(&rec);
    policy.max_unlock_failures = 3;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_lock(engine));
    REQUIRE_OK(inact_unlock_failed(engine, &failures));
    CHECK_EQ(failures, 1);
    REQUIRE_OK(inact_unlock_failed(engine, NULL));
    CHECK_EQ(info_of(engine).unlock_failures, 2);
    CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
    REQUIRE_OK(inact_unlock_failed(engine, &failures));
    CHECK_EQ(failures, 3);
    CHECK_TRANSITION(&rec, 2, INACT_STATE_LOCKED, INACT_STATE_EXPIRED,
                     INACT_REASON_UNLOCK_FAILURES, 0);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(unlock_resets_the_failure_count) {
    inact_policy policy = test_policy();
    inact_engine engine;
    policy.max_unlock_failures = 2;
    engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_lock(engine));
    REQUIRE_OK(inact_unlock_failed(engine, NULL));
    REQUIRE_OK(inact_unlock(engine));
    CHECK_EQ(info_of(engine).unlock_failures, 0);
    REQUIRE_OK(inact_lock(engine));
    REQUIRE_OK(inact_unlock_failed(engine, NULL));
    CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(lock_when_locked_is_a_silent_success) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_lock(engine));
    CHECK_EQ(recorder_count(&rec), 2);
    advance(engine, 1000);
    CHECK_STATUS(inact_lock(engine), INACT_OK);
    CHECK_EQ(recorder_count(&rec), 2);
    CHECK_EQ(info_of(engine).locked_at_ms, 0);
    CHECK_EQ(reason_of(engine), INACT_REASON_MANUAL_LOCK);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(end_session_expires_with_the_given_reason) {
    static const int32_t reasons[] = {INACT_REASON_LOGOUT, INACT_REASON_REVOKED,
                                      INACT_REASON_PASSWORD_CHANGED};
    size_t i;
    for (i = 0; i < sizeof reasons / sizeof reasons[0]; i++) {
        recorder rec;
        inact_policy policy = test_policy();
        inact_engine engine;
        recorder_init(&rec);
        engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
        REQUIRE_OK(inact_start(engine));
        REQUIRE_OK(inact_end(engine, reasons[i]));
        CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_EXPIRED, reasons[i], 0);
        /* in EXPIRED a no-op success: no event, the first reason stays */
        CHECK_STATUS(inact_end(engine, INACT_REASON_LOGOUT), INACT_OK);
        CHECK_EQ(recorder_count(&rec), 2);
        CHECK_EQ(reason_of(engine), reasons[i]);
        REQUIRE_OK(inact_destroy(engine));
        recorder_deinit(&rec);
    }
}

TEST(end_session_works_from_loading_and_locked) {
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_end(engine, INACT_REASON_LOGOUT));
    CHECK_EQ(state_of(engine), INACT_STATE_EXPIRED);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_lock(engine));
    REQUIRE_OK(inact_end(engine, INACT_REASON_PASSWORD_CHANGED));
    CHECK_EQ(state_of(engine), INACT_STATE_EXPIRED);
    CHECK_EQ(reason_of(engine), INACT_REASON_PASSWORD_CHANGED);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(refresh_results_are_classified) {
    static const struct {
        int32_t status;
        const char *oauth_error;
        int32_t outcome;
    } cases[] = {
        {200, NULL, INACT_REFRESH_OK},        {204, NULL, INACT_REFRESH_OK},
        {299, "", INACT_REFRESH_OK},          {0, NULL, INACT_REFRESH_RETRY},
        {408, NULL, INACT_REFRESH_RETRY},     {429, NULL, INACT_REFRESH_RETRY},
        {500, NULL, INACT_REFRESH_RETRY},     {503, "server_error", INACT_REFRESH_RETRY},
        {599, NULL, INACT_REFRESH_RETRY},     {400, NULL, INACT_REFRESH_FAILED},
        {400, "invalid_request", INACT_REFRESH_FAILED},
        {403, NULL, INACT_REFRESH_FAILED},    {404, NULL, INACT_REFRESH_FAILED},
        {302, NULL, INACT_REFRESH_FAILED},    {100, NULL, INACT_REFRESH_FAILED},
        {401, NULL, INACT_REFRESH_REVOKED},   {401, "invalid_token", INACT_REFRESH_REVOKED},
        {400, "invalid_grant", INACT_REFRESH_REVOKED},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        inact_policy policy = test_policy();
        inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
        int32_t outcome = -1;
        REQUIRE_OK(inact_start(engine));
        CHECK_STATUS(inact_refresh_result(engine, cases[i].status, cases[i].oauth_error, &outcome),
                     INACT_OK);
        if (outcome != cases[i].outcome)
            harness_fail(__FILE__, __LINE__, "refresh %d \"%s\": outcome %d, expected %d",
                         (int)cases[i].status, cases[i].oauth_error ? cases[i].oauth_error : "",
                         (int)outcome, (int)cases[i].outcome);
        CHECK_EQ(state_of(engine), cases[i].outcome == INACT_REFRESH_REVOKED
                                       ? INACT_STATE_EXPIRED
                                       : INACT_STATE_ACTIVE);
        REQUIRE_OK(inact_destroy(engine));
    }
}

TEST(revoked_refresh_in_expired_keeps_the_first_reason) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    int32_t outcome = -1;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_end(engine, INACT_REASON_LOGOUT));
    CHECK_STATUS(inact_refresh_result(engine, 401, NULL, &outcome), INACT_OK);
    CHECK_EQ(outcome, INACT_REFRESH_REVOKED);
    CHECK_EQ(reason_of(engine), INACT_REASON_LOGOUT);
    CHECK_EQ(recorder_count(&rec), 2);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(background_timeout_zero_locks_on_entering_background) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.background_timeout_ms = 0;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 5000);
    REQUIRE_OK(inact_background(engine));
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_LOCKED,
                     INACT_REASON_BACKGROUND_TIMEOUT, 5000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(background_never_does_not_lock) {
    inact_policy policy = test_policy();
    inact_engine engine;
    policy.background_timeout_ms = INACT_NEVER;
    policy.pause_idle_in_background = 1;
    engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_background(engine));
    advance(engine, 3 * HOUR_MS);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(short_background_keeps_the_session) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_background(engine));
    advance(engine, 29999);
    REQUIRE_OK(inact_foreground(engine));
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    CHECK_EQ(info_of(engine).in_background, 0);
    CHECK_EQ(info_of(engine).background_since_ms, INACT_NEVER);
    CHECK_EQ(recorder_count(&rec), 1);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(pause_idle_in_background_stops_the_idle_countdown) {
    inact_policy policy = test_policy();
    inact_engine engine;
    policy.background_timeout_ms = INACT_NEVER;
    policy.pause_idle_in_background = 1;
    engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 20000);
    REQUIRE_OK(inact_background(engine));
    advance(engine, 10 * MINUTE_MS);
    REQUIRE_OK(inact_foreground(engine));
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    CHECK_EQ(remaining_of(engine), 40000);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(idle_keeps_running_in_background_by_default) {
    inact_policy policy = test_policy();
    inact_engine engine;
    policy.background_timeout_ms = INACT_NEVER;
    engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_background(engine));
    advance(engine, 60000);
    CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
    CHECK_EQ(reason_of(engine), INACT_REASON_IDLE_TIMEOUT);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(windows_hidden_within_the_grace_are_not_background) {
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_window_shown(engine));
    REQUIRE_OK(inact_window_shown(engine));
    CHECK_EQ(info_of(engine).visible_windows, 2);
    REQUIRE_OK(inact_window_hidden(engine));
    REQUIRE_OK(inact_window_hidden(engine));
    CHECK_EQ(info_of(engine).visible_windows, 0);
    advance(engine, 699);
    CHECK_EQ(info_of(engine).in_background, 0);
    REQUIRE_OK(inact_window_shown(engine)); /* a rotation: shown again within the grace */
    advance(engine, 5000);
    CHECK_EQ(info_of(engine).in_background, 0);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(windows_hidden_past_the_grace_are_background_from_the_drop) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_window_shown(engine));
    advance(engine, 1000);
    REQUIRE_OK(inact_window_hidden(engine));
    advance(engine, 700);
    CHECK_EQ(info_of(engine).in_background, 1);
    CHECK_EQ(info_of(engine).background_since_ms, 1000);
    /* the background timeout counts from the drop to 0, not from the end of the grace */
    advance(engine, 30000 - 700 - 1);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    advance(engine, 1);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_LOCKED,
                     INACT_REASON_BACKGROUND_TIMEOUT, 31000);
    REQUIRE_OK(inact_window_shown(engine)); /* above 0 = foreground */
    CHECK_EQ(info_of(engine).in_background, 0);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(background_timeout_shorter_than_grace_acts_at_end_of_grace) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.background_timeout_ms = 200;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_window_shown(engine));
    REQUIRE_OK(inact_window_hidden(engine));
    advance(engine, 699);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    advance(engine, 1);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_LOCKED,
                     INACT_REASON_BACKGROUND_TIMEOUT, 700);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(scope_shortens_the_idle_timeout_until_popped) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    uint64_t payment = 0, strict = 0;
    recorder_init(&rec);
    policy.tick_ms = 0;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_scope_push(engine, 30000, &payment));
    REQUIRE_OK(inact_scope_push(engine, 20000, &strict));
    CHECK(payment != 0 && strict != 0 && payment != strict);
    CHECK_EQ(info_of(engine).open_scopes, 2);
    CHECK_EQ(info_of(engine).effective_idle_timeout_ms, 20000);
    CHECK_EQ(remaining_of(engine), 20000);
    /* pop in any order: the stricter one first */
    REQUIRE_OK(inact_scope_pop(engine, strict));
    CHECK_EQ(info_of(engine).effective_idle_timeout_ms, 30000);
    advance(engine, 20000);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_WARNING, INACT_REASON_IDLE, 20000);
    /* popping the last scope moves the idle deadline later: back to ACTIVE (EXTENDED) */
    REQUIRE_OK(inact_scope_pop(engine, payment));
    CHECK_TRANSITION(&rec, 2, INACT_STATE_WARNING, INACT_STATE_ACTIVE, INACT_REASON_EXTENDED,
                     20000);
    CHECK_EQ(info_of(engine).open_scopes, 0);
    CHECK_EQ(remaining_of(engine), 40000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(hold_suspends_idle_and_last_release_restarts_it) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    uint64_t video = 0, call = 0;
    recorder_init(&rec);
    policy.tick_ms = 0;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 55000);
    REQUIRE(state_of(engine) == INACT_STATE_WARNING);
    REQUIRE_OK(inact_hold_acquire(engine, &video));
    CHECK_TRANSITION(&rec, 2, INACT_STATE_WARNING, INACT_STATE_ACTIVE, INACT_REASON_EXTENDED,
                     55000);
    REQUIRE_OK(inact_hold_acquire(engine, &call));
    CHECK(video != 0 && call != 0 && video != call);
    advance(engine, 2 * HOUR_MS);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    REQUIRE_OK(inact_hold_release(engine, video));
    advance(engine, 10 * MINUTE_MS);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    REQUIRE_OK(inact_hold_release(engine, call)); /* the last one: last activity = now */
    CHECK_EQ(info_of(engine).last_activity_ms, 55000 + 2 * HOUR_MS + 10 * MINUTE_MS);
    CHECK_EQ(remaining_of(engine), 60000);
    CHECK_EQ(info_of(engine).open_holds, 0);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(hold_does_not_suspend_the_background_timeout) {
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    uint64_t hold = 0;
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_hold_acquire(engine, &hold));
    REQUIRE_OK(inact_background(engine));
    advance(engine, 30000);
    CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
    CHECK_EQ(reason_of(engine), INACT_REASON_BACKGROUND_TIMEOUT);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(set_policy_recomputes_deadlines_at_once) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.tick_ms = 0;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 40000);
    /* stricter: idle 45 s, warning 10 s -> WARNING was due at 35 s: delivered at once */
    policy.idle_timeout_ms = 45000;
    REQUIRE_OK(inact_set_policy(engine, &policy));
    CHECK_EQ(state_of(engine), INACT_STATE_WARNING);
    CHECK_EQ(remaining_of(engine), 5000);
    /* relaxed again: back to ACTIVE (EXTENDED) */
    policy.idle_timeout_ms = 60000;
    REQUIRE_OK(inact_set_policy(engine, &policy));
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    CHECK_EQ(reason_of(engine), INACT_REASON_EXTENDED);
    CHECK_EQ(remaining_of(engine), 20000);
    {
        inact_policy read;
        memset(&read, 0, sizeof read);
        read.size = sizeof read;
        REQUIRE_OK(inact_get_policy(engine, &read));
        CHECK(memcmp(&read, &policy, sizeof read) == 0);
    }
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(remaining_is_never_without_a_session) {
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    inact_info info = info_of(engine);
    CHECK_EQ(remaining_of(engine), INACT_NEVER);
    CHECK_EQ(info.started_at_ms, INACT_NEVER);
    CHECK_EQ(info.last_activity_ms, INACT_NEVER);
    CHECK_EQ(info.locked_at_ms, INACT_NEVER);
    CHECK_EQ(info.background_since_ms, INACT_NEVER);
    CHECK_EQ(info.next_deadline_ms, INACT_NEVER);
    CHECK_EQ(info.delivery, INACT_DELIVERY_HOST);
    CHECK_EQ(info.clock, INACT_CLOCK_MANUAL);
    CHECK_EQ(info.effective_idle_timeout_ms, 60000);
    REQUIRE_OK(inact_destroy(engine));
}
