/*
 * test_server.c -- inact_server_decide: a server's decision over a stored record, on the
 * fleet's wall clock. Times are T0 (a wall-clock instant) plus exact milliseconds.
 */
#include "support.h"

#include <stdio.h>
#include <string.h>

#define T0 1700000000000LL
#define SECOND 1000LL

/* A record and the decision that wrote it. */
typedef struct served {
    int32_t status;
    inact_decision d;
    uint8_t record[INACT_SNAPSHOT_MAX_SIZE];
    size_t length;
} served;

static served decide_with(const inact_policy *policy, const uint8_t *record, size_t length, int64_t now_ms,
                          int32_t input, int64_t arg, int64_t precision_ms) {
    served s;
    memset(&s, 0, sizeof s);
    CHECK_STATUS(inact_decision_init(&s.d), INACT_OK);
    s.status = inact_server_decide(policy, record, length, now_ms, input, arg, precision_ms, &s.d, s.record,
                                   sizeof s.record, &s.length);
    return s;
}

/* A decision that must succeed. */
static served decide_ok(const inact_policy *policy, const uint8_t *record, int64_t now_ms, int32_t input, int64_t arg,
                        int64_t precision_ms) {
    served s = decide_with(policy, record, record ? INACT_SNAPSHOT_MAX_SIZE : 0, now_ms, input, arg, precision_ms);
    if (s.status != INACT_OK) {
        harness_fail(__FILE__, __LINE__, "inact_server_decide(input %d, arg %lld, now %lld) returned %s: %s", (int)input,
                     (long long)arg, (long long)now_ms, harness_status_name(s.status), inact_last_error());
        harness_abort_test();
    }
    CHECK_EQ(s.length, s.d.write ? INACT_SNAPSHOT_MAX_SIZE : 0);
    return s;
}

/* The record after `s`: the one written, else the one decided over. */
static void keep(uint8_t *stored, const served *s) {
    if (s->d.write) memcpy(stored, s->record, INACT_SNAPSHOT_MAX_SIZE);
}

static int64_t record_instant(const uint8_t *record) {
    int64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--) v = (v << 8) | record[48 + i];
    return v;
}

TEST(server_sign_in_requests_and_the_idle_lock) {
    inact_policy policy = test_policy();
    uint8_t stored[INACT_SNAPSHOT_MAX_SIZE];
    served s = decide_ok(&policy, NULL, T0, INACT_SERVER_SIGN_IN, 0, 1000);
    CHECK_EQ(s.d.size, sizeof(inact_decision));
    CHECK_EQ(s.d.state, INACT_STATE_ACTIVE);
    CHECK_EQ(s.d.reason, INACT_REASON_STARTED);
    CHECK_EQ(s.d.write, 1);
    CHECK_EQ(s.d.now_ms, T0);
    CHECK_EQ(s.d.started_at_ms, T0);
    CHECK_EQ(s.d.last_activity_ms, T0);
    CHECK_EQ(s.d.idle_deadline_ms, T0 + 60 * SECOND);
    CHECK_EQ(s.d.absolute_deadline_ms, T0 + 12 * 3600 * SECOND);
    CHECK_EQ(s.d.remaining_ms, 60 * SECOND);
    CHECK_EQ(record_instant(s.record), T0);
    keep(stored, &s);

    /* Within the precision: nothing to write, the stored last activity stands. */
    s = decide_ok(&policy, stored, T0 + 999, INACT_SERVER_REQUEST, 0, 1000);
    CHECK_EQ(s.d.write, 0);
    CHECK_EQ(s.d.last_activity_ms, T0);
    CHECK_EQ(s.d.idle_deadline_ms, T0 + 60 * SECOND);
    /* At the precision: written. */
    s = decide_ok(&policy, stored, T0 + 1000, INACT_SERVER_REQUEST, 0, 1000);
    CHECK_EQ(s.d.write, 1);
    CHECK_EQ(s.d.last_activity_ms, T0 + 1000);
    CHECK_EQ(s.d.idle_deadline_ms, T0 + 61 * SECOND);
    keep(stored, &s);

    /* Machine traffic never extends: the warning and the lock fall on the stored activity. */
    s = decide_ok(&policy, stored, T0 + 50 * SECOND, INACT_SERVER_MACHINE, 0, 1000);
    CHECK_EQ(s.d.state, INACT_STATE_ACTIVE);
    CHECK_EQ(s.d.write, 0);
    s = decide_ok(&policy, stored, T0 + 51 * SECOND, INACT_SERVER_MACHINE, 0, 1000);
    CHECK_EQ(s.d.state, INACT_STATE_WARNING);
    CHECK_EQ(s.d.reason, INACT_REASON_IDLE);
    CHECK_EQ(s.d.remaining_ms, 10 * SECOND);
    /* A request in WARNING: the policy does not let activity dismiss it. */
    s = decide_ok(&policy, stored, T0 + 55 * SECOND, INACT_SERVER_REQUEST, 0, 1000);
    CHECK_EQ(s.d.state, INACT_STATE_WARNING);
    CHECK_EQ(s.d.last_activity_ms, T0 + 1000);
    s = decide_ok(&policy, stored, T0 + 61 * SECOND, INACT_SERVER_REQUEST, 0, 1000);
    CHECK_EQ(s.d.state, INACT_STATE_LOCKED);
    CHECK_EQ(s.d.reason, INACT_REASON_IDLE_TIMEOUT);
    CHECK_EQ(s.d.required_auth, INACT_AUTH_BIOMETRIC);
    CHECK_EQ(s.d.write, 1);
    CHECK_EQ(s.d.idle_deadline_ms, INACT_NEVER);
    CHECK_EQ(s.d.last_activity_ms, INACT_NEVER);
    keep(stored, &s);
    /* The lock sticks until an unlock the server verified. */
    s = decide_ok(&policy, stored, T0 + 62 * SECOND, INACT_SERVER_REQUEST, 0, 1000);
    CHECK_EQ(s.d.state, INACT_STATE_LOCKED);
    CHECK_EQ(s.d.write, 0);
    s = decide_ok(&policy, stored, T0 + 63 * SECOND, INACT_SERVER_UNLOCK, 0, 1000);
    CHECK_EQ(s.d.state, INACT_STATE_ACTIVE);
    CHECK_EQ(s.d.reason, INACT_REASON_UNLOCKED);
    CHECK_EQ(s.d.last_activity_ms, T0 + 63 * SECOND);
    CHECK_EQ(s.d.absolute_deadline_ms, T0 + 12 * 3600 * SECOND);
}

TEST(server_holder_activity_counts_at_its_age_clamped_to_the_record) {
    inact_policy policy = test_policy();
    uint8_t stored[INACT_SNAPSHOT_MAX_SIZE];
    served s = decide_ok(&policy, NULL, T0, INACT_SERVER_SIGN_IN, 0, 0);
    keep(stored, &s);
    s = decide_ok(&policy, stored, T0 + 30 * SECOND, INACT_SERVER_HOLDER_ACTIVITY, 5 * SECOND, 0);
    CHECK_EQ(s.d.last_activity_ms, T0 + 25 * SECOND);
    /* An age beyond the session's start counts at the stored last activity: nothing moves. */
    s = decide_ok(&policy, stored, T0 + 30 * SECOND, INACT_SERVER_HOLDER_ACTIVITY, INT64_MAX, 0);
    CHECK_EQ(s.d.last_activity_ms, T0);
    CHECK_EQ(s.d.write, 0);
    /* Activity seen before the warning fell, reported after it: the warning is dismissed only
     * by what the policy lets dismiss it; the stamp still counts. */
    s = decide_ok(&policy, stored, T0 + 52 * SECOND, INACT_SERVER_HOLDER_ACTIVITY, 3 * SECOND, 0);
    CHECK_EQ(s.d.state, INACT_STATE_WARNING);
    policy.activity_dismisses_warning = 1;
    s = decide_ok(&policy, stored, T0 + 52 * SECOND, INACT_SERVER_HOLDER_ACTIVITY, 3 * SECOND, 0);
    CHECK_EQ(s.d.state, INACT_STATE_ACTIVE);
    CHECK_EQ(s.d.reason, INACT_REASON_ACTIVITY);
    CHECK_EQ(s.d.last_activity_ms, T0 + 49 * SECOND);
    /* Reported after the lock: nothing is undone. */
    s = decide_ok(&policy, stored, T0 + 61 * SECOND, INACT_SERVER_HOLDER_ACTIVITY, 30 * SECOND, 0);
    CHECK_EQ(s.d.state, INACT_STATE_LOCKED);
}

TEST(server_lock_end_and_unlock_failures_follow_the_table) {
    inact_policy policy = test_policy();
    uint8_t stored[INACT_SNAPSHOT_MAX_SIZE], locked[INACT_SNAPSHOT_MAX_SIZE];
    served s;
    policy.max_unlock_failures = 3;
    s = decide_ok(&policy, NULL, T0, INACT_SERVER_SIGN_IN, 0, 0);
    keep(stored, &s);
    /* An unlock of a session that is not LOCKED changes nothing. */
    s = decide_ok(&policy, stored, T0 + SECOND, INACT_SERVER_UNLOCK, 0, 0);
    CHECK_EQ(s.d.state, INACT_STATE_ACTIVE);
    CHECK_EQ(s.d.reason, INACT_REASON_STARTED);
    CHECK_EQ(s.d.write, 0);
    s = decide_ok(&policy, stored, T0 + SECOND, INACT_SERVER_UNLOCK_FAILED, 0, 0);
    CHECK_EQ(s.d.unlock_failures, 0);
    CHECK_EQ(s.d.write, 0);
    s = decide_ok(&policy, stored, T0 + SECOND, INACT_SERVER_LOCK, INACT_REASON_MANUAL_LOCK, 0);
    CHECK_EQ(s.d.state, INACT_STATE_LOCKED);
    CHECK_EQ(s.d.reason, INACT_REASON_MANUAL_LOCK);
    keep(locked, &s);
    /* A lock of a LOCKED session changes nothing (the first reason stays). */
    s = decide_ok(&policy, locked, T0 + 2 * SECOND, INACT_SERVER_LOCK, INACT_REASON_DEVICE_LOCKED, 0);
    CHECK_EQ(s.d.reason, INACT_REASON_MANUAL_LOCK);
    CHECK_EQ(s.d.write, 0);
    /* A holder's lock carries its reason. */
    s = decide_ok(&policy, stored, T0 + SECOND, INACT_SERVER_LOCK, INACT_REASON_BACKGROUND_TIMEOUT, 0);
    CHECK_EQ(s.d.state, INACT_STATE_LOCKED);
    CHECK_EQ(s.d.reason, INACT_REASON_BACKGROUND_TIMEOUT);
    s = decide_ok(&policy, locked, T0 + 2 * SECOND, INACT_SERVER_UNLOCK_FAILED, 0, 0);
    CHECK_EQ(s.d.unlock_failures, 1);
    keep(locked, &s);
    s = decide_ok(&policy, locked, T0 + 2 * SECOND, INACT_SERVER_UNLOCK_FAILED, 0, 0);
    keep(locked, &s);
    s = decide_ok(&policy, locked, T0 + 2 * SECOND, INACT_SERVER_UNLOCK_FAILED, 0, 0);
    CHECK_EQ(s.d.state, INACT_STATE_EXPIRED);
    CHECK_EQ(s.d.reason, INACT_REASON_UNLOCK_FAILURES);
    CHECK_EQ(s.d.unlock_failures, 3);
    keep(locked, &s);
    /* EXPIRED stays EXPIRED: a lock, an end, an unlock change nothing; a sign-in starts anew. */
    s = decide_ok(&policy, locked, T0 + 3 * SECOND, INACT_SERVER_LOCK, INACT_REASON_MANUAL_LOCK, 0);
    CHECK_EQ(s.d.write, 0);
    s = decide_ok(&policy, locked, T0 + 3 * SECOND, INACT_SERVER_END, INACT_REASON_LOGOUT, 0);
    CHECK_EQ(s.d.reason, INACT_REASON_UNLOCK_FAILURES);
    CHECK_EQ(s.d.write, 0);
    s = decide_ok(&policy, locked, T0 + 3 * SECOND, INACT_SERVER_UNLOCK, 0, 0);
    CHECK_EQ(s.d.state, INACT_STATE_EXPIRED);
    /* END takes every EXPIRED reason a holder may report, the device limit included. */
    s = decide_ok(&policy, stored, T0 + 3 * SECOND, INACT_SERVER_END, INACT_REASON_DEVICE_LIMIT, 0);
    CHECK_EQ(s.d.state, INACT_STATE_EXPIRED);
    CHECK_EQ(s.d.reason, INACT_REASON_DEVICE_LIMIT);
    s = decide_ok(&policy, stored, T0 + 3 * SECOND, INACT_SERVER_END, INACT_REASON_ABSOLUTE_TIMEOUT, 0);
    CHECK_EQ(s.d.reason, INACT_REASON_ABSOLUTE_TIMEOUT);
}

TEST(server_corrupt_and_foreign_records_are_expired_with_a_record_to_store) {
    inact_policy policy = test_policy();
    uint8_t stored[INACT_SNAPSHOT_MAX_SIZE], bad[INACT_SNAPSHOT_MAX_SIZE], device[INACT_SNAPSHOT_MAX_SIZE];
    size_t device_length = 0;
    inact_engine engine;
    served s = decide_ok(&policy, NULL, T0, INACT_SERVER_SIGN_IN, 0, 0);
    int i;
    keep(stored, &s);
    /* A device's snapshot is not a record. */
    engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_snapshot_write(engine, device, sizeof device, &device_length));
    REQUIRE_OK(inact_destroy(engine));
    for (i = 0; i < 4; i++) {
        const uint8_t *bytes = bad;
        size_t length = sizeof bad;
        memcpy(bad, stored, sizeof bad);
        if (i == 0) bad[20] ^= 1;     /* checksum */
        if (i == 1) length = 95;      /* truncated */
        if (i == 2) bytes = device, length = device_length;
        if (i == 3) memset(bad, 0, sizeof bad);
        s = decide_with(&policy, bytes, length, T0 + SECOND, INACT_SERVER_REQUEST, 0, 0);
        CHECK_STATUS(s.status, INACT_OK);
        CHECK_EQ(s.d.state, INACT_STATE_EXPIRED);
        CHECK_EQ(s.d.reason, INACT_REASON_RESTORE_FAILED);
        CHECK_EQ(s.d.write, 1);
        CHECK_EQ(s.length, INACT_SNAPSHOT_MAX_SIZE);
        CHECK_EQ(record_instant(s.record), T0 + SECOND);
    }
    /* The expired record it gives reads EXPIRED and is stable. */
    memcpy(bad, s.record, sizeof bad);
    s = decide_ok(&policy, bad, T0 + 2 * SECOND, INACT_SERVER_REQUEST, 0, 0);
    CHECK_EQ(s.d.state, INACT_STATE_EXPIRED);
    CHECK_EQ(s.d.reason, INACT_REASON_RESTORE_FAILED);
    CHECK_EQ(s.d.write, 0);
}

TEST(server_record_of_another_policy_is_judged_under_the_given_one) {
    inact_policy lax = test_policy(), strict = test_policy();
    uint8_t stored[INACT_SNAPSHOT_MAX_SIZE];
    served s;
    lax.max_unlock_failures = 5;
    strict.idle_timeout_ms = 30 * SECOND;
    strict.max_unlock_failures = 2;
    s = decide_ok(&lax, NULL, T0, INACT_SERVER_SIGN_IN, 0, 0);
    keep(stored, &s);
    s = decide_ok(&strict, stored, T0 + 31 * SECOND, INACT_SERVER_MACHINE, 0, 0);
    CHECK_EQ(s.d.state, INACT_STATE_LOCKED);
    CHECK_EQ(s.d.reason, INACT_REASON_IDLE_TIMEOUT);
    s = decide_ok(&lax, stored, T0 + SECOND, INACT_SERVER_LOCK, INACT_REASON_MANUAL_LOCK, 0);
    keep(stored, &s);
    s = decide_ok(&lax, stored, T0 + SECOND, INACT_SERVER_UNLOCK_FAILED, 0, 0);
    keep(stored, &s);
    s = decide_ok(&lax, stored, T0 + SECOND, INACT_SERVER_UNLOCK_FAILED, 0, 0);
    CHECK_EQ(s.d.state, INACT_STATE_LOCKED);
    keep(stored, &s);
    s = decide_ok(&strict, stored, T0 + 2 * SECOND, INACT_SERVER_MACHINE, 0, 0);
    CHECK_EQ(s.d.state, INACT_STATE_EXPIRED);
    CHECK_EQ(s.d.reason, INACT_REASON_UNLOCK_FAILURES);
    CHECK_EQ(s.d.write, 1);
}

TEST(server_bad_arguments_name_the_argument_and_write_nothing) {
    inact_policy policy = test_policy(), broken = test_policy();
    uint8_t stored[INACT_SNAPSHOT_MAX_SIZE], out[INACT_SNAPSHOT_MAX_SIZE];
    inact_decision d;
    size_t length = 77;
    served s = decide_ok(&policy, NULL, T0, INACT_SERVER_SIGN_IN, 0, 0);
    struct {
        const inact_policy *policy;
        const uint8_t *record;
        int64_t now, arg, precision;
        int32_t input;
        size_t capacity;
        int32_t status;
        const char *words;
    } cases[] = {
        {&broken, stored, T0, 0, 0, INACT_SERVER_REQUEST, 96, INACT_E_INVALID_ARGUMENT, "policy.warning_ms"},
        {NULL, stored, T0, 0, 0, INACT_SERVER_REQUEST, 96, INACT_E_NULL_POINTER, "policy"},
        {&policy, NULL, T0, 0, 0, INACT_SERVER_REQUEST, 96, INACT_E_NULL_POINTER, "record"},
        {&policy, stored, T0, 0, 0, 0, 96, INACT_E_INVALID_ARGUMENT, "input (0)"},
        {&policy, stored, T0, 0, 0, 9, 96, INACT_E_INVALID_ARGUMENT, "input (9)"},
        {&policy, stored, -1, 0, 0, INACT_SERVER_REQUEST, 96, INACT_E_INVALID_ARGUMENT, "now_ms (-1)"},
        {&policy, stored, INT64_MAX, 0, 0, INACT_SERVER_REQUEST, 96, INACT_E_INVALID_ARGUMENT, "now_ms"},
        {&policy, stored, T0, 0, -1, INACT_SERVER_REQUEST, 96, INACT_E_INVALID_ARGUMENT, "precision_ms (-1)"},
        {&policy, stored, T0, 0, 50 * SECOND, INACT_SERVER_REQUEST, 96, INACT_E_INVALID_ARGUMENT, "precision_ms (50000)"},
        {&policy, stored, T0, 1, 0, INACT_SERVER_MACHINE, 96, INACT_E_INVALID_ARGUMENT, "arg (1) must be 0"},
        {&policy, stored, T0, -5, 0, INACT_SERVER_HOLDER_ACTIVITY, 96, INACT_E_INVALID_ARGUMENT, "arg (-5)"},
        {&policy, stored, T0, INACT_REASON_LOGOUT, 0, INACT_SERVER_LOCK, 96, INACT_E_INVALID_ARGUMENT, "LOCKED reason"},
        {&policy, stored, T0, INACT_REASON_RESTORED, 0, INACT_SERVER_END, 96, INACT_E_INVALID_ARGUMENT, "EXPIRED reason"},
        {&policy, stored, T0, INACT_REASON_IDLE, 0, INACT_SERVER_END, 96, INACT_E_INVALID_ARGUMENT, "EXPIRED reason"},
        {&policy, stored, T0, (int64_t)1 << 32 | INACT_REASON_LOGOUT, 0, INACT_SERVER_END, 96, INACT_E_INVALID_ARGUMENT, "EXPIRED reason"},
        {&policy, stored, T0, 0, 0, INACT_SERVER_REQUEST, 95, INACT_E_BUFFER_TOO_SMALL, "capacity (95)"},
    };
    size_t i;
    keep(stored, &s);
    broken.warning_ms = broken.idle_timeout_ms;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t status;
        memset(&d, 0xAB, sizeof d);
        d.size = sizeof d;
        memset(out, 0xCD, sizeof out);
        length = 77;
        status = inact_server_decide(cases[i].policy, cases[i].record, sizeof stored, cases[i].now, cases[i].input,
                                     cases[i].arg, cases[i].precision, &d, out, cases[i].capacity, &length);
        CHECK_STATUS(status, cases[i].status);
        if (strstr(inact_last_error(), cases[i].words) == NULL)
            harness_fail(__FILE__, __LINE__, "case %d: \"%s\" does not name \"%s\"", (int)i, inact_last_error(), cases[i].words);
        CHECK_EQ(d.state, (int32_t)0xABABABAB);
        CHECK_EQ(out[0], 0xCD);
        CHECK_EQ(length, 77);
    }
    /* The out pointers and the decision's size. */
    CHECK_STATUS(inact_server_decide(&policy, stored, 96, T0, INACT_SERVER_REQUEST, 0, 0, NULL, out, 96, &length),
                 INACT_E_NULL_POINTER);
    CHECK_STATUS(inact_server_decide(&policy, stored, 96, T0, INACT_SERVER_REQUEST, 0, 0, &d, NULL, 96, &length),
                 INACT_E_NULL_POINTER);
    CHECK_STATUS(inact_server_decide(&policy, stored, 96, T0, INACT_SERVER_REQUEST, 0, 0, &d, out, 96, NULL),
                 INACT_E_NULL_POINTER);
    d.size = 71;
    CHECK_STATUS(inact_server_decide(&policy, stored, 96, T0, INACT_SERVER_REQUEST, 0, 0, &d, out, 96, &length),
                 INACT_E_STRUCT_SIZE);
    CHECK_EQ(length, 77);
}

TEST(server_decision_struct_follows_the_size_convention) {
    inact_policy policy = test_policy();
    unsigned char raw[sizeof(inact_decision) + 16];
    inact_decision *d = (inact_decision *)(void *)raw;
    uint8_t out[INACT_SNAPSHOT_MAX_SIZE];
    size_t length = 0;
    memset(raw, 0xEE, sizeof raw);
    CHECK_STATUS(inact_decision_init_sized(d, sizeof(inact_decision) + 8), INACT_OK);
    CHECK_EQ(d->size, sizeof(inact_decision) + 8);
    CHECK_EQ(d->state, INACT_STATE_LOADING);
    CHECK_EQ(d->remaining_ms, INACT_NEVER);
    CHECK_EQ(raw[sizeof(inact_decision) + 7], 0);
    CHECK_EQ(raw[sizeof(inact_decision) + 8], 0xEE);
    CHECK_STATUS(inact_server_decide(&policy, NULL, 0, T0, INACT_SERVER_SIGN_IN, 0, 0, d, out, sizeof out, &length),
                 INACT_OK);
    CHECK_EQ(d->size, sizeof(inact_decision) + 8);
    CHECK_EQ(d->state, INACT_STATE_ACTIVE);
    CHECK_EQ(raw[sizeof(inact_decision) + 7], 0);    /* the tail stays zero */
    CHECK_EQ(raw[sizeof(inact_decision) + 8], 0xEE); /* nothing beyond the size */
    raw[sizeof(inact_decision) + 2] = 1;
    CHECK_STATUS(inact_server_decide(&policy, NULL, 0, T0, INACT_SERVER_SIGN_IN, 0, 0, d, out, sizeof out, &length),
                 INACT_E_STRUCT_SIZE);
    CHECK_STATUS(inact_decision_init_sized(d, 71), INACT_E_STRUCT_SIZE);
    CHECK_STATUS((inact_decision_init)(d), INACT_OK);
    CHECK_EQ(d->size, 72);
}

/* ---- clocks -------------------------------------------------------------------------- */

/* A server behind a record decides at the record's instant: whatever the input, exactly as a
 * server at that instant, never with more time left. */
TEST(server_behind_a_record_decides_at_the_records_instant) {
    inact_policy policy = test_policy();
    uint8_t stored[INACT_SNAPSHOT_MAX_SIZE];
    int32_t input;
    served s = decide_ok(&policy, NULL, T0, INACT_SERVER_SIGN_IN, 0, 0);
    keep(stored, &s);
    s = decide_ok(&policy, stored, T0 + 40 * SECOND, INACT_SERVER_REQUEST, 0, 0);
    keep(stored, &s);
    CHECK_EQ(record_instant(stored), T0 + 40 * SECOND);
    for (input = INACT_SERVER_REQUEST; input <= INACT_SERVER_UNLOCK_FAILED; input++) {
        int64_t arg = input == INACT_SERVER_LOCK ? INACT_REASON_MANUAL_LOCK : input == INACT_SERVER_END ? INACT_REASON_LOGOUT : 0;
        served at = decide_ok(&policy, stored, T0 + 40 * SECOND, input, arg, 0);
        int64_t behind;
        for (behind = 1; behind <= 40 * SECOND; behind *= 7) {
            served b = decide_ok(&policy, stored, T0 + 40 * SECOND - behind, input, arg, 0);
            CHECK_EQ(b.d.now_ms, T0 + 40 * SECOND);
            CHECK(memcmp(&b.d, &at.d, sizeof b.d) == 0);
            CHECK(b.d.write == 0 || memcmp(b.record, at.record, sizeof b.record) == 0);
        }
    }
}

/* Two servers share one record, A's clock e ahead of the true time and B's e behind, and a
 * true-clock run decides the same inputs at the same true times over its own record:
 * - no decision is made at an instant before its record's: B behind A's write decides at A's
 *   instant, so a lock A wrote is never undone by B's clock, and every instant lies within
 *   [t - e, t + e];
 * - the fleet's lock falls within the clock spread (2e) of the true-clock run's, either way:
 *   A alone would be at most e early (the ahead run below), B at most e late.
 * Each round: sign-in at a true time, requests every 7 s from one server or the other, then
 * machine polls every 250 ms until both runs are LOCKED. */
TEST(two_servers_whose_clocks_differ_stay_within_their_spread) {
    inact_policy policy = test_policy();
    const int64_t e = 2 * SECOND;
    unsigned seed = 12345;
    int round;
    /* Fewer rounds under valgrind (each decision costs ~50x there). */
    const int rounds = harness_slow() ? 6 : 60;
    for (round = 0; round < rounds; round++) {
        uint8_t fleet[INACT_SNAPSHOT_MAX_SIZE], truth[INACT_SNAPSHOT_MAX_SIZE], ahead[INACT_SNAPSHOT_MAX_SIZE];
        int64_t t = T0 + round * 1000 * SECOND, fleet_lock = 0, truth_lock = 0, ahead_lock = 0;
        int requests = 1 + round % 5, k;
        served s = decide_ok(&policy, NULL, t, INACT_SERVER_SIGN_IN, 0, 0);
        keep(fleet, &s);
        keep(truth, &s);
        keep(ahead, &s);
        for (k = 0; k < requests + 400 && (!fleet_lock || !truth_lock || !ahead_lock); k++) {
            int32_t input = k < requests ? INACT_SERVER_REQUEST : INACT_SERVER_MACHINE;
            int64_t offset, was_instant = record_instant(fleet);
            int was_locked;
            served f, r, a;
            t += k < requests ? 7 * SECOND : 250;
            seed = seed * 1103515245u + 12345u;
            offset = (seed >> 16) & 1 ? e : -e;
            was_locked = fleet[6] == INACT_STATE_LOCKED; /* the record's state byte */
            f = decide_ok(&policy, fleet, t + offset, input, 0, 0);
            CHECK(f.d.now_ms >= was_instant);
            CHECK(f.d.now_ms >= t - e && f.d.now_ms <= t + e);
            if (was_locked) CHECK_EQ(f.d.state, INACT_STATE_LOCKED);
            keep(fleet, &f);
            r = decide_ok(&policy, truth, t, input, 0, 0);
            keep(truth, &r);
            a = decide_ok(&policy, ahead, t + e, input, 0, 0);
            keep(ahead, &a);
            if (!fleet_lock && f.d.state == INACT_STATE_LOCKED) fleet_lock = t;
            if (!truth_lock && r.d.state == INACT_STATE_LOCKED) truth_lock = t;
            if (!ahead_lock && a.d.state == INACT_STATE_LOCKED) ahead_lock = t;
        }
        REQUIRE(fleet_lock && truth_lock && ahead_lock);
        /* Polls every 250 ms: a lock is seen within 250 ms of its instant. */
        CHECK(fleet_lock >= truth_lock - 2 * e - 250 && fleet_lock <= truth_lock + 2 * e + 250);
        CHECK(ahead_lock <= truth_lock && ahead_lock >= truth_lock - e - 250);
    }
}

/* ---- the session machine is the one truth -------------------------------------------- */

/* The same inputs at the same times, to a server over its record and to an engine on a
 * manual clock (engine time t is the fleet's T0 + t; a keepalive, a holder's lock or expiry
 * are the engine's inact_holder_report): the same state, reason, remaining time,
 * unlock failures, required strength, session start and last activity after every step, over
 * random policies, inputs and delays. Precision 0: the engine stores every activity. */
TEST(server_decide_equals_an_engine_fed_the_same_inputs) {
    unsigned seed = 777;
    int round;
#define RAND(n) ((seed = seed * 1103515245u + 12345u), (int64_t)((seed >> 8) % (unsigned)(n)))
    const int rounds = harness_slow() ? 4 : 40;
    for (round = 0; round < rounds; round++) {
        inact_policy policy = test_policy();
        uint8_t stored[INACT_SNAPSHOT_MAX_SIZE];
        inact_engine engine;
        int64_t t = 0;
        int step;
        served s;
        policy.idle_action = RAND(2) ? INACT_IDLE_ACTION_LOCK : INACT_IDLE_ACTION_EXPIRE;
        policy.activity_dismisses_warning = (int32_t)RAND(2);
        policy.warning_ms = RAND(2) ? 10 * SECOND : 0;
        policy.locked_timeout_ms = RAND(2) ? 120 * SECOND : INACT_NEVER;
        policy.max_unlock_failures = RAND(2) ? 3 : 0;
        policy.absolute_timeout_ms = 600 * SECOND;
        engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
        REQUIRE_OK(inact_start(engine));
        s = decide_ok(&policy, NULL, T0, INACT_SERVER_SIGN_IN, 0, 0);
        keep(stored, &s);
        for (step = 0; step < 60; step++) {
            int64_t dt = RAND(3) == 0 ? 0 : RAND(2) ? RAND(15 * SECOND) : 40 * SECOND + RAND(30 * SECOND);
            static const int32_t locks[] = {INACT_REASON_MANUAL_LOCK, INACT_REASON_IDLE_TIMEOUT, INACT_REASON_DEVICE_LOCKED};
            static const int32_t ends[] = {INACT_REASON_LOGOUT, INACT_REASON_DEVICE_LIMIT, INACT_REASON_ABSOLUTE_TIMEOUT,
                                           INACT_REASON_UNLOCK_FAILURES};
            int32_t input = (int32_t)(2 + RAND(7)), state;
            int64_t arg = 0;
            inact_info info;
            uint32_t failures = 0;
            t += dt;
            REQUIRE_OK(inact_clock_advance(engine, dt));
            state = state_of(engine);
            if (state == INACT_STATE_EXPIRED && RAND(3) == 0) input = INACT_SERVER_SIGN_IN;
            switch (input) {
            case INACT_SERVER_SIGN_IN: REQUIRE_OK(inact_start(engine)); break;
            case INACT_SERVER_REQUEST: REQUIRE_OK(inact_activity(engine, INACT_ACTIVITY_KEY)); break;
            case INACT_SERVER_MACHINE: REQUIRE_OK(inact_poll(engine)); break;
            case INACT_SERVER_HOLDER_ACTIVITY:
                arg = RAND(20 * SECOND);
                REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_ACTIVITY, INACT_REASON_NONE, arg));
                break;
            case INACT_SERVER_LOCK:
                arg = locks[RAND(3)];
                (void)inact_holder_report(engine, INACT_HOLDER_LOCKED, (int32_t)arg, 0); /* refused in no state here */
                break;
            case INACT_SERVER_END:
                arg = ends[RAND(4)];
                if (arg == INACT_REASON_LOGOUT || arg == INACT_REASON_DEVICE_LIMIT)
                    REQUIRE_OK(inact_end(engine, (int32_t)arg));
                else
                    REQUIRE_OK(inact_holder_report(engine, INACT_HOLDER_EXPIRED, (int32_t)arg, 0));
                break;
            case INACT_SERVER_UNLOCK: (void)inact_unlock_with(engine, INACT_AUTH_CREDENTIAL); break;
            case INACT_SERVER_UNLOCK_FAILED: (void)inact_unlock_failed_with(engine, INACT_AUTH_CREDENTIAL, &failures); break;
            default: break;
            }
            s = decide_ok(&policy, input == INACT_SERVER_SIGN_IN ? NULL : stored, T0 + t, input, arg, 0);
            keep(stored, &s);
            info = info_of(engine);
            CHECK_EQ(s.d.state, info.state);
            CHECK_EQ(s.d.reason, info.reason);
            CHECK_EQ(s.d.remaining_ms, info.remaining_ms);
            CHECK_EQ(s.d.unlock_failures, info.unlock_failures);
            CHECK_EQ(s.d.required_auth, info.required_auth);
            CHECK_EQ(s.d.now_ms, T0 + t);
            /* EXPIRED in the millisecond of its sign-in reads as never started (the snapshot
             * format's one ambiguity, test_snapshot.c): no start is the stricter reading. */
            if (s.d.started_at_ms != info.started_at_ms + T0 && !(info.state == INACT_STATE_EXPIRED && s.d.started_at_ms == INACT_NEVER))
                harness_fail(__FILE__, __LINE__, "round %d step %d input %d state %d/%d: started %lld, engine %lld", round, step,
                             (int)input, (int)s.d.state, (int)s.d.reason, (long long)s.d.started_at_ms, (long long)info.started_at_ms);
            if (info.state == INACT_STATE_ACTIVE || info.state == INACT_STATE_WARNING)
                CHECK_EQ(s.d.last_activity_ms, info.last_activity_ms + T0);
            if (s.d.state != info.state || s.d.reason != info.reason) {
                harness_fail(__FILE__, __LINE__, "round %d step %d input %d at %lld: server %d/%d, engine %d/%d", round, step,
                             (int)input, (long long)t, (int)s.d.state, (int)s.d.reason, (int)info.state, (int)info.reason);
                break;
            }
        }
        REQUIRE_OK(inact_destroy(engine));
    }
#undef RAND
}

/* inact_server_decide_prepared: the policy prepared once (inact_server_policy_prepare), the
 * same decision as inact_server_decide under it, byte for byte. */

/* The sameness test's draws: one per call, in statement order (reproducible). */
static unsigned draw_seed;
static int64_t draw(int64_t n) {
    draw_seed = draw_seed * 1103515245u + 12345u;
    return (int64_t)((draw_seed >> 8) % (unsigned)n);
}

static void prepare_ok(const inact_policy *policy, uint8_t *block) {
    REQUIRE_OK(inact_server_policy_prepare(policy, block, INACT_SERVER_POLICY_SIZE));
}

/* One call of each form, from the same pattern in every out-buffer: the status, the message of
 * a refusal, the whole decision struct, the out-length and the whole out-record must match. */
static int same_both_ways(const inact_policy *policy, const uint8_t *block, const uint8_t *record, size_t length,
                          int64_t now, int32_t input, int64_t arg, int64_t precision, served *plain) {
    served prepared;
    char message[512];
    memset(plain, 0x5A, sizeof *plain);
    memset(&prepared, 0x5A, sizeof prepared);
    CHECK_STATUS(inact_decision_init(&plain->d), INACT_OK);
    CHECK_STATUS(inact_decision_init(&prepared.d), INACT_OK);
    plain->status = inact_server_decide(policy, record, length, now, input, arg, precision, &plain->d, plain->record,
                                        sizeof plain->record, &plain->length);
    snprintf(message, sizeof message, "%s", inact_last_error());
    prepared.status = inact_server_decide_prepared(block, record, length, now, input, arg, precision, &prepared.d,
                                                   prepared.record, sizeof prepared.record, &prepared.length);
    CHECK_EQ(prepared.status, plain->status);
    if (plain->status != INACT_OK) CHECK_STR(inact_last_error(), message);
    if (memcmp(&prepared.d, &plain->d, sizeof prepared.d) != 0 || prepared.length != plain->length ||
        memcmp(prepared.record, plain->record, sizeof prepared.record) != 0) {
        harness_fail(__FILE__, __LINE__, "input %d arg %lld at %lld: the prepared decision or record differs", (int)input,
                     (long long)arg, (long long)now);
        return 0;
    }
    return 1;
}

TEST(server_prepared_decides_as_the_policy_byte_for_byte) {
    int round, compared = 0, written = 0, refused = 0;
    draw_seed = 4242;
    const int rounds = harness_slow() ? 6 : 60;
    static const int32_t presets[] = {INACT_PRESET_DEFAULT, INACT_PRESET_BANKING, INACT_PRESET_PSD2, INACT_PRESET_ENTERPRISE};
    static const int32_t locks[] = {INACT_REASON_MANUAL_LOCK, INACT_REASON_IDLE_TIMEOUT, INACT_REASON_LOGOUT};
    static const int32_t ends[] = {INACT_REASON_LOGOUT, INACT_REASON_ABSOLUTE_TIMEOUT, INACT_REASON_RESTORED,
                                   INACT_REASON_UNLOCK_FAILURES};
    static const int64_t precisions[] = {0, 1, 250, SECOND, 60 * SECOND};
    for (round = 0; round < rounds; round++) {
        inact_policy policy = test_policy();
        uint8_t block[INACT_SERVER_POLICY_SIZE], stored[INACT_SNAPSHOT_MAX_SIZE];
        int64_t now = T0;
        int step;
        served s;
        if (draw(2)) REQUIRE_OK(inact_policy_preset(&policy, presets[draw(4)]));
        if (draw(2)) policy.idle_action = draw(2) ? INACT_IDLE_ACTION_LOCK : INACT_IDLE_ACTION_EXPIRE;
        if (draw(2)) policy.activity_dismisses_warning = (int32_t)draw(2);
        if (draw(2)) policy.warning_ms = draw(2) ? 10 * SECOND : 0;
        if (draw(2)) policy.locked_timeout_ms = draw(2) ? 120 * SECOND : INACT_NEVER;
        if (draw(2)) policy.max_unlock_failures = (uint32_t)draw(4);
        if (draw(2)) policy.tick_ms = draw(2) ? 700 : 0;
        if (draw(2)) policy.activity_kinds = draw(2) ? INACT_ACTIVITY_ALL : INACT_ACTIVITY_PROGRAMMATIC;
        if (inact_server_policy_prepare(&policy, block, sizeof block) != INACT_OK) {
            /* A combination the policy's rules refuse: refused by the unprepared call too. */
            CHECK_EQ(decide_with(&policy, NULL, 0, now, INACT_SERVER_SIGN_IN, 0, 0).status, INACT_E_INVALID_ARGUMENT);
            continue;
        }
        REQUIRE(same_both_ways(&policy, block, NULL, 0, now, INACT_SERVER_SIGN_IN, 0, 0, &s));
        REQUIRE(s.status == INACT_OK);
        keep(stored, &s);
        for (step = 0; step < 60; step++) {
            static const int64_t steps[] = {0, 1, 300, SECOND, 4 * SECOND, 9 * SECOND, 60 * SECOND, 3600 * SECOND};
            uint8_t given[INACT_SNAPSHOT_MAX_SIZE];
            int32_t input = (int32_t)draw(10); /* 0 and 9 are not inputs: refused by both */
            int64_t arg = 0, precision;
            size_t length = sizeof given;
            now += steps[draw(8)];
            if (draw(4) == 0) now -= 2 * SECOND;
            if (input == INACT_SERVER_HOLDER_ACTIVITY) arg = draw(5) == 0 ? -1 : draw(5 * SECOND);
            if (input == INACT_SERVER_LOCK) arg = locks[draw(3)];
            if (input == INACT_SERVER_END) arg = ends[draw(4)];
            if (input != INACT_SERVER_HOLDER_ACTIVITY && input != INACT_SERVER_LOCK && input != INACT_SERVER_END && draw(8) == 0)
                arg = 1;
            memcpy(given, stored, sizeof given);
            if (draw(10) == 0) given[draw(sizeof given)] ^= 0x10; /* a corrupt record */
            if (draw(20) == 0) length = (size_t)draw(sizeof given);
            precision = precisions[draw(5)];
            if (!same_both_ways(&policy, block, draw(30) == 0 ? NULL : given, length, now, input, arg, precision, &s)) return;
            if (s.status != INACT_OK) {
                refused++;
                continue;
            }
            compared++;
            if (s.d.write) {
                written++;
                if (s.d.state != INACT_STATE_EXPIRED || draw(4) == 0) keep(stored, &s);
            }
            if (s.d.state == INACT_STATE_EXPIRED && draw(3) == 0) {
                REQUIRE(same_both_ways(&policy, block, NULL, 0, now, INACT_SERVER_SIGN_IN, 0, 0, &s));
                keep(stored, &s);
            }
        }
    }
    /* Decisions that wrote, that did not, and refusals were all compared. */
    CHECK(compared > rounds * 25 && written > rounds * 8 && compared - written > rounds * 8 && refused > rounds);
}

TEST(server_prepared_block_changed_anywhere_is_refused_and_decides_nothing) {
    inact_policy policy = test_policy(), broken = test_policy();
    uint8_t block[INACT_SERVER_POLICY_SIZE], stored[INACT_SNAPSHOT_MAX_SIZE], out[INACT_SNAPSHOT_MAX_SIZE];
    uint8_t untouched[INACT_SERVER_POLICY_SIZE + 1];
    inact_decision d;
    size_t length, i;
    served s = decide_ok(&policy, NULL, T0, INACT_SERVER_SIGN_IN, 0, 0);
    keep(stored, &s);
    prepare_ok(&policy, block);
    for (i = 0; i < 2 * INACT_SERVER_POLICY_SIZE + 2; i++) {
        uint8_t changed[INACT_SERVER_POLICY_SIZE];
        memcpy(changed, block, sizeof changed);
        if (i < 2 * INACT_SERVER_POLICY_SIZE)
            changed[i / 2] ^= (uint8_t)(i % 2 ? 0x80 : 0x01);
        else
            memset(changed, i % 2 ? 0 : 0xFF, sizeof changed); /* never prepared */
        memset(&d, 0xAB, sizeof d);
        d.size = sizeof d;
        memset(out, 0xCD, sizeof out);
        length = 77;
        CHECK_STATUS(inact_server_decide_prepared(changed, stored, sizeof stored, T0 + SECOND, INACT_SERVER_REQUEST, 0, 0, &d,
                                                  out, sizeof out, &length),
                     INACT_E_INVALID_ARGUMENT);
        if (strncmp(inact_last_error(), "prepared ", 9) != 0)
            harness_fail(__FILE__, __LINE__, "byte %d: \"%s\" does not name prepared", (int)(i / 2), inact_last_error());
        CHECK_EQ(d.state, (int32_t)0xABABABAB);
        CHECK_EQ(out[0], 0xCD);
        CHECK_EQ(length, 77);
    }
    /* The block as prepared still decides: the refusals above were for the changes. */
    CHECK_STATUS(inact_server_decide_prepared(block, stored, sizeof stored, T0 + SECOND, INACT_SERVER_REQUEST, 0, 0, &d, out,
                                              sizeof out, &length),
                 INACT_OK);
    CHECK_STATUS(inact_server_decide_prepared(NULL, stored, sizeof stored, T0, INACT_SERVER_REQUEST, 0, 0, &d, out, sizeof out,
                                              &length),
                 INACT_E_NULL_POINTER);
    CHECK(strstr(inact_last_error(), "prepared") != NULL);
    /* Preparing: a block too small, an invalid policy, no policy: refused, nothing written. */
    memset(untouched, 0xEE, sizeof untouched);
    CHECK_STATUS(inact_server_policy_prepare(&policy, untouched, INACT_SERVER_POLICY_SIZE - 1), INACT_E_INVALID_ARGUMENT);
    CHECK(strstr(inact_last_error(), "prepared") != NULL && strstr(inact_last_error(), "255") != NULL);
    broken.warning_ms = broken.idle_timeout_ms;
    CHECK_STATUS(inact_server_policy_prepare(&broken, untouched, sizeof untouched), INACT_E_INVALID_ARGUMENT);
    CHECK(strstr(inact_last_error(), "policy.warning_ms") != NULL);
    CHECK_STATUS(inact_server_policy_prepare(NULL, untouched, sizeof untouched), INACT_E_NULL_POINTER);
    CHECK_STATUS(inact_server_policy_prepare(&policy, NULL, sizeof untouched), INACT_E_NULL_POINTER);
    for (i = 0; i < sizeof untouched; i++) CHECK_EQ(untouched[i], 0xEE);
    /* Any alignment: a block one byte into a buffer decides as the aligned one. */
    REQUIRE_OK(inact_server_policy_prepare(&policy, untouched + 1, INACT_SERVER_POLICY_SIZE));
    CHECK_EQ(memcmp(untouched + 1, block, INACT_SERVER_POLICY_SIZE), 0);
    CHECK_STATUS(inact_server_decide_prepared(untouched + 1, stored, sizeof stored, T0 + SECOND, INACT_SERVER_REQUEST, 0, 0,
                                              &d, out, sizeof out, &length),
                 INACT_OK);
}
