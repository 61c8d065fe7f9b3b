/*
 * test_compat.c -- programs built against an older header keep working (the struct-size
 * convention of include/inactivity.h). The 1.0 structs are declared here field for field as
 * the 1.0 header (commit 2a2c26e) declared them, so every call gets a struct of exactly the
 * size a 1.0 program has, followed by guard bytes that are not the caller's: whatever the
 * library does must stay inside the struct. The plain init symbols are reached as a 1.0
 * program reaches them ((inact_policy_init)(p): not through this header's sized macros).
 * Also: sizes between two published layouts (1.0's promise to accept a larger size with a
 * zero tail), and the event's 1.0 reserved field.
 */
#include <stddef.h>
#include <string.h>

#include "support.h"

/* --- the 1.0 layouts (include/inactivity.h at 2a2c26e) ---------------------------------- */
typedef struct {
    uint32_t size;
    int32_t idle_action;
    int64_t idle_timeout_ms, warning_ms, background_timeout_ms, absolute_timeout_ms;
    int64_t locked_timeout_ms, tick_ms, background_grace_ms;
    uint32_t activity_kinds, max_unlock_failures;
    int32_t activity_dismisses_warning, pause_idle_in_background;
} policy_1_0;

typedef struct {
    uint32_t size;
    int32_t delivery, clock, reserved0;
    int64_t manual_start_ms, manual_wall_ms;
    uint64_t manual_boot_id;
} config_1_0;

typedef struct {
    uint32_t size;
    int32_t kind, state, previous_state, reason, reserved0;
    int64_t remaining_ms, time_ms, now_ms;
    uint64_t engine;
} event_1_0;

typedef struct {
    uint32_t size;
    int32_t state, reason, delivery, clock, in_background, visible_windows, open_scopes,
        open_holds;
    uint32_t unlock_failures;
    int64_t now_ms, remaining_ms, next_deadline_ms, effective_idle_timeout_ms, started_at_ms,
        last_activity_ms, background_since_ms, locked_at_ms;
} info_1_0;

/* The sizes are facts of the 1.0 release: a compile error if this file's copy drifts. */
typedef char policy_1_0_is_80_bytes[sizeof(policy_1_0) == 80 ? 1 : -1];
typedef char config_1_0_is_40_bytes[sizeof(config_1_0) == 40 ? 1 : -1];
typedef char event_1_0_is_56_bytes[sizeof(event_1_0) == 56 ? 1 : -1];
typedef char info_1_0_is_104_bytes[sizeof(info_1_0) == 104 ? 1 : -1];

#define GUARD 64
#define CANARY 0xA5
#define BIG 512 /* room for any struct size a test passes, plus its guard */

/* A caller's struct of `size` bytes at the start of `bytes`, then guard bytes up to BIG. */
typedef struct {
    union {
        uint8_t bytes[BIG];
        inact_policy policy;
        inact_info info;
        inact_config config;
        inact_ceilings ceilings;
        policy_1_0 policy10;
        info_1_0 info10;
        config_1_0 config10;
    } u;
} buffer;

static void fill_buffer(buffer *b, uint8_t value) { memset(b, value, sizeof *b); }

static int all_bytes(const uint8_t *bytes, size_t from, size_t to, uint8_t value) {
    size_t i;
    for (i = from; i < to; i++)
        if (bytes[i] != value) return 0;
    return 1;
}

/* The guard after a caller's struct of `size` bytes is untouched. */
#define CHECK_GUARD(b, size) CHECK(all_bytes((b)->u.bytes, (size), BIG, CANARY))

/* --- item 1: the plain init symbols write exactly their release's layout ----------------- */

TEST(plain_policy_init_and_preset_write_exactly_the_1_0_layout) {
    buffer b, full;
    int32_t preset;
    fill_buffer(&b, CANARY);
    REQUIRE_OK((inact_policy_init)(&b.u.policy));
    CHECK_EQ(b.u.policy10.size, 80);
    CHECK_GUARD(&b, 80);
    /* the 1.0 fields are the defaults the sized call fills */
    REQUIRE_OK(inact_policy_init_sized(&full.u.policy, sizeof(inact_policy)));
    CHECK_EQ(full.u.policy.size, sizeof(inact_policy));
    CHECK_EQ(memcmp(b.u.bytes + 4, full.u.bytes + 4, 76), 0);
    CHECK_EQ(b.u.policy10.idle_timeout_ms, 15 * MINUTE_MS);
    CHECK_EQ(b.u.policy10.pause_idle_in_background, 0);
    /* every preset 1.0 knew, and those added since whose fields fit in 80 bytes */
    for (preset = INACT_PRESET_DEFAULT; preset <= INACT_PRESET_PSD2; preset++) {
        fill_buffer(&b, CANARY);
        CHECK_STATUS((inact_policy_preset)(&b.u.policy, preset), INACT_OK);
        CHECK_EQ(b.u.policy10.size, 80);
        CHECK_GUARD(&b, 80);
        REQUIRE_OK(inact_policy_preset_sized(&full.u.policy, sizeof(inact_policy), preset));
        CHECK_EQ(memcmp(b.u.bytes + 4, full.u.bytes + 4, 76), 0);
        CHECK_STATUS(inact_policy_validate(&b.u.policy), INACT_OK);
    }
    CHECK_EQ(b.u.policy10.max_unlock_failures, 5); /* PSD2 */
}

/* ENTERPRISE sets strong-auth and offline limits, which a 1.0 layout reads as their (off)
 * defaults: cut to 80 bytes it would be laxer than its name. Refused, nothing written. */
TEST(a_preset_that_does_not_fit_the_callers_layout_is_refused) {
    buffer b;
    fill_buffer(&b, CANARY);
    CHECK_REJECTED(0, NULL, (inact_policy_preset)(&b.u.policy, INACT_PRESET_ENTERPRISE),
                   INACT_E_STRUCT_SIZE, "120");
    CHECK(all_bytes(b.u.bytes, 0, BIG, CANARY));
    CHECK_REJECTED(0, NULL, inact_policy_preset_sized(&b.u.policy, 96, INACT_PRESET_ENTERPRISE),
                   INACT_E_STRUCT_SIZE, "preset");
    CHECK(all_bytes(b.u.bytes, 0, BIG, CANARY));
    /* the full layout holds it */
    CHECK_STATUS(inact_policy_preset_sized(&b.u.policy, sizeof(inact_policy), INACT_PRESET_ENTERPRISE),
                 INACT_OK);
    CHECK_EQ(b.u.policy.offline_expiry_ms, 90LL * 24 * HOUR_MS);
    CHECK_GUARD(&b, sizeof(inact_policy));
}

TEST(plain_config_info_and_ceilings_init_write_their_release_layout) {
    buffer b, full;
    fill_buffer(&b, CANARY);
    REQUIRE_OK((inact_config_init)(&b.u.config));
    CHECK_EQ(b.u.config10.size, 40);
    CHECK_EQ(b.u.config10.manual_boot_id, 1);
    CHECK_GUARD(&b, 40);
    /* inact_info_init and inact_ceilings_init appeared in 1.1: frozen at 1.1's layouts */
    fill_buffer(&b, CANARY);
    REQUIRE_OK((inact_info_init)(&b.u.info));
    CHECK_EQ(b.u.info.size, 152);
    CHECK_GUARD(&b, 152);
    REQUIRE_OK(inact_info_init_sized(&full.u.info, sizeof(inact_info)));
    CHECK_EQ(memcmp(b.u.bytes + 4, full.u.bytes + 4, 148), 0);
    CHECK_EQ(b.u.info.interruption_until_ms, INACT_NEVER);
    fill_buffer(&b, CANARY);
    REQUIRE_OK((inact_ceilings_init)(&b.u.ceilings));
    CHECK_EQ(b.u.ceilings.size, 80);
    CHECK_GUARD(&b, 80);
}

/* A 1.0 program end to end: its init, its edits, its engine, its queries, all 1.0-sized. */
TEST(a_1_0_program_works_in_1_0_sized_structs) {
    buffer policy, config, info, got;
    inact_engine engine;
    fill_buffer(&policy, CANARY);
    REQUIRE_OK((inact_policy_init)(&policy.u.policy));
    policy.u.policy10.idle_timeout_ms = 7 * MINUTE_MS;
    policy.u.policy10.warning_ms = 20 * SECOND_MS;
    policy.u.policy10.pause_idle_in_background = 1;
    fill_buffer(&config, CANARY);
    REQUIRE_OK((inact_config_init)(&config.u.config));
    config.u.config10.clock = INACT_CLOCK_MANUAL;
    config.u.config10.delivery = INACT_DELIVERY_HOST;
    REQUIRE_OK(inact_engine_create(&config.u.config, &policy.u.policy, NULL, NULL, NULL, &engine));
    CHECK_GUARD(&policy, 80);
    CHECK_GUARD(&config, 40);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 5 * SECOND_MS);
    fill_buffer(&info, CANARY);
    info.u.info10.size = 104;
    REQUIRE_OK(inact_get_info(engine, &info.u.info));
    CHECK_EQ(info.u.info10.size, 104);
    CHECK_EQ(info.u.info10.state, INACT_STATE_ACTIVE);
    CHECK_EQ(info.u.info10.now_ms, 5 * SECOND_MS);
    CHECK_EQ(info.u.info10.started_at_ms, 0);
    CHECK_EQ(info.u.info10.effective_idle_timeout_ms, 7 * MINUTE_MS);
    CHECK_EQ(info.u.info10.locked_at_ms, INACT_NEVER);
    CHECK_GUARD(&info, 104);
    fill_buffer(&got, CANARY);
    got.u.policy10.size = 80;
    REQUIRE_OK(inact_get_policy(engine, &got.u.policy));
    CHECK_EQ(got.u.policy10.size, 80);
    CHECK_EQ(memcmp(got.u.bytes + 4, policy.u.bytes + 4, 76), 0);
    CHECK_GUARD(&got, 80);
    /* the fields 1.0 did not have took the defaults */
    memset(&got, 0, sizeof got);
    got.u.policy.size = sizeof(inact_policy);
    REQUIRE_OK(inact_get_policy(engine, &got.u.policy));
    CHECK_EQ(got.u.policy.idle_timeout_ms, 7 * MINUTE_MS);
    CHECK_EQ(got.u.policy.lock_on_device_lock, 0);
    CHECK_EQ(got.u.policy.lock_on_restart, 0);
    CHECK_EQ(got.u.policy.strong_auth_timeout_ms, INACT_NEVER);
    CHECK_EQ(got.u.policy.expected_interruption_max_ms, 60 * SECOND_MS);
    CHECK_EQ(got.u.policy.offline_timeout_ms, INACT_NEVER);
    CHECK_EQ(got.u.policy.offline_expiry_ms, INACT_NEVER);
    /* set_policy with the 1.0 struct replaces the later fields by their defaults */
    REQUIRE_OK(inact_policy_init_sized(&got.u.policy, sizeof(inact_policy)));
    got.u.policy.lock_on_restart = 1;
    got.u.policy.offline_timeout_ms = HOUR_MS;
    REQUIRE_OK(inact_set_policy(engine, &got.u.policy));
    REQUIRE_OK(inact_set_policy(engine, &policy.u.policy));
    memset(&got, 0, sizeof got);
    got.u.policy.size = sizeof(inact_policy);
    REQUIRE_OK(inact_get_policy(engine, &got.u.policy));
    CHECK_EQ(got.u.policy.lock_on_restart, 0);
    CHECK_EQ(got.u.policy.offline_timeout_ms, INACT_NEVER);
    CHECK_GUARD(&policy, 80);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(a_1_0_policy_is_still_validated) {
    buffer b;
    fill_buffer(&b, CANARY);
    REQUIRE_OK((inact_policy_init)(&b.u.policy));
    b.u.policy10.warning_ms = b.u.policy10.idle_timeout_ms;
    CHECK_REJECTED(0, NULL, inact_policy_validate(&b.u.policy), INACT_E_INVALID_ARGUMENT, "warning_ms");
    b.u.policy10.warning_ms = 0;
    b.u.policy10.pause_idle_in_background = 2;
    CHECK_REJECTED(0, NULL, inact_policy_validate(&b.u.policy), INACT_E_INVALID_ARGUMENT,
                   "pause_idle_in_background");
}

/* --- the sized variants: any accepted size, the tail zeroed, nothing beyond -------------- */

/* For every size from the first layout up to two layouts beyond this version's. */
static void check_sized_init(int32_t (*init)(buffer *, size_t), size_t first, size_t known,
                             const size_t *layouts, size_t n_layouts, const char *what) {
    size_t size, i;
    buffer b;
    for (size = first; size <= known + 40; size++) {
        size_t layout = layouts[0];
        for (i = 0; i < n_layouts; i++)
            if (layouts[i] <= size) layout = layouts[i];
        fill_buffer(&b, CANARY);
        if (init(&b, size) != INACT_OK) {
            harness_fail(__FILE__, __LINE__, "%s_sized(%zu): %s", what, size, inact_last_error());
            continue;
        }
        if (b.u.policy.size != size || !all_bytes(b.u.bytes, layout, size, 0) ||
            !all_bytes(b.u.bytes, size, BIG, CANARY) || all_bytes(b.u.bytes, 4, layout, CANARY))
            harness_fail(__FILE__, __LINE__,
                         "%s_sized(%zu): size %u, or the bytes from %zu (its layout) to %zu not zero, "
                         "or the guard touched",
                         what, size, b.u.policy.size, layout, size);
    }
    for (size = 0; size < first; size += first > 16 ? 7 : 1) {
        fill_buffer(&b, CANARY);
        CHECK_REJECTED(0, NULL, init(&b, size), INACT_E_STRUCT_SIZE, "size");
        CHECK(all_bytes(b.u.bytes, 0, BIG, CANARY));
    }
    {
        /* UINT32_MAX + 81: a 64-bit size_t whose low 32 bits are an accepted size (a shim that
         * truncated it to the uint32_t field would take it); where size_t is 32 bits (armv7)
         * that sum wraps to 80, a real size, so it is left out there */
        static const size_t huge[] = {65537, 1u << 31, (size_t)UINT32_MAX, SIZE_MAX,
#if SIZE_MAX > UINT32_MAX
                                      (size_t)UINT32_MAX + 81,
#endif
        };
        for (i = 0; i < sizeof huge / sizeof huge[0]; i++) {
            fill_buffer(&b, CANARY);
            CHECK_REJECTED(0, NULL, init(&b, huge[i]), INACT_E_STRUCT_SIZE, "65536");
            CHECK(all_bytes(b.u.bytes, 0, BIG, CANARY));
        }
    }
}

static int32_t policy_init_n(buffer *b, size_t n) { return inact_policy_init_sized(&b->u.policy, n); }
static int32_t preset_n(buffer *b, size_t n) {
    return inact_policy_preset_sized(&b->u.policy, n, INACT_PRESET_BANKING);
}
static int32_t info_init_n(buffer *b, size_t n) { return inact_info_init_sized(&b->u.info, n); }
static int32_t config_init_n(buffer *b, size_t n) { return inact_config_init_sized(&b->u.config, n); }
static int32_t ceilings_init_n(buffer *b, size_t n) { return inact_ceilings_init_sized(&b->u.ceilings, n); }

TEST(sized_init_fills_the_layout_that_fits_zeroes_the_tail_and_nothing_beyond) {
    static const size_t policy_layouts[] = {80, 120, 128}, info_layouts[] = {104, 152},
                        config_layouts[] = {40}, ceilings_layouts[] = {80};
    /* this version's layouts: a struct that grows must add its size to the lists here, in
     * Shims.swift and in the header (CONTRIBUTING.md) */
    REQUIRE(sizeof(inact_policy) == 128 && sizeof(inact_info) == 152 && sizeof(inact_config) == 40 &&
            sizeof(inact_ceilings) == 80);
    check_sized_init(policy_init_n, 80, 128, policy_layouts, 3, "inact_policy_init");
    check_sized_init(preset_n, 80, 128, policy_layouts, 3, "inact_policy_preset");
    check_sized_init(info_init_n, 104, 152, info_layouts, 2, "inact_info_init");
    check_sized_init(config_init_n, 40, 40, config_layouts, 1, "inact_config_init");
    check_sized_init(ceilings_init_n, 80, 80, ceilings_layouts, 1, "inact_ceilings_init");
    CHECK_REJECTED(0, NULL, inact_policy_init_sized(NULL, sizeof(inact_policy)), INACT_E_NULL_POINTER, "policy");
    CHECK_REJECTED(0, NULL, inact_info_init_sized(NULL, sizeof(inact_info)), INACT_E_NULL_POINTER, "info");
}

/* The header's macros pass the caller's own sizeof. */
TEST(init_macros_pass_the_callers_size) {
    buffer b;
    fill_buffer(&b, CANARY);
    REQUIRE_OK(inact_policy_init(&b.u.policy));
    CHECK_EQ(b.u.policy.size, sizeof(inact_policy));
    CHECK_EQ(b.u.policy.expected_interruption_max_ms, 60 * SECOND_MS);
    CHECK_GUARD(&b, sizeof(inact_policy));
    fill_buffer(&b, CANARY);
    REQUIRE_OK(inact_policy_preset(&b.u.policy, INACT_PRESET_ENTERPRISE));
    CHECK_EQ(b.u.policy.size, sizeof(inact_policy));
    CHECK_GUARD(&b, sizeof(inact_policy));
    fill_buffer(&b, CANARY);
    REQUIRE_OK(inact_info_init(&b.u.info));
    CHECK_EQ(b.u.info.size, sizeof(inact_info));
    fill_buffer(&b, CANARY);
    REQUIRE_OK(inact_config_init(&b.u.config));
    CHECK_EQ(b.u.config.size, sizeof(inact_config));
    fill_buffer(&b, CANARY);
    REQUIRE_OK(inact_ceilings_init(&b.u.ceilings));
    CHECK_EQ(b.u.ceilings.size, sizeof(inact_ceilings));
}

/* --- item 3: sizes between two published layouts ---------------------------------------- */

/* 1.0 accepted any size above 80 with a zero tail. Such a size is read as the 80-byte layout:
 * no field of a later layout that lies (or straddles) below the size is read, so zero bytes
 * there are not "strong_auth_timeout_ms 0" (always the credential) or a half-zeroed INACT_NEVER. */
TEST(sizes_between_layouts_read_the_older_layout_with_a_zero_tail) {
    buffer b, got;
    inact_policy policy = test_policy();
    inact_engine engine;
    uint32_t size;
    policy.pause_idle_in_background = 1;
    engine = make_manual_engine(NULL, NULL, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    for (size = 81; size < 120; size++) {
        memset(&b, 0, sizeof b);
        memcpy(b.u.bytes, &policy, 80);
        b.u.policy.size = size;
        CHECK_STATUS(inact_policy_validate(&b.u.policy), INACT_OK);
        CHECK_STATUS(inact_set_policy(engine, &b.u.policy), INACT_OK);
        memset(&got, 0, sizeof got);
        got.u.policy.size = sizeof(inact_policy);
        REQUIRE_OK(inact_get_policy(engine, &got.u.policy));
        if (got.u.policy.idle_timeout_ms != policy.idle_timeout_ms || got.u.policy.pause_idle_in_background != 1 ||
            got.u.policy.strong_auth_timeout_ms != INACT_NEVER || got.u.policy.lock_on_restart != 0 ||
            got.u.policy.expected_interruption_max_ms != 60 * SECOND_MS ||
            got.u.policy.offline_timeout_ms != INACT_NEVER || got.u.policy.offline_expiry_ms != INACT_NEVER)
            harness_fail(__FILE__, __LINE__, "policy of size %u: a field beyond the 80-byte layout was read", size);
        /* an engine created with it */
        {
            inact_engine created = make_manual_engine(NULL, &b.u.policy, INACT_DELIVERY_HOST);
            REQUIRE_OK(inact_destroy(created));
        }
        /* get_policy of that size writes the 80-byte layout only */
        fill_buffer(&got, CANARY);
        memset(got.u.bytes, 0, size);
        got.u.policy.size = size;
        REQUIRE_OK(inact_get_policy(engine, &got.u.policy));
        CHECK_EQ(got.u.policy.size, size);
        CHECK_EQ(memcmp(got.u.bytes + 4, (const uint8_t *)&policy + 4, 76), 0);
        CHECK(all_bytes(got.u.bytes, 80, size, 0));
        CHECK_GUARD(&got, size);
    }
    for (size = 105; size < 152; size++) {
        inact_info full = info_of(engine);
        fill_buffer(&got, CANARY);
        memset(got.u.bytes, 0, size);
        got.u.info.size = size;
        REQUIRE_OK(inact_get_info(engine, &got.u.info));
        CHECK_EQ(got.u.info.size, size);
        CHECK_EQ(memcmp(got.u.bytes + 4, (const uint8_t *)&full + 4, 100), 0);
        if (!all_bytes(got.u.bytes, 104, size, 0))
            harness_fail(__FILE__, __LINE__, "info of size %u: a byte beyond the 104-byte layout was written", size);
        CHECK_GUARD(&got, size);
    }
    REQUIRE_OK(inact_destroy(engine));
}

TEST(sizes_between_layouts_with_a_non_zero_tail_are_refused) {
    static const uint32_t policy_sizes[] = {81, 84, 88, 96, 119};
    static const uint32_t info_sizes[] = {105, 112, 128, 151};
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    size_t i;
    REQUIRE_OK(inact_start(engine));
    for (i = 0; i < sizeof policy_sizes / sizeof policy_sizes[0]; i++) {
        buffer b;
        memset(&b, 0, sizeof b);
        memcpy(b.u.bytes, &policy, 80);
        b.u.policy.size = policy_sizes[i];
        b.u.bytes[policy_sizes[i] - 1] = 1; /* the last byte of the caller's struct */
        CHECK_REJECTED(0, NULL, inact_policy_validate(&b.u.policy), INACT_E_STRUCT_SIZE, "80-byte layout");
        CHECK_REJECTED(engine, NULL, inact_set_policy(engine, &b.u.policy), INACT_E_STRUCT_SIZE, "not zero");
        fill_buffer(&b, CANARY);
        memset(b.u.bytes, 0, policy_sizes[i]);
        b.u.policy.size = policy_sizes[i];
        b.u.bytes[80] = 7;
        CHECK_REJECTED(engine, NULL, inact_get_policy(engine, &b.u.policy), INACT_E_STRUCT_SIZE, "byte 80");
        CHECK(all_bytes(b.u.bytes, 4, 80, 0));
        CHECK_GUARD(&b, policy_sizes[i]);
    }
    for (i = 0; i < sizeof info_sizes / sizeof info_sizes[0]; i++) {
        buffer b;
        fill_buffer(&b, CANARY);
        memset(b.u.bytes, 0, info_sizes[i]);
        b.u.info.size = info_sizes[i];
        b.u.bytes[info_sizes[i] - 1] = 1;
        CHECK_REJECTED(engine, NULL, inact_get_info(engine, &b.u.info), INACT_E_STRUCT_SIZE, "104-byte layout");
        CHECK(all_bytes(b.u.bytes, 4, info_sizes[i] - 1, 0));
        CHECK_GUARD(&b, info_sizes[i]);
    }
    /* below the first layout stays refused */
    {
        buffer b;
        memset(&b, 0, sizeof b);
        memcpy(b.u.bytes, &policy, 80);
        b.u.policy.size = 79;
        CHECK_REJECTED(0, NULL, inact_policy_validate(&b.u.policy), INACT_E_STRUCT_SIZE, "80");
        b.u.info.size = 103;
        CHECK_REJECTED(engine, NULL, inact_get_info(engine, &b.u.info), INACT_E_STRUCT_SIZE, "104");
    }
    REQUIRE_OK(inact_destroy(engine));
}

/* --- item 4: the event, and its 1.0 reserved field -------------------------------------- */

typedef struct {
    int events;
    int locked_events;
    int bad; /* events whose 1.0 view disagrees with the rule */
} event_view;

static void view_as_1_0(const inact_event *event, void *user_data) {
    event_view *v = (event_view *)user_data;
    const event_1_0 *old = (const event_1_0 *)(const void *)event;
    v->events++;
    /* a 1.0 reader finds every 1.0 field where 1.0 put it */
    if (event->size < sizeof(event_1_0) || !INACT_EVENT_HAS(event, engine) || old->engine != event->engine ||
        old->now_ms != event->now_ms || old->state != event->state)
        v->bad++;
    /* 1.0's reserved0 is 0 on every event but LOCKED, and there an inact_auth value */
    if (event->state == INACT_STATE_LOCKED) {
        v->locked_events++;
        if (old->reserved0 != INACT_AUTH_BIOMETRIC && old->reserved0 != INACT_AUTH_CREDENTIAL) v->bad++;
    } else if (old->reserved0 != 0) {
        v->bad++;
    }
}

TEST(a_1_0_reader_of_the_event_finds_its_fields_and_required_auth_only_when_locked) {
    event_view view = {0, 0, 0};
    inact_policy policy = test_policy();
    inact_config config;
    inact_engine engine;
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    REQUIRE_OK(inact_engine_create(&config, &policy, view_as_1_0, &view, NULL, &engine));
    REQUIRE_OK(inact_start(engine));
    advance(engine, 75 * SECOND_MS); /* WARNING, ticks, LOCKED */
    REQUIRE_OK(inact_unlock(engine));
    REQUIRE_OK(inact_lock(engine));
    REQUIRE_OK(inact_end(engine, INACT_REASON_LOGOUT));
    REQUIRE_OK(inact_destroy(engine));
    CHECK(view.events > 10);
    CHECK_EQ(view.locked_events, 2);
    CHECK_EQ(view.bad, 0);
    /* the input reserved field stays refused, so a later meaning cannot be misread */
    config.reserved0 = 1;
    CHECK_REJECTED(0, NULL, inact_engine_create(&config, &policy, NULL, NULL, NULL, &engine),
                   INACT_E_INVALID_ARGUMENT, "reserved0");
}
