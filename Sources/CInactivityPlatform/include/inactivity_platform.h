/* The C library as the Swift core sees it. Every libc declaration the core and the shims use
 * comes through this one header, in both builds: the normal build (where these headers belong
 * to the toolchain's Glibc/Darwin modules) and the Embedded Swift build of the C library, which
 * has no Glibc overlay. The only code here is static inline wrappers for what Swift cannot
 * call (a variadic function, macros) and the time helpers at the end (64-bit seconds on every
 * target). */
#ifndef INACTIVITY_PLATFORM_H
#define INACTIVITY_PLATFORM_H
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* pthread_setname_np */
#endif
#if defined(__linux__)
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__wasm__)
/* WebAssembly (scripts/build-wasm): no threads, no mmap, and the clocks come from the host
 * (JavaScript). Everything the wasm32 build needs beyond libc is in this one file. */
#include "inactivity_wasm.h"
#else
#include <pthread.h>
#include <sys/mman.h>

/* open(2) is variadic, which Swift imports only through an overlay; read-only needs no mode. */
static inline int inactivity_open_read_only(const char *path) {
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* Zero-filled memory straight from the kernel, or NULL: its pages cost nothing until touched
 * (the registry's tables, sized for the most engines a process may have, are mostly never used).
 * MAP_FAILED is a macro Swift cannot import. */
static inline void *inactivity_map_zeroed(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

#endif /* !__wasm__ */

/* errno is a macro (a thread-local lvalue); the Glibc overlay's `errno` is not in every build. */
static inline int inactivity_errno(void) { return errno; }

/* ---- Time in 64-bit seconds on every target -------------------------------------------------
 * The core reads its clocks and sets its timer only through the helpers below, in ms (int64_t),
 * so no Swift code depends on the width of time_t. Where libc's time_t is 64 bits (every 64-bit
 * target; 32-bit glibc built with _TIME_BITS=64, as scripts/build-embedded builds armv7) they are
 * the plain libc calls. Where it is 32 bits on 32-bit ARM or x86 Linux (bionic: armeabi-v7a has
 * no 64-bit time_t), a struct timespec ends in January 2038, so the wall clock and the timer go
 * through the kernel's 64-bit-time system calls (Linux 5.1) with the kernel's own 64-bit struct
 * (on Android from Android 11 on: see inactivity_time64_use_syscalls), and fall back to libc
 * where those calls do not exist (ENOSYS: an older kernel) or a seccomp filter refuses them with
 * EPERM. The monotonic clock counts from boot and stays libc's vDSO read. The choice is sizeof(time_t), a constant the compiler folds,
 * so a 64-bit time_t build has no system call in it. INACTIVITY_FORCE_TIME64_SYSCALLS=1 takes
 * the system calls with a 64-bit time_t too: a test build only (scripts/build-embedded
 * --time64-syscalls), so that a glibc machine can run the path bionic takes. */

/* struct __kernel_timespec and __kernel_itimerspec (linux/time_types.h): what the 64-bit-time
 * system calls read and write, on every CPU. */
struct inactivity_timespec64 {
    int64_t tv_sec;
    int64_t tv_nsec;
};
struct inactivity_itimerspec64 {
    struct inactivity_timespec64 it_interval;
    struct inactivity_timespec64 it_value;
};

#ifndef INACTIVITY_FORCE_TIME64_SYSCALLS
#define INACTIVITY_FORCE_TIME64_SYSCALLS 0
#endif

#if defined(__linux__) && (defined(__arm__) || defined(__i386__))
#include <sys/syscall.h>
#if defined(__ANDROID__)
#include <android/api-level.h>
#endif
/* The same numbers on 32-bit ARM (EABI, arch/arm/tools/syscall.tbl) and i386
 * (arch/x86/entry/syscalls/syscall_32.tbl): the time64 calls were numbered alike on every 32-bit
 * architecture in Linux 5.1. Checked against the kernel headers where they name them. */
#define INACTIVITY_NR_CLOCK_GETTIME64 403
#define INACTIVITY_NR_TIMERFD_SETTIME64 411
#if defined(__NR_clock_gettime64) && __NR_clock_gettime64 != INACTIVITY_NR_CLOCK_GETTIME64
#error "__NR_clock_gettime64 is not 403 on this CPU (OABI?): update INACTIVITY_NR_CLOCK_GETTIME64"
#endif
#if defined(__NR_timerfd_settime64) && __NR_timerfd_settime64 != INACTIVITY_NR_TIMERFD_SETTIME64
#error "__NR_timerfd_settime64 is not 411 on this CPU (OABI?): update INACTIVITY_NR_TIMERFD_SETTIME64"
#endif
#define INACTIVITY_HAS_TIME64_SYSCALLS 1

/* Whether this build calls the 64-bit-time system calls: libc's time_t is 32 bits (or forced). */
static inline int inactivity_time64_syscalls_built(void) {
    return sizeof(time_t) == 4 || INACTIVITY_FORCE_TIME64_SYSCALLS;
}

/* 0: not decided yet; 1: the system calls; 2: libc (they are missing or refused). Decided once
 * per process (a relaxed atomic: any thread may decide, they all decide the same). */
static inline int *inactivity_time64_state(void) {
    static int state;
    return &state;
}

static inline int inactivity_time64_use_syscalls(void) {
    int state;
    if (!inactivity_time64_syscalls_built()) return 0;
    state = __atomic_load_n(inactivity_time64_state(), __ATOMIC_RELAXED);
    if (state == 0) {
        state = 1;
#if defined(__ANDROID__)
        /* Android 9 and 10 (API 28, 29) run apps under a seccomp filter that does not list the
         * time64 calls and answers them with SIGSYS, which kills the process; Android 11 (API
         * 30) added them to the app allowlist. Those releases keep the 32-bit libc calls. */
        if (android_get_device_api_level() < 30) state = 2;
#endif
        __atomic_store_n(inactivity_time64_state(), state, __ATOMIC_RELAXED);
    }
    return state == 1;
}

/* A time64 call failed with `error`: true (and libc from now on) when that means the call is
 * missing (ENOSYS, a kernel before 5.1) or refused by a seccomp filter (EPERM, which neither
 * call returns otherwise); false for a real error of the call. */
static inline int inactivity_time64_unavailable(int error) {
    if (error != ENOSYS && error != EPERM) return 0;
    __atomic_store_n(inactivity_time64_state(), 2, __ATOMIC_RELAXED);
    return 1;
}
#endif

#if !defined(__wasm__) /* wasm32 reads its clocks from the host: inactivity_wasm.h */
/* clock_gettime in 64-bit seconds: 0, or the errno of the failure. */
static inline int inactivity_clock_gettime64(clockid_t clock, struct inactivity_timespec64 *out) {
    struct timespec ts;
#if defined(INACTIVITY_HAS_TIME64_SYSCALLS)
    if (inactivity_time64_use_syscalls()) {
        struct inactivity_timespec64 kernel;
        int error;
        if (syscall(INACTIVITY_NR_CLOCK_GETTIME64, (long)clock, &kernel) == 0) {
            *out = kernel;
            return 0;
        }
        error = errno;
        if (!inactivity_time64_unavailable(error)) return error;
    }
#endif
    if (clock_gettime(clock, &ts) != 0) return errno;
    out->tv_sec = (int64_t)ts.tv_sec;
    out->tv_nsec = (int64_t)ts.tv_nsec;
    return 0;
}

/* Milliseconds (floor) of a timespec64 that clock_gettime filled in. */
static inline int64_t inactivity_timespec64_ms(const struct inactivity_timespec64 *t) {
    return t->tv_sec * 1000 + t->tv_nsec / 1000000;
}

/* The wall clock, ms since 1970, through the 64-bit path: correct after January 2038 on a
 * 32-bit time_t. A failed read (never, for CLOCK_REALTIME) reads 0, as an untouched timespec. */
static inline int64_t inactivity_wall_ms(void) {
    struct inactivity_timespec64 t = {0, 0};
    (void)inactivity_clock_gettime64(CLOCK_REALTIME, &t);
    return inactivity_timespec64_ms(&t);
}

/* A clock that counts from boot (CLOCK_BOOTTIME, CLOCK_MONOTONIC_RAW), ms: libc's
 * clock_gettime on every target, a vDSO read with no system call, as activity needs. Even a
 * 32-bit time_t holds it for 68 years of uptime, so it needs no 64-bit path. A failed read (an
 * invalid clock: never, for the ids the core passes) reads 0, as an untouched timespec. */
static inline int64_t inactivity_monotonic_ms(clockid_t clock) {
    struct timespec ts = {0, 0};
    (void)clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000 + (int64_t)ts.tv_nsec / 1000000;
}

#endif /* !__wasm__ */

#if defined(__linux__)
/* timerfd_settime (no old value) in 64-bit seconds: 0, or the errno of the failure. */
static inline int inactivity_timerfd_settime64(int fd, int flags, const struct inactivity_itimerspec64 *spec) {
    struct itimerspec libc_spec;
    /* The largest time_t: a 32-bit time_t clamps a later time (on CLOCK_BOOTTIME, 68 years of
     * uptime: never) instead of wrapping it into the past. */
    const int64_t max_sec = sizeof(time_t) == 4 ? INT32_MAX : INT64_MAX;
#if defined(INACTIVITY_HAS_TIME64_SYSCALLS)
    if (inactivity_time64_use_syscalls()) {
        int error;
        if (syscall(INACTIVITY_NR_TIMERFD_SETTIME64, (long)fd, (long)flags, spec, (void *)0) == 0) return 0;
        error = errno;
        if (!inactivity_time64_unavailable(error)) return error;
    }
#endif
    memset(&libc_spec, 0, sizeof libc_spec);
    libc_spec.it_interval.tv_sec = (time_t)(spec->it_interval.tv_sec < max_sec ? spec->it_interval.tv_sec : max_sec);
    libc_spec.it_interval.tv_nsec = (long)spec->it_interval.tv_nsec;
    libc_spec.it_value.tv_sec = (time_t)(spec->it_value.tv_sec < max_sec ? spec->it_value.tv_sec : max_sec);
    libc_spec.it_value.tv_nsec = (long)spec->it_value.tv_nsec;
    return timerfd_settime(fd, flags, &libc_spec, NULL) == 0 ? 0 : errno;
}

/* Arms a timerfd at `ms` (>= 0) on its clock, absolute, or disarms it for ms < 0: 0, or the
 * errno of the failure. */
static inline int inactivity_timerfd_set_abs_ms(int fd, int64_t ms) {
    struct inactivity_itimerspec64 spec;
    memset(&spec, 0, sizeof spec);
    if (ms >= 0) {
        spec.it_value.tv_sec = ms / 1000;
        spec.it_value.tv_nsec = ms % 1000 * 1000000;
        if (ms == 0) spec.it_value.tv_nsec = 1; /* 0 would disarm; 1 ns is in the past */
    }
    return inactivity_timerfd_settime64(fd, TFD_TIMER_ABSTIME, &spec);
}
#endif
#endif
