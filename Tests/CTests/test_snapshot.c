/*
 * test_snapshot.c -- snapshot -> destroy -> new engine -> restore, on the manual clock.
 * "Same boot" is simulated by creating the second engine with the first one's clock
 * readings (inact_clock_now) plus the time that passed; a reboot by a new boot id or
 * inact_clock_reboot. The policy is test_policy(): idle 60 s, warning 10 s, background 30 s.
 */
#include "support.h"

#include <string.h>

typedef struct saved_session {
    uint8_t bytes[INACT_SNAPSHOT_MAX_SIZE];
    size_t length;
    int64_t monotonic_ms;
    int64_t wall_ms;
    uint64_t boot_id;
} saved_session;

/* Writes `engine`'s snapshot and clock readings, then destroys it (the process dies). */
static saved_session save_and_destroy(inact_engine engine) {
    saved_session saved;
    size_t size = 0;
    memset(&saved, 0, sizeof saved);
    REQUIRE_OK(inact_snapshot_size(engine, &size));
    REQUIRE(size > 0 && size <= INACT_SNAPSHOT_MAX_SIZE);
    REQUIRE_OK(inact_snapshot_write(engine, saved.bytes, sizeof saved.bytes, &saved.length));
    CHECK_EQ(saved.length, size);
    REQUIRE_OK(inact_clock_now(engine, &saved.monotonic_ms, &saved.wall_ms, &saved.boot_id));
    REQUIRE_OK(inact_destroy(engine));
    return saved;
}

/* A new process: a LOADING manual engine whose clock reads `elapsed_ms` after the snapshot
 * on the same boot (boot_id 0) or on boot `boot_id` with its monotonic clock at 1 s. */
static inact_engine new_process_under(recorder *rec, const saved_session *saved, int64_t elapsed_ms,
                                      uint64_t boot_id, inact_policy policy) {
    inact_config config;
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    config.manual_wall_ms = saved->wall_ms + elapsed_ms;
    if (boot_id == 0) {
        config.manual_boot_id = saved->boot_id;
        config.manual_start_ms = saved->monotonic_ms + elapsed_ms;
    } else {
        config.manual_boot_id = boot_id;
        config.manual_start_ms = 1000;
    }
    return make_engine(rec, &config, &policy);
}

static inact_engine new_process(recorder *rec, const saved_session *saved, int64_t elapsed_ms,
                                uint64_t boot_id) {
    return new_process_under(rec, saved, elapsed_ms, boot_id, test_policy());
}

/* A session started at 0 with its last activity at `last_activity_ms`, saved at `saved_at_ms`. */
static saved_session active_session(int64_t last_activity_ms, int64_t saved_at_ms) {
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    if (last_activity_ms > 0) {
        advance(engine, last_activity_ms);
        REQUIRE_OK(inact_activity(engine, INACT_ACTIVITY_TOUCH_DOWN));
    }
    advance(engine, saved_at_ms - last_activity_ms);
    REQUIRE(state_of(engine) == INACT_STATE_ACTIVE);
    return save_and_destroy(engine);
}

TEST(snapshot_fits_the_documented_maximum) {
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    uint8_t first[INACT_SNAPSHOT_MAX_SIZE], second[INACT_SNAPSHOT_MAX_SIZE];
    size_t size = 0, a = 0, b = 0;
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_snapshot_size(engine, &size));
    CHECK(size > 0 && size <= INACT_SNAPSHOT_MAX_SIZE);
    /* the same state gives the same bytes */
    REQUIRE_OK(inact_snapshot_write(engine, first, sizeof first, &a));
    REQUIRE_OK(inact_snapshot_write(engine, second, sizeof second, &b));
    CHECK_EQ(a, size);
    CHECK(a == b && memcmp(first, second, a) == 0);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(restore_on_the_same_boot_resumes_the_session) {
    recorder rec;
    saved_session saved = active_session(5000, 20000);
    inact_engine engine;
    inact_info info;
    recorder_init(&rec);
    engine = new_process(&rec, &saved, 2000, 0);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_ACTIVE, INACT_REASON_RESTORED, -1);
    info = info_of(engine);
    /* idle counts from the last activity before the snapshot: 60 - (20 - 5) - 2 s */
    CHECK_EQ(info.remaining_ms, 43000);
    CHECK_EQ(info.last_activity_ms, saved.monotonic_ms - 15000);
    CHECK_EQ(info.started_at_ms, saved.monotonic_ms - 20000);
    CHECK_EQ(info.in_background, 0);
    /* and the restored session goes on exactly */
    advance(engine, 32999);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    advance(engine, 1);
    CHECK_EQ(state_of(engine), INACT_STATE_WARNING);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(restore_after_the_background_timeout_is_locked) {
    recorder rec;
    saved_session saved = active_session(0, 1000);
    inact_engine engine;
    recorder_init(&rec);
    engine = new_process(&rec, &saved, 30000, 0);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_LOCKED,
                     INACT_REASON_BACKGROUND_TIMEOUT, saved.monotonic_ms + 30000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(restore_just_inside_the_background_timeout_is_active) {
    saved_session saved = active_session(0, 1000);
    inact_engine engine = new_process(NULL, &saved, 29999, 0);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    CHECK_EQ(reason_of(engine), INACT_REASON_RESTORED);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(restore_inside_the_warning_window_is_warning) {
    recorder rec;
    saved_session saved = active_session(0, 40000); /* warning due at 50 s */
    inact_engine engine;
    recorder_init(&rec);
    engine = new_process(&rec, &saved, 15000, 0);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_EQ(recorder_count_kind(&rec, INACT_EVENT_STATE_CHANGED, 0), 1);
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_WARNING, INACT_REASON_RESTORED, -1);
    CHECK_EQ(remaining_of(engine), 5000);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(restore_folds_every_due_deadline_into_one_event) {
    recorder rec;
    saved_session saved = active_session(0, 1000);
    inact_engine engine;
    recorder_init(&rec);
    /* two hours later on the same boot: the warning, the idle lock and the background
     * lock all fell due; the host sees one LOADING -> LOCKED carrying the deadline that
     * locked first (background, 30 s after the snapshot), evaluated now */
    engine = new_process(&rec, &saved, 2 * HOUR_MS, 0);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_LOCKED,
                     INACT_REASON_BACKGROUND_TIMEOUT, saved.monotonic_ms + 30000);
    CHECK_EQ(recorder_at(&rec, 0).event.now_ms, saved.monotonic_ms + 2 * HOUR_MS);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(restore_past_the_absolute_lifetime_is_expired) {
    recorder rec;
    saved_session saved = active_session(0, 1000);
    inact_engine engine;
    recorder_init(&rec);
    engine = new_process(&rec, &saved, 13 * HOUR_MS, 0);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_EXPIRED,
                     INACT_REASON_ABSOLUTE_TIMEOUT, saved.monotonic_ms - 1000 + 12 * HOUR_MS);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(restore_after_a_reboot_is_locked_untrusted_clock) {
    recorder rec;
    saved_session saved = active_session(0, 1000);
    inact_engine engine;
    recorder_init(&rec);
    /* a new boot id: the elapsed time is unknown, even if the wall clock says 1 s */
    engine = new_process(&rec, &saved, 1000, saved.boot_id + 1);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_LOCKED,
                     INACT_REASON_UNTRUSTED_CLOCK, -1);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(restore_after_simulated_reboot_is_locked_untrusted_clock) {
    recorder rec;
    saved_session saved = active_session(0, 1000);
    inact_engine engine;
    int64_t mono = -1, wall = -1;
    uint64_t boot = 0;
    recorder_init(&rec);
    engine = new_process(&rec, &saved, 0, 0);
    REQUIRE_OK(inact_clock_reboot(engine, 5000));
    REQUIRE_OK(inact_clock_now(engine, &mono, &wall, &boot));
    CHECK(boot != saved.boot_id);
    CHECK_EQ(mono, 0);
    CHECK_EQ(wall, saved.wall_ms + 5000);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_LOCKED,
                     INACT_REASON_UNTRUSTED_CLOCK, -1);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(restore_after_a_reboot_past_the_absolute_lifetime_is_expired) {
    saved_session saved = active_session(0, 1000);
    inact_engine engine = new_process(NULL, &saved, 13 * HOUR_MS, saved.boot_id + 1);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_EQ(state_of(engine), INACT_STATE_EXPIRED);
    CHECK_EQ(reason_of(engine), INACT_REASON_ABSOLUTE_TIMEOUT);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(restore_after_a_reboot_with_the_wall_clock_set_back_is_expired) {
    saved_session saved = active_session(0, 1000);
    inact_engine engine = new_process(NULL, &saved, -60000, saved.boot_id + 1);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_EQ(state_of(engine), INACT_STATE_EXPIRED);
    CHECK_EQ(reason_of(engine), INACT_REASON_UNTRUSTED_CLOCK);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(restore_with_the_clock_gone_back_on_the_same_boot_is_untrusted) {
    saved_session saved = active_session(0, 20000);
    inact_engine engine;
    inact_config config;
    inact_policy policy = test_policy();
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    config.manual_boot_id = saved.boot_id;
    config.manual_start_ms = saved.monotonic_ms - 5000; /* impossible on one boot */
    config.manual_wall_ms = saved.wall_ms + 1000;
    engine = make_engine(NULL, &config, &policy);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
    CHECK_EQ(reason_of(engine), INACT_REASON_UNTRUSTED_CLOCK);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(wall_clock_jumps_decide_nothing_while_the_process_lives) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    int64_t wall_before = 0, wall_after = 0;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_clock_now(engine, NULL, &wall_before, NULL));
    REQUIRE_OK(inact_clock_jump_wall(engine, -3 * HOUR_MS));
    REQUIRE_OK(inact_clock_jump_wall(engine, 30 * HOUR_MS));
    REQUIRE_OK(inact_clock_now(engine, NULL, &wall_after, NULL));
    CHECK_EQ(wall_after - wall_before, 27 * HOUR_MS);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    CHECK_EQ(remaining_of(engine), 60000);
    CHECK_EQ(recorder_count(&rec), 1);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(restore_of_a_locked_snapshot_is_locked) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    saved_session saved;
    uint32_t failures = 0;
    recorder_init(&rec);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_lock(engine));
    REQUIRE_OK(inact_unlock_failed(engine, NULL));
    saved = save_and_destroy(engine);
    engine = new_process(&rec, &saved, 1000, 0);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_LOCKED, INACT_REASON_RESTORED, -1);
    CHECK_EQ(info_of(engine).locked_at_ms, saved.monotonic_ms);
    REQUIRE_OK(inact_unlock_failed(engine, &failures));
    CHECK_EQ(failures, 2); /* the count survives the restart */
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(restore_of_an_expired_snapshot_is_expired) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    saved_session saved;
    recorder_init(&rec);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_end(engine, INACT_REASON_LOGOUT));
    saved = save_and_destroy(engine);
    engine = new_process(&rec, &saved, 1000, 0);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_EXPIRED, INACT_REASON_RESTORED, -1);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(snapshot_does_not_keep_scopes_and_holds) {
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    saved_session saved;
    uint64_t scope = 0, hold = 0;
    inact_info info;
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_scope_push(engine, 20000, &scope));
    REQUIRE_OK(inact_hold_acquire(engine, &hold));
    saved = save_and_destroy(engine);
    engine = new_process(NULL, &saved, 1000, 0);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    info = info_of(engine);
    CHECK_EQ(info.open_scopes, 0);
    CHECK_EQ(info.open_holds, 0);
    CHECK_EQ(info.effective_idle_timeout_ms, 60000);
    REQUIRE_OK(inact_destroy(engine));
}

/* Restoring `bytes` must fail with a snapshot error and leave the engine EXPIRED
 * (RESTORE_FAILED), announced by one event. */
static void check_restore_fails(const char *file, int line, const saved_session *saved,
                                const uint8_t *bytes, size_t length, int32_t expected) {
    recorder rec;
    inact_engine engine;
    int32_t status;
    recorder_init(&rec);
    engine = new_process(&rec, saved, 1000, 0);
    status = inact_restore(engine, bytes, length);
    if (expected != 0 ? status != expected
                      : (status > INACT_E_SNAPSHOT_TRUNCATED || status < INACT_E_SNAPSHOT_INVALID))
        harness_fail(file, line, "restore of corrupt bytes (length %zu) returned %s, expected %s",
                     length, harness_status_name(status),
                     expected ? harness_status_name(expected) : "a snapshot error");
    else if (inact_last_error()[0] == '\0')
        harness_fail(file, line, "no last error after a failed restore");
    if (state_of(engine) != INACT_STATE_EXPIRED || reason_of(engine) != INACT_REASON_RESTORE_FAILED)
        harness_fail(file, line, "after a failed restore: state %d reason %d, expected EXPIRED "
                     "RESTORE_FAILED", (int)state_of(engine), (int)reason_of(engine));
    if (recorder_count(&rec) != 1 || recorder_at(&rec, 0).event.state != INACT_STATE_EXPIRED ||
        recorder_at(&rec, 0).event.previous_state != INACT_STATE_LOADING)
        harness_fail(file, line, "a failed restore delivered %d events, expected one "
                     "LOADING->EXPIRED", recorder_count(&rec));
    inact_destroy(engine);
    recorder_deinit(&rec);
}
#define CHECK_RESTORE_FAILS(saved, bytes, length, expected) \
    check_restore_fails(__FILE__, __LINE__, (saved), (bytes), (length), (expected))

TEST(truncated_snapshot_fails_secure) {
    saved_session saved = active_session(0, 1000);
    size_t cut;
    CHECK_RESTORE_FAILS(&saved, saved.bytes, 0, INACT_E_SNAPSHOT_TRUNCATED);
    CHECK_RESTORE_FAILS(&saved, NULL, 0, INACT_E_SNAPSHOT_TRUNCATED);
    for (cut = 1; cut < saved.length; cut++)
        CHECK_RESTORE_FAILS(&saved, saved.bytes, cut, 0);
    CHECK_RESTORE_FAILS(&saved, saved.bytes, saved.length - 1, INACT_E_SNAPSHOT_TRUNCATED);
}

TEST(every_corrupted_byte_fails_secure) {
    saved_session saved = active_session(0, 1000);
    size_t i;
    for (i = 0; i < saved.length; i++) {
        uint8_t corrupt[INACT_SNAPSHOT_MAX_SIZE];
        memcpy(corrupt, saved.bytes, saved.length);
        corrupt[i] ^= 0x01;
        CHECK_RESTORE_FAILS(&saved, corrupt, saved.length, 0);
        corrupt[i] ^= 0xFF;
        CHECK_RESTORE_FAILS(&saved, corrupt, saved.length, 0);
    }
}

TEST(garbage_is_rejected_as_a_snapshot) {
    saved_session saved = active_session(0, 1000);
    uint8_t garbage[INACT_SNAPSHOT_MAX_SIZE];
    size_t i;
    for (i = 0; i < sizeof garbage; i++) garbage[i] = (uint8_t)(i * 37 + 11);
    CHECK_RESTORE_FAILS(&saved, garbage, saved.length, 0);
    memset(garbage, 0, sizeof garbage);
    CHECK_RESTORE_FAILS(&saved, garbage, saved.length, 0);
}

TEST(restore_twice_is_rejected) {
    recorder rec;
    saved_session saved = active_session(0, 1000);
    inact_engine engine;
    recorder_init(&rec);
    engine = new_process(&rec, &saved, 1000, 0);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_REJECTED(engine, &rec, inact_restore(engine, saved.bytes, saved.length),
                   INACT_E_INVALID_STATE, NULL);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

/* ---- issue 26 item 2: a host built against 1.0 sizes its buffer with 1.0's
 * INACT_SNAPSHOT_MAX_SIZE, 96 bytes. Every session its inputs can produce must fit, and the
 * restore of those bytes must be no laxer than the restore of the same session in 1.1's format 2
 * (104 bytes). ---- */

#define MAX_SIZE_1_0 96u

static uint64_t lcg_next(uint64_t *state) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

static void put_le64(uint8_t *p, uint64_t v) {
    int i;
    for (i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Format 3 bytes rewritten in format 2, from the two layouts (Snapshot.swift): in format 3 the
 * slot at 24 is locked-at in LOCKED (flag bit 1) and the last activity otherwise; format 2 has
 * both, the last activity in LOCKED being the session start. Returns 104. */
static size_t as_format_2(const uint8_t *v3, uint8_t *v2) {
    int locked = (v3[12] & 2) != 0;
    uint64_t hash = 0xcbf29ce484222325ULL;
    size_t i;
    memcpy(v2, v3, 24);
    v2[4] = 2;
    v2[5] = 0;
    if (locked) memcpy(v2 + 24, v3 + 16, 8); /* last activity: the start */
    else memcpy(v2 + 24, v3 + 24, 8);
    memcpy(v2 + 32, v3 + 32, 8);             /* background start */
    if (locked) memcpy(v2 + 40, v3 + 24, 8); /* locked-at */
    else memset(v2 + 40, 0, 8);
    memcpy(v2 + 48, v3 + 40, 48);            /* boot id .. generation */
    for (i = 0; i < 96; i++) hash = (hash ^ v2[i]) * 0x100000001b3ULL;
    put_le64(v2 + 96, hash);
    return 104;
}

/* A policy of 1.0's fields only. */
static inact_policy policy_1_0(uint64_t *g) {
    static const int64_t idle[] = {2000, 10000, 60000}, warning[] = {0, 1000}, tick[] = {0, 500, 1000};
    static const int64_t background[] = {0, 3000, 30000, INACT_NEVER}, absolute[] = {20000, 300000, INACT_NEVER};
    static const int64_t locked[] = {4000, 40000, INACT_NEVER}, grace[] = {0, 700};
    static const uint32_t failures[] = {0, 1, 3};
    inact_policy p = test_policy();
    p.idle_timeout_ms = idle[lcg_next(g) % 3];
    p.warning_ms = warning[lcg_next(g) % 2];
    p.tick_ms = tick[lcg_next(g) % 3];
    p.background_timeout_ms = background[lcg_next(g) % 4];
    p.absolute_timeout_ms = absolute[lcg_next(g) % 3];
    p.locked_timeout_ms = locked[lcg_next(g) % 3];
    p.background_grace_ms = grace[lcg_next(g) % 2];
    p.idle_action = lcg_next(g) % 2 ? INACT_IDLE_ACTION_LOCK : INACT_IDLE_ACTION_EXPIRE;
    p.max_unlock_failures = failures[lcg_next(g) % 3];
    p.activity_dismisses_warning = (int32_t)(lcg_next(g) % 2);
    p.pause_idle_in_background = (int32_t)(lcg_next(g) % 2);
    return p;
}

/* One input of 1.0's, or time passing; refusals are part of the sequence. */
static void input_1_0(inact_engine e, uint64_t *g, uint64_t *scope, uint64_t *hold) {
    static const int32_t http[] = {200, 401, 503};
    uint64_t id = 0;
    inact_policy p;
    switch (lcg_next(g) % 17) {
    case 0: (void)inact_start(e); break;
    case 1: case 2: (void)inact_activity(e, lcg_next(g) % 2 ? INACT_ACTIVITY_TOUCH_DOWN : INACT_ACTIVITY_KEY); break;
    case 3: (void)inact_continue(e); break;
    case 4: (void)inact_lock(e); break;
    case 5: (void)inact_unlock(e); break;
    case 6: (void)inact_unlock_failed(e, NULL); break;
    case 7: if (lcg_next(g) % 4 == 0) (void)inact_end(e, INACT_REASON_LOGOUT); break;
    case 8: (void)inact_refresh_result(e, http[lcg_next(g) % 3], NULL, NULL); break;
    case 9: (void)inact_background(e); break;
    case 10: (void)inact_foreground(e); break;
    case 11: (void)inact_window_shown(e); break;
    case 12: (void)inact_window_hidden(e); break;
    case 13:
        if (*scope) { (void)inact_scope_pop(e, *scope); *scope = 0; }
        else if (inact_scope_push(e, 1000, &id) == INACT_OK) *scope = id;
        break;
    case 14:
        if (*hold) { (void)inact_hold_release(e, *hold); *hold = 0; }
        else if (inact_hold_acquire(e, &id) == INACT_OK) *hold = id;
        break;
    case 15: p = policy_1_0(g); (void)inact_set_policy(e, &p); break;
    default: advance(e, (int64_t)(lcg_next(g) % 5001)); break;
    }
}

/* A new process on `boot` (the same boot id: its clock `later_ms` on) restoring `bytes`;
 * its info right after, and `later_ms` after that. */
static void restore_then_info(const inact_policy *policy, const uint8_t *bytes, size_t length, int64_t mono,
                              int64_t wall, uint64_t boot, int64_t later_ms, int32_t *status, inact_info out[2]) {
    inact_config config;
    inact_engine e;
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    config.manual_start_ms = mono;
    config.manual_wall_ms = wall;
    config.manual_boot_id = boot;
    e = make_engine(NULL, &config, policy);
    *status = inact_restore(e, bytes, length);
    out[0] = info_of(e);
    advance(e, later_ms);
    REQUIRE_OK(inact_poll(e));
    out[1] = info_of(e);
    REQUIRE_OK(inact_destroy(e));
}

TEST(a_1_0_host_saves_every_session_in_96_bytes_and_restores_it_as_the_full_snapshot) {
    uint64_t g = 0x2a2c26eULL;
    int sequence, step, saved = 0, sequences = harness_slow() ? 8 : 60; /* valgrind: a sample */
    CHECK(INACT_SNAPSHOT_MAX_SIZE == MAX_SIZE_1_0);
    for (sequence = 0; sequence < sequences; sequence++) {
        inact_policy policy = policy_1_0(&g);
        inact_engine e = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
        uint64_t scope = 0, hold = 0;
        for (step = 0; step < 40; step++) {
            uint8_t v3[MAX_SIZE_1_0 + 8], v2[104];
            size_t written = 0, v2_length;
            int32_t status3, status2;
            int64_t mono, wall, later;
            uint64_t boot;
            inact_info a[2], b[2];
            input_1_0(e, &g, &scope, &hold);
            if (state_of(e) == INACT_STATE_LOADING) continue;
            memset(v3, 0xA5, sizeof v3);
            /* what a 1.0 host does: a buffer of its INACT_SNAPSHOT_MAX_SIZE */
            CHECK_STATUS(inact_snapshot_write(e, v3, MAX_SIZE_1_0, &written), INACT_OK);
            REQUIRE(written > 0 && written <= MAX_SIZE_1_0);
            CHECK(v3[MAX_SIZE_1_0] == 0xA5);
            if (step % 8 != 7) continue;
            saved++;
            v2_length = as_format_2(v3, v2);
            REQUIRE_OK(inact_clock_now(e, &mono, &wall, &boot));
            later = (int64_t)(lcg_next(&g) % 20001);
            if (lcg_next(&g) % 4 == 0) { /* after a reboot */
                restore_then_info(&policy, v3, written, 500, wall + later, boot + 1, later, &status3, a);
                restore_then_info(&policy, v2, v2_length, 500, wall + later, boot + 1, later, &status2, b);
            } else {
                restore_then_info(&policy, v3, written, mono + later, wall + later, boot, later, &status3, a);
                restore_then_info(&policy, v2, v2_length, mono + later, wall + later, boot, later, &status2, b);
            }
            CHECK_EQ(status3, INACT_OK);
            CHECK_EQ(status2, INACT_OK);
            if (memcmp(a, b, sizeof a) != 0) {
                harness_fail(__FILE__, __LINE__,
                             "sequence %d step %d: from 96 bytes state %d reason %d, from format 2 state %d"
                             " reason %d; later %d / %d",
                             sequence, step, a[0].state, a[0].reason, b[0].state, b[0].reason, a[1].state,
                             b[1].state);
            }
        }
        REQUIRE_OK(inact_destroy(e));
    }
    CHECK(saved > sequences * 2); /* the sequences reach sessions to save */
}

/* ---- issue 26: three places where a restore or a limit was laxer than the header ---- */

/* (a) A background reported in LOADING survives the restore: `how` 0 inact_background, 1
 * inact_device_locked, 2 every window hidden with the grace (700 ms) still running. Saved at
 * 10 s in foreground; the new process 5 s later. The background is one from the snapshot's
 * instant: LOCKED (BACKGROUND_TIMEOUT) at 10 s + 30 s, activity in between does not count. */
static void check_background_kept(int how) {
    recorder rec;
    saved_session saved = active_session(0, 10 * SECOND_MS);
    inact_engine engine;
    inact_info info;
    recorder_init(&rec);
    engine = new_process(&rec, &saved, 5 * SECOND_MS, 0);
    if (how == 0) REQUIRE_OK(inact_background(engine));
    if (how == 1) REQUIRE_OK(inact_device_locked(engine));
    if (how == 2) {
        REQUIRE_OK(inact_window_shown(engine));
        REQUIRE_OK(inact_window_hidden(engine));
    }
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_ACTIVE, INACT_REASON_RESTORED, 15 * SECOND_MS);
    info = info_of(engine);
    CHECK_EQ(info.in_background, 1);
    CHECK_EQ(info.background_since_ms, 10 * SECOND_MS);
    advance(engine, 10 * SECOND_MS);
    REQUIRE_OK(inact_activity(engine, INACT_ACTIVITY_TOUCH_DOWN)); /* in background: ignored */
    CHECK_EQ(info_of(engine).last_activity_ms, 0);
    advance(engine, 15 * SECOND_MS);
    CHECK_EQ(recorder_count(&rec), 2);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_LOCKED, INACT_REASON_BACKGROUND_TIMEOUT, 40 * SECOND_MS);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(a_background_reported_in_loading_survives_the_restore) { check_background_kept(0); }
TEST(a_device_lock_reported_in_loading_keeps_the_background_through_the_restore) { check_background_kept(1); }
TEST(a_window_grace_running_at_the_restore_keeps_the_background) { check_background_kept(2); }

/* (b) A server contact at the snapshot's own instant does not cancel an offline expiry due
 * then: saved 1,386 ms after the sign-in; the new process, on the same clock at that instant,
 * has offline_expiry_ms 1,386. Whether the contact comes before (`after` 0) or right after the
 * restore, the catch-up comes first: EXPIRED (OFFLINE_EXPIRY) at 1,386. */
static void check_offline_expiry_kept(int after) {
    recorder rec;
    saved_session saved = active_session(0, 1386);
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    policy.offline_expiry_ms = 1386;
    engine = new_process_under(&rec, &saved, 0, 0, policy);
    if (!after) REQUIRE_OK(inact_server_contact(engine));
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    if (after) REQUIRE_OK(inact_server_contact(engine));
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_EXPIRED, INACT_REASON_OFFLINE_EXPIRY, 1386);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(a_contact_in_loading_at_the_snapshots_instant_does_not_cancel_the_offline_expiry) { check_offline_expiry_kept(0); }
TEST(a_contact_right_after_the_restore_does_not_cancel_the_offline_expiry) { check_offline_expiry_kept(1); }

/* (c) A limit lowered to or below the failures already counted expires the session at once
 * (UNLOCK_FAILURES): by a new policy, by ceilings, or by the policy of the restoring engine. */
static inact_engine locked_with_two_failures(recorder *rec) {
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 1 * SECOND_MS);
    REQUIRE_OK(inact_lock(engine));
    REQUIRE_OK(inact_unlock_failed(engine, NULL));
    REQUIRE_OK(inact_unlock_failed(engine, NULL));
    advance(engine, 1 * SECOND_MS);
    return engine;
}

TEST(a_limit_lowered_to_the_failures_counted_expires_at_once) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    inact_ceilings ceilings;
    int round;
    for (round = 0; round < 3; round++) {
        recorder_init(&rec);
        engine = locked_with_two_failures(&rec);
        if (round == 0) { /* above the count: nothing happens */
            policy.max_unlock_failures = 3;
            REQUIRE_OK(inact_set_policy(engine, &policy));
            CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
            REQUIRE_OK(inact_unlock(engine));
            CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
        } else {
            if (round == 1) {
                policy.max_unlock_failures = 2;
                REQUIRE_OK(inact_set_policy(engine, &policy));
            } else {
                REQUIRE_OK(inact_ceilings_init(&ceilings));
                ceilings.max_unlock_failures = 1;
                REQUIRE_OK(inact_set_ceilings(engine, &ceilings));
            }
            CHECK_TRANSITION(&rec, recorder_count(&rec) - 1, INACT_STATE_LOCKED, INACT_STATE_EXPIRED,
                             INACT_REASON_UNLOCK_FAILURES, 2 * SECOND_MS);
            /* the attempts allowed are spent: a correct unlock no longer opens the session */
            CHECK_STATUS(inact_unlock(engine), INACT_E_INVALID_STATE);
        }
        REQUIRE_OK(inact_destroy(engine));
        recorder_deinit(&rec);
    }
}

TEST(a_restore_under_a_limit_at_the_failures_counted_expires) {
    recorder rec;
    inact_engine engine = locked_with_two_failures(NULL);
    inact_policy policy = test_policy();
    saved_session saved = save_and_destroy(engine);
    recorder_init(&rec);
    policy.max_unlock_failures = 2;
    engine = new_process_under(&rec, &saved, 1 * SECOND_MS, 0, policy);
    REQUIRE_OK(inact_restore(engine, saved.bytes, saved.length));
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK_TRANSITION(&rec, 0, INACT_STATE_LOADING, INACT_STATE_EXPIRED, INACT_REASON_UNLOCK_FAILURES, 3 * SECOND_MS);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}
