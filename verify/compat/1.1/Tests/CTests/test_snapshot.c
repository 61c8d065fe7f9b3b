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
static inact_engine new_process(recorder *rec, const saved_session *saved, int64_t elapsed_ms,
                                uint64_t boot_id) {
    inact_config config;
    inact_policy policy = test_policy();
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
