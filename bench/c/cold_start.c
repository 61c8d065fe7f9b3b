/*
 * cold_start.c -- cold start to the first decision: how long a new process takes to load
 * libinactivity, create an engine (the defaults: system clock, scheduler thread) and restore a
 * snapshot until its state is known -- the moment an app can choose the lock screen over its
 * content. Two programs from this file:
 *
 *   cold_start (linked with a libinactivity)
 *     cold_start write FILE     writes a snapshot of a started session to FILE (setup)
 *     cold_start FILE           the measured process: create, restore FILE, read the state;
 *                               exits 0 only when the restore was trusted (ACTIVE, RESTORED)
 *   cold_driver (-DCOLD_DRIVER, not linked with it)
 *     cold_driver RUNS [LABEL PROGRAM ARGS... ;]...
 *                               runs each command RUNS times, round-robin (so drift hits all of
 *                               them alike), each from posix_spawn to waitpid, and prints JSON:
 *                               per label the median, p10 and p90 in ms
 * A command that exits non-zero stops the driver: a figure measured on a failed restore is a lie.
 */
#define _GNU_SOURCE 1
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#ifndef COLD_DRIVER
#include "inactivity.h"

static int fail(const char *what, int32_t status) {
    fprintf(stderr, "cold_start: %s: %s (%s)\n", what, inact_status_string(status), inact_last_error());
    return 1;
}

/* The app's policy: the defaults, with a background timeout of an hour, so that a snapshot taken
 * at setup still restores ACTIVE however long the runs take (the time since the snapshot counts
 * as background time). */
static inact_policy app_policy(void) {
    inact_policy policy;
    inact_policy_init(&policy);
    policy.background_timeout_ms = 3600 * 1000;
    return policy;
}

int main(int argc, char **argv) {
    inact_policy policy = app_policy();
    inact_engine engine = 0;
    uint8_t bytes[256];
    size_t n = 0;
    int32_t rc, state = -1, reason = -1;
    FILE *f;
    if (argc == 3 && strcmp(argv[1], "write") == 0) {
        if ((rc = inact_engine_create(NULL, &policy, NULL, NULL, NULL, &engine)) != INACT_OK) return fail("create", rc);
        if ((rc = inact_start(engine)) != INACT_OK) return fail("start", rc);
        if ((rc = inact_snapshot_write(engine, bytes, sizeof bytes, &n)) != INACT_OK) return fail("snapshot", rc);
        inact_destroy(engine);
        f = fopen(argv[2], "wb");
        if (!f || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) return 1;
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: cold_start write FILE | cold_start FILE\n");
        return 2;
    }
    f = fopen(argv[1], "rb");
    if (!f) return 1;
    n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    /* An app's cold start: the default config (system clock, thread delivery), then the snapshot. */
    if ((rc = inact_engine_create(NULL, &policy, NULL, NULL, NULL, &engine)) != INACT_OK) return fail("create", rc);
    if ((rc = inact_restore(engine, bytes, n)) != INACT_OK) return fail("restore", rc);
    if ((rc = inact_get_state(engine, &state)) != INACT_OK) return fail("state", rc);
    if ((rc = inact_get_reason(engine, &reason)) != INACT_OK) return fail("reason", rc);
    /* The decision is made here. Tearing down is not part of it, but the process still exits. */
    if (state != INACT_STATE_ACTIVE || reason != INACT_REASON_RESTORED) {
        fprintf(stderr, "cold_start: restored state %d reason %d, expected ACTIVE/RESTORED\n", state, reason);
        return 1;
    }
    return 0;
}
#else
extern char **environ;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { MAX_COMMANDS = 16 };

int main(int argc, char **argv) {
    char **commands[MAX_COMMANDS];
    const char *labels[MAX_COMMANDS];
    int count = 0, runs, i, r;
    double *samples[MAX_COMMANDS];
    if (argc < 3 || (runs = atoi(argv[1])) <= 0) {
        fprintf(stderr, "usage: cold_driver RUNS [LABEL PROGRAM ARGS... ;]...\n");
        return 2;
    }
    for (i = 2; i < argc && count < MAX_COMMANDS;) {
        labels[count] = argv[i];
        commands[count] = &argv[i + 1];
        while (i < argc && strcmp(argv[i], ";") != 0) i++;
        if (i < argc) argv[i++] = NULL;   /* the command's argv ends here */
        samples[count] = calloc((size_t)runs, sizeof(double));
        count++;
    }
    for (r = 0; r < runs; r++) {
        for (i = 0; i < count; i++) {
            pid_t pid;
            int status = 0;
            int64_t start = now_ns();
            if (posix_spawn(&pid, commands[i][0], NULL, NULL, commands[i], environ) != 0) {
                perror(commands[i][0]);
                return 2;
            }
            if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "cold_driver: %s failed (status %#x)\n", labels[i], status);
                return 2;
            }
            samples[i][r] = (double)(now_ns() - start) / 1e6;
        }
    }
    printf("{\"runs\": %d, \"cold_start_ms\": {", runs);
    for (i = 0; i < count; i++) {
        qsort(samples[i], (size_t)runs, sizeof(double), cmp);
        printf("%s\n  \"%s\": {\"median\": %.4f, \"p10\": %.4f, \"p90\": %.4f}", i ? "," : "", labels[i],
               samples[i][runs / 2], samples[i][runs / 10], samples[i][runs - 1 - runs / 10]);
    }
    printf("\n}}\n");
    return 0;
}
#endif
