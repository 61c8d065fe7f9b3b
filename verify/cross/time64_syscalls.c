/* time64_syscalls.c -- the 64-bit time helpers of Sources/CInactivityPlatform
 * (inactivity_platform.h) and the library's use of them (scripts/lib/test-cross).
 *
 *   time64_syscalls unit syscalls|libc      the helpers compiled into this program
 *   time64_syscalls library syscalls|libc   the libinactivity.so this program is linked with
 *                                           (not built with -DTIME64_UNIT_ONLY: i686 has no library)
 *
 * The second word is what the caller expects of this build: "syscalls" = the kernel's
 * 64-bit-time system calls (clock_gettime64 403, timerfd_settime64 411), the path of a 32-bit
 * time_t such as bionic's on armeabi-v7a; "libc" = no system call, the plain libc functions.
 * scripts/lib/test-cross knows which: armv7 built with glibc's default 32-bit time_t takes the
 * system calls by sizeof(time_t), as bionic does; with -D_TIME_BITS=64 it must not; forced
 * (INACTIVITY_FORCE_TIME64_SYSCALLS, the --time64-syscalls library) it must.
 *
 * The helpers call libc's syscall(), and this program defines syscall() itself: the definition
 * in the executable comes first for this program's code and for the library's, so the tests
 * see every call and can answer it. Modes: PASS (count, then the real call), FAKE (answer
 * clock_gettime64 with 2040-06-01 and record timerfd_settime64's arguments: beyond 2^31
 * seconds, which this machine's clock cannot be set to), and an error number (the kernel or a
 * seccomp filter refusing the call). An LD_PRELOAD of clock_gettime (verify/cross/wall_2040.c)
 * does not see these calls, hence this program.
 * Readings are compared with libc's own clock_gettime read just before and after (exact
 * bounds: no sleeps); timers are real timerfds of CLOCK_BOOTTIME that must fire. */
#define _GNU_SOURCE 1
#include "inactivity_platform.h"
#if !defined(TIME64_UNIT_ONLY)
#include "inactivity.h"
#endif

#include <dlfcn.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NR_CLOCK_GETTIME64 403
#define NR_TIMERFD_SETTIME64 411
#define Y2040_S INT64_C(2222121600) /* 2040-06-01 00:00:00 UTC, past 2^31 s (2038-01-19) */

enum { PASS = 0, FAKE = -1 };
static int mode = PASS;   /* PASS, FAKE or an errno to fail 403 and 411 with */
static int calls_403, calls_411;
static struct {
    long fd, flags;
    struct inactivity_itimerspec64 spec;
    const void *old;
} last_411;

/* Declared by <unistd.h> (glibc: _GNU_SOURCE; bionic: always). */
long syscall(long number, ...) {
    long a[6];
    int i;
    va_list ap;
    long (*real)(long, ...);
    va_start(ap, number);
    for (i = 0; i < 6; i++) a[i] = va_arg(ap, long);   /* as libc's syscall reads them */
    va_end(ap);
    if (number == NR_CLOCK_GETTIME64 || number == NR_TIMERFD_SETTIME64) {
        __atomic_add_fetch(number == NR_CLOCK_GETTIME64 ? &calls_403 : &calls_411, 1, __ATOMIC_RELAXED);
        if (mode > 0) {
            errno = mode;
            return -1;
        }
        if (mode == FAKE && number == NR_CLOCK_GETTIME64) {
            struct inactivity_timespec64 *t = (struct inactivity_timespec64 *)a[1];
            t->tv_sec = Y2040_S + 7;
            t->tv_nsec = 999999999;
            return 0;
        }
        if (mode == FAKE) {
            last_411.fd = a[0];
            last_411.flags = a[1];
            memcpy(&last_411.spec, (const void *)a[2], sizeof last_411.spec);
            last_411.old = (const void *)a[3];
            return 0;
        }
    }
    *(void **)(&real) = dlsym(RTLD_NEXT, "syscall");
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static int failures;
#define CHECK(cond, ...)                                           \
    do {                                                           \
        if (!(cond)) {                                             \
            fprintf(stderr, "time64_syscalls:%d: FAILED %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                          \
            fputc('\n', stderr);                                   \
            failures++;                                            \
        }                                                          \
    } while (0)

/* libc's clock in ms, this program's own time_t (32 bits on armv7 by default: fine until 2038). */
static int64_t libc_ms(clockid_t clock) {
    struct timespec ts;
    if (clock_gettime(clock, &ts) != 0) return -1;
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int calls(void) { return __atomic_load_n(&calls_403, __ATOMIC_RELAXED) + __atomic_load_n(&calls_411, __ATOMIC_RELAXED); }

/* Whether `fd` becomes readable (its timer fired) within `timeout_ms`. */
static int fires(int fd, int timeout_ms) {
    struct pollfd p = {fd, POLLIN, 0};
    uint64_t count = 0;
    if (poll(&p, 1, timeout_ms) != 1) return 0;
    return read(fd, &count, sizeof count) == (ssize_t)sizeof count && count >= 1;
}

/* A clock read through the helper lies between libc's reads before and after it. */
static void check_reading(clockid_t clock, const char *name) {
    struct inactivity_timespec64 t = {0, 0};
    int64_t before = libc_ms(clock), ms, after;
    int rc = inactivity_clock_gettime64(clock, &t);
    after = libc_ms(clock);
    ms = inactivity_timespec64_ms(&t);
    CHECK(rc == 0 && t.tv_nsec >= 0 && t.tv_nsec < 1000000000, "%s: rc %d, nsec %lld", name, rc, (long long)t.tv_nsec);
    CHECK(before <= ms && ms <= after, "%s: %lld ms, libc read %lld..%lld", name, (long long)ms, (long long)before,
          (long long)after);
}

/* A BOOTTIME timerfd armed through the helper fires: at a past deadline at once, at one 30 ms
 * ahead within 5 s; disarmed, timerfd_gettime says so. */
static void check_timer_fires(const char *name) {
    int fd = timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    struct itimerspec now_spec;
    int64_t at;
    CHECK(fd >= 0, "%s: timerfd_create: %s", name, strerror(errno));
    if (fd < 0) return;
    CHECK(inactivity_timerfd_set_abs_ms(fd, 0) == 0, "%s: arm at 0", name);
    CHECK(fires(fd, 5000), "%s: a deadline at 0 ms (1 ns) did not fire", name);
    at = libc_ms(CLOCK_BOOTTIME) + 30;
    CHECK(inactivity_timerfd_set_abs_ms(fd, at) == 0, "%s: arm", name);
    CHECK(fires(fd, 5000) && libc_ms(CLOCK_BOOTTIME) >= at, "%s: a deadline 30 ms ahead did not fire on time", name);
    CHECK(inactivity_timerfd_set_abs_ms(fd, at + 60000) == 0 && inactivity_timerfd_set_abs_ms(fd, -1) == 0,
          "%s: arm, then disarm", name);
    CHECK(timerfd_gettime(fd, &now_spec) == 0 && now_spec.it_value.tv_sec == 0 && now_spec.it_value.tv_nsec == 0,
          "%s: not disarmed", name);
    CHECK(inactivity_timerfd_set_abs_ms(-1, 5) == EBADF, "%s: a bad descriptor's errno", name);
    close(fd);
}

static void reset_state(void) {
#if defined(INACTIVITY_HAS_TIME64_SYSCALLS)
    __atomic_store_n(inactivity_time64_state(), 0, __ATOMIC_RELAXED);
#endif
}

static int unit(int expect_syscalls) {
    int fd = timerfd_create(CLOCK_BOOTTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    struct inactivity_timespec64 t = {0, 0};
    int64_t before_ms;
    printf("unit: time_t %zu bytes, expecting %s\n", sizeof(time_t), expect_syscalls ? "the time64 system calls" : "libc");

    /* The real calls (qemu-user passes them to this kernel): libc's readings and timers. */
    mode = PASS;
    check_reading(CLOCK_REALTIME, "CLOCK_REALTIME");
    check_reading(CLOCK_BOOTTIME, "CLOCK_BOOTTIME");
    CHECK(calls_403 == (expect_syscalls ? 2 : 0), "%d clock_gettime64 calls for 2 reads", calls_403);
    check_timer_fires("real");
    CHECK(calls_411 == (expect_syscalls ? 5 : 0), "%d timerfd_settime64 calls for 5 settings", calls_411);
    CHECK(inactivity_clock_gettime64((clockid_t)12345, &t) == EINVAL, "an invalid clock's errno (the 3rd read)");
    before_ms = libc_ms(CLOCK_BOOTTIME);
    t.tv_sec = inactivity_monotonic_ms(CLOCK_BOOTTIME);   /* libc on every target: no system call */
    CHECK(before_ms <= t.tv_sec && t.tv_sec <= libc_ms(CLOCK_BOOTTIME) && calls_403 == (expect_syscalls ? 3 : 0),
          "inactivity_monotonic_ms: %lld ms, %d calls", (long long)t.tv_sec, calls_403);

    /* 64-bit seconds beyond 2^31 both ways (only the system calls carry them: libc's are
     * untouched by FAKE, and a 64-bit time_t reads this machine's clock). */
    mode = FAKE;
    calls_403 = calls_411 = 0;
    if (expect_syscalls) {
        CHECK(inactivity_wall_ms() == (Y2040_S + 7) * 1000 + 999, "2040 read as %lld ms", (long long)inactivity_wall_ms());
        CHECK(inactivity_timerfd_set_abs_ms(fd, (Y2040_S + 5) * 1000 + 123) == 0, "arm in 2040");
        CHECK(last_411.fd == fd && last_411.flags == TFD_TIMER_ABSTIME && last_411.old == NULL &&
                  last_411.spec.it_value.tv_sec == Y2040_S + 5 && last_411.spec.it_value.tv_nsec == 123000000 &&
                  last_411.spec.it_interval.tv_sec == 0 && last_411.spec.it_interval.tv_nsec == 0,
              "timerfd_settime64(%ld, %ld, {%lld.%09lld / %lld.%09lld})", last_411.fd, last_411.flags,
              (long long)last_411.spec.it_value.tv_sec, (long long)last_411.spec.it_value.tv_nsec,
              (long long)last_411.spec.it_interval.tv_sec, (long long)last_411.spec.it_interval.tv_nsec);
        CHECK(inactivity_timerfd_set_abs_ms(fd, INT64_MAX) == 0 &&
                  last_411.spec.it_value.tv_sec == INT64_MAX / 1000 && last_411.spec.it_value.tv_nsec == 807000000,
              "INT64_MAX ms as %lld s", (long long)last_411.spec.it_value.tv_sec);
        CHECK(inactivity_timerfd_set_abs_ms(fd, -1) == 0 && last_411.spec.it_value.tv_sec == 0 &&
                  last_411.spec.it_value.tv_nsec == 0, "disarm");
        CHECK(calls_403 == 1 && calls_411 == 3, "%d / %d calls", calls_403, calls_411);
    } else {
        int64_t ms;
        before_ms = libc_ms(CLOCK_REALTIME);
        ms = inactivity_wall_ms();
        CHECK(before_ms <= ms && ms <= libc_ms(CLOCK_REALTIME) && calls() == 0, "libc's wall clock, no system call");
    }

    /* A real error of the call is returned, and the system calls stay in use. */
    mode = EBADF;
    calls_403 = calls_411 = 0;
    if (expect_syscalls) {
        CHECK(inactivity_timerfd_set_abs_ms(fd, 1000) == EBADF && inactivity_clock_gettime64(CLOCK_REALTIME, &t) == EBADF,
              "EBADF passed on");
        mode = PASS;
        CHECK(inactivity_wall_ms() > 0 && calls_403 == 2 && calls_411 == 1, "still the system calls: %d / %d", calls_403,
              calls_411);
    }

    /* Missing (ENOSYS: a kernel before 5.1) or refused (EPERM: a seccomp filter): libc, from the
     * first refusal on, with the same readings and timers. */
    {
        static const int refusals[] = {ENOSYS, EPERM};
        size_t i;
        for (i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
            reset_state();
            mode = refusals[i];
            calls_403 = calls_411 = 0;
            check_reading(CLOCK_REALTIME, "fallback CLOCK_REALTIME");
            check_reading(CLOCK_REALTIME, "fallback CLOCK_REALTIME again");
            CHECK(calls_403 == (expect_syscalls ? 1 : 0), "errno %d: %d attempts for 2 reads", refusals[i], calls_403);
            reset_state();
            check_timer_fires("fallback");
            CHECK(calls_411 == (expect_syscalls ? 1 : 0), "errno %d: %d attempts for 5 settings", refusals[i], calls_411);
        }
    }
    /* The libc fallback with a 32-bit time_t: a deadline past 2038 clamps to the last second
     * of the time_t (BOOTTIME: 68 years of uptime) instead of wrapping into the past. */
    {
        struct itimerspec spec;
        CHECK(inactivity_timerfd_set_abs_ms(fd, (Y2040_S + 5) * 1000) == 0, "fallback: arm in 2040");
        CHECK(timerfd_gettime(fd, &spec) == 0 && (int64_t)spec.it_value.tv_sec > (INT64_C(1) << 30) && !fires(fd, 0),
              "fallback: a 2040 deadline has %lld s to go", (long long)spec.it_value.tv_sec);
    }
    close(fd);
    mode = PASS;
    reset_state();
    return failures;
}

#if !defined(TIME64_UNIT_ONLY) /* a CPU with no library (i686): the unit tests alone */
/* The library: its wall and monotonic readings, its scheduler thread's timer, 2040 through it,
 * and its fallback. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int locked_events;

static void on_event(const inact_event *event, void *user_data) {
    (void)user_data;
    if (event->kind != INACT_EVENT_STATE_CHANGED || event->state != INACT_STATE_LOCKED) return;
    pthread_mutex_lock(&lock);
    locked_events++;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* A THREAD engine locks 40 ms after it starts: the scheduler's timerfd fires (within 10 s). */
static int thread_engine_locks(void) {
    inact_config config;
    inact_policy policy;
    inact_engine engine = 0;
    struct timespec until;
    int got;
    if (inact_config_init(&config) != INACT_OK || inact_policy_init(&policy) != INACT_OK) return 0;
    policy.idle_timeout_ms = 40;
    policy.warning_ms = 0;
    pthread_mutex_lock(&lock);
    locked_events = 0;
    pthread_mutex_unlock(&lock);
    if (inact_engine_create(&config, &policy, on_event, NULL, NULL, &engine) != INACT_OK) {
        fprintf(stderr, "time64_syscalls: inact_engine_create: %s\n", inact_last_error());
        return 0;
    }
    if (inact_start(engine) != INACT_OK) return 0;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    pthread_mutex_lock(&lock);
    while (locked_events == 0 && pthread_cond_timedwait(&changed, &lock, &until) == 0) {}
    got = locked_events;
    pthread_mutex_unlock(&lock);
    inact_destroy(engine);
    return got > 0;
}

static void check_engine_clock(inact_engine engine, const char *name) {
    int64_t wall_before = libc_ms(CLOCK_REALTIME), mono_before = libc_ms(CLOCK_BOOTTIME), mono = -1, wall = -1;
    int32_t rc = inact_clock_now(engine, &mono, &wall, NULL);
    CHECK(rc == INACT_OK && wall_before <= wall && wall <= libc_ms(CLOCK_REALTIME), "%s: wall %lld ms, libc %lld..",
          name, (long long)wall, (long long)wall_before);
    CHECK(mono_before <= mono && mono <= libc_ms(CLOCK_BOOTTIME), "%s: monotonic %lld ms, libc %lld..", name,
          (long long)mono, (long long)mono_before);
}

static int library(int expect_syscalls) {
    inact_config config;
    inact_policy policy;
    inact_engine engine = 0;
    int64_t wall = 0;
    int attempts;
    printf("library: expecting %s\n", expect_syscalls ? "the time64 system calls" : "libc");
    if (inact_config_init(&config) != INACT_OK || inact_policy_init(&policy) != INACT_OK) return 1;
    config.delivery = INACT_DELIVERY_HOST;
    if (inact_engine_create(&config, &policy, NULL, NULL, NULL, &engine) != INACT_OK) {
        fprintf(stderr, "time64_syscalls: inact_engine_create: %s\n", inact_last_error());
        return 1;
    }
    mode = PASS;
    calls_403 = calls_411 = 0;
    check_engine_clock(engine, "real");
    CHECK(expect_syscalls ? calls_403 >= 1 : calls_403 == 0, "the library made %d clock_gettime64 calls", calls_403);
    CHECK(thread_engine_locks(), "a THREAD engine did not lock on its timer");
    CHECK(expect_syscalls ? calls_411 >= 1 : calls_411 == 0, "the library made %d timerfd_settime64 calls", calls_411);

    mode = FAKE;
    {
        int64_t before = libc_ms(CLOCK_REALTIME);
        CHECK(inact_clock_now(engine, NULL, &wall, NULL) == INACT_OK &&
                  (expect_syscalls ? wall == (Y2040_S + 7) * 1000 + 999 : before <= wall && wall <= libc_ms(CLOCK_REALTIME)),
              "the library read %lld ms with the 2040 answer in place", (long long)wall);
    }

    /* Refused: the library falls back to libc at once and for good. */
    mode = ENOSYS;
    calls_403 = calls_411 = 0;
    check_engine_clock(engine, "fallback");
    attempts = calls_403;
    check_engine_clock(engine, "fallback again");
    CHECK(calls_403 == attempts && attempts == (expect_syscalls ? 1 : 0), "%d then %d attempts", attempts, calls_403);
    CHECK(thread_engine_locks(), "after the fallback, a THREAD engine did not lock on its timer");
    CHECK(calls_411 == 0, "%d timerfd_settime64 attempts after the fallback", calls_411);
    inact_destroy(engine);
    mode = PASS;
    return failures;
}
#endif

int main(int argc, char **argv) {
    int expect, rc;
    if (argc != 3 || (strcmp(argv[2], "syscalls") != 0 && strcmp(argv[2], "libc") != 0) ||
        (strcmp(argv[1], "unit") != 0 && strcmp(argv[1], "library") != 0)) {
        fprintf(stderr, "usage: time64_syscalls unit|library syscalls|libc\n");
        return 2;
    }
    expect = strcmp(argv[2], "syscalls") == 0;
#if defined(TIME64_UNIT_ONLY)
    if (strcmp(argv[1], "unit") != 0) {
        fprintf(stderr, "time64_syscalls: built with TIME64_UNIT_ONLY (no library)\n");
        return 2;
    }
    rc = unit(expect);
#else
    rc = strcmp(argv[1], "unit") == 0 ? unit(expect) : library(expect);
#endif
    printf("%s %s: %s (%d failed checks)\n", argv[1], argv[2], rc ? "FAILED" : "ok", failures);
    return rc ? 1 : 0;
}
