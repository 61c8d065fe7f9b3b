/* wall_2040.c -- libwall_2040.so, an LD_PRELOAD interposer for wall_clock.c (scripts/lib/test-cross):
 * the wall clock (CLOCK_REALTIME) reads 2040-06-01 00:00:00 UTC plus the real time elapsed
 * since its first read; every other clock passes through unchanged.
 *
 * On a 32-bit CPU glibc has two entry points and this stands in front of both, the way glibc
 * itself behaves in 2040: __clock_gettime64 (what code built with 64-bit time_t calls) returns
 * the time, and clock_gettime (the 32-bit time_t original) fails with EOVERFLOW, since 2040
 * does not fit its time_t. This file is therefore compiled WITHOUT -D_TIME_BITS=64 (which would
 * rename the clock_gettime defined here to __clock_gettime64). On 64-bit CPUs there is only
 * clock_gettime. */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>

#define TARGET_S INT64_C(2222121600) /* 2040-06-01 00:00:00 UTC */

/* Seconds to add to the real wall clock; set at the first read (0: not yet). */
static int64_t offset_s;

static void shift(int64_t *seconds) {
    int64_t offset = __atomic_load_n(&offset_s, __ATOMIC_RELAXED);
    if (offset == 0) {
        offset = TARGET_S - *seconds;
        __atomic_store_n(&offset_s, offset, __ATOMIC_RELAXED);
    }
    *seconds += offset;
}

#if defined(__USE_TIME_BITS64)
#error "build wall_2040.c without -D_TIME_BITS=64 (see the comment at the top)"
#endif

typedef char time_t_matches_the_cpu[sizeof(time_t) == sizeof(long) ? 1 : -1];

#if __SIZEOF_LONG__ == 4
/* glibc's struct __timespec64 on a 32-bit little-endian CPU. */
struct timespec64 {
    int64_t tv_sec;
    int32_t tv_nsec;
    int32_t padding;
};

int __clock_gettime64(clockid_t clock, struct timespec64 *ts);
int __clock_gettime64(clockid_t clock, struct timespec64 *ts) {
    int (*real)(clockid_t, struct timespec64 *);
    int rc;
    *(void **)(&real) = dlsym(RTLD_NEXT, "__clock_gettime64");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    rc = real(clock, ts);
    if (rc == 0 && clock == CLOCK_REALTIME) shift(&ts->tv_sec);
    return rc;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    struct timespec64 t;
    int rc = __clock_gettime64(clock, &t);
    if (rc != 0) return rc;
    if (t.tv_sec > INT32_MAX || t.tv_sec < INT32_MIN) {
        errno = EOVERFLOW;   /* glibc's 32-bit clock_gettime does the same */
        return -1;
    }
    ts->tv_sec = (time_t)t.tv_sec;
    ts->tv_nsec = t.tv_nsec;
    return 0;
}
#else
int clock_gettime(clockid_t clock, struct timespec *ts) {
    int (*real)(clockid_t, struct timespec *);
    int rc;
    int64_t seconds;
    *(void **)(&real) = dlsym(RTLD_NEXT, "clock_gettime");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    rc = real(clock, ts);
    if (rc == 0 && clock == CLOCK_REALTIME) {
        seconds = ts->tv_sec;
        shift(&seconds);
        ts->tv_sec = seconds;
    }
    return rc;
}
#endif
