/*
 * fault_preload.c -- libinact_faults.so, an LD_PRELOAD interposer for the platform-fault
 * tests (test_platform_faults.c). It stands in front of the libc functions the scheduler
 * thread needs (pthread_create, timerfd_create, timerfd_settime and on 32-bit glibc its 64-bit
 * time twin and the timerfd_settime64 system call, eventfd) and passes every call through to libc, except the ones a test asked to
 * fail:
 *
 *   inact_test_fault_set("pthread_create", skip, count, EAGAIN)
 *
 * lets `skip` calls through, then fails the next `count` calls (-1: all of them) the way
 * that function fails (an error number returned, or -1 with errno). Only the test processes
 * that run with this library preloaded have the symbol; the suite finds it with dlsym.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

typedef struct fault {
    const char *name;
    int skip;
    int count;
    int error;
} fault;

enum { PTHREAD_CREATE, TIMERFD_CREATE, TIMERFD_SETTIME, EVENTFD, FAULTS };
static fault faults[FAULTS] = {
    {"pthread_create", 0, 0, 0},
    {"timerfd_create", 0, 0, 0},
    {"timerfd_settime", 0, 0, 0},
    {"eventfd", 0, 0, 0},
};
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

int inact_test_fault_set(const char *function, int skip, int count, int error);
int inact_test_fault_set(const char *function, int skip, int count, int error) {
    int i;
    for (i = 0; i < FAULTS; i++)
        if (strcmp(faults[i].name, function) == 0) {
            pthread_mutex_lock(&mutex);
            faults[i].skip = skip;
            faults[i].count = count;
            faults[i].error = error;
            pthread_mutex_unlock(&mutex);
            return 0;
        }
    return -1;
}

/* The error number this call must fail with, or 0 to pass it through. */
static int injected(int which) {
    int error = 0;
    fault *f = &faults[which];
    pthread_mutex_lock(&mutex);
    if (f->count != 0) {
        if (f->skip > 0) {
            f->skip--;
        } else {
            error = f->error;
            if (f->count > 0) f->count--;
        }
    }
    pthread_mutex_unlock(&mutex);
    return error;
}

/* libc's own `name`, as a `type` (the object-to-function pointer cast ISO C leaves open). */
#define NEXT(type, name, real)                         \
    type real;                                         \
    *(void **)(&real) = dlsym(RTLD_NEXT, name)

int pthread_create(pthread_t *thread, const pthread_attr_t *attributes,
                   void *(*start)(void *), void *argument) {
    typedef int (*real_t)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    int error = injected(PTHREAD_CREATE);
    if (error) return error;
    {
        NEXT(real_t, "pthread_create", real);
        return real(thread, attributes, start, argument);
    }
}

int timerfd_create(int clock, int flags) {
    typedef int (*real_t)(int, int);
    int error = injected(TIMERFD_CREATE);
    if (error) {
        errno = error;
        return -1;
    }
    {
        NEXT(real_t, "timerfd_create", real);
        return real(clock, flags);
    }
}

int timerfd_settime(int fd, int flags, const struct itimerspec *value, struct itimerspec *old) {
    typedef int (*real_t)(int, int, const struct itimerspec *, struct itimerspec *);
    int error = injected(TIMERFD_SETTIME);
    if (error) {
        errno = error;
        return -1;
    }
    {
        NEXT(real_t, "timerfd_settime", real);
        return real(fd, flags, value, old);
    }
}

#if __SIZEOF_LONG__ == 4 && defined(__GLIBC__) && !defined(__USE_TIME_BITS64)
/* 32-bit glibc: a library built with 64-bit time_t (scripts/build-embedded on armv7) calls the
 * 64-bit-time twin instead; the same fault applies to both. Its struct itimerspec64 is opaque
 * here: it is only passed on. (This file is compiled with the default 32-bit time_t: with
 * -D_TIME_BITS=64 glibc's header would rename the timerfd_settime above to this one.) */
int __timerfd_settime64(int fd, int flags, const void *value, void *old);
int __timerfd_settime64(int fd, int flags, const void *value, void *old) {
    typedef int (*real_t)(int, int, const void *, void *);
    int error = injected(TIMERFD_SETTIME);
    if (error) {
        errno = error;
        return -1;
    }
    {
        NEXT(real_t, "__timerfd_settime64", real);
        return real(fd, flags, value, old);
    }
}
#endif

#if defined(__linux__) && (defined(__arm__) || defined(__i386__))
/* 32-bit ARM and x86: a library whose time helpers take the kernel's 64-bit-time system calls
 * (a 32-bit time_t, or scripts/build-embedded --time64-syscalls) sets its timer with
 * syscall(411) (timerfd_settime64, inactivity_platform.h): the same fault applies. */
long syscall(long number, ...) {
    typedef long (*real_t)(long, ...);
    long a[6];
    int i;
    va_list ap;
    va_start(ap, number);
    for (i = 0; i < 6; i++) a[i] = va_arg(ap, long); /* as libc's syscall reads them */
    va_end(ap);
    if (number == 411) {
        int error = injected(TIMERFD_SETTIME);
        if (error) {
            errno = error;
            return -1;
        }
    }
    {
        NEXT(real_t, "syscall", real);
        return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    }
}
#endif

int eventfd(unsigned int initial, int flags) {
    typedef int (*real_t)(unsigned int, int);
    int error = injected(EVENTFD);
    if (error) {
        errno = error;
        return -1;
    }
    {
        NEXT(real_t, "eventfd", real);
        return real(initial, flags);
    }
}
