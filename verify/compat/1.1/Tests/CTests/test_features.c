/*
 * test_features.c -- issue 13 through the C ABI: unlock strength, expected interruption,
 * device lock, token generations, offline limits, managed ceilings, lock on restart, presets
 * and snapshot format 2. Manual clock, host delivery; test_policy(): idle 60 s, warning 10 s,
 * background 30 s.
 */
#include "support.h"

#include <string.h>

static inact_engine started(recorder *rec, const inact_policy *policy) {
    inact_engine engine = make_manual_engine(rec, policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    return engine;
}

static int32_t required_auth_of(inact_engine engine) {
    int32_t auth = -1;
    REQUIRE_OK(inact_get_required_auth(engine, &auth));
    return auth;
}

TEST(unlock_strength_follows_the_strong_auth_timeout) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.strong_auth_timeout_ms = 20 * SECOND_MS;
    engine = started(&rec, &policy);
    CHECK_EQ(required_auth_of(engine), INACT_AUTH_NONE);
    REQUIRE_OK(inact_lock(engine));
    CHECK_EQ(recorder_at(&rec, 1).event.required_auth, INACT_AUTH_BIOMETRIC);
    CHECK_EQ(required_auth_of(engine), INACT_AUTH_BIOMETRIC);
    advance(engine, 20 * SECOND_MS);
    CHECK_EQ(required_auth_of(engine), INACT_AUTH_CREDENTIAL);
    CHECK_EQ(info_of(engine).required_auth, INACT_AUTH_CREDENTIAL);
    CHECK_EQ(info_of(engine).strong_auth_deadline_ms, 20 * SECOND_MS);
    CHECK_REJECTED(engine, &rec, inact_unlock_with(engine, INACT_AUTH_BIOMETRIC), INACT_E_WEAK_AUTH,
                   "strong_auth_timeout_ms");
    CHECK_REJECTED(engine, &rec, inact_unlock_failed_with(engine, INACT_AUTH_BIOMETRIC, NULL),
                   INACT_E_WEAK_AUTH, "weaker");
    CHECK_REJECTED(engine, &rec, inact_unlock_with(engine, 0), INACT_E_INVALID_ARGUMENT, "method (0)");
    CHECK_REJECTED(engine, &rec, inact_unlock_with(engine, 3), INACT_E_INVALID_ARGUMENT, "method (3)");
    REQUIRE_OK(inact_unlock_with(engine, INACT_AUTH_CREDENTIAL));
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    CHECK_EQ(info_of(engine).last_credential_ms, 20 * SECOND_MS);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(biometrics_changed_requires_the_credential) {
    inact_policy policy = test_policy();
    inact_engine engine = started(NULL, &policy);
    uint32_t failures = 0;
    REQUIRE_OK(inact_biometrics_changed(engine));
    REQUIRE_OK(inact_lock(engine));
    CHECK_EQ(required_auth_of(engine), INACT_AUTH_CREDENTIAL);
    CHECK_STATUS(inact_unlock_with(engine, INACT_AUTH_BIOMETRIC), INACT_E_WEAK_AUTH);
    REQUIRE_OK(inact_unlock_failed_with(engine, INACT_AUTH_CREDENTIAL, &failures));
    CHECK_EQ(failures, 1);
    REQUIRE_OK(inact_unlock(engine)); /* inact_unlock is a credential unlock */
    REQUIRE_OK(inact_lock(engine));
    CHECK_EQ(required_auth_of(engine), INACT_AUTH_BIOMETRIC);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(expected_interruption_keeps_a_short_sheet_from_locking) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.background_timeout_ms = 0;
    engine = started(&rec, &policy);
    REQUIRE_OK(inact_expect_interruption(engine, 5 * SECOND_MS));
    CHECK_EQ(info_of(engine).interruption_until_ms, 5 * SECOND_MS);
    advance(engine, 1 * SECOND_MS);
    REQUIRE_OK(inact_background(engine));
    advance(engine, 3 * SECOND_MS);
    REQUIRE_OK(inact_foreground(engine));
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    REQUIRE_OK(inact_background(engine)); /* used once: this one locks at once */
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_LOCKED, INACT_REASON_BACKGROUND_TIMEOUT,
                     4 * SECOND_MS);
    CHECK_REJECTED(engine, &rec, inact_expect_interruption(engine, 1000), INACT_E_INVALID_STATE,
                   "expect interruption");
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(expected_interruption_rejects_bad_durations) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = started(&rec, &policy);
    CHECK_REJECTED(engine, &rec, inact_expect_interruption(engine, -1), INACT_E_INVALID_ARGUMENT,
                   "max_ms (-1)");
    CHECK_REJECTED(engine, &rec, inact_expect_interruption(engine, 60 * SECOND_MS + 1),
                   INACT_E_INVALID_ARGUMENT, "policy.expected_interruption_max_ms (60000)");
    CHECK_REJECTED(engine, &rec, inact_expect_interruption(engine, INACT_NEVER),
                   INACT_E_INVALID_ARGUMENT, "max_ms");
    REQUIRE_OK(inact_expect_interruption(engine, 0));
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(device_lock_locks_per_policy_or_starts_background) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = started(&rec, &policy);
    advance(engine, 2 * SECOND_MS);
    REQUIRE_OK(inact_device_locked(engine));
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    CHECK_EQ(info_of(engine).background_since_ms, 2 * SECOND_MS);
    REQUIRE_OK(inact_foreground(engine));
    policy.lock_on_device_lock = 1;
    REQUIRE_OK(inact_set_policy(engine, &policy));
    REQUIRE_OK(inact_device_locked(engine));
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_LOCKED, INACT_REASON_DEVICE_LOCKED,
                     2 * SECOND_MS);
    policy.lock_on_device_lock = 2;
    CHECK_REJECTED(engine, &rec, inact_set_policy(engine, &policy), INACT_E_INVALID_ARGUMENT,
                   "lock_on_device_lock");
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(refresh_generations_report_rotation_races_as_stale) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    int32_t outcome = -1;
    recorder_init(&rec);
    engine = started(&rec, &policy);
    REQUIRE_OK(inact_refresh_result_gen(engine, 200, NULL, 3, &outcome));
    CHECK_EQ(outcome, INACT_REFRESH_OK);
    REQUIRE_OK(inact_token_rotated(engine, 4));
    CHECK_EQ_U64(info_of(engine).token_generation, 4);
    REQUIRE_OK(inact_refresh_result_gen(engine, 400, "invalid_grant", 3, &outcome));
    CHECK_EQ(outcome, INACT_REFRESH_STALE);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    CHECK_REJECTED(engine, &rec, inact_token_rotated(engine, 2), INACT_E_INVALID_ARGUMENT,
                   "generation (2) is older than the newest generation seen (4)");
    REQUIRE_OK(inact_refresh_result_gen(engine, 400, "invalid_grant", 4, &outcome));
    CHECK_EQ(outcome, INACT_REFRESH_REVOKED);
    CHECK_EQ(reason_of(engine), INACT_REASON_REVOKED);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

/* Fail secure: a result's generation never moves the newest one (an uninitialised UINT64_MAX
   would otherwise turn every later revocation into STALE), and a plain 401 always revokes. */
TEST(refresh_results_never_disable_revocation) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    int32_t outcome = -1;
    recorder_init(&rec);
    engine = started(&rec, &policy);
    REQUIRE_OK(inact_refresh_result_gen(engine, 200, NULL, UINT64_MAX, &outcome));
    CHECK_EQ(outcome, INACT_REFRESH_OK);
    CHECK_EQ_U64(info_of(engine).token_generation, 0);
    REQUIRE_OK(inact_token_rotated(engine, 5));
    REQUIRE_OK(inact_refresh_result_gen(engine, 401, NULL, 4, &outcome));
    CHECK_EQ(outcome, INACT_REFRESH_REVOKED);
    CHECK_EQ(state_of(engine), INACT_STATE_EXPIRED);
    CHECK_EQ(reason_of(engine), INACT_REASON_REVOKED);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(offline_timeout_locks_and_blocks_unlock_until_contact) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.offline_timeout_ms = 40 * SECOND_MS;
    policy.offline_expiry_ms = 50 * SECOND_MS;
    engine = started(&rec, &policy);
    advance(engine, 40 * SECOND_MS);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_LOCKED, INACT_REASON_OFFLINE_TIMEOUT,
                     40 * SECOND_MS);
    CHECK_EQ(info_of(engine).needs_server_contact, 1);
    CHECK_REJECTED(engine, &rec, inact_unlock(engine), INACT_E_OFFLINE, "offline_timeout_ms");
    REQUIRE_OK(inact_server_contact(engine));
    CHECK_EQ(info_of(engine).last_server_contact_ms, 40 * SECOND_MS);
    REQUIRE_OK(inact_unlock(engine));
    advance(engine, 39 * SECOND_MS); /* contact restarted both deadlines */
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    REQUIRE_OK(inact_lock(engine));
    advance(engine, 11 * SECOND_MS);
    CHECK_TRANSITION(&rec, 4, INACT_STATE_LOCKED, INACT_STATE_EXPIRED, INACT_REASON_OFFLINE_EXPIRY,
                     90 * SECOND_MS);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(offline_limits_are_validated) {
    inact_policy policy = test_policy();
    policy.offline_timeout_ms = 0;
    CHECK_REJECTED(0, NULL, inact_policy_validate(&policy), INACT_E_INVALID_ARGUMENT,
                   "policy.offline_timeout_ms (0) must be > 0");
    policy = test_policy();
    policy.offline_expiry_ms = -1;
    CHECK_REJECTED(0, NULL, inact_policy_validate(&policy), INACT_E_INVALID_ARGUMENT,
                   "policy.offline_expiry_ms");
    policy = test_policy();
    policy.strong_auth_timeout_ms = -1;
    CHECK_REJECTED(0, NULL, inact_policy_validate(&policy), INACT_E_INVALID_ARGUMENT,
                   "policy.strong_auth_timeout_ms");
    policy = test_policy();
    policy.expected_interruption_max_ms = INACT_NEVER;
    CHECK_REJECTED(0, NULL, inact_policy_validate(&policy), INACT_E_INVALID_ARGUMENT,
                   "policy.expected_interruption_max_ms");
    policy = test_policy();
    policy.lock_on_restart = -1;
    CHECK_REJECTED(0, NULL, inact_policy_validate(&policy), INACT_E_INVALID_ARGUMENT,
                   "policy.lock_on_restart");
}

TEST(ceilings_hold_every_later_policy) {
    recorder rec;
    inact_policy policy = test_policy(), read;
    inact_ceilings ceilings, got;
    inact_engine engine;
    recorder_init(&rec);
    engine = started(&rec, &policy);
    memset(&ceilings, 0xFF, sizeof ceilings);
    REQUIRE_OK(inact_ceilings_init(&ceilings));
    CHECK_EQ(ceilings.size, sizeof ceilings);
    CHECK_EQ(ceilings.idle_timeout_ms, INACT_NEVER);
    CHECK_EQ(ceilings.max_unlock_failures, 0);
    ceilings.idle_timeout_ms = 30 * SECOND_MS;
    ceilings.max_unlock_failures = 5;
    REQUIRE_OK(inact_set_ceilings(engine, &ceilings));
    /* The current policy was tightened at once. */
    read.size = sizeof read;
    REQUIRE_OK(inact_get_policy(engine, &read));
    CHECK_EQ(read.idle_timeout_ms, 30 * SECOND_MS);
    CHECK_EQ(read.max_unlock_failures, 5);
    memset(&got, 0, sizeof got);
    got.size = sizeof got;
    REQUIRE_OK(inact_get_ceilings(engine, &got));
    CHECK(memcmp(&got, &ceilings, sizeof got) == 0);
    CHECK_REJECTED(engine, &rec, inact_set_policy(engine, &policy), INACT_E_CEILING,
                   "policy.idle_timeout_ms (60000) exceeds the managed ceiling (30000)");
    REQUIRE_OK(inact_policy_preset(&policy, INACT_PRESET_PSD2));
    CHECK_REJECTED(engine, &rec, inact_set_policy(engine, &policy), INACT_E_CEILING,
                   "idle_timeout_ms");
    ceilings.idle_timeout_ms = -2;
    CHECK_REJECTED(engine, &rec, inact_set_ceilings(engine, &ceilings), INACT_E_INVALID_ARGUMENT,
                   "ceilings.idle_timeout_ms (-2)");
    ceilings.idle_timeout_ms = 5 * SECOND_MS; /* below the 10 s warning: the tightened policy is invalid */
    CHECK_REJECTED(engine, &rec, inact_set_ceilings(engine, &ceilings), INACT_E_INVALID_ARGUMENT,
                   "warning_ms");
    ceilings.idle_timeout_ms = INACT_NEVER;
    ceilings.lock_on_restart = 2;
    CHECK_REJECTED(engine, &rec, inact_set_ceilings(engine, &ceilings), INACT_E_INVALID_ARGUMENT,
                   "ceilings.lock_on_restart");
    ceilings.size = 8;
    CHECK_REJECTED(engine, &rec, inact_set_ceilings(engine, &ceilings), INACT_E_STRUCT_SIZE, "size");
    CHECK_REJECTED(engine, &rec, inact_set_ceilings(engine, NULL), INACT_E_NULL_POINTER, "ceilings");
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(new_presets_fill_the_documented_values) {
    inact_policy policy;
    REQUIRE_OK(inact_policy_preset(&policy, INACT_PRESET_PSD2));
    CHECK_EQ(policy.idle_timeout_ms, 5 * MINUTE_MS);
    CHECK_EQ(policy.max_unlock_failures, 5);
    CHECK_STATUS(inact_policy_validate(&policy), INACT_OK);
    REQUIRE_OK(inact_policy_preset(&policy, INACT_PRESET_ENTERPRISE));
    CHECK_EQ(policy.idle_timeout_ms, 30 * MINUTE_MS);
    CHECK_EQ(policy.strong_auth_timeout_ms, 30 * MINUTE_MS);
    CHECK_EQ(policy.offline_timeout_ms, 720 * MINUTE_MS);
    CHECK_EQ(policy.offline_expiry_ms, 90 * 24 * HOUR_MS);
    CHECK_EQ(policy.max_unlock_failures, 5);
    CHECK_EQ(policy.absolute_timeout_ms, INACT_NEVER);
    CHECK_STATUS(inact_policy_validate(&policy), INACT_OK);
}

TEST(lock_on_restart_and_snapshot_format_2) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    inact_config config;
    uint8_t bytes[INACT_SNAPSHOT_MAX_SIZE];
    size_t length = 0;
    int64_t mono = 0, wall = 0;
    uint64_t boot = 0;
    recorder_init(&rec);
    policy.lock_on_restart = 1;
    engine = started(NULL, &policy);
    advance(engine, 1 * SECOND_MS);
    REQUIRE_OK(inact_server_contact(engine));
    REQUIRE_OK(inact_token_rotated(engine, 12));
    REQUIRE_OK(inact_snapshot_write(engine, bytes, sizeof bytes, &length));
    CHECK_EQ(length, 104);
    CHECK_EQ(bytes[4], 2); /* format version 2 */
    REQUIRE_OK(inact_clock_now(engine, &mono, &wall, &boot));
    REQUIRE_OK(inact_destroy(engine));

    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    config.manual_start_ms = mono;
    config.manual_wall_ms = wall;
    config.manual_boot_id = boot;
    engine = make_engine(&rec, &config, &policy);
    REQUIRE_OK(inact_restore(engine, bytes, length));
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_LOCKED, INACT_REASON_RESTART, mono);
    CHECK_EQ(info_of(engine).last_server_contact_ms, 1 * SECOND_MS);
    CHECK_EQ_U64(info_of(engine).token_generation, 12);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}
