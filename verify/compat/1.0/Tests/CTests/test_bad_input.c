/*
 * test_bad_input.c -- every bad input gives its status and a message that names the
 * argument, writes nothing through out-pointers and changes nothing in the engine
 * (CHECK_REJECTED compares the engine's info, policy and event count before and after).
 */
#include "support.h"

#include <string.h>

#define SENTINEL_I32 ((int32_t)0x5A5A5A5A)
#define SENTINEL_I64 ((int64_t)0x5A5A5A5A5A5A5A5ALL)
#define SENTINEL_U64 ((uint64_t)0xA5A5A5A5A5A5A5A5ULL)

/* Calls every function that takes a handle with `bad` and otherwise valid arguments:
 * each must return INACT_E_INVALID_HANDLE with a message and write nothing. */
static void check_every_call_rejects(inact_engine bad) {
    int32_t i32 = SENTINEL_I32;
    int64_t i64 = SENTINEL_I64, wall = SENTINEL_I64;
    uint64_t u64 = SENTINEL_U64;
    uint32_t u32 = 0x5A5A5A5Au;
    size_t size = 12345;
    uint8_t bytes[INACT_SNAPSHOT_MAX_SIZE];
    inact_info info;
    inact_policy policy = test_policy();
    inact_policy read_policy;
    memset(bytes, 0xAB, sizeof bytes);
    memset(&info, 0x5A, sizeof info);
    info.size = sizeof info;
    memset(&read_policy, 0x5A, sizeof read_policy);
    read_policy.size = sizeof read_policy;

#define BAD(call) CHECK_REJECTED(0, NULL, call, INACT_E_INVALID_HANDLE, "engine")
    BAD(inact_start(bad));
    BAD(inact_restore(bad, bytes, sizeof bytes));
    BAD(inact_activity(bad, INACT_ACTIVITY_TOUCH_DOWN));
    BAD(inact_continue(bad));
    BAD(inact_lock(bad));
    BAD(inact_unlock(bad));
    BAD(inact_unlock_failed(bad, &u32));
    BAD(inact_end(bad, INACT_REASON_LOGOUT));
    BAD(inact_refresh_result(bad, 401, NULL, &i32));
    BAD(inact_background(bad));
    BAD(inact_foreground(bad));
    BAD(inact_window_shown(bad));
    BAD(inact_window_hidden(bad));
    BAD(inact_scope_push(bad, 30000, &u64));
    BAD(inact_scope_pop(bad, 1));
    BAD(inact_hold_acquire(bad, &u64));
    BAD(inact_hold_release(bad, 1));
    BAD(inact_set_policy(bad, &policy));
    BAD(inact_get_state(bad, &i32));
    BAD(inact_get_reason(bad, &i32));
    BAD(inact_get_remaining(bad, &i64));
    BAD(inact_get_info(bad, &info));
    BAD(inact_get_policy(bad, &read_policy));
    BAD(inact_next_deadline(bad, &i64));
    BAD(inact_poll(bad));
    BAD(inact_clock_advance(bad, 1000));
    BAD(inact_clock_jump_wall(bad, 1000));
    BAD(inact_clock_reboot(bad, 1000));
    BAD(inact_clock_now(bad, &i64, &wall, &u64));
    BAD(inact_snapshot_size(bad, &size));
    BAD(inact_snapshot_write(bad, bytes, sizeof bytes, &size));
#undef BAD
    CHECK_EQ(i32, SENTINEL_I32);
    CHECK_EQ(i64, SENTINEL_I64);
    CHECK_EQ(wall, SENTINEL_I64);
    CHECK_EQ_U64(u64, SENTINEL_U64);
    CHECK_EQ(u32, 0x5A5A5A5Au);
    CHECK_EQ(size, 12345);
    CHECK_EQ(bytes[0], 0xAB);
    CHECK_EQ(info.state, SENTINEL_I32);
    CHECK_EQ(read_policy.idle_timeout_ms, SENTINEL_I64);
}

TEST(handle_zero_is_rejected_by_every_call) {
    check_every_call_rejects(0);
    /* destroy accepts the null handle as a no-op */
    CHECK_STATUS(inact_destroy(0), INACT_OK);
}

TEST(destroyed_handle_is_rejected_by_every_call) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_destroy(engine));
    CHECK_EQ(recorder_frees(&rec), 1);
    check_every_call_rejects(engine);
    CHECK_REJECTED(0, NULL, inact_destroy(engine), INACT_E_INVALID_HANDLE, "engine");
    CHECK_EQ(recorder_frees(&rec), 1);
    CHECK_EQ(recorder_count(&rec), 1);
    recorder_deinit(&rec);
}

TEST(forged_handles_are_rejected) {
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    inact_engine forged[8];
    size_t i;
    forged[0] = engine + 1;
    forged[1] = engine - 1;
    forged[2] = engine ^ ((uint64_t)1 << 32);
    forged[3] = engine ^ ((uint64_t)1 << 63);
    forged[4] = ~engine;
    forged[5] = UINT64_MAX;
    forged[6] = 1;
    forged[7] = 0xDEADBEEFu;
    for (i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        if (forged[i] == engine) continue;
        check_every_call_rejects(forged[i]);
        CHECK_REJECTED(engine, NULL, inact_destroy(forged[i]), INACT_E_INVALID_HANDLE, "engine");
    }
    /* the real engine is untouched by all of that */
    CHECK_EQ(state_of(engine), INACT_STATE_LOADING);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_destroy(engine));
}

TEST(stale_handle_never_reaches_the_engine_that_reused_its_slot) {
    recorder first, second;
    inact_policy policy = test_policy();
    inact_engine old_engine, new_engine;
    recorder_init(&first);
    recorder_init(&second);
    old_engine = make_manual_engine(&first, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_destroy(old_engine));
    new_engine = make_manual_engine(&second, &policy, INACT_DELIVERY_HOST);
    CHECK(new_engine != old_engine);
    REQUIRE_OK(inact_start(new_engine));
    CHECK_REJECTED(new_engine, &second, inact_lock(old_engine), INACT_E_INVALID_HANDLE, "engine");
    CHECK_REJECTED(new_engine, &second, inact_destroy(old_engine), INACT_E_INVALID_HANDLE,
                   "engine");
    CHECK_EQ(recorder_frees(&second), 0);
    CHECK_EQ(state_of(new_engine), INACT_STATE_ACTIVE);
    REQUIRE_OK(inact_destroy(new_engine));
    CHECK_EQ(recorder_frees(&first), 1);
    CHECK_EQ(recorder_frees(&second), 1);
    recorder_deinit(&first);
    recorder_deinit(&second);
}

TEST(many_engines_get_distinct_handles) {
    enum { N = 64 };
    inact_engine engines[N];
    inact_policy policy = test_policy();
    int i, j;
    for (i = 0; i < N; i++) {
        engines[i] = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
        for (j = 0; j < i; j++) CHECK(engines[i] != engines[j]);
    }
    for (i = 0; i < N; i += 2) REQUIRE_OK(inact_destroy(engines[i]));
    for (i = 0; i < N; i++) {
        int32_t state = -1;
        CHECK_STATUS(inact_get_state(engines[i], &state),
                     i % 2 == 0 ? INACT_E_INVALID_HANDLE : INACT_OK);
    }
    for (i = 1; i < N; i += 2) REQUIRE_OK(inact_destroy(engines[i]));
}

TEST(null_out_pointers_are_rejected) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    uint8_t buffer[INACT_SNAPSHOT_MAX_SIZE];
    size_t written = 777;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    CHECK_REJECTED(engine, &rec, inact_get_state(engine, NULL), INACT_E_NULL_POINTER, "out_state");
    CHECK_REJECTED(engine, &rec, inact_get_reason(engine, NULL), INACT_E_NULL_POINTER,
                   "out_reason");
    CHECK_REJECTED(engine, &rec, inact_get_remaining(engine, NULL), INACT_E_NULL_POINTER,
                   "out_remaining_ms");
    CHECK_REJECTED(engine, &rec, inact_get_info(engine, NULL), INACT_E_NULL_POINTER, "info");
    CHECK_REJECTED(engine, &rec, inact_get_policy(engine, NULL), INACT_E_NULL_POINTER, "policy");
    CHECK_REJECTED(engine, &rec, inact_set_policy(engine, NULL), INACT_E_NULL_POINTER, "policy");
    CHECK_REJECTED(engine, &rec, inact_next_deadline(engine, NULL), INACT_E_NULL_POINTER,
                   "out_delay_ms");
    CHECK_REJECTED(engine, &rec, inact_scope_push(engine, 30000, NULL), INACT_E_NULL_POINTER,
                   "out_scope_id");
    CHECK_REJECTED(engine, &rec, inact_hold_acquire(engine, NULL), INACT_E_NULL_POINTER,
                   "out_hold_id");
    CHECK_REJECTED(engine, &rec, inact_snapshot_size(engine, NULL), INACT_E_NULL_POINTER,
                   "out_size");
    CHECK_REJECTED(engine, &rec, inact_snapshot_write(engine, NULL, sizeof buffer, &written),
                   INACT_E_NULL_POINTER, "buffer");
    CHECK_REJECTED(engine, &rec, inact_snapshot_write(engine, buffer, sizeof buffer, NULL),
                   INACT_E_NULL_POINTER, "out_written");
    CHECK_EQ(written, 777);
    /* optional out-pointers may be NULL */
    CHECK_STATUS(inact_clock_now(engine, NULL, NULL, NULL), INACT_OK);
    CHECK_STATUS(inact_refresh_result(engine, 200, NULL, NULL), INACT_OK);
    REQUIRE_OK(inact_lock(engine));
    CHECK_STATUS(inact_unlock_failed(engine, NULL), INACT_OK);
    CHECK_EQ(info_of(engine).unlock_failures, 1);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(restore_with_null_bytes_is_rejected_without_expiring) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    CHECK_REJECTED(engine, &rec, inact_restore(engine, NULL, 16), INACT_E_NULL_POINTER, "bytes");
    CHECK_EQ(state_of(engine), INACT_STATE_LOADING);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(create_with_null_out_engine_keeps_nothing) {
    recorder rec;
    recorder_init(&rec);
    CHECK_REJECTED(0, NULL,
                   inact_engine_create(NULL, NULL, recorder_callback, &rec, recorder_free, NULL),
                   INACT_E_NULL_POINTER, "out_engine");
    CHECK_EQ(recorder_frees(&rec), 0);
    CHECK_EQ(recorder_count(&rec), 0);
    recorder_deinit(&rec);
}

/* Creation with a bad config or policy fails, writes no handle, keeps no user data. */
static void check_create_rejected(const char *file, int line, const inact_config *config,
                                  const inact_policy *policy, int32_t expected,
                                  const char *mention) {
    recorder rec;
    inact_engine engine = SENTINEL_U64;
    char message[512];
    int32_t status;
    recorder_init(&rec);
    status = inact_engine_create(config, policy, recorder_callback, &rec, recorder_free, &engine);
    strncpy(message, inact_last_error(), sizeof message - 1);
    message[sizeof message - 1] = '\0';
    check_rejected_(file, line, "inact_engine_create", status, expected, message, mention, 0,
                    NULL, NULL);
    if (engine != SENTINEL_U64) harness_fail(file, line, "a failed create wrote a handle");
    if (status == INACT_OK) inact_destroy(engine);
    else if (recorder_frees(&rec) != 0)
        harness_fail(file, line, "a failed create called user_data_free");
    recorder_deinit(&rec);
}
#define CHECK_CREATE_REJECTED(config, policy, expected, mention) \
    check_create_rejected(__FILE__, __LINE__, (config), (policy), (expected), (mention))

TEST(create_rejects_a_bad_config) {
    inact_config config;
    struct {
        inact_config config;
        uint64_t tail;
    } big;
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    {
        inact_config c = config;
        c.size = sizeof c - 1;
        CHECK_CREATE_REJECTED(&c, NULL, INACT_E_STRUCT_SIZE, "size");
        c.size = 0;
        CHECK_CREATE_REJECTED(&c, NULL, INACT_E_STRUCT_SIZE, "size");
    }
    memset(&big, 0, sizeof big);
    big.config = config;
    big.config.size = sizeof big;
    big.tail = 1;
    CHECK_CREATE_REJECTED(&big.config, NULL, INACT_E_STRUCT_SIZE, "size");
    {
        inact_config c = config;
        c.delivery = 2;
        CHECK_CREATE_REJECTED(&c, NULL, INACT_E_INVALID_ARGUMENT, "delivery");
        c.delivery = -1;
        CHECK_CREATE_REJECTED(&c, NULL, INACT_E_INVALID_ARGUMENT, "delivery");
    }
    {
        inact_config c = config;
        c.clock = 2;
        CHECK_CREATE_REJECTED(&c, NULL, INACT_E_INVALID_ARGUMENT, "clock");
    }
    {
        inact_config c = config;
        c.reserved0 = 1;
        CHECK_CREATE_REJECTED(&c, NULL, INACT_E_INVALID_ARGUMENT, "reserved0");
    }
    {
        inact_config c = config;
        c.manual_start_ms = -1;
        CHECK_CREATE_REJECTED(&c, NULL, INACT_E_INVALID_ARGUMENT, "manual_start_ms");
    }
    {
        inact_config c = config;
        c.manual_boot_id = 0;
        CHECK_CREATE_REJECTED(&c, NULL, INACT_E_INVALID_ARGUMENT, "manual_boot_id");
    }
}

TEST(create_accepts_a_larger_struct_with_a_zero_tail) {
    struct {
        inact_config config;
        uint64_t tail[2];
    } big_config;
    struct {
        inact_policy policy;
        uint64_t tail[2];
    } big_policy;
    inact_engine engine = 0;
    memset(&big_config, 0, sizeof big_config);
    memset(&big_policy, 0, sizeof big_policy);
    REQUIRE_OK(inact_config_init(&big_config.config));
    REQUIRE_OK(inact_policy_init(&big_policy.policy));
    big_config.config.size = sizeof big_config;
    big_config.config.clock = INACT_CLOCK_MANUAL;
    big_config.config.delivery = INACT_DELIVERY_HOST;
    big_policy.policy.size = sizeof big_policy;
    REQUIRE_OK(inact_engine_create(&big_config.config, &big_policy.policy, NULL, NULL, NULL,
                                   &engine));
    CHECK(engine != 0);
    CHECK_EQ(info_of(engine).clock, INACT_CLOCK_MANUAL);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(create_rejects_a_bad_policy) {
    inact_config config;
    inact_policy policy = test_policy();
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    policy.warning_ms = policy.idle_timeout_ms;
    CHECK_CREATE_REJECTED(&config, &policy, INACT_E_INVALID_ARGUMENT, "warning_ms");
    policy = test_policy();
    policy.size = 8;
    CHECK_CREATE_REJECTED(&config, &policy, INACT_E_STRUCT_SIZE, "size");
}

TEST(set_policy_rejects_bad_policies_and_keeps_the_old_one) {
    recorder rec;
    inact_policy good = test_policy(), bad;
    inact_engine engine;
    struct {
        inact_policy policy;
        uint32_t tail[3];
    } big;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &good, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 1000);

#define BAD_POLICY(field, value, status, mention)                                     \
    do {                                                                              \
        bad = good;                                                                   \
        bad.field = value;                                                            \
        CHECK_REJECTED(engine, &rec, inact_set_policy(engine, &bad), status, mention); \
    } while (0)
    BAD_POLICY(size, sizeof(inact_policy) - 4, INACT_E_STRUCT_SIZE, "size");
    BAD_POLICY(size, 0, INACT_E_STRUCT_SIZE, "size");
    BAD_POLICY(idle_timeout_ms, -1, INACT_E_INVALID_ARGUMENT, "idle_timeout_ms");
    BAD_POLICY(idle_timeout_ms, 0, INACT_E_INVALID_ARGUMENT, "idle_timeout_ms");
    BAD_POLICY(warning_ms, -1, INACT_E_INVALID_ARGUMENT, "warning_ms");
    BAD_POLICY(warning_ms, 60000, INACT_E_INVALID_ARGUMENT, "warning_ms");
    BAD_POLICY(warning_ms, 60001, INACT_E_INVALID_ARGUMENT, "warning_ms");
    BAD_POLICY(warning_ms, INACT_NEVER, INACT_E_INVALID_ARGUMENT, "warning_ms");
    BAD_POLICY(background_timeout_ms, -1, INACT_E_INVALID_ARGUMENT, "background_timeout_ms");
    BAD_POLICY(absolute_timeout_ms, -1, INACT_E_INVALID_ARGUMENT, "absolute_timeout_ms");
    BAD_POLICY(locked_timeout_ms, -5, INACT_E_INVALID_ARGUMENT, "locked_timeout_ms");
    BAD_POLICY(tick_ms, -1, INACT_E_INVALID_ARGUMENT, "tick_ms");
    BAD_POLICY(background_grace_ms, -1, INACT_E_INVALID_ARGUMENT, "background_grace_ms");
    BAD_POLICY(idle_timeout_ms, INT64_MIN, INACT_E_INVALID_ARGUMENT, "idle_timeout_ms");
    /* overflowing: finite durations above 100 years */
    BAD_POLICY(idle_timeout_ms, INACT_NEVER - 1, INACT_E_INVALID_ARGUMENT, "idle_timeout_ms");
    BAD_POLICY(absolute_timeout_ms, 101 * YEAR_MS, INACT_E_INVALID_ARGUMENT,
               "absolute_timeout_ms");
    BAD_POLICY(background_timeout_ms, INACT_NEVER - 1, INACT_E_INVALID_ARGUMENT,
               "background_timeout_ms");
    BAD_POLICY(locked_timeout_ms, INACT_NEVER - 1, INACT_E_INVALID_ARGUMENT,
               "locked_timeout_ms");
    /* unknown enum values and bits, booleans other than 0/1 */
    BAD_POLICY(idle_action, 2, INACT_E_INVALID_ARGUMENT, "idle_action");
    BAD_POLICY(idle_action, -1, INACT_E_INVALID_ARGUMENT, "idle_action");
    BAD_POLICY(activity_kinds, 0x80u, INACT_E_INVALID_ARGUMENT, "activity_kinds");
    BAD_POLICY(activity_kinds, 0xFFFFFFFFu, INACT_E_INVALID_ARGUMENT, "activity_kinds");
    BAD_POLICY(activity_dismisses_warning, 2, INACT_E_INVALID_ARGUMENT,
               "activity_dismisses_warning");
    BAD_POLICY(pause_idle_in_background, -1, INACT_E_INVALID_ARGUMENT,
               "pause_idle_in_background");
#undef BAD_POLICY

    memset(&big, 0, sizeof big);
    big.policy = good;
    big.policy.size = sizeof big;
    big.tail[2] = 7;
    CHECK_REJECTED(engine, &rec, inact_set_policy(engine, &big.policy), INACT_E_STRUCT_SIZE,
                   "size");
    big.tail[2] = 0;
    big.policy.idle_timeout_ms = 90000;
    CHECK_STATUS(inact_set_policy(engine, &big.policy), INACT_OK);
    CHECK_EQ(remaining_of(engine), 89000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(set_policy_rejects_warning_not_shorter_than_an_open_scope) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    uint64_t scope = 0;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_scope_push(engine, 20000, &scope));
    policy.warning_ms = 20000;
    CHECK_REJECTED(engine, &rec, inact_set_policy(engine, &policy), INACT_E_INVALID_ARGUMENT,
                   "warning_ms");
    REQUIRE_OK(inact_scope_pop(engine, scope));
    CHECK_STATUS(inact_set_policy(engine, &policy), INACT_OK);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(unknown_enum_values_are_rejected) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    int32_t outcome = SENTINEL_I32;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    /* activity kind: exactly one known bit */
    CHECK_REJECTED(engine, &rec, inact_activity(engine, 0), INACT_E_INVALID_ARGUMENT, "kind");
    CHECK_REJECTED(engine, &rec, inact_activity(engine, 0x80u), INACT_E_INVALID_ARGUMENT, "kind");
    CHECK_REJECTED(engine, &rec,
                   inact_activity(engine, INACT_ACTIVITY_TOUCH_DOWN | INACT_ACTIVITY_KEY),
                   INACT_E_INVALID_ARGUMENT, "kind");
    CHECK_REJECTED(engine, &rec, inact_activity(engine, 0xFFFFFFFFu), INACT_E_INVALID_ARGUMENT,
                   "kind");
    /* end: LOGOUT, REVOKED or PASSWORD_CHANGED only */
    CHECK_REJECTED(engine, &rec, inact_end(engine, INACT_REASON_NONE), INACT_E_INVALID_ARGUMENT,
                   "reason");
    CHECK_REJECTED(engine, &rec, inact_end(engine, INACT_REASON_IDLE_TIMEOUT),
                   INACT_E_INVALID_ARGUMENT, "reason");
    CHECK_REJECTED(engine, &rec, inact_end(engine, INACT_REASON_RESTORE_FAILED),
                   INACT_E_INVALID_ARGUMENT, "reason");
    CHECK_REJECTED(engine, &rec, inact_end(engine, 99), INACT_E_INVALID_ARGUMENT, "reason");
    CHECK_REJECTED(engine, &rec, inact_end(engine, -1), INACT_E_INVALID_ARGUMENT, "reason");
    /* refresh: 0 or 100..599 */
    CHECK_REJECTED(engine, &rec, inact_refresh_result(engine, 99, NULL, &outcome),
                   INACT_E_INVALID_ARGUMENT, "http_status");
    CHECK_REJECTED(engine, &rec, inact_refresh_result(engine, 600, "invalid_grant", &outcome),
                   INACT_E_INVALID_ARGUMENT, "http_status");
    CHECK_REJECTED(engine, &rec, inact_refresh_result(engine, -401, NULL, &outcome),
                   INACT_E_INVALID_ARGUMENT, "http_status");
    CHECK_EQ(outcome, SENTINEL_I32);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(negative_and_overflowing_durations_are_rejected) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    uint64_t scope = SENTINEL_U64;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 1000);
    CHECK_REJECTED(engine, &rec, inact_clock_advance(engine, -1), INACT_E_INVALID_ARGUMENT, "ms");
    CHECK_REJECTED(engine, &rec, inact_clock_advance(engine, INT64_MIN), INACT_E_INVALID_ARGUMENT,
                   "ms");
    CHECK_REJECTED(engine, &rec, inact_clock_advance(engine, INT64_MAX), INACT_E_INVALID_ARGUMENT,
                   "ms");
    CHECK_REJECTED(engine, &rec, inact_clock_freeze(engine, -1), INACT_E_INVALID_ARGUMENT, "ms");
    CHECK_REJECTED(engine, &rec, inact_clock_freeze(engine, INT64_MAX), INACT_E_INVALID_ARGUMENT,
                   "ms");
    CHECK_REJECTED(engine, &rec, inact_clock_reboot(engine, -1), INACT_E_INVALID_ARGUMENT,
                   "downtime_ms");
    CHECK_REJECTED(engine, &rec, inact_clock_jump_wall(engine, INT64_MAX),
                   INACT_E_INVALID_ARGUMENT, "delta_ms");
    CHECK_REJECTED(engine, &rec, inact_scope_push(engine, -1, &scope), INACT_E_INVALID_ARGUMENT,
                   "idle_timeout_ms");
    CHECK_REJECTED(engine, &rec, inact_scope_push(engine, 0, &scope), INACT_E_INVALID_ARGUMENT,
                   "idle_timeout_ms");
    /* a scope must leave room for the warning */
    CHECK_REJECTED(engine, &rec, inact_scope_push(engine, policy.warning_ms, &scope),
                   INACT_E_INVALID_ARGUMENT, "idle_timeout_ms");
    CHECK_REJECTED(engine, &rec, inact_scope_push(engine, 101 * YEAR_MS, &scope),
                   INACT_E_INVALID_ARGUMENT, "idle_timeout_ms");
    CHECK_EQ_U64(scope, SENTINEL_U64);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(reboot_downtime_that_overflows_the_wall_clock_is_rejected) {
    /* As inact_clock_jump_wall rejects a delta that overflows the wall clock, a reboot's
     * downtime that does is an overflowing duration: rejected, nothing changes. */
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    CHECK_REJECTED(engine, &rec, inact_clock_reboot(engine, INT64_MAX), INACT_E_INVALID_ARGUMENT,
                   "downtime_ms");
    CHECK_REJECTED(engine, &rec, inact_clock_reboot(engine, INT64_MAX - 1700000000000LL + 1),
                   INACT_E_INVALID_ARGUMENT, "downtime_ms");
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(manual_clock_calls_need_a_manual_engine) {
    inact_config config;
    inact_engine engine;
    int64_t mono = -1, wall = -1;
    uint64_t boot = 0;
    REQUIRE_OK(inact_config_init(&config));
    config.delivery = INACT_DELIVERY_HOST; /* system clock, no scheduler thread */
    engine = make_engine(NULL, &config, NULL);
    CHECK_REJECTED(engine, NULL, inact_clock_advance(engine, 1000), INACT_E_WRONG_CLOCK, NULL);
    CHECK_REJECTED(engine, NULL, inact_clock_freeze(engine, 1000), INACT_E_WRONG_CLOCK, NULL);
    CHECK_REJECTED(engine, NULL, inact_clock_jump_wall(engine, 1000), INACT_E_WRONG_CLOCK, NULL);
    CHECK_REJECTED(engine, NULL, inact_clock_reboot(engine, 1000), INACT_E_WRONG_CLOCK, NULL);
    /* reading the clock works for every kind */
    CHECK_STATUS(inact_clock_now(engine, &mono, &wall, &boot), INACT_OK);
    CHECK(mono >= 0);
    CHECK(wall > 1600000000000LL); /* after 2020 */
    CHECK(boot != 0);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(inputs_not_allowed_in_the_state_change_nothing) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    uint8_t buffer[INACT_SNAPSHOT_MAX_SIZE];
    size_t size = 4242;
    uint32_t failures = 4242;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    /* LOADING */
    CHECK_REJECTED(engine, &rec, inact_continue(engine), INACT_E_INVALID_STATE, NULL);
    CHECK_REJECTED(engine, &rec, inact_lock(engine), INACT_E_INVALID_STATE, NULL);
    CHECK_REJECTED(engine, &rec, inact_unlock(engine), INACT_E_INVALID_STATE, NULL);
    CHECK_REJECTED(engine, &rec, inact_unlock_failed(engine, &failures), INACT_E_INVALID_STATE,
                   NULL);
    CHECK_REJECTED(engine, &rec, inact_snapshot_size(engine, &size), INACT_E_INVALID_STATE, NULL);
    CHECK_REJECTED(engine, &rec, inact_snapshot_write(engine, buffer, sizeof buffer, &size),
                   INACT_E_INVALID_STATE, NULL);
    CHECK_REJECTED(engine, &rec, inact_window_hidden(engine), INACT_E_INVALID_STATE, NULL);
    /* ACTIVE */
    REQUIRE_OK(inact_start(engine));
    advance(engine, 1000);
    CHECK_REJECTED(engine, &rec, inact_start(engine), INACT_E_INVALID_STATE, NULL);
    CHECK_REJECTED(engine, &rec, inact_continue(engine), INACT_E_INVALID_STATE, NULL);
    CHECK_REJECTED(engine, &rec, inact_unlock(engine), INACT_E_INVALID_STATE, NULL);
    CHECK_REJECTED(engine, &rec, inact_unlock_failed(engine, &failures), INACT_E_INVALID_STATE,
                   NULL);
    CHECK_REJECTED(engine, &rec, inact_restore(engine, buffer, 0), INACT_E_INVALID_STATE, NULL);
    /* LOCKED */
    REQUIRE_OK(inact_lock(engine));
    CHECK_REJECTED(engine, &rec, inact_start(engine), INACT_E_INVALID_STATE, NULL);
    CHECK_REJECTED(engine, &rec, inact_continue(engine), INACT_E_INVALID_STATE, NULL);
    /* EXPIRED */
    REQUIRE_OK(inact_end(engine, INACT_REASON_LOGOUT));
    CHECK_REJECTED(engine, &rec, inact_lock(engine), INACT_E_INVALID_STATE, NULL);
    CHECK_REJECTED(engine, &rec, inact_unlock(engine), INACT_E_INVALID_STATE, NULL);
    CHECK_REJECTED(engine, &rec, inact_unlock_failed(engine, &failures), INACT_E_INVALID_STATE,
                   NULL);
    CHECK_REJECTED(engine, &rec, inact_continue(engine), INACT_E_INVALID_STATE, NULL);
    CHECK_EQ(size, 4242);
    CHECK_EQ(failures, 4242);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(unknown_scope_and_hold_ids_are_not_found) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    uint64_t scope = 0, hold = 0;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    CHECK_REJECTED(engine, &rec, inact_scope_pop(engine, 0), INACT_E_NOT_FOUND, "scope_id");
    CHECK_REJECTED(engine, &rec, inact_scope_pop(engine, 12345), INACT_E_NOT_FOUND, "scope_id");
    CHECK_REJECTED(engine, &rec, inact_hold_release(engine, 0), INACT_E_NOT_FOUND, "hold_id");
    CHECK_REJECTED(engine, &rec, inact_hold_release(engine, 12345), INACT_E_NOT_FOUND, "hold_id");
    REQUIRE_OK(inact_scope_push(engine, 30000, &scope));
    REQUIRE_OK(inact_scope_pop(engine, scope));
    CHECK_REJECTED(engine, &rec, inact_scope_pop(engine, scope), INACT_E_NOT_FOUND, "scope_id");
    REQUIRE_OK(inact_hold_acquire(engine, &hold));
    REQUIRE_OK(inact_hold_release(engine, hold));
    CHECK_REJECTED(engine, &rec, inact_hold_release(engine, hold), INACT_E_NOT_FOUND, "hold_id");
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(out_structs_with_a_bad_size_are_rejected) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    inact_info info;
    inact_policy read;
    struct {
        inact_info info;
        uint64_t tail;
    } big;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    memset(&info, 0x5A, sizeof info);
    info.size = sizeof info - 8;
    CHECK_REJECTED(engine, &rec, inact_get_info(engine, &info), INACT_E_STRUCT_SIZE, "size");
    CHECK_EQ(info.state, SENTINEL_I32);
    memset(&read, 0x5A, sizeof read);
    read.size = 4;
    CHECK_REJECTED(engine, &rec, inact_get_policy(engine, &read), INACT_E_STRUCT_SIZE, "size");
    CHECK_EQ(read.idle_timeout_ms, SENTINEL_I64);
    memset(&big, 0, sizeof big);
    big.info.size = sizeof big;
    big.tail = 1;
    CHECK_REJECTED(engine, &rec, inact_get_info(engine, &big.info), INACT_E_STRUCT_SIZE, "size");
    big.tail = 0;
    CHECK_STATUS(inact_get_info(engine, &big.info), INACT_OK);
    CHECK_EQ(big.info.state, INACT_STATE_ACTIVE);
    CHECK_EQ(big.tail, 0); /* a newer caller's fields are not the library's to write */
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(snapshot_buffer_too_small_writes_nothing) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    uint8_t buffer[INACT_SNAPSHOT_MAX_SIZE];
    size_t size = 0, written = 4242, i;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_snapshot_size(engine, &size));
    REQUIRE(size > 0 && size <= INACT_SNAPSHOT_MAX_SIZE);
    memset(buffer, 0xEE, sizeof buffer);
    CHECK_REJECTED(engine, &rec, inact_snapshot_write(engine, buffer, size - 1, &written),
                   INACT_E_BUFFER_TOO_SMALL, "capacity");
    CHECK_REJECTED(engine, &rec, inact_snapshot_write(engine, buffer, 0, &written),
                   INACT_E_BUFFER_TOO_SMALL, "capacity");
    for (i = 0; i < sizeof buffer; i++)
        if (buffer[i] != 0xEE) {
            harness_fail(__FILE__, __LINE__, "byte %zu of the buffer was written", i);
            break;
        }
    CHECK_EQ(written, 4242);
    /* exactly the size is enough */
    CHECK_STATUS(inact_snapshot_write(engine, buffer, size, &written), INACT_OK);
    CHECK_EQ(written, size);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(window_count_cannot_go_below_zero) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_window_shown(engine));
    REQUIRE_OK(inact_window_hidden(engine));
    CHECK_REJECTED(engine, &rec, inact_window_hidden(engine), INACT_E_INVALID_STATE, NULL);
    CHECK_EQ(info_of(engine).visible_windows, 0);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}
