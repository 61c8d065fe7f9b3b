/*
 * snapshot_tool.c -- a host built with an earlier release's header (-I verify/compat/<release>/include),
 * run on one library or another (LD_LIBRARY_PATH), to carry snapshots between library versions:
 *
 *   snapshot_tool save SCENARIO CAPACITY FILE   runs SCENARIO on a manual clock (it ends at
 *       monotonic 61 000 ms, wall 1.7e12 + 61 000, boot 1), writes the snapshot with a buffer of
 *       CAPACITY bytes (a 1.0 host uses INACT_SNAPSHOT_MAX_SIZE) into FILE
 *   snapshot_tool restore FILE GAP_MS BOOT       a new engine GAP_MS later on boot BOOT restores
 *       FILE; prints "status S state X reason R background B failures F"
 *
 * Scenarios (the default policy of inact_policy_init): active (activity at 60 s), locked
 * (inact_lock at 60 s), failures (locked, then two failed unlocks).
 *
 * The structs live in unions with room to spare: this tool checks snapshots, not struct sizes
 * (the release's own C suite, plain and canary-padded, checks those); with a library that still
 * wrote past a 1.0 struct, a plain 1.0 struct here would turn every snapshot check into a crash.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inactivity.h"

#define END_MS 61000
#define WALL_MS 1700000000000LL

typedef union { inact_policy p; uint8_t room[1024]; } policy_room;
typedef union { inact_config c; uint8_t room[1024]; } config_room;
typedef union { inact_info i; uint8_t room[1024]; } info_room;

static void must(int32_t status, const char *what) {
    if (status != INACT_OK) {
        fprintf(stderr, "snapshot_tool: %s returned %d (%s): %s\n", what, (int)status,
                inact_status_string(status), inact_last_error());
        exit(1);
    }
}

static inact_engine make_engine(int64_t start_ms, int64_t wall_ms, uint64_t boot) {
    policy_room policy;
    config_room config;
    inact_engine engine = 0;
    memset(&policy, 0, sizeof policy);
    memset(&config, 0, sizeof config);
    must(inact_policy_init(&policy.p), "inact_policy_init");
    must(inact_config_init(&config.c), "inact_config_init");
    config.c.delivery = INACT_DELIVERY_HOST;
    config.c.clock = INACT_CLOCK_MANUAL;
    config.c.manual_start_ms = start_ms;
    config.c.manual_wall_ms = wall_ms;
    config.c.manual_boot_id = boot;
    must(inact_engine_create(&config.c, &policy.p, NULL, NULL, NULL, &engine), "inact_engine_create");
    return engine;
}

static int save(const char *scenario, size_t capacity, const char *path) {
    inact_engine engine = make_engine(0, WALL_MS, 1);
    uint8_t *buffer = calloc(capacity ? capacity : 1, 1);
    size_t written = 0;
    uint32_t failures = 0;
    int32_t status;
    FILE *file;
    must(inact_start(engine), "inact_start");
    must(inact_clock_advance(engine, 60000), "inact_clock_advance");
    if (strcmp(scenario, "active") == 0) {
        must(inact_activity(engine, INACT_ACTIVITY_TOUCH_DOWN), "inact_activity");
    } else if (strcmp(scenario, "locked") == 0) {
        must(inact_lock(engine), "inact_lock");
    } else if (strcmp(scenario, "failures") == 0) {
        must(inact_lock(engine), "inact_lock");
        must(inact_unlock_failed(engine, &failures), "inact_unlock_failed");
        must(inact_unlock_failed(engine, &failures), "inact_unlock_failed");
    } else {
        fprintf(stderr, "snapshot_tool: unknown scenario %s\n", scenario);
        return 2;
    }
    must(inact_clock_advance(engine, END_MS - 60000), "inact_clock_advance");
    must(inact_poll(engine), "inact_poll");
    status = inact_snapshot_write(engine, buffer, capacity, &written);
    printf("status %d size %zu\n", (int)status, written);
    if (status != INACT_OK) {
        fprintf(stderr, "snapshot_tool: inact_snapshot_write with %zu bytes: %s (%s)\n", capacity,
                inact_status_string(status), inact_last_error());
        return 1;
    }
    file = fopen(path, "wb");
    if (file == NULL || fwrite(buffer, 1, written, file) != written || fclose(file) != 0) {
        perror(path);
        return 1;
    }
    free(buffer);
    must(inact_destroy(engine), "inact_destroy");
    return 0;
}

static int restore(const char *path, int64_t gap_ms, uint64_t boot) {
    uint8_t bytes[4096];
    size_t length;
    info_room info;
    int32_t status;
    inact_engine engine;
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        perror(path);
        return 1;
    }
    length = fread(bytes, 1, sizeof bytes, file);
    fclose(file);
    engine = make_engine(END_MS + gap_ms, WALL_MS + END_MS + gap_ms, boot);
    status = inact_restore(engine, bytes, length);
    memset(&info, 0, sizeof info);
    info.i.size = sizeof info.i;
    must(inact_get_info(engine, &info.i), "inact_get_info");
    printf("status %d state %d reason %d background %d failures %u\n", (int)status,
           (int)info.i.state, (int)info.i.reason, (int)info.i.in_background,
           (unsigned)info.i.unlock_failures);
    must(inact_destroy(engine), "inact_destroy");
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "save") == 0)
        return save(argv[2], (size_t)strtoull(argv[3], NULL, 10), argv[4]);
    if (argc == 5 && strcmp(argv[1], "restore") == 0)
        return restore(argv[2], strtoll(argv[3], NULL, 10), strtoull(argv[4], NULL, 10));
    fprintf(stderr, "usage: snapshot_tool save SCENARIO CAPACITY FILE | restore FILE GAP_MS BOOT\n");
    return 2;
}
