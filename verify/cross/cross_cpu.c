/* The cross-CPU checks of scripts/lib/test-cross, built for each CPU and run there (ARM under
 * qemu-user). Everything is on the manual clock, so every CPU must print the same text:
 *
 *   cross_cpu write           runs a fixed session (start, activity, background, idle lock, a
 *                             failed unlock) and prints its snapshot as hex
 *   cross_cpu restore HEX     restores that snapshot on a later manual clock of the same boot
 *                             and prints the state, the info fields and the new snapshot as hex
 *   cross_cpu layout          prints the struct sizes and offsets as the compiler of this CPU
 *                             lays them out and as the library reports them (the size fields it
 *                             fills in), and fails when the two disagree
 *
 * The script compares the output of every CPU (and every writer/restorer pair) byte for byte. */
#include "inactivity.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECOND_MS 1000
/* Values with bits set in both 32-bit halves, so a truncation on 32-bit ARM shows. */
#define START_MS INT64_C(5000000000)
#define WALL_MS INT64_C(1700000123456)
#define BOOT_ID UINT64_C(0x8123456789abcdef)

static int failed_call(const char *what, int32_t status) {
    fprintf(stderr, "%s: %s (%s)\n", what, inact_status_string(status), inact_last_error());
    return 1;
}
#define CALL(expr)                                             \
    do {                                                       \
        int32_t status_ = (expr);                              \
        if (status_ != INACT_OK) return failed_call(#expr, status_); \
    } while (0)

static int create(inact_engine *engine, int64_t start_ms, int64_t wall_ms) {
    inact_config config;
    inact_policy policy;
    CALL(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    config.manual_start_ms = start_ms;
    config.manual_wall_ms = wall_ms;
    config.manual_boot_id = BOOT_ID;
    CALL(inact_policy_init(&policy));
    policy.idle_timeout_ms = 60 * SECOND_MS;
    policy.warning_ms = 10 * SECOND_MS;
    policy.background_timeout_ms = INACT_NEVER;
    policy.locked_timeout_ms = 3600 * SECOND_MS;
    CALL(inact_engine_create(&config, &policy, NULL, NULL, NULL, engine));
    return 0;
}

static int print_snapshot(inact_engine engine) {
    uint8_t buffer[256];
    size_t written = 0, i;
    CALL(inact_snapshot_write(engine, buffer, sizeof buffer, &written));
    printf("snapshot %zu ", written);
    for (i = 0; i < written; i++) printf("%02x", buffer[i]);
    printf("\n");
    return 0;
}

static int write_mode(void) {
    inact_engine engine = 0;
    uint32_t failures = 0;
    if (create(&engine, START_MS, WALL_MS)) return 1;
    CALL(inact_start(engine));
    CALL(inact_clock_advance(engine, 7 * SECOND_MS));
    CALL(inact_activity(engine, INACT_ACTIVITY_TOUCH_DOWN));
    CALL(inact_clock_advance(engine, 61 * SECOND_MS));   /* idle: LOCKED */
    CALL(inact_unlock_failed(engine, &failures));
    CALL(inact_clock_advance(engine, 2 * SECOND_MS));
    CALL(inact_background(engine));
    CALL(inact_clock_advance(engine, 3 * SECOND_MS));
    if (print_snapshot(engine)) return 1;
    CALL(inact_destroy(engine));
    return 0;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static int restore_mode(const char *hex) {
    uint8_t bytes[256];
    size_t n = strlen(hex) / 2, i;
    inact_engine engine = 0;
    inact_info info;
    if (strlen(hex) % 2 != 0 || n > sizeof bytes) {
        fprintf(stderr, "restore: bad hex\n");
        return 1;
    }
    for (i = 0; i < n; i++) {
        int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            fprintf(stderr, "restore: bad hex\n");
            return 1;
        }
        bytes[i] = (uint8_t)(hi * 16 + lo);
    }
    /* The same boot, 20 minutes later by both clocks: a trusted restore. */
    if (create(&engine, START_MS + 1200 * SECOND_MS, WALL_MS + 1200 * SECOND_MS)) return 1;
    CALL(inact_restore(engine, bytes, n));
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    CALL(inact_get_info(engine, &info));
    printf("state %d reason %d unlock_failures %u in_background %d\n", info.state, info.reason,
           info.unlock_failures, info.in_background);
    printf("now %lld remaining %lld next %lld started %lld last_activity %lld background_since %lld"
           " locked_at %lld\n",
           (long long)info.now_ms, (long long)info.remaining_ms, (long long)info.next_deadline_ms,
           (long long)info.started_at_ms, (long long)info.last_activity_ms,
           (long long)info.background_since_ms, (long long)info.locked_at_ms);
    if (print_snapshot(engine)) return 1;
    CALL(inact_destroy(engine));
    return 0;
}

static int size_seen = 0;
static void record_event_size(const inact_event *event, void *user_data) {
    (void)user_data;
    size_seen = (int)event->size;
}

static int layout_mode(void) {
    inact_policy policy;
    inact_config config;
    inact_engine engine = 0;
    int bad = 0;
    CALL(inact_policy_init(&policy));
    CALL(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    CALL(inact_engine_create(&config, NULL, record_event_size, NULL, NULL, &engine));
    CALL(inact_start(engine));   /* one event: the library fills in sizeof(inact_event) */
    CALL(inact_destroy(engine));
#define SHOW(type, library_size)                                                          \
    do {                                                                                  \
        printf("sizeof(%s) %zu library %d\n", #type, sizeof(type), (int)(library_size)); \
        if (sizeof(type) != (size_t)(library_size)) bad = 1;                              \
    } while (0)
    SHOW(inact_policy, policy.size);
    SHOW(inact_config, config.size);
    SHOW(inact_event, size_seen);
#undef SHOW
    printf("sizeof(inact_engine) %zu sizeof(inact_info) %zu\n", sizeof(inact_engine), sizeof(inact_info));
    printf("offsets policy %zu %zu %zu %zu config %zu %zu event %zu %zu %zu info %zu %zu\n",
           offsetof(inact_policy, idle_timeout_ms), offsetof(inact_policy, background_grace_ms),
           offsetof(inact_policy, activity_kinds), offsetof(inact_policy, pause_idle_in_background),
           offsetof(inact_config, manual_start_ms), offsetof(inact_config, manual_boot_id),
           offsetof(inact_event, remaining_ms), offsetof(inact_event, now_ms),
           offsetof(inact_event, engine), offsetof(inact_info, now_ms), offsetof(inact_info, locked_at_ms));
    /* Not compared between CPUs (they differ by design), printed for the log. */
    fprintf(stderr, "sizeof(size_t) %zu sizeof(void *) %zu _Alignof(int64_t) %zu\n", sizeof(size_t),
            sizeof(void *), (size_t)_Alignof(int64_t));
    return bad;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "write") == 0) return write_mode();
    if (argc == 3 && strcmp(argv[1], "restore") == 0) return restore_mode(argv[2]);
    if (argc == 2 && strcmp(argv[1], "layout") == 0) return layout_mode();
    fprintf(stderr, "usage: cross_cpu write | restore HEX | layout\n");
    return 2;
}
