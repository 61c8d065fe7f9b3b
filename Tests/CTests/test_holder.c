/*
 * test_holder.c -- issue 30 through the C ABI: inact_holder_report, one test per kind, and the
 * keepalive (policy.keepalive_interval_ms, INACT_EVENT_KEEPALIVE). Manual clock, host delivery;
 * test_policy(): idle 60 s, warning 10 s, background 30 s, absolute 12 h.
 */
#include "support.h"

static inact_engine started(recorder *rec, const inact_policy *policy) {
    inact_engine engine = make_manual_engine(rec, policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    return engine;
}

/* The last STATE_CHANGED event recorded. */
static inact_event last_change(recorder *rec) {
    inact_event none = {0};
    for (int i = recorder_count(rec) - 1; i >= 0; i--)
        if (recorder_at(rec, i).event.kind == INACT_EVENT_STATE_CHANGED) return recorder_at(rec, i).event;
    return none;
}

TEST(holder_activity_counts_at_its_age_and_never_unlocks) {
    inact_policy policy = test_policy();
    inact_engine engine = started(NULL, &policy);
    advance(engine, 20 * SECOND_MS);
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_ACTIVITY, INACT_REASON_NONE, 5 * SECOND_MS));
    CHECK_EQ(info_of(engine).last_activity_ms, 15 * SECOND_MS);
    CHECK_EQ(remaining_of(engine), 55 * SECOND_MS);
    /* older than the own last activity: clamped, nothing moves earlier */
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_ACTIVITY, INACT_REASON_NONE, HOUR_MS));
    CHECK_EQ(info_of(engine).last_activity_ms, 15 * SECOND_MS);
    REQUIRE_OK(inact_lock(engine));
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_ACTIVITY, INACT_REASON_NONE, 0));
    CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(holder_lock_is_followed_with_its_reason_at_its_instant) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = started(&rec, &policy);
    advance(engine, 20 * SECOND_MS);
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_LOCKED, INACT_REASON_IDLE_TIMEOUT, 4 * SECOND_MS));
    CHECK_EQ(last_change(&rec).state, INACT_STATE_LOCKED);
    CHECK_EQ(last_change(&rec).reason, INACT_REASON_IDLE_TIMEOUT);
    CHECK_EQ(last_change(&rec).time_ms, 16 * SECOND_MS);
    CHECK_EQ(info_of(engine).locked_at_ms, 16 * SECOND_MS);
    /* the strictest wins: LOCKED keeps its own reason */
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_LOCKED, INACT_REASON_MANUAL_LOCK, 0));
    CHECK_EQ(reason_of(engine), INACT_REASON_IDLE_TIMEOUT);
    CHECK_REJECTED(engine, &rec, inact_holder_report(engine, INACT_HOLDER_LOCKED, INACT_REASON_LOGOUT, 0),
                   INACT_E_INVALID_ARGUMENT, "reason (15)");
    REQUIRE_OK(inact_destroy(engine));
    engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    CHECK_STATUS(inact_holder_report(engine, INACT_HOLDER_LOCKED, INACT_REASON_MANUAL_LOCK, 0), INACT_E_INVALID_STATE);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(holder_expiry_is_followed_in_every_state_but_expired) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_EXPIRED, INACT_REASON_DEVICE_LIMIT, SECOND_MS));
    CHECK_EQ(state_of(engine), INACT_STATE_EXPIRED);
    CHECK_EQ(reason_of(engine), INACT_REASON_DEVICE_LIMIT);
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_EXPIRED, INACT_REASON_REVOKED, 0));
    CHECK_EQ(reason_of(engine), INACT_REASON_DEVICE_LIMIT);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_lock(engine));
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_EXPIRED, INACT_REASON_REVOKED, 0));
    CHECK_EQ(last_change(&rec).reason, INACT_REASON_REVOKED);
    /* inact_end takes the new reason too */
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_end(engine, INACT_REASON_DEVICE_LIMIT));
    CHECK_EQ(reason_of(engine), INACT_REASON_DEVICE_LIMIT);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(holder_idle_deadline_is_adopted_when_earlier_only) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = started(&rec, &policy);
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_IDLE_DEADLINE, INACT_REASON_NONE, 5 * MINUTE_MS));
    CHECK_EQ(remaining_of(engine), 60 * SECOND_MS);
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_IDLE_DEADLINE, INACT_REASON_NONE, 30 * SECOND_MS));
    CHECK_EQ(remaining_of(engine), 30 * SECOND_MS);
    advance(engine, 30 * SECOND_MS);
    CHECK_EQ(last_change(&rec).state, INACT_STATE_LOCKED);
    CHECK_EQ(last_change(&rec).time_ms, 30 * SECOND_MS);
    CHECK_REJECTED(engine, &rec, inact_holder_report(engine, INACT_HOLDER_IDLE_DEADLINE, INACT_REASON_NONE, -1),
                   INACT_E_INVALID_ARGUMENT, "ms (-1)");
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(holder_absolute_deadline_is_adopted_for_the_session) {
    inact_policy policy = test_policy();
    inact_engine engine = started(NULL, &policy);
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_ABSOLUTE_DEADLINE, INACT_REASON_NONE, 13 * HOUR_MS));
    CHECK_EQ(info_of(engine).next_deadline_ms, 50 * SECOND_MS);
    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_ABSOLUTE_DEADLINE, INACT_REASON_NONE, 40 * SECOND_MS));
    advance(engine, 39 * SECOND_MS);
    REQUIRE_OK(inact_activity(engine, INACT_ACTIVITY_KEY));
    advance(engine, 1 * SECOND_MS);
    CHECK_EQ(state_of(engine), INACT_STATE_EXPIRED);
    CHECK_EQ(reason_of(engine), INACT_REASON_ABSOLUTE_TIMEOUT);
    CHECK_STATUS(inact_holder_report(engine, 0, 0, 0), INACT_E_INVALID_ARGUMENT);
    CHECK_STATUS(inact_holder_report(engine, 6, 0, 0), INACT_E_INVALID_ARGUMENT);
    CHECK_STATUS(inact_holder_report(engine, INACT_HOLDER_ABSOLUTE_DEADLINE, INACT_REASON_IDLE, 0), INACT_E_INVALID_ARGUMENT);
    CHECK_STATUS(inact_holder_report(engine, INACT_HOLDER_ABSOLUTE_DEADLINE, 0, INT64_MAX), INACT_E_INVALID_ARGUMENT);
    CHECK_STATUS(inact_holder_report(0, INACT_HOLDER_ACTIVITY, 0, 0), INACT_E_INVALID_HANDLE);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(keepalive_events_carry_the_last_user_activity) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.keepalive_interval_ms = 5 * SECOND_MS;
    engine = started(&rec, &policy);
    advance(engine, 2 * SECOND_MS);
    REQUIRE_OK(inact_activity(engine, INACT_ACTIVITY_KEY));
    CHECK_EQ(recorder_count_kind(&rec, INACT_EVENT_KEEPALIVE, 0), 0);
    advance(engine, 3 * SECOND_MS);   /* the sign-in's interval ends at 5 s */
    CHECK_EQ(recorder_count_kind(&rec, INACT_EVENT_KEEPALIVE, 0), 1);
    inact_event ping = recorder_at(&rec, recorder_count(&rec) - 1).event;
    CHECK_EQ(ping.kind, INACT_EVENT_KEEPALIVE);
    CHECK_EQ(ping.time_ms, 2 * SECOND_MS);
    CHECK_EQ(ping.now_ms, 5 * SECOND_MS);
    CHECK_EQ(ping.state, INACT_STATE_ACTIVE);
    /* quiet from 10 s: the next activity asks at once; PROGRAMMATIC never does */
    advance(engine, 20 * SECOND_MS);
    REQUIRE_OK(inact_activity(engine, INACT_ACTIVITY_PROGRAMMATIC));
    CHECK_EQ(recorder_count_kind(&rec, INACT_EVENT_KEEPALIVE, 0), 1);
    REQUIRE_OK(inact_activity(engine, INACT_ACTIVITY_POINTER));
    CHECK_EQ(recorder_count_kind(&rec, INACT_EVENT_KEEPALIVE, 0), 2);
    CHECK_EQ(recorder_at(&rec, recorder_count(&rec) - 1).event.time_ms, 25 * SECOND_MS);
    /* a due one is dropped by a lock */
    advance(engine, 1 * SECOND_MS);
    REQUIRE_OK(inact_activity(engine, INACT_ACTIVITY_POINTER));
    REQUIRE_OK(inact_lock(engine));
    advance(engine, 10 * SECOND_MS);
    CHECK_EQ(recorder_count_kind(&rec, INACT_EVENT_KEEPALIVE, 0), 2);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(keepalive_interval_is_validated_and_has_its_layout) {
    inact_policy policy = test_policy();
    CHECK_EQ(policy.keepalive_interval_ms, 0);
    CHECK_EQ(sizeof(inact_policy), 128);
    policy.keepalive_interval_ms = 999;
    CHECK_STATUS(inact_policy_validate(&policy), INACT_E_INVALID_ARGUMENT);
    policy.keepalive_interval_ms = 60 * SECOND_MS;
    CHECK_STATUS(inact_policy_validate(&policy), INACT_E_INVALID_ARGUMENT);
    policy.keepalive_interval_ms = INACT_NEVER;
    CHECK_STATUS(inact_policy_validate(&policy), INACT_E_INVALID_ARGUMENT);
    policy.keepalive_interval_ms = 1000;
    REQUIRE_OK(inact_policy_validate(&policy));
}
