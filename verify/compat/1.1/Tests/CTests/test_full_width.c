/*
 * test_full_width.c -- every parameter of every function at the extremes of its C type:
 * size_t lengths at 0, 1, the maximum snapshot, 2^63 and SIZE_MAX; uint32_t bit sets and
 * enums with every high bit; int32_t enums and booleans at INT32_MIN, -1, 2 and INT32_MAX;
 * int64_t durations and times at INT64_MIN, -1, 0, 1, 100 years, 100 years + 1 and
 * INT64_MAX; uint64_t ids at 0 and UINT64_MAX; and NULL for every pointer. Each value is
 * either accepted with its documented meaning or refused with its status and a message that
 * names the argument, changing nothing (CHECK_REJECTED). The suite runs against the debug
 * and the release library (scripts/test-c), where Swift's checks differ.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL_U64 ((uint64_t)0xA5A5A5A5A5A5A5A5ULL)
#define TWO_TO_63 ((size_t)1 << (sizeof(size_t) * 8 - 1))
#define MAX_FINITE_MS (100LL * 31557600000LL) /* 100 years of 365.25 days */

/* Writes `engine`'s snapshot into `bytes` (at least INACT_SNAPSHOT_MAX_SIZE); its length. */
static size_t snapshot_of(inact_engine engine, uint8_t *bytes) {
    size_t length = 0;
    REQUIRE_OK(inact_snapshot_write(engine, bytes, INACT_SNAPSHOT_MAX_SIZE, &length));
    return length;
}

static inact_engine started_engine(recorder *rec) {
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 1000);
    return engine;
}

/* A LOADING engine 1 s after started_engine's snapshot, on the same boot (a trusted restore). */
static inact_engine later_on_the_same_boot(recorder *rec) {
    inact_config config;
    inact_policy policy = test_policy();
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    config.manual_start_ms = 2000;
    config.manual_wall_ms += 2000;
    return make_engine(rec, &config, &policy);
}

/* A restore of `length` bytes read from `bytes` into a new LOADING engine: its status, the
 * state and reason after it, and a last error that names `mention`. */
static void check_restore_(const char *file, int line, const uint8_t *bytes, size_t length,
                           int32_t status, int32_t state, int32_t reason, const char *mention) {
    recorder rec;
    inact_engine engine;
    int32_t got;
    recorder_init(&rec);
    engine = later_on_the_same_boot(&rec);
    got = inact_restore(engine, bytes, length);
    if (got != status)
        harness_fail(file, line, "restore of length %zu returned %s, expected %s; last error \"%s\"",
                     length, harness_status_name(got), harness_status_name(status),
                     inact_last_error());
    else if (mention != NULL && strstr(inact_last_error(), mention) == NULL)
        harness_fail(file, line, "restore of length %zu: last error \"%s\" does not name \"%s\"",
                     length, inact_last_error(), mention);
    if (state_of(engine) != state || reason_of(engine) != reason)
        harness_fail(file, line, "restore of length %zu left state %d reason %d, expected %d %d",
                     length, (int)state_of(engine), (int)reason_of(engine), (int)state,
                     (int)reason);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}
#define CHECK_RESTORE(bytes, length, status, state, reason, mention) \
    check_restore_(__FILE__, __LINE__, (bytes), (length), (status), (state), (reason), (mention))

TEST(restore_takes_the_length_at_full_width) {
    /* size_t arrives in Swift as Int: every length >= 2^63 used to be negative (a trap in the
     * debug library, undefined behaviour in the release one). A length longer than any
     * snapshot is a snapshot that is too long: it fails secure like any corrupt snapshot, and
     * the message gives the length as the caller passed it. */
    uint8_t bytes[2 * INACT_SNAPSHOT_MAX_SIZE];
    inact_engine source = started_engine(NULL);
    size_t length = snapshot_of(source, bytes);
    char message[64];
    REQUIRE_OK(inact_destroy(source));
    memset(bytes + length, 0, sizeof bytes - length);

    CHECK_RESTORE(bytes, length, INACT_OK, INACT_STATE_ACTIVE, INACT_REASON_RESTORED, NULL);
    CHECK_RESTORE(bytes, length + 1, INACT_E_SNAPSHOT_INVALID, INACT_STATE_EXPIRED,
                  INACT_REASON_RESTORE_FAILED, "longer");
    CHECK_RESTORE(bytes, INACT_SNAPSHOT_MAX_SIZE + 1, INACT_E_SNAPSHOT_INVALID,
                  INACT_STATE_EXPIRED, INACT_REASON_RESTORE_FAILED, "longer");
    snprintf(message, sizeof message, "(%zu)", TWO_TO_63);
    CHECK_RESTORE(bytes, TWO_TO_63, INACT_E_SNAPSHOT_INVALID, INACT_STATE_EXPIRED,
                  INACT_REASON_RESTORE_FAILED, message);
    snprintf(message, sizeof message, "(%zu)", TWO_TO_63 - 1);
    CHECK_RESTORE(bytes, TWO_TO_63 - 1, INACT_E_SNAPSHOT_INVALID, INACT_STATE_EXPIRED,
                  INACT_REASON_RESTORE_FAILED, message);
    snprintf(message, sizeof message, "(%zu)", SIZE_MAX);
    CHECK_RESTORE(bytes, SIZE_MAX, INACT_E_SNAPSHOT_INVALID, INACT_STATE_EXPIRED,
                  INACT_REASON_RESTORE_FAILED, message);
    /* the short end */
    CHECK_RESTORE(bytes, 0, INACT_E_SNAPSHOT_TRUNCATED, INACT_STATE_EXPIRED,
                  INACT_REASON_RESTORE_FAILED, "(0)");
    CHECK_RESTORE(bytes, 1, INACT_E_SNAPSHOT_TRUNCATED, INACT_STATE_EXPIRED,
                  INACT_REASON_RESTORE_FAILED, "(1)");
    CHECK_RESTORE(bytes, length - 1, INACT_E_SNAPSHOT_TRUNCATED, INACT_STATE_EXPIRED,
                  INACT_REASON_RESTORE_FAILED, "shorter");
    CHECK_RESTORE(NULL, 0, INACT_E_SNAPSHOT_TRUNCATED, INACT_STATE_EXPIRED,
                  INACT_REASON_RESTORE_FAILED, "(0)");
    /* a newer format is a version error whatever its length (only its header is read) */
    bytes[4] = 3;
    CHECK_RESTORE(bytes, SIZE_MAX, INACT_E_SNAPSHOT_VERSION, INACT_STATE_EXPIRED,
                  INACT_REASON_RESTORE_FAILED, "version");
}

TEST(restore_with_null_bytes_and_any_length_changes_nothing) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    CHECK_REJECTED(engine, &rec, inact_restore(engine, NULL, 1), INACT_E_NULL_POINTER, "bytes");
    CHECK_REJECTED(engine, &rec, inact_restore(engine, NULL, TWO_TO_63), INACT_E_NULL_POINTER,
                   "bytes");
    CHECK_REJECTED(engine, &rec, inact_restore(engine, NULL, SIZE_MAX), INACT_E_NULL_POINTER,
                   "bytes");
    CHECK_EQ(state_of(engine), INACT_STATE_LOADING);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(snapshot_write_takes_the_capacity_at_full_width) {
    /* "My buffer is big enough": SIZE_MAX and every capacity >= 2^63 used to be refused as
     * a negative capacity. Only the snapshot's bytes are written. */
    static const size_t capacities[] = {SIZE_MAX, SIZE_MAX - 1, TWO_TO_63, TWO_TO_63 - 1,
                                        INACT_SNAPSHOT_MAX_SIZE};
    recorder rec;
    inact_engine engine;
    uint8_t expected[INACT_SNAPSHOT_MAX_SIZE], buffer[2 * INACT_SNAPSHOT_MAX_SIZE];
    size_t size = 0, written, i, j;
    recorder_init(&rec);
    engine = started_engine(&rec);
    REQUIRE_OK(inact_snapshot_size(engine, &size));
    REQUIRE(snapshot_of(engine, expected) == size);
    for (i = 0; i < sizeof capacities / sizeof capacities[0]; i++) {
        memset(buffer, 0xEE, sizeof buffer);
        written = 4242;
        CHECK_STATUS(inact_snapshot_write(engine, buffer, capacities[i], &written), INACT_OK);
        CHECK_EQ(written, size);
        CHECK(memcmp(buffer, expected, size) == 0);
        for (j = size; j < sizeof buffer; j++)
            if (buffer[j] != 0xEE) {
                harness_fail(__FILE__, __LINE__, "capacity %zu: byte %zu past the snapshot written",
                             capacities[i], j);
                break;
            }
    }
    written = 4242;
    CHECK_REJECTED(engine, &rec, inact_snapshot_write(engine, buffer, 0, &written),
                   INACT_E_BUFFER_TOO_SMALL, "capacity (0)");
    CHECK_REJECTED(engine, &rec, inact_snapshot_write(engine, buffer, 1, &written),
                   INACT_E_BUFFER_TOO_SMALL, "capacity (1)");
    CHECK_REJECTED(engine, &rec, inact_snapshot_write(engine, NULL, SIZE_MAX, &written),
                   INACT_E_NULL_POINTER, "buffer");
    CHECK_REJECTED(engine, &rec, inact_snapshot_write(engine, buffer, SIZE_MAX, NULL),
                   INACT_E_NULL_POINTER, "out_written");
    CHECK_EQ(written, 4242);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(activity_kind_is_one_known_bit_of_32) {
    recorder rec;
    inact_engine engine;
    uint32_t bit;
    recorder_init(&rec);
    engine = started_engine(&rec);
    for (bit = 0; bit < 32; bit++) {
        uint32_t kind = (uint32_t)1 << bit;
        if (kind & INACT_ACTIVITY_ALL)
            CHECK_STATUS(inact_activity(engine, kind), INACT_OK);
        else
            CHECK_REJECTED(engine, &rec, inact_activity(engine, kind), INACT_E_INVALID_ARGUMENT,
                           "kind");
    }
    CHECK_REJECTED(engine, &rec, inact_activity(engine, 0), INACT_E_INVALID_ARGUMENT, "kind");
    CHECK_REJECTED(engine, &rec, inact_activity(engine, INACT_ACTIVITY_ALL),
                   INACT_E_INVALID_ARGUMENT, "kind");
    CHECK_REJECTED(engine, &rec, inact_activity(engine, UINT32_MAX), INACT_E_INVALID_ARGUMENT,
                   "kind");
    CHECK_REJECTED(engine, &rec, inact_activity(engine, 0x80000001u), INACT_E_INVALID_ARGUMENT,
                   "kind");
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

/* inact_policy_validate of `policy` with one field changed. */
#define CHECK_POLICY_FIELD(field, value, expected)                                        \
    do {                                                                                  \
        inact_policy p_ = test_policy();                                                  \
        p_.field = value;                                                                 \
        CHECK_REJECTED(0, NULL, inact_policy_validate(&p_), (expected),                   \
                       (expected) == INACT_OK ? NULL : #field);                           \
    } while (0)

TEST(policy_bit_sets_and_counts_at_full_width) {
    uint32_t bit;
    CHECK_POLICY_FIELD(activity_kinds, 0u, INACT_OK); /* nothing counts: documented */
    CHECK_POLICY_FIELD(activity_kinds, INACT_ACTIVITY_ALL, INACT_OK);
    for (bit = 7; bit < 32; bit++)
        CHECK_POLICY_FIELD(activity_kinds, INACT_ACTIVITY_USER | ((uint32_t)1 << bit),
                           INACT_E_INVALID_ARGUMENT);
    CHECK_POLICY_FIELD(activity_kinds, UINT32_MAX, INACT_E_INVALID_ARGUMENT);
    CHECK_POLICY_FIELD(max_unlock_failures, 0u, INACT_OK);
    CHECK_POLICY_FIELD(max_unlock_failures, 1u, INACT_OK);
    CHECK_POLICY_FIELD(max_unlock_failures, UINT32_MAX, INACT_OK);
}

TEST(unlock_failures_saturate_at_uint32_max) {
    /* A restored count at the top of its type: one more failure neither wraps to 0 nor
     * traps. The snapshot is forged with a valid checksum (FNV-1a 64 over bytes 0..95). */
    uint8_t bytes[INACT_SNAPSHOT_MAX_SIZE];
    inact_engine source = started_engine(NULL), engine;
    size_t length, i;
    uint64_t hash = 0xcbf29ce484222325ULL;
    uint32_t failures = 0;
    REQUIRE_OK(inact_lock(source));
    length = snapshot_of(source, bytes);
    REQUIRE(length == 104);
    REQUIRE_OK(inact_destroy(source));
    memset(bytes + 8, 0xFF, 4); /* unlock failures: UINT32_MAX */
    for (i = 0; i < 96; i++) hash = (hash ^ bytes[i]) * 0x100000001b3ULL;
    for (i = 0; i < 8; i++) bytes[96 + i] = (uint8_t)(hash >> (8 * i));
    engine = later_on_the_same_boot(NULL);
    REQUIRE_OK(inact_restore(engine, bytes, length));
    CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
    CHECK_EQ_U64(info_of(engine).unlock_failures, UINT32_MAX);
    CHECK_STATUS(inact_unlock_failed(engine, &failures), INACT_OK);
    CHECK_EQ_U64(failures, UINT32_MAX);
    CHECK_STATUS(inact_unlock(engine), INACT_OK);
    CHECK_EQ_U64(info_of(engine).unlock_failures, 0);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(struct_sizes_at_full_width) {
    static const uint32_t sizes[] = {0, 1, 4, 65537, 0x80000000u, UINT32_MAX};
    inact_policy policy = test_policy();
    inact_config config;
    inact_engine engine = started_engine(NULL), out = SENTINEL_U64;
    uint8_t *big = calloc(1, 65536);
    size_t i;
    REQUIRE(big != NULL);
    REQUIRE_OK(inact_config_init(&config));
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        inact_policy p = policy;
        inact_config c = config;
        inact_info info;
        p.size = sizes[i];
        c.size = sizes[i];
        memset(&info, 0, sizeof info);
        info.size = sizes[i];
        CHECK_REJECTED(0, NULL, inact_policy_validate(&p), INACT_E_STRUCT_SIZE, "size");
        CHECK_REJECTED(engine, NULL, inact_set_policy(engine, &p), INACT_E_STRUCT_SIZE, "size");
        CHECK_REJECTED(engine, NULL, inact_get_policy(engine, &p), INACT_E_STRUCT_SIZE, "size");
        CHECK_REJECTED(engine, NULL, inact_get_info(engine, &info), INACT_E_STRUCT_SIZE, "size");
        CHECK_REJECTED(0, NULL, inact_engine_create(&c, NULL, NULL, NULL, NULL, &out),
                       INACT_E_STRUCT_SIZE, "size");
        CHECK_EQ_U64(out, SENTINEL_U64);
    }
    /* 65536 is the largest accepted size: a newer caller's struct with a zero tail */
    memcpy(big, &policy, sizeof policy);
    ((inact_policy *)(void *)big)->size = 65536;
    CHECK_STATUS(inact_policy_validate((inact_policy *)(void *)big), INACT_OK);
    CHECK_STATUS(inact_set_policy(engine, (inact_policy *)(void *)big), INACT_OK);
    memset(big, 0, 65536);
    ((inact_info *)(void *)big)->size = 65536;
    CHECK_STATUS(inact_get_info(engine, (inact_info *)(void *)big), INACT_OK);
    CHECK_EQ(((inact_info *)(void *)big)->state, INACT_STATE_ACTIVE);
    for (i = sizeof(inact_info); i < 65536; i++)
        if (big[i] != 0) {
            harness_fail(__FILE__, __LINE__, "get_info wrote byte %zu of a larger struct", i);
            break;
        }
    big[65535] = 1;
    CHECK_REJECTED(engine, NULL, inact_get_info(engine, (inact_info *)(void *)big),
                   INACT_E_STRUCT_SIZE, "65535");
    free(big);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(int32_enums_at_full_width) {
    static const int32_t bad[] = {INT32_MIN, INT32_MIN + 1, -1, 99, 256, INT32_MAX};
    recorder rec;
    inact_engine engine;
    inact_policy before = test_policy(), p;
    int32_t outcome = 77;
    size_t i;
    recorder_init(&rec);
    engine = started_engine(&rec);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        inact_config c;
        inact_engine out = SENTINEL_U64;
        p = before;
        CHECK_REJECTED(0, NULL, inact_policy_preset(&p, bad[i]), INACT_E_INVALID_ARGUMENT,
                       "preset");
        CHECK(memcmp(&p, &before, sizeof p) == 0);
        CHECK_POLICY_FIELD(idle_action, bad[i], INACT_E_INVALID_ARGUMENT);
        REQUIRE_OK(inact_config_init(&c));
        c.delivery = bad[i];
        CHECK_REJECTED(0, NULL, inact_engine_create(&c, NULL, NULL, NULL, NULL, &out),
                       INACT_E_INVALID_ARGUMENT, "delivery");
        REQUIRE_OK(inact_config_init(&c));
        c.clock = bad[i];
        CHECK_REJECTED(0, NULL, inact_engine_create(&c, NULL, NULL, NULL, NULL, &out),
                       INACT_E_INVALID_ARGUMENT, "clock");
        REQUIRE_OK(inact_config_init(&c));
        c.reserved0 = bad[i];
        CHECK_REJECTED(0, NULL, inact_engine_create(&c, NULL, NULL, NULL, NULL, &out),
                       INACT_E_INVALID_ARGUMENT, "reserved0");
        CHECK_EQ_U64(out, SENTINEL_U64);
        CHECK_REJECTED(engine, &rec, inact_end(engine, bad[i]), INACT_E_INVALID_ARGUMENT,
                       "reason");
        if (bad[i] != -1) CHECK_STR(inact_status_string(bad[i]), "unknown status");
    }
    /* the edges of inact_end's reasons */
    CHECK_REJECTED(engine, &rec, inact_end(engine, INACT_REASON_LOGOUT - 1),
                   INACT_E_INVALID_ARGUMENT, "reason");
    CHECK_REJECTED(engine, &rec, inact_end(engine, INACT_REASON_PASSWORD_CHANGED + 1),
                   INACT_E_INVALID_ARGUMENT, "reason");
    /* http_status: 0 or 100..599, at both edges and at the ends of int32_t */
    CHECK_REJECTED(engine, &rec, inact_refresh_result(engine, INT32_MIN, NULL, &outcome),
                   INACT_E_INVALID_ARGUMENT, "http_status");
    CHECK_REJECTED(engine, &rec, inact_refresh_result(engine, -1, NULL, &outcome),
                   INACT_E_INVALID_ARGUMENT, "http_status");
    CHECK_REJECTED(engine, &rec, inact_refresh_result(engine, 1, NULL, &outcome),
                   INACT_E_INVALID_ARGUMENT, "http_status");
    CHECK_REJECTED(engine, &rec, inact_refresh_result(engine, 99, NULL, &outcome),
                   INACT_E_INVALID_ARGUMENT, "http_status");
    CHECK_REJECTED(engine, &rec, inact_refresh_result(engine, 600, NULL, &outcome),
                   INACT_E_INVALID_ARGUMENT, "http_status");
    CHECK_REJECTED(engine, &rec, inact_refresh_result(engine, INT32_MAX, NULL, &outcome),
                   INACT_E_INVALID_ARGUMENT, "http_status");
    CHECK_EQ(outcome, 77);
    CHECK_STATUS(inact_refresh_result(engine, 0, NULL, &outcome), INACT_OK);
    CHECK_EQ(outcome, INACT_REFRESH_RETRY);
    CHECK_STATUS(inact_refresh_result(engine, 100, NULL, &outcome), INACT_OK);
    CHECK_EQ(outcome, INACT_REFRESH_FAILED);
    CHECK_STATUS(inact_refresh_result(engine, 599, NULL, &outcome), INACT_OK);
    CHECK_EQ(outcome, INACT_REFRESH_RETRY);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(int32_booleans_are_exactly_0_or_1) {
    /* Rule (header, Conventions): an int32_t boolean input is 0 or 1. Any other value -- 2,
     * -1 (~0), 256 (which a char would truncate to 0), INT32_MIN -- is refused, so a stray
     * or uninitialized field never silently means "on" or "off". */
    static const int32_t bad[] = {INT32_MIN, -1, 2, 256, INT32_MAX};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_POLICY_FIELD(activity_dismisses_warning, bad[i], INACT_E_INVALID_ARGUMENT);
        CHECK_POLICY_FIELD(pause_idle_in_background, bad[i], INACT_E_INVALID_ARGUMENT);
    }
    CHECK_POLICY_FIELD(activity_dismisses_warning, 0, INACT_OK);
    CHECK_POLICY_FIELD(activity_dismisses_warning, 1, INACT_OK);
    CHECK_POLICY_FIELD(pause_idle_in_background, 0, INACT_OK);
    CHECK_POLICY_FIELD(pause_idle_in_background, 1, INACT_OK);
}

TEST(policy_durations_at_full_width) {
    /* Each duration field: INT64_MIN and -1 refused; 0 by its rule; 1 and 100 years accepted
     * (where the warning rule allows); 100 years + 1 and INACT_NEVER - 1 refused; INACT_NEVER
     * by its rule. */
    CHECK_POLICY_FIELD(idle_timeout_ms, INT64_MIN, INACT_E_INVALID_ARGUMENT);
    CHECK_POLICY_FIELD(idle_timeout_ms, -1, INACT_E_INVALID_ARGUMENT);
    CHECK_POLICY_FIELD(idle_timeout_ms, 0, INACT_E_INVALID_ARGUMENT);
    CHECK_POLICY_FIELD(idle_timeout_ms, MAX_FINITE_MS, INACT_OK);
    CHECK_POLICY_FIELD(idle_timeout_ms, MAX_FINITE_MS + 1, INACT_E_INVALID_ARGUMENT);
    CHECK_POLICY_FIELD(idle_timeout_ms, INACT_NEVER - 1, INACT_E_INVALID_ARGUMENT);
    CHECK_POLICY_FIELD(idle_timeout_ms, INACT_NEVER, INACT_OK);
    {
        inact_policy p = test_policy();
        p.warning_ms = 0;
        p.idle_timeout_ms = 1;
        CHECK_STATUS(inact_policy_validate(&p), INACT_OK);
    }

    CHECK_POLICY_FIELD(warning_ms, INT64_MIN, INACT_E_INVALID_ARGUMENT);
    CHECK_POLICY_FIELD(warning_ms, -1, INACT_E_INVALID_ARGUMENT);
    CHECK_POLICY_FIELD(warning_ms, 0, INACT_OK);
    CHECK_POLICY_FIELD(warning_ms, 1, INACT_OK);
    CHECK_POLICY_FIELD(warning_ms, INACT_NEVER - 1, INACT_E_INVALID_ARGUMENT);
    CHECK_POLICY_FIELD(warning_ms, INACT_NEVER, INACT_E_INVALID_ARGUMENT);

#define CHECK_DURATION_FIELD(field, zero_status, never_status)                            \
    do {                                                                                  \
        CHECK_POLICY_FIELD(field, INT64_MIN, INACT_E_INVALID_ARGUMENT);                   \
        CHECK_POLICY_FIELD(field, -1, INACT_E_INVALID_ARGUMENT);                          \
        CHECK_POLICY_FIELD(field, 0, zero_status);                                        \
        CHECK_POLICY_FIELD(field, 1, INACT_OK);                                           \
        CHECK_POLICY_FIELD(field, MAX_FINITE_MS, INACT_OK);                               \
        CHECK_POLICY_FIELD(field, MAX_FINITE_MS + 1, INACT_E_INVALID_ARGUMENT);           \
        CHECK_POLICY_FIELD(field, INACT_NEVER - 1, INACT_E_INVALID_ARGUMENT);             \
        CHECK_POLICY_FIELD(field, INACT_NEVER, never_status);                             \
    } while (0)
    CHECK_DURATION_FIELD(background_timeout_ms, INACT_OK, INACT_OK);
    CHECK_DURATION_FIELD(absolute_timeout_ms, INACT_E_INVALID_ARGUMENT, INACT_OK);
    CHECK_DURATION_FIELD(locked_timeout_ms, INACT_OK, INACT_OK);
    CHECK_DURATION_FIELD(tick_ms, INACT_OK, INACT_E_INVALID_ARGUMENT);
    CHECK_DURATION_FIELD(background_grace_ms, INACT_OK, INACT_E_INVALID_ARGUMENT);
#undef CHECK_DURATION_FIELD
}

TEST(a_policy_at_its_limits_runs_without_overflow) {
    /* Every finite duration at 100 years on a clock near its own limit: the deadline sums
     * saturate, nothing traps, and the session behaves. */
    recorder rec;
    inact_config config;
    inact_policy policy = test_policy();
    inact_engine engine;
    policy.idle_timeout_ms = MAX_FINITE_MS;
    policy.warning_ms = MAX_FINITE_MS - 1;
    policy.background_timeout_ms = MAX_FINITE_MS;
    policy.absolute_timeout_ms = MAX_FINITE_MS;
    policy.locked_timeout_ms = MAX_FINITE_MS;
    policy.tick_ms = MAX_FINITE_MS;
    policy.background_grace_ms = MAX_FINITE_MS;
    recorder_init(&rec);
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    config.manual_start_ms = MAX_FINITE_MS;
    config.manual_wall_ms = INT64_MAX - 1000;
    engine = make_engine(&rec, &config, &policy);
    REQUIRE_OK(inact_start(engine));
    CHECK_EQ(remaining_of(engine), MAX_FINITE_MS);
    advance(engine, 1);
    CHECK_EQ(state_of(engine), INACT_STATE_WARNING);
    REQUIRE_OK(inact_window_shown(engine));
    REQUIRE_OK(inact_window_hidden(engine));
    REQUIRE_OK(inact_background(engine));
    advance(engine, MAX_FINITE_MS);
    CHECK_EQ(state_of(engine), INACT_STATE_EXPIRED);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(scope_timeouts_at_full_width) {
    recorder rec;
    inact_engine engine;
    uint64_t scope = SENTINEL_U64;
    static const int64_t bad[] = {INT64_MIN, -1, 0, 1, 10 * SECOND_MS /* = warning */,
                                  MAX_FINITE_MS + 1, INACT_NEVER - 1, INACT_NEVER};
    size_t i;
    recorder_init(&rec);
    engine = started_engine(&rec);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_REJECTED(engine, &rec, inact_scope_push(engine, bad[i], &scope),
                       INACT_E_INVALID_ARGUMENT, "idle_timeout_ms");
    CHECK_EQ_U64(scope, SENTINEL_U64);
    CHECK_STATUS(inact_scope_push(engine, 10 * SECOND_MS + 1, &scope), INACT_OK);
    CHECK_STATUS(inact_scope_pop(engine, scope), INACT_OK);
    CHECK_STATUS(inact_scope_push(engine, MAX_FINITE_MS, &scope), INACT_OK);
    CHECK_EQ(info_of(engine).effective_idle_timeout_ms, 60 * SECOND_MS);
    CHECK_STATUS(inact_scope_pop(engine, scope), INACT_OK);
    /* ids: 0 and UINT64_MAX are never given out */
    CHECK_REJECTED(engine, &rec, inact_scope_pop(engine, 0), INACT_E_NOT_FOUND, "scope_id");
    CHECK_REJECTED(engine, &rec, inact_scope_pop(engine, UINT64_MAX), INACT_E_NOT_FOUND,
                   "scope_id");
    CHECK_REJECTED(engine, &rec, inact_hold_release(engine, 0), INACT_E_NOT_FOUND, "hold_id");
    CHECK_REJECTED(engine, &rec, inact_hold_release(engine, UINT64_MAX), INACT_E_NOT_FOUND,
                   "hold_id");
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(manual_clock_moves_at_full_width) {
    recorder rec;
    inact_engine engine;
    int64_t mono = 0, wall = 0;
    recorder_init(&rec);
    engine = started_engine(&rec);
    CHECK_REJECTED(engine, &rec, inact_clock_advance(engine, INT64_MIN), INACT_E_INVALID_ARGUMENT,
                   "ms");
    CHECK_REJECTED(engine, &rec, inact_clock_freeze(engine, INT64_MIN), INACT_E_INVALID_ARGUMENT,
                   "ms");
    CHECK_REJECTED(engine, &rec, inact_clock_advance(engine, INT64_MAX - 1),
                   INACT_E_INVALID_ARGUMENT, "1000 years");
    CHECK_REJECTED(engine, &rec, inact_clock_freeze(engine, 10 * MAX_FINITE_MS),
                   INACT_E_INVALID_ARGUMENT, "1000 years");
    CHECK_REJECTED(engine, &rec, inact_clock_reboot(engine, INT64_MIN), INACT_E_INVALID_ARGUMENT,
                   "downtime_ms");
    CHECK_STATUS(inact_clock_advance(engine, 0), INACT_OK);
    CHECK_STATUS(inact_clock_freeze(engine, 0), INACT_OK);
    /* the wall clock may go anywhere in int64_t, but not past either end */
    REQUIRE_OK(inact_clock_now(engine, &mono, &wall, NULL));
    CHECK_STATUS(inact_clock_jump_wall(engine, INT64_MIN), INACT_OK);
    CHECK_REJECTED(engine, &rec, inact_clock_jump_wall(engine, INT64_MIN),
                   INACT_E_INVALID_ARGUMENT, "delta_ms");
    CHECK_REJECTED(engine, &rec, inact_clock_jump_wall(engine, -1 - wall),
                   INACT_E_INVALID_ARGUMENT, "delta_ms");
    CHECK_STATUS(inact_clock_jump_wall(engine, -wall), INACT_OK); /* now INT64_MIN */
    CHECK_STATUS(inact_clock_jump_wall(engine, INT64_MAX), INACT_OK); /* now -1 */
    CHECK_STATUS(inact_clock_jump_wall(engine, INT64_MAX), INACT_OK); /* now INT64_MAX - 1 */
    CHECK_REJECTED(engine, &rec, inact_clock_jump_wall(engine, 2), INACT_E_INVALID_ARGUMENT,
                   "delta_ms");
    CHECK_REJECTED(engine, &rec, inact_clock_reboot(engine, 2), INACT_E_INVALID_ARGUMENT,
                   "downtime_ms");
    /* a clock move saturates the wall clock at its end: the monotonic clock is what counts */
    advance(engine, 5);
    REQUIRE_OK(inact_clock_now(engine, &mono, &wall, NULL));
    CHECK_EQ(wall, INT64_MAX);
    CHECK_EQ(mono, 1005);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

/* Creates a manual engine with the given clock: returns its status. */
static int32_t create_manual(int64_t start_ms, int64_t wall_ms, uint64_t boot_id,
                             inact_engine *out) {
    inact_config config;
    inact_policy policy = test_policy();
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    config.manual_start_ms = start_ms;
    config.manual_wall_ms = wall_ms;
    config.manual_boot_id = boot_id;
    return inact_engine_create(&config, &policy, NULL, NULL, NULL, out);
}

TEST(manual_clock_config_at_full_width) {
    inact_engine engine = SENTINEL_U64;
    int64_t mono = 0, wall = 0;
    uint64_t boot = 0;
    CHECK_REJECTED(0, NULL, create_manual(INT64_MIN, 0, 1, &engine), INACT_E_INVALID_ARGUMENT,
                   "manual_start_ms");
    CHECK_REJECTED(0, NULL, create_manual(-1, 0, 1, &engine), INACT_E_INVALID_ARGUMENT,
                   "manual_start_ms");
    CHECK_REJECTED(0, NULL, create_manual(MAX_FINITE_MS + 1, 0, 1, &engine),
                   INACT_E_INVALID_ARGUMENT, "manual_start_ms");
    CHECK_REJECTED(0, NULL, create_manual(INT64_MAX, 0, 1, &engine), INACT_E_INVALID_ARGUMENT,
                   "manual_start_ms");
    CHECK_REJECTED(0, NULL, create_manual(0, 0, 0, &engine), INACT_E_INVALID_ARGUMENT,
                   "manual_boot_id");
    CHECK_EQ_U64(engine, SENTINEL_U64);
    /* accepted: both ends of the wall clock and of the boot id, the last start */
    REQUIRE_OK(create_manual(MAX_FINITE_MS, INT64_MIN, UINT64_MAX, &engine));
    REQUIRE_OK(inact_clock_now(engine, &mono, &wall, &boot));
    CHECK_EQ(mono, MAX_FINITE_MS);
    CHECK_EQ(wall, INT64_MIN);
    CHECK_EQ_U64(boot, UINT64_MAX);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 1000);
    REQUIRE_OK(inact_clock_reboot(engine, 0));
    REQUIRE_OK(inact_clock_now(engine, NULL, NULL, &boot));
    CHECK(boot != UINT64_MAX && boot != 0);
    REQUIRE_OK(inact_destroy(engine));
    REQUIRE_OK(create_manual(0, INT64_MAX, 1, &engine));
    REQUIRE_OK(inact_start(engine));
    advance(engine, 1000);
    REQUIRE_OK(inact_clock_now(engine, NULL, &wall, NULL));
    CHECK_EQ(wall, INT64_MAX);
    REQUIRE_OK(inact_destroy(engine));
}

/* Snapshot an ACTIVE session whose clock reads (1000, wall_from, boot 7) and restore it into
 * an engine at (start, wall_to, boot); returns the state, and the reason via *reason. */
static int32_t restore_across(int64_t wall_from, int64_t start, int64_t wall_to, uint64_t boot,
                              int32_t *reason) {
    uint8_t bytes[INACT_SNAPSHOT_MAX_SIZE];
    inact_engine source, target;
    size_t length;
    int32_t state;
    REQUIRE_OK(create_manual(0, wall_from, 7, &source));
    REQUIRE_OK(inact_start(source));
    advance(source, 1000);
    length = snapshot_of(source, bytes);
    REQUIRE_OK(inact_destroy(source));
    REQUIRE_OK(create_manual(start, wall_to, boot, &target));
    REQUIRE_OK(inact_restore(target, bytes, length));
    state = state_of(target);
    *reason = reason_of(target);
    REQUIRE_OK(inact_destroy(target));
    return state;
}

TEST(restore_across_the_ends_of_the_wall_clock) {
    /* The wall delta between snapshot and restore spans the whole of int64_t: it neither
     * wraps nor traps, and the documented rules decide. */
    int32_t reason = -1;
    /* same boot, later: the monotonic clock decides, the wall clock is only a witness */
    CHECK_EQ(restore_across(INT64_MIN, 2000, INT64_MAX, 7, &reason), INACT_STATE_ACTIVE);
    CHECK_EQ(reason, INACT_REASON_RESTORED);
    /* same boot with the wall clock set back across all of int64_t: still the monotonic
     * clock that decides (nothing decides on the wall clock while the boot lasts) */
    CHECK_EQ(restore_across(INT64_MAX, 2000, INT64_MIN, 7, &reason), INACT_STATE_ACTIVE);
    CHECK_EQ(reason, INACT_REASON_RESTORED);
    /* same boot, the monotonic clock gone back: untrusted, and the wall clock went back */
    CHECK_EQ(restore_across(INT64_MAX, 500, INT64_MIN, 7, &reason), INACT_STATE_EXPIRED);
    CHECK_EQ(reason, INACT_REASON_UNTRUSTED_CLOCK);
    /* same boot, the monotonic clock gone back, the wall clock far later: the wall estimate
     * passes the absolute lifetime, EXPIRED */
    CHECK_EQ(restore_across(INT64_MIN, 500, INT64_MAX, 7, &reason), INACT_STATE_EXPIRED);
    /* another boot, the wall clock far later (absolute lifetime passed): EXPIRED */
    CHECK_EQ(restore_across(INT64_MIN, 0, INT64_MAX, 8, &reason), INACT_STATE_EXPIRED);
    /* another boot, the wall clock set back: EXPIRED */
    CHECK_EQ(restore_across(INT64_MAX, 0, INT64_MIN, 8, &reason), INACT_STATE_EXPIRED);
    CHECK_EQ(reason, INACT_REASON_UNTRUSTED_CLOCK);
}

TEST(every_pointer_may_be_null_or_is_refused) {
    inact_engine out = SENTINEL_U64;
    inact_policy before = test_policy(), p = before;
    recorder rec;
    inact_config config;
    /* the library functions */
    CHECK_REJECTED(0, NULL, inact_policy_init(NULL), INACT_E_NULL_POINTER, "policy");
    CHECK_REJECTED(0, NULL, inact_policy_preset(NULL, INACT_PRESET_DEFAULT), INACT_E_NULL_POINTER,
                   "policy");
    CHECK_REJECTED(0, NULL, inact_policy_preset(NULL, INT32_MIN), INACT_E_NULL_POINTER, "policy");
    CHECK_REJECTED(0, NULL, inact_policy_validate(NULL), INACT_E_NULL_POINTER, "policy");
    CHECK_REJECTED(0, NULL, inact_config_init(NULL), INACT_E_NULL_POINTER, "config");
    CHECK(inact_version_string() != NULL);
    CHECK(inact_last_error() != NULL);
    CHECK(memcmp(&p, &before, sizeof p) == 0);
    /* create: every pointer but out_engine may be NULL; user_data_free gets user_data as
     * it was given, NULL included */
    recorder_init(&rec);
    REQUIRE_OK(inact_config_init(&config));
    config.delivery = INACT_DELIVERY_HOST;
    CHECK_STATUS(inact_engine_create(&config, NULL, NULL, NULL, NULL, &out), INACT_OK);
    REQUIRE_OK(inact_destroy(out));
    CHECK_STATUS(inact_engine_create(&config, NULL, NULL, &rec, recorder_free, &out), INACT_OK);
    REQUIRE_OK(inact_destroy(out));
    CHECK_EQ(recorder_frees(&rec), 1);
    CHECK_STATUS(inact_engine_create(&config, NULL, recorder_callback, NULL, NULL, &out),
                 INACT_OK);
    REQUIRE_OK(inact_destroy(out)); /* a callback with NULL user_data before any event */
    recorder_deinit(&rec);
}

TEST(oauth_error_strings_of_any_length_and_bytes) {
    /* oauth_error is NUL-terminated bytes: compared exactly with "invalid_grant", whatever
     * their length or encoding. */
    recorder rec;
    inact_engine engine;
    int32_t outcome = 77;
    size_t n = 1 << 20;
    char *huge = malloc(n + 1);
    REQUIRE(huge != NULL);
    memset(huge, 'x', n);
    huge[n] = '\0';
    recorder_init(&rec);
    engine = started_engine(&rec);
    CHECK_STATUS(inact_refresh_result(engine, 400, huge, &outcome), INACT_OK);
    CHECK_EQ(outcome, INACT_REFRESH_FAILED);
    memcpy(huge, "invalid_grant", 13); /* a prefix is not the code */
    CHECK_STATUS(inact_refresh_result(engine, 400, huge, &outcome), INACT_OK);
    CHECK_EQ(outcome, INACT_REFRESH_FAILED);
    CHECK_STATUS(inact_refresh_result(engine, 400, "invalid_grant\xff", &outcome), INACT_OK);
    CHECK_EQ(outcome, INACT_REFRESH_FAILED);
    CHECK_STATUS(inact_refresh_result(engine, 400, "\xc3\x28", &outcome), INACT_OK);
    CHECK_EQ(outcome, INACT_REFRESH_FAILED);
    CHECK_STATUS(inact_refresh_result(engine, 400, "", &outcome), INACT_OK);
    CHECK_EQ(outcome, INACT_REFRESH_FAILED);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    CHECK_STATUS(inact_refresh_result(engine, 400, "invalid_grant", &outcome), INACT_OK);
    CHECK_EQ(outcome, INACT_REFRESH_REVOKED);
    CHECK_EQ(state_of(engine), INACT_STATE_EXPIRED);
    free(huge);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}
