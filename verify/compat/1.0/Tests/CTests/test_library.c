/*
 * test_library.c -- version, status strings, the thread-local last error, the policy
 * and config helpers, and the struct layouts that bindings (ctypes, JNI) depend on.
 */
#include "support.h"

#include <stddef.h>
#include <string.h>

TEST(library_version_matches_the_header) {
    CHECK_EQ(inact_version_number(), INACT_VERSION_NUMBER);
    CHECK_STR(inact_version_string(), INACT_VERSION_STRING);
    CHECK_EQ(INACT_VERSION_NUMBER, INACT_VERSION_MAJOR * 10000 + INACT_VERSION_MINOR * 100 +
                                       INACT_VERSION_PATCH);
}

TEST(status_strings_come_from_the_status_table) {
#define CHECK_STATUS_STRING_(name, value, message) \
    CHECK_STR(inact_status_string(value), message); \
    CHECK_EQ(name, value);
    INACT_STATUS_TABLE(CHECK_STATUS_STRING_)
#undef CHECK_STATUS_STRING_
    CHECK_STR(inact_status_string(1), "unknown status");
    CHECK_STR(inact_status_string(-15), "unknown status");
    CHECK_STR(inact_status_string(INT32_MIN), "unknown status");
    CHECK_STR(inact_status_string(INT32_MAX), "unknown status");
}

TEST(last_error_names_the_argument_and_the_rule) {
    inact_policy policy = test_policy();
    const char *message;
    policy.idle_timeout_ms = 30000;
    policy.warning_ms = 60000;
    CHECK_STATUS(inact_policy_validate(&policy), INACT_E_INVALID_ARGUMENT);
    message = inact_last_error();
    CHECK(strstr(message, "warning_ms") != NULL);
    CHECK(strstr(message, "idle_timeout_ms") != NULL);
    CHECK(strstr(message, "60000") != NULL);
    CHECK(strstr(message, "30000") != NULL);
}

TEST(last_error_survives_later_successful_calls) {
    char first[256];
    int32_t state;
    inact_policy policy = test_policy();
    inact_engine engine = make_manual_engine(NULL, &policy, INACT_DELIVERY_HOST);
    CHECK_STATUS(inact_get_state(engine, NULL), INACT_E_NULL_POINTER);
    strncpy(first, inact_last_error(), sizeof first - 1);
    first[sizeof first - 1] = '\0';
    CHECK(first[0] != '\0');
    REQUIRE_OK(inact_get_state(engine, &state));
    REQUIRE_OK(inact_start(engine));
    CHECK_STR(inact_last_error(), first);
    /* the next failure replaces it */
    CHECK_STATUS(inact_continue(engine), INACT_E_INVALID_STATE);
    CHECK(strcmp(inact_last_error(), first) != 0);
    REQUIRE_OK(inact_destroy(engine));
}

typedef struct thread_error {
    char before[64];
    char after[256];
    int32_t status;
} thread_error;

static void *fail_on_a_new_thread(void *arg) {
    thread_error *out = (thread_error *)arg;
    strncpy(out->before, inact_last_error(), sizeof out->before - 1);
    out->status = inact_activity(0, INACT_ACTIVITY_KEY);
    strncpy(out->after, inact_last_error(), sizeof out->after - 1);
    return NULL;
}

TEST(last_error_is_per_thread) {
    pthread_t thread;
    thread_error other;
    char mine[256];
    inact_policy policy = test_policy();
    memset(&other, 0, sizeof other);
    policy.idle_timeout_ms = 0;
    CHECK_STATUS(inact_policy_validate(&policy), INACT_E_INVALID_ARGUMENT);
    strncpy(mine, inact_last_error(), sizeof mine - 1);
    mine[sizeof mine - 1] = '\0';
    REQUIRE(pthread_create(&thread, NULL, fail_on_a_new_thread, &other) == 0);
    pthread_join(thread, NULL);
    CHECK_STR(other.before, ""); /* nothing failed yet on that thread */
    CHECK_EQ(other.status, INACT_E_INVALID_HANDLE);
    CHECK(other.after[0] != '\0');
    CHECK(strcmp(other.after, mine) != 0);
    CHECK_STR(inact_last_error(), mine); /* untouched by the other thread's failure */
}

TEST(policy_init_fills_the_documented_defaults) {
    inact_policy policy;
    memset(&policy, 0xFF, sizeof policy);
    REQUIRE_OK(inact_policy_init(&policy));
    CHECK_EQ(policy.size, sizeof(inact_policy));
    CHECK_EQ(policy.idle_action, INACT_IDLE_ACTION_LOCK);
    CHECK_EQ(policy.idle_timeout_ms, 15 * MINUTE_MS);
    CHECK_EQ(policy.warning_ms, 30 * SECOND_MS);
    CHECK_EQ(policy.background_timeout_ms, 60 * SECOND_MS);
    CHECK_EQ(policy.absolute_timeout_ms, 12 * HOUR_MS);
    CHECK_EQ(policy.locked_timeout_ms, INACT_NEVER);
    CHECK_EQ(policy.tick_ms, 1 * SECOND_MS);
    CHECK_EQ(policy.background_grace_ms, 700);
    CHECK_EQ(policy.activity_kinds, INACT_ACTIVITY_USER);
    CHECK_EQ(policy.max_unlock_failures, 0);
    CHECK_EQ(policy.activity_dismisses_warning, 0);
    CHECK_EQ(policy.pause_idle_in_background, 0);
    CHECK_STATUS(inact_policy_validate(&policy), INACT_OK);
    CHECK_STATUS(inact_policy_init(NULL), INACT_E_NULL_POINTER);
}

TEST(config_init_fills_the_documented_defaults) {
    inact_config config;
    memset(&config, 0xFF, sizeof config);
    REQUIRE_OK(inact_config_init(&config));
    CHECK_EQ(config.size, sizeof(inact_config));
    CHECK_EQ(config.delivery, INACT_DELIVERY_THREAD);
    CHECK_EQ(config.clock, INACT_CLOCK_SYSTEM);
    CHECK_EQ(config.reserved0, 0);
    CHECK_EQ(config.manual_start_ms, 0);
    CHECK_EQ(config.manual_wall_ms, 1700000000000LL);
    CHECK_EQ_U64(config.manual_boot_id, 1);
    CHECK_STATUS(inact_config_init(NULL), INACT_E_NULL_POINTER);
}

TEST(null_config_and_policy_create_a_default_engine) {
    inact_engine engine = 0;
    inact_info info;
    inact_policy read, defaults;
    REQUIRE_OK(inact_engine_create(NULL, NULL, NULL, NULL, NULL, &engine));
    CHECK(engine != 0);
    info = info_of(engine);
    CHECK_EQ(info.state, INACT_STATE_LOADING);
    CHECK_EQ(info.reason, INACT_REASON_NONE);
    CHECK_EQ(info.delivery, INACT_DELIVERY_THREAD);
    CHECK_EQ(info.clock, INACT_CLOCK_SYSTEM);
    memset(&read, 0, sizeof read);
    read.size = sizeof read;
    REQUIRE_OK(inact_get_policy(engine, &read));
    REQUIRE_OK(inact_policy_init(&defaults));
    CHECK(memcmp(&read, &defaults, sizeof read) == 0);
    REQUIRE_OK(inact_destroy(engine));
}

TEST(presets_fill_the_documented_values) {
    inact_policy policy, defaults;
    REQUIRE_OK(inact_policy_init(&defaults));

    REQUIRE_OK(inact_policy_preset(&policy, INACT_PRESET_DEFAULT));
    CHECK(memcmp(&policy, &defaults, sizeof policy) == 0);

    REQUIRE_OK(inact_policy_preset(&policy, INACT_PRESET_NIST_AAL2));
    CHECK_EQ(policy.size, sizeof policy);
    CHECK_EQ(policy.idle_timeout_ms, 30 * MINUTE_MS);
    CHECK_EQ(policy.absolute_timeout_ms, 12 * HOUR_MS);
    CHECK_STATUS(inact_policy_validate(&policy), INACT_OK);

    REQUIRE_OK(inact_policy_preset(&policy, INACT_PRESET_NIST_AAL3));
    CHECK_EQ(policy.idle_timeout_ms, 15 * MINUTE_MS);
    CHECK_EQ(policy.absolute_timeout_ms, 12 * HOUR_MS);
    CHECK_STATUS(inact_policy_validate(&policy), INACT_OK);

    REQUIRE_OK(inact_policy_preset(&policy, INACT_PRESET_PCI_DSS));
    CHECK(policy.idle_timeout_ms <= 15 * MINUTE_MS);
    CHECK_EQ(policy.idle_timeout_ms, 15 * MINUTE_MS);
    CHECK_EQ(policy.absolute_timeout_ms, 12 * HOUR_MS);
    CHECK_STATUS(inact_policy_validate(&policy), INACT_OK);

    REQUIRE_OK(inact_policy_preset(&policy, INACT_PRESET_BANKING));
    CHECK_EQ(policy.idle_timeout_ms, 5 * MINUTE_MS);
    CHECK_EQ(policy.warning_ms, 30 * SECOND_MS);
    CHECK_EQ(policy.background_timeout_ms, 30 * SECOND_MS);
    CHECK_EQ(policy.absolute_timeout_ms, 8 * HOUR_MS);
    CHECK_EQ(policy.locked_timeout_ms, 15 * MINUTE_MS);
    CHECK_EQ(policy.max_unlock_failures, 5);
    CHECK_EQ(policy.activity_dismisses_warning, 0);
    CHECK_EQ(policy.tick_ms, defaults.tick_ms);
    CHECK_EQ(policy.background_grace_ms, defaults.background_grace_ms);
    CHECK_EQ(policy.activity_kinds, defaults.activity_kinds);
    CHECK_STATUS(inact_policy_validate(&policy), INACT_OK);
    /* WCAG 2.2.1: at least 20 s to extend, in every preset that warns */
    CHECK(policy.warning_ms >= 20 * SECOND_MS);
}

TEST(unknown_preset_is_rejected_and_leaves_the_policy_alone) {
    inact_policy policy, copy;
    REQUIRE_OK(inact_policy_preset(&policy, INACT_PRESET_BANKING));
    copy = policy;
    CHECK_REJECTED(0, NULL, inact_policy_preset(&policy, 5), INACT_E_INVALID_ARGUMENT, "preset");
    CHECK_REJECTED(0, NULL, inact_policy_preset(&policy, -1), INACT_E_INVALID_ARGUMENT, "preset");
    CHECK(memcmp(&policy, &copy, sizeof policy) == 0);
    CHECK_REJECTED(0, NULL, inact_policy_preset(NULL, INACT_PRESET_DEFAULT), INACT_E_NULL_POINTER,
                   "policy");
}

TEST(validate_accepts_the_limits) {
    inact_policy policy = test_policy();
    policy.warning_ms = 0;
    policy.tick_ms = 0;
    policy.background_timeout_ms = 0;
    policy.background_grace_ms = 0;
    policy.activity_kinds = INACT_ACTIVITY_ALL;
    policy.idle_action = INACT_IDLE_ACTION_EXPIRE;
    policy.activity_dismisses_warning = 1;
    policy.pause_idle_in_background = 1;
    policy.max_unlock_failures = 0xFFFFFFFFu;
    CHECK_STATUS(inact_policy_validate(&policy), INACT_OK);
    policy.idle_timeout_ms = 1;
    CHECK_STATUS(inact_policy_validate(&policy), INACT_OK);
    policy.idle_timeout_ms = 100 * YEAR_MS;
    policy.warning_ms = 100 * YEAR_MS - 1;
    policy.absolute_timeout_ms = 100 * YEAR_MS;
    policy.locked_timeout_ms = INACT_NEVER;
    policy.background_timeout_ms = INACT_NEVER;
    CHECK_STATUS(inact_policy_validate(&policy), INACT_OK);
}

TEST(validate_rejects_each_broken_field) {
    inact_policy good = test_policy(), bad;
#define REJECTS(field, value, status, mention)                                        \
    do {                                                                              \
        bad = good;                                                                   \
        bad.field = value;                                                            \
        CHECK_REJECTED(0, NULL, inact_policy_validate(&bad), status, mention);        \
    } while (0)
    REJECTS(size, sizeof(inact_policy) - 1, INACT_E_STRUCT_SIZE, "size");
    REJECTS(idle_timeout_ms, 0, INACT_E_INVALID_ARGUMENT, "idle_timeout_ms");
    REJECTS(idle_timeout_ms, -60000, INACT_E_INVALID_ARGUMENT, "idle_timeout_ms");
    REJECTS(warning_ms, 60000, INACT_E_INVALID_ARGUMENT, "warning_ms");
    REJECTS(warning_ms, -1, INACT_E_INVALID_ARGUMENT, "warning_ms");
    REJECTS(background_timeout_ms, -1, INACT_E_INVALID_ARGUMENT, "background_timeout_ms");
    REJECTS(absolute_timeout_ms, -1, INACT_E_INVALID_ARGUMENT, "absolute_timeout_ms");
    REJECTS(absolute_timeout_ms, 100 * YEAR_MS + 1 * HOUR_MS * 24 * 30, INACT_E_INVALID_ARGUMENT,
            "absolute_timeout_ms");
    REJECTS(locked_timeout_ms, -1, INACT_E_INVALID_ARGUMENT, "locked_timeout_ms");
    REJECTS(tick_ms, -1, INACT_E_INVALID_ARGUMENT, "tick_ms");
    REJECTS(tick_ms, INACT_NEVER - 1, INACT_E_INVALID_ARGUMENT, "tick_ms");
    REJECTS(background_grace_ms, -1, INACT_E_INVALID_ARGUMENT, "background_grace_ms");
    REJECTS(background_grace_ms, INACT_NEVER - 1, INACT_E_INVALID_ARGUMENT,
            "background_grace_ms");
    REJECTS(idle_action, 7, INACT_E_INVALID_ARGUMENT, "idle_action");
    REJECTS(activity_kinds, INACT_ACTIVITY_ALL + 1, INACT_E_INVALID_ARGUMENT, "activity_kinds");
    REJECTS(activity_dismisses_warning, -1, INACT_E_INVALID_ARGUMENT,
            "activity_dismisses_warning");
    REJECTS(pause_idle_in_background, 2, INACT_E_INVALID_ARGUMENT, "pause_idle_in_background");
#undef REJECTS
    CHECK_REJECTED(0, NULL, inact_policy_validate(NULL), INACT_E_NULL_POINTER, "policy");
}

/* The layouts that the Python and Kotlin bindings mirror: a change here breaks them. */
TEST(struct_layouts_are_stable) {
    CHECK_EQ(sizeof(inact_engine), 8);
    CHECK_EQ(sizeof(inact_policy), 80);
    CHECK_EQ(offsetof(inact_policy, idle_timeout_ms), 8);
    CHECK_EQ(offsetof(inact_policy, background_grace_ms), 56);
    CHECK_EQ(offsetof(inact_policy, activity_kinds), 64);
    CHECK_EQ(offsetof(inact_policy, pause_idle_in_background), 76);
    CHECK_EQ(sizeof(inact_config), 40);
    CHECK_EQ(offsetof(inact_config, manual_start_ms), 16);
    CHECK_EQ(offsetof(inact_config, manual_boot_id), 32);
    CHECK_EQ(sizeof(inact_event), 56);
    CHECK_EQ(offsetof(inact_event, remaining_ms), 24);
    CHECK_EQ(offsetof(inact_event, engine), 48);
    CHECK_EQ(sizeof(inact_info), 104);
    CHECK_EQ(offsetof(inact_info, now_ms), 40);
    CHECK_EQ(offsetof(inact_info, locked_at_ms), 96);
    CHECK_EQ(INACT_NEVER, INT64_MAX);
}
