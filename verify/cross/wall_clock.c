/* wall_clock.c -- the wall clock after 2038-01-19 03:14:07 UTC, the last second of a 32-bit
 * time_t (scripts/lib/test-cross, every CPU; ARM under qemu-user). Built with -D_TIME_BITS=64
 * -D_FILE_OFFSET_BITS=64, as scripts/build-embedded builds the library, and run with
 * libwall_2040.so preloaded (wall_2040.c: the wall clock reads 2040-06-01; a 32-bit time_t read
 * fails with EOVERFLOW, as in glibc).
 *
 * It checks, in order: this program has a 64-bit time_t (the flags took effect); its own wall
 * clock reads 2040 (the interposer is in place, so what follows can fail); an engine on the
 * SYSTEM clock reads the same wall time (inact_clock_now); the snapshot it writes holds it
 * (bytes 56..63 of format 3, the format this library writes; 64..71 in 1.1's format 2); and a second engine restores that snapshot as trusted (ACTIVE, RESTORED: the
 * wall clock did not seem to go back). A library that reads the wall clock through a 32-bit
 * time_t gets EOVERFLOW and an untouched timespec there: 1970, and the checks fail.
 * Prints the wall time it saw. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "inactivity.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define AFTER_2038_MS (INT64_C(2147483647) * 1000)  /* 2038-01-19 03:14:07 UTC */
#define TARGET_MS INT64_C(2222121600000)            /* 2040-06-01, libwall_2040.so */
#define SLACK_MS (INT64_C(600) * 1000)              /* generous: qemu is slow, nothing sleeps */

static int failures;
#define CHECK(cond, ...)                                      \
    do {                                                      \
        if (!(cond)) {                                        \
            fprintf(stderr, "wall_clock: FAILED %s: ", #cond); \
            fprintf(stderr, __VA_ARGS__);                     \
            fputc('\n', stderr);                              \
            failures++;                                       \
        }                                                     \
    } while (0)
#define CALL(expr)                                                                               \
    do {                                                                                         \
        int32_t status_ = (expr);                                                                \
        if (status_ != INACT_OK) {                                                               \
            fprintf(stderr, "wall_clock: %s: %s (%s)\n", #expr, inact_status_string(status_),    \
                    inact_last_error());                                                         \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

static int in_2040(int64_t ms) { return ms >= TARGET_MS && ms <= TARGET_MS + SLACK_MS; }

static int64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--) v = v << 8 | p[i];
    return (int64_t)v;
}

int main(void) {
    struct timespec ts;
    inact_config config;
    inact_policy policy;
    inact_engine engine = 0, restored = 0;
    int64_t own_ms, wall_ms = 0, snapshot_wall_ms;
    uint8_t bytes[INACT_SNAPSHOT_MAX_SIZE];
    size_t n = 0;
    int32_t state = -1, reason = -1;

    CHECK(sizeof(time_t) == 8 && sizeof ts.tv_sec == 8, "time_t is %zu bytes (build with -D_TIME_BITS=64)",
          sizeof(time_t));
    CHECK(clock_gettime(CLOCK_REALTIME, &ts) == 0, "this program's clock_gettime failed");
    own_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    CHECK(in_2040(own_ms), "this program reads the wall clock as %lld ms, not 2040 (is libwall_2040.so preloaded?)",
          (long long)own_ms);
    if (failures) return 1;   /* without the interposer the engine's checks would prove nothing */

    CALL(inact_config_init(&config));
    config.delivery = INACT_DELIVERY_HOST;   /* SYSTEM clock (the default); no thread needed */
    CALL(inact_policy_init(&policy));
    CALL(inact_engine_create(&config, &policy, NULL, NULL, NULL, &engine));
    CALL(inact_clock_now(engine, NULL, &wall_ms, NULL));
    CHECK(wall_ms > AFTER_2038_MS && in_2040(wall_ms), "the engine reads the wall clock as %lld ms", (long long)wall_ms);
    CALL(inact_start(engine));
    CALL(inact_snapshot_write(engine, bytes, sizeof bytes, &n));
    /* The wall clock's slot by the format's version (bytes 4..5): 56 in format 3, 64 in 1.1's 2. */
    CHECK(n >= 72 && (bytes[4] == 3 || bytes[4] == 2) && bytes[5] == 0, "snapshot of %zu bytes, version %d", n,
          n >= 6 ? bytes[4] | bytes[5] << 8 : -1);
    snapshot_wall_ms = n >= 72 ? le64(bytes + (bytes[4] == 3 ? 56 : 64)) : 0;
    CHECK(in_2040(snapshot_wall_ms) && snapshot_wall_ms >= wall_ms, "the snapshot's wall clock is %lld ms",
          (long long)snapshot_wall_ms);
    CALL(inact_engine_create(&config, &policy, NULL, NULL, NULL, &restored));
    CALL(inact_restore(restored, bytes, n));
    CALL(inact_get_state(restored, &state));
    CALL(inact_get_reason(restored, &reason));
    CHECK(state == INACT_STATE_ACTIVE && reason == INACT_REASON_RESTORED,
          "restored at 2040: state %d reason %d, expected ACTIVE/RESTORED", state, reason);
    inact_destroy(restored);
    inact_destroy(engine);
    printf("wall clock %lld ms (2040-06-01 + %lld ms), time_t %zu bytes: %s\n", (long long)wall_ms,
           (long long)(wall_ms - TARGET_MS), sizeof(time_t), failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
