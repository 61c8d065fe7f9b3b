/*
 * bench_common.h -- small helpers shared by the C benchmarks: clocks, medians, a JSON writer
 * and a check() that stops the run when a benchmark's own premise does not hold (a benchmark
 * that measures the wrong thing must fail, not print a figure).
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#define _GNU_SOURCE 1
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "inactivity.h"

static inline int64_t bench_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Monotonic wall time for timing runs. */
static inline int64_t now_ns(void) { return bench_ns(CLOCK_MONOTONIC); }
/* The engine's clock (CLOCK_BOOTTIME), in ns. */
static inline int64_t boottime_ns(void) { return bench_ns(CLOCK_BOOTTIME); }

static inline void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static inline void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

/* Stops the benchmark when an inact_ call fails: a figure measured on an error path is a lie. */
#define CHECK_OK(call)                                                                         \
    do {                                                                                       \
        int32_t rc_ = (call);                                                                  \
        if (rc_ != INACT_OK)                                                                   \
            die("%s:%d: %s returned %d (%s): %s", __FILE__, __LINE__, #call, rc_,              \
                inact_status_string(rc_), inact_last_error());                                 \
    } while (0)

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) die(__VA_ARGS__);                                                         \
    } while (0)

static inline int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n values (sorts a copy). */
static inline double median(const double *v, int n) {
    double *c = malloc(sizeof(double) * (size_t)n);
    if (!c) die("out of memory");
    memcpy(c, v, sizeof(double) * (size_t)n);
    qsort(c, (size_t)n, sizeof(double), cmp_double);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

/* The p-th percentile (0..100) of sorted values, nearest rank. */
static inline double percentile_sorted(const double *sorted, int n, double p) {
    if (n == 0) return 0;
    int rank = (int)((p / 100.0) * n + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return sorted[rank - 1];
}

/* Reads a "Key:   value kB"-style line of /proc/<...>/status; -1 if absent. */
static inline long proc_status_field(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    size_t klen = strlen(key);
    long value = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
            value = strtol(line + klen + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return value;
}

/* Resident set size of this process in bytes (/proc/self/statm, field 2). */
static inline long rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) die("cannot open /proc/self/statm");
    long size = 0, resident = 0;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) die("cannot parse /proc/self/statm");
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

#endif
