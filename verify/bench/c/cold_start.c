/*
 * cold_start.c -- cold start to the first decision: how long a new process takes to load
 * libinactivity, create an engine (the defaults: system clock, scheduler thread) and restore a
 * snapshot until its state is known -- the moment an app can choose the lock screen over its
 * content. Two programs from this file:
 *
 *   cold_start (linked with a libinactivity)
 *     cold_start write FILE     writes a snapshot of a started session to FILE (setup)
 *     cold_start FILE           the measured process: create, restore FILE, read the state and
 *                               check it (ACTIVE, RESTORED), then signal the decision: one byte
 *                               written to the file descriptor named by COLD_DECISION_FD (the
 *                               driver's pipe; unset: run by hand, nobody to tell). Exits 0 only
 *                               when the restore was trusted; no byte is written otherwise.
 *     cold_start STAGE FILE     the same program stopped earlier, to see where the time goes:
 *                               STAGE is `loaded` (the byte at the top of main: the library is
 *                               loaded and relocated, nothing else), `host` (after creating an
 *                               engine with HOST delivery: no thread) or `thread` (after
 *                               creating one with the defaults: the scheduler thread starts)
 *   cold_start_dlopen LIBRARY [STAGE] FILE
 *                               (-DCOLD_DLOPEN) the same, loading LIBRARY by path with dlopen
 *   cold_driver (-DCOLD_DRIVER, not linked with it)
 *     cold_driver RUNS [LABEL PROGRAM ARGS... ;]...
 *                               runs each command RUNS times, round-robin (so drift hits all of
 *                               them alike; each round in its own shuffled order), each with a
 *                               fresh pipe as its fd 3 (and COLD_DECISION_FD=3 in its
 *                               environment), and times two
 *                               intervals from posix_spawn: to the decision byte (the figure)
 *                               and to waitpid (the whole process, teardown included, for
 *                               transparency). Prints JSON: per label the median, p10 and p90
 *                               of each in ms and of each stage in µs (below), and the load
 *                               average before and after.
 * A command that exits non-zero or ends without its byte stops the driver: a figure measured on
 * a failed restore is a lie. The empty baseline (scripts/bench writes it) is a C program that
 * writes the byte first thing in main: the process floor measured the same way.
 *
 * Where the time goes, inside the process: the decision byte is followed, in the same write, by
 * the CLOCK_MONOTONIC readings the program took on its way (struct cold_record: the top of main,
 * the library loaded by dlopen (cold_start_dlopen only), the snapshot read, the engine created, the snapshot restored, the state read; 0 for a stage it
 * did not reach). CLOCK_MONOTONIC is one clock for every process, so the driver, which read it
 * just before posix_spawn, splits each run into its stages and prints their medians: a change is
 * judged by the delta of the stage it touches, not by process totals that the machine's noise
 * moves by more than the change. Reading the clock (the vDSO) costs tens of nanoseconds.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The stages a measured program reports after its decision byte (shared with the driver and
 * with the empty programs of scripts/bench, which fill in `main` only). */
enum { COLD_MAIN, COLD_DLOPEN_DONE, COLD_READ, COLD_CREATE, COLD_RESTORE, COLD_STATE, COLD_STAGES };
struct cold_record {
    char byte;                      /* 'D': the decision */
    int64_t ns[COLD_STAGES];        /* CLOCK_MONOTONIC at each stage, 0 when not reached */
} __attribute__((packed));

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#ifndef COLD_DRIVER
#include "inactivity.h"

#ifdef COLD_DLOPEN
/* cold_start_dlopen (-DCOLD_DLOPEN, not linked with the library): the same program, with the
 * library path as its first argument, loaded with dlopen the way the Python (ctypes.CDLL) and
 * Kotlin (System.load) bindings load it: by path, so the dynamic loader searches no directory.
 * Every function is resolved before main goes on, as a linked program's are (BIND_NOW). */
#include <dlfcn.h>
#define COLD_FUNCTIONS(X)                                                                          \
    X(inact_status_string) X(inact_last_error) X(inact_policy_init_sized) X(inact_config_init_sized)          \
    X(inact_engine_create) X(inact_start) X(inact_snapshot_write) X(inact_destroy) X(inact_restore) \
    X(inact_get_state) X(inact_get_reason)
#define COLD_POINTER(name) static __typeof__(name) *cold_##name;
COLD_FUNCTIONS(COLD_POINTER)
static int load_library(const char *path) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) return fprintf(stderr, "cold_start: %s\n", dlerror()), 1;
#define COLD_RESOLVE(name) \
    if (!(*(void **)&cold_##name = dlsym(library, #name))) return fprintf(stderr, "cold_start: no %s\n", #name), 1;
    COLD_FUNCTIONS(COLD_RESOLVE)
    return 0;
}
#define inact_status_string cold_inact_status_string
#define inact_last_error cold_inact_last_error
/* The header's inact_policy_init(p) and inact_config_init(c) are macros over the _sized
 * functions (1.2): those are what a program resolves. */
#define inact_policy_init_sized cold_inact_policy_init_sized
#define inact_config_init_sized cold_inact_config_init_sized
#define inact_engine_create cold_inact_engine_create
#define inact_start cold_inact_start
#define inact_snapshot_write cold_inact_snapshot_write
#define inact_destroy cold_inact_destroy
#define inact_restore cold_inact_restore
#define inact_get_state cold_inact_get_state
#define inact_get_reason cold_inact_get_reason
#endif

static int fail(const char *what, int32_t status) {
    fprintf(stderr, "cold_start: %s: %s (%s)\n", what, inact_status_string(status), inact_last_error());
    return 1;
}

static struct cold_record record = {'D', {0}};

/* The decision is known: tell the driver, with the stage readings. Run by hand there is nobody
 * to tell. */
static int decided(void) {
    const char *fd = getenv("COLD_DECISION_FD");
    if (!fd || write(atoi(fd), &record, sizeof record) == (ssize_t)sizeof record) return 0;
    perror("cold_start: write to COLD_DECISION_FD");
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
    inact_policy policy;
    inact_config config;
    inact_engine engine = 0;
    uint8_t bytes[256];
    size_t n = 0;
    int32_t rc, state = -1, reason = -1;
    const char *stage;
    FILE *f;
    record.ns[COLD_MAIN] = now_ns();
#ifdef COLD_DLOPEN
    if (argc < 2 || load_library(argv[1]) != 0) return 1;
    record.ns[COLD_DLOPEN_DONE] = now_ns();
    argc--;
    argv++;
#endif
    stage = argc == 3 ? argv[1] : "full";
    if (argc == 3 && strcmp(stage, "loaded") == 0) return decided();
    policy = app_policy();
    if (argc == 3 && strcmp(argv[1], "write") == 0) {
        if ((rc = inact_engine_create(NULL, &policy, NULL, NULL, NULL, &engine)) != INACT_OK) return fail("create", rc);
        if ((rc = inact_start(engine)) != INACT_OK) return fail("start", rc);
        if ((rc = inact_snapshot_write(engine, bytes, sizeof bytes, &n)) != INACT_OK) return fail("snapshot", rc);
        inact_destroy(engine);
        f = fopen(argv[2], "wb");
        if (!f || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) return 1;
        return 0;
    }
    if (argc == 3 && strcmp(stage, "host") == 0) {
        inact_config_init(&config);
        config.delivery = INACT_DELIVERY_HOST;
        if ((rc = inact_engine_create(&config, &policy, NULL, NULL, NULL, &engine)) != INACT_OK) return fail("create", rc);
        record.ns[COLD_CREATE] = now_ns();
        return decided();
    }
    if (argc == 3 && strcmp(stage, "thread") == 0) {
        if ((rc = inact_engine_create(NULL, &policy, NULL, NULL, NULL, &engine)) != INACT_OK) return fail("create", rc);
        record.ns[COLD_CREATE] = now_ns();
        return decided();
    }
    if (argc < 2 || argc > 3 || strcmp(stage, "full") != 0) {
        fprintf(stderr, "usage: cold_start write FILE | cold_start [loaded|host|thread|full] FILE\n");
        return 2;
    }
    f = fopen(argv[argc - 1], "rb");
    if (!f) return 1;
    n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    record.ns[COLD_READ] = now_ns();
    /* An app's cold start: the default config (system clock, thread delivery), then the snapshot. */
    if ((rc = inact_engine_create(NULL, &policy, NULL, NULL, NULL, &engine)) != INACT_OK) return fail("create", rc);
    record.ns[COLD_CREATE] = now_ns();
    if ((rc = inact_restore(engine, bytes, n)) != INACT_OK) return fail("restore", rc);
    record.ns[COLD_RESTORE] = now_ns();
    if ((rc = inact_get_state(engine, &state)) != INACT_OK) return fail("state", rc);
    if ((rc = inact_get_reason(engine, &reason)) != INACT_OK) return fail("reason", rc);
    record.ns[COLD_STATE] = now_ns();
    if (state != INACT_STATE_ACTIVE || reason != INACT_REASON_RESTORED) {
        fprintf(stderr, "cold_start: restored state %d reason %d, expected ACTIVE/RESTORED\n", state, reason);
        return 1;
    }
    /* The decision is made here; tearing down is not part of it (the driver times it apart). */
    return decided();
}
#else
extern char **environ;
enum { DECISION_FD = 3 };          /* the child's end of the driver's pipe */
static char **child_environment;   /* environ + COLD_DECISION_FD=3 */

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_stats(const char *name, double *samples, int runs) {
    qsort(samples, (size_t)runs, sizeof(double), cmp);
    printf("\"%s\": {\"median\": %.4f, \"p10\": %.4f, \"p90\": %.4f}", name, samples[runs / 2],
           samples[runs / 10], samples[runs - 1 - runs / 10]);
}

static void print_load(const char *name) {
    double load[3] = {-1, -1, -1};
    if (getloadavg(load, 3) != 3) load[0] = load[1] = load[2] = -1;
    printf("\"%s\": [%.2f, %.2f, %.2f]", name, load[0], load[1], load[2]);
}

enum { MAX_COMMANDS = 16 };
/* The stages of one run, in µs: spawn to main, each stage the program reached from the one
 * before, and its last reading to the driver's wake-up (the pipe's latency). */
enum { STAGE_TO_MAIN, STAGE_TO_DRIVER = COLD_STAGES, STAGE_SLOTS };
static const char *const stage_names[STAGE_SLOTS] = {"to_main", "dlopen", "read", "create", "restore", "state", "to_driver"};

/* One run of `command`: fd 3 of the child is the write end of a fresh pipe. Returns 0, the two
 * intervals in ms and the stage times in µs (-1: not reached, or a program that reports none),
 * or -1 (reported) when it failed or never decided. */
static int run_once(const char *label, char **command, double *decision_ms, double *exit_ms,
                    double *stage_us) {
    int fds[2], status = 0, low[2], i;
    pid_t pid;
    struct cold_record record;
    ssize_t got;
    int64_t start, decided_at, last;
    posix_spawn_file_actions_t actions;
    if (pipe2(fds, O_CLOEXEC) != 0) return perror("pipe2"), -1;
    /* Both ends above 3, so that the dup2 below always makes a new, inheritable fd 3. */
    low[0] = fcntl(fds[0], F_DUPFD_CLOEXEC, 10);
    low[1] = fcntl(fds[1], F_DUPFD_CLOEXEC, 10);
    close(fds[0]);
    close(fds[1]);
    if (low[0] < 0 || low[1] < 0) return perror("fcntl"), -1;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, low[1], DECISION_FD);
    memset(&record, 0, sizeof record);
    start = now_ns();
    if (posix_spawn(&pid, command[0], &actions, NULL, command, child_environment) != 0) {
        perror(command[0]);
        return -1;
    }
    close(low[1]);   /* the child holds the only write end: EOF when it ends without deciding */
    /* One write of at most PIPE_BUF bytes arrives whole: the byte and the readings, or the
     * byte alone from a program that reports no stages. */
    while ((got = read(low[0], &record, sizeof record)) < 0 && errno == EINTR) {}
    decided_at = now_ns();
    close(low[0]);
    posix_spawn_file_actions_destroy(&actions);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || got < 1 ||
        record.byte != 'D') {
        fprintf(stderr, "cold_driver: %s failed (status %#x, %s)\n", label, status,
                got >= 1 ? "decided" : "no decision byte");
        return -1;
    }
    *decision_ms = (double)(decided_at - start) / 1e6;
    *exit_ms = (double)(now_ns() - start) / 1e6;
    for (i = 0; i < STAGE_SLOTS; i++) stage_us[i] = -1;
    if (got == (ssize_t)sizeof record && record.ns[COLD_MAIN] >= start && record.ns[COLD_MAIN] <= decided_at) {
        last = start;
        for (i = 0; i < COLD_STAGES; i++)
            if (record.ns[i] != 0) {
                stage_us[i] = (double)(record.ns[i] - last) / 1e3;
                last = record.ns[i];
            }
        stage_us[STAGE_TO_DRIVER] = (double)(decided_at - last) / 1e3;
    }
    return 0;
}

int main(int argc, char **argv) {
    char **commands[MAX_COMMANDS];
    const char *labels[MAX_COMMANDS];
    int count = 0, runs, i, r, k, n, reached, order[MAX_COMMANDS];
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    double *decision[MAX_COMMANDS], *whole[MAX_COMMANDS], *stages[MAX_COMMANDS][STAGE_SLOTS];
    double stage_us[STAGE_SLOTS];
    if (argc < 3 || (runs = atoi(argv[1])) <= 0) {
        fprintf(stderr, "usage: cold_driver RUNS [LABEL PROGRAM ARGS... ;]...\n");
        return 2;
    }
    for (i = 2; i < argc && count < MAX_COMMANDS;) {
        labels[count] = argv[i];
        commands[count] = &argv[i + 1];
        while (i < argc && strcmp(argv[i], ";") != 0) i++;
        if (i < argc) argv[i++] = NULL;   /* the command's argv ends here */
        decision[count] = calloc((size_t)runs, sizeof(double));
        whole[count] = calloc((size_t)runs, sizeof(double));
        if (!decision[count] || !whole[count]) return 2;
        for (k = 0; k < STAGE_SLOTS; k++)
            if (!(stages[count][k] = calloc((size_t)runs, sizeof(double)))) return 2;
        count++;
    }
    for (i = 0; environ[i]; i++) {}
    child_environment = calloc((size_t)i + 2, sizeof(char *));
    if (!child_environment) return 2;
    for (i = 0; environ[i]; i++) child_environment[i] = environ[i];
    child_environment[i] = "COLD_DECISION_FD=3";
    printf("{\"runs\": %d, ", runs);
    print_load("load_before");
    /* Every round runs each command once, in an order shuffled per round (a fixed xorshift
     * seed, so runs are repeatable): no command always follows the same one (a 5 ms SwiftPM
     * process leaves the caches to whatever runs next). */
    for (i = 0; i < count; i++) order[i] = i;
    for (r = 0; r < runs; r++) {
        for (i = count - 1; i > 0; i--) {
            int j, t;
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            j = (int)(seed % (uint64_t)(i + 1));
            t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (n = 0; n < count; n++) {
            i = order[n];
            if (run_once(labels[i], commands[i], &decision[i][r], &whole[i][r], stage_us) != 0) return 2;
            for (k = 0; k < STAGE_SLOTS; k++) stages[i][k][r] = stage_us[k];
        }
    }
    printf(", ");
    print_load("load_after");
    printf(",\n\"cold_start_ms\": {");
    for (i = 0; i < count; i++) {
        printf("%s\n  \"%s\": {", i ? "," : "", labels[i]);
        print_stats("decision", decision[i], runs);
        printf(", ");
        print_stats("exit", whole[i], runs);
        printf("}");
    }
    /* Per label, the median, p10 and p90 of each stage it reported in every run (µs). */
    printf("\n},\n\"stages_us\": {");
    for (i = 0; i < count; i++) {
        printf("%s\n  \"%s\": {", i ? "," : "", labels[i]);
        for (k = 0, reached = 0; k < STAGE_SLOTS; k++) {
            for (r = 0; r < runs && stages[i][k][r] >= 0; r++) {}
            if (r < runs) continue;
            printf("%s", reached++ ? ", " : "");
            print_stats(stage_names[k], stages[i][k], runs);
        }
        printf("}");
    }
    printf("\n}}\n");
    return 0;
}
#endif
