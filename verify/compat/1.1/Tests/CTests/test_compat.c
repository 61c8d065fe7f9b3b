/*
 * test_compat.c -- callers built against the 1.0 header (inact_policy of 80 bytes,
 * inact_info of 104) keep working: an older input struct is read up to its size with the
 * init function's defaults beyond it, an older output struct is written up to its size
 * only, and sizes that no header declared stay refused.
 */
#include <string.h>

#include "support.h"

#define POLICY_1_0 80u
#define INFO_1_0 104u

/* A 1.0 caller's struct followed by bytes that are not the caller's: whatever lies there must
 * be neither read (it would be an invalid flag) nor written. */
typedef struct {
    union {
        inact_policy policy;
        uint8_t bytes[sizeof(inact_policy)];
    } u;
    uint8_t canary[16];
} policy_buffer;

typedef struct {
    union {
        inact_info info;
        uint8_t bytes[sizeof(inact_info)];
    } u;
    uint8_t canary[16];
} info_buffer;

static int all_bytes(const uint8_t *bytes, size_t from, size_t to, uint8_t value) {
    size_t i;
    for (i = from; i < to; i++)
        if (bytes[i] != value) return 0;
    return 1;
}

/* A 1.0 policy: the 1.0 fields set away from their defaults, the later ones' bytes garbage. */
static void old_policy(policy_buffer *b) {
    inact_policy p = test_policy();
    p.idle_timeout_ms = 7 * MINUTE_MS;
    p.warning_ms = 20 * SECOND_MS;
    p.pause_idle_in_background = 1;
    memset(b, 0xEE, sizeof *b);
    memcpy(b->u.bytes, &p, POLICY_1_0);
    b->u.policy.size = POLICY_1_0;
}

TEST(policy_of_the_1_0_size_is_accepted_with_defaults_beyond_it) {
    inact_policy defaults, strict, got;
    policy_buffer old;
    inact_engine engine, created;
    REQUIRE_OK(inact_policy_init(&defaults));
    old_policy(&old);
    CHECK_STATUS(inact_policy_validate(&old.u.policy), INACT_OK);
    /* an engine whose later fields are all away from their defaults ... */
    strict = test_policy();
    strict.lock_on_device_lock = 1;
    strict.lock_on_restart = 1;
    strict.strong_auth_timeout_ms = HOUR_MS;
    strict.expected_interruption_max_ms = 5 * SECOND_MS;
    strict.offline_timeout_ms = 2 * HOUR_MS;
    strict.offline_expiry_ms = 3 * HOUR_MS;
    engine = make_manual_engine(NULL, &strict, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    /* ... gets the 1.0 policy: its fields as given, the later ones the init function's */
    CHECK_STATUS(inact_set_policy(engine, &old.u.policy), INACT_OK);
    CHECK(all_bytes(old.canary, 0, sizeof old.canary, 0xEE));
    memset(&got, 0, sizeof got);
    got.size = sizeof got;
    REQUIRE_OK(inact_get_policy(engine, &got));
    CHECK_EQ(got.idle_timeout_ms, 7 * MINUTE_MS);
    CHECK_EQ(got.warning_ms, 20 * SECOND_MS);
    CHECK_EQ(got.pause_idle_in_background, 1);
    CHECK_EQ(got.lock_on_device_lock, defaults.lock_on_device_lock);
    CHECK_EQ(got.lock_on_restart, defaults.lock_on_restart);
    CHECK_EQ(got.strong_auth_timeout_ms, defaults.strong_auth_timeout_ms);
    CHECK_EQ(got.expected_interruption_max_ms, defaults.expected_interruption_max_ms);
    CHECK_EQ(got.offline_timeout_ms, defaults.offline_timeout_ms);
    CHECK_EQ(got.offline_expiry_ms, defaults.offline_expiry_ms);
    /* the defaults as documented, not merely the init function agreeing with itself */
    CHECK_EQ(got.lock_on_device_lock, 0);
    CHECK_EQ(got.lock_on_restart, 0);
    CHECK_EQ(got.strong_auth_timeout_ms, INACT_NEVER);
    CHECK_EQ(got.expected_interruption_max_ms, 60 * SECOND_MS);
    CHECK_EQ(got.offline_timeout_ms, INACT_NEVER);
    CHECK_EQ(got.offline_expiry_ms, INACT_NEVER);
    REQUIRE_OK(inact_destroy(engine));
    /* creating an engine with it works too */
    created = make_manual_engine(NULL, &old.u.policy, INACT_DELIVERY_HOST);
    memset(&got, 0, sizeof got);
    got.size = sizeof got;
    REQUIRE_OK(inact_get_policy(created, &got));
    CHECK_EQ(got.idle_timeout_ms, 7 * MINUTE_MS);
    CHECK_EQ(got.offline_timeout_ms, INACT_NEVER);
    REQUIRE_OK(inact_destroy(created));
}

TEST(a_1_0_policy_is_still_validated) {
    policy_buffer old;
    old_policy(&old);
    old.u.policy.warning_ms = old.u.policy.idle_timeout_ms;
    CHECK_REJECTED(0, NULL, inact_policy_validate(&old.u.policy), INACT_E_INVALID_ARGUMENT, "warning_ms");
}

TEST(get_info_of_the_1_0_size_writes_exactly_104_bytes) {
    info_buffer old;
    inact_info full;
    inact_engine engine = make_manual_engine(NULL, NULL, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 5 * SECOND_MS);
    memset(&old, 0xCC, sizeof old);
    old.u.info.size = INFO_1_0;
    CHECK_STATUS(inact_get_info(engine, &old.u.info), INACT_OK);
    full = info_of(engine);
    CHECK_EQ(old.u.info.size, INFO_1_0);
    CHECK_EQ(old.u.info.state, INACT_STATE_ACTIVE);
    CHECK_EQ(old.u.info.now_ms, full.now_ms);
    CHECK_EQ(old.u.info.started_at_ms, full.started_at_ms);
    CHECK_EQ(old.u.info.locked_at_ms, full.locked_at_ms);
    CHECK_EQ(memcmp(old.u.bytes + 4, (const uint8_t *)&full + 4, INFO_1_0 - 4), 0);
    /* nothing from byte 104 on: the later fields and the canary keep their 0xCC */
    CHECK(all_bytes(old.u.bytes, INFO_1_0, sizeof old.u.bytes, 0xCC));
    CHECK(all_bytes(old.canary, 0, sizeof old.canary, 0xCC));
    REQUIRE_OK(inact_destroy(engine));
}

TEST(get_policy_of_the_1_0_size_writes_exactly_80_bytes) {
    policy_buffer old;
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    memset(&old, 0xCC, sizeof old);
    old.u.policy.size = POLICY_1_0;
    CHECK_STATUS(inact_get_policy(engine, &old.u.policy), INACT_OK);
    CHECK_EQ(old.u.policy.size, POLICY_1_0);
    CHECK_EQ(memcmp(old.u.bytes + 4, (const uint8_t *)&policy + 4, POLICY_1_0 - 4), 0);
    CHECK(all_bytes(old.u.bytes, POLICY_1_0, sizeof old.u.bytes, 0xCC));
    CHECK(all_bytes(old.canary, 0, sizeof old.canary, 0xCC));
    REQUIRE_OK(inact_destroy(engine));
}

TEST(sizes_between_published_layouts_stay_refused) {
    static const uint32_t policy_sizes[] = {POLICY_1_0 - 8, POLICY_1_0 - 1, POLICY_1_0 + 1, POLICY_1_0 + 8,
                                            96, sizeof(inact_policy) - 8, sizeof(inact_policy) - 1};
    static const uint32_t info_sizes[] = {INFO_1_0 - 8, INFO_1_0 - 1, INFO_1_0 + 1, INFO_1_0 + 8,
                                          sizeof(inact_info) - 8, sizeof(inact_info) - 1};
    inact_policy policy = test_policy();
    inact_ceilings ceilings;
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    size_t i;
    REQUIRE_OK(inact_start(engine));
    for (i = 0; i < sizeof policy_sizes / sizeof policy_sizes[0]; i++) {
        policy_buffer b;
        memset(&b, 0, sizeof b);
        memcpy(&b.u.policy, &policy, sizeof policy);
        b.u.policy.size = policy_sizes[i];
        CHECK_REJECTED(0, NULL, inact_policy_validate(&b.u.policy), INACT_E_STRUCT_SIZE, "80");
        CHECK_REJECTED(engine, NULL, inact_set_policy(engine, &b.u.policy), INACT_E_STRUCT_SIZE, "size");
        memset(&b, 0xCC, sizeof b);
        b.u.policy.size = policy_sizes[i];
        CHECK_REJECTED(engine, NULL, inact_get_policy(engine, &b.u.policy), INACT_E_STRUCT_SIZE, "size");
        CHECK(all_bytes(b.u.bytes, 4, sizeof b.u.bytes, 0xCC));
    }
    for (i = 0; i < sizeof info_sizes / sizeof info_sizes[0]; i++) {
        info_buffer b;
        memset(&b, 0xCC, sizeof b);
        b.u.info.size = info_sizes[i];
        CHECK_REJECTED(engine, NULL, inact_get_info(engine, &b.u.info), INACT_E_STRUCT_SIZE, "104");
        CHECK(all_bytes(b.u.bytes, 4, sizeof b.u.bytes, 0xCC));
    }
    /* inact_ceilings appeared after 1.0: its current size is its first */
    REQUIRE_OK(inact_ceilings_init(&ceilings));
    ceilings.size = sizeof ceilings - 8;
    CHECK_REJECTED(engine, NULL, inact_set_ceilings(engine, &ceilings), INACT_E_STRUCT_SIZE, "size");
    REQUIRE_OK(inact_destroy(engine));
}
