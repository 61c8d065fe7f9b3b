/*
 * fault_preload.c -- libinact_faults.so, an LD_PRELOAD interposer for the platform-fault
 * tests (test_platform_faults.c). It stands in front of the libc functions the scheduler
 * thread needs (pthread_create, timerfd_create, timerfd_settime and on 32-bit glibc its 64-bit
 * time twin, on 32-bit ARM and x86 the timerfd_settime64 system call, eventfd) and passes every
 * call through to libc, except the ones a test asked to fail:
 *
 *   inact_test_fault_set("pthread_create", skip, count, EAGAIN)
 *
 * lets `skip` calls through, then fails the next `count` calls (-1: all of them) the way
 * that function fails (an error number returned, or -1 with errno). Only the test processes
 * that run with this library preloaded have the symbol; the suite finds it with dlsym.
 *
 * The bindings' fault tests (bindings/python, bindings/kotlin-jni) run an interpreter or a JVM
 * under it, which have no C code to call the setter before the engine needs its thread, and
 * whose runtimes start threads of their own. Two environment variables serve them:
 *
 *   INACT_TEST_FAULTS="pthread_create:0:1:11,timerfd_settime:1:-1:22"
 *       the faults to set at load, as the setter's arguments (name:skip:count:errno)
 *   INACT_TEST_FAULTS_FROM="libinactivity.so"
 *       only calls made from a loaded object whose path contains this text are faulted or
 *       counted as skipped (the JVM's own pthread_create calls pass through untouched)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

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
static const char *only_from; /* INACT_TEST_FAULTS_FROM, or NULL: every caller */

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

/* INACT_TEST_FAULTS and INACT_TEST_FAULTS_FROM, read once when the library is loaded. A
 * malformed INACT_TEST_FAULTS ends the process: a test that meant a fault must not run without. */
__attribute__((constructor)) static void faults_from_environment(void) {
    const char *spec = getenv("INACT_TEST_FAULTS");
    char name[32];
    int skip, count, error, used;
    only_from = getenv("INACT_TEST_FAULTS_FROM");
    if (only_from != NULL && only_from[0] == '\0') only_from = NULL;
    while (spec != NULL && *spec != '\0') {
        if (sscanf(spec, "%31[a-z_]:%d:%d:%d%n", name, &skip, &count, &error, &used) != 4 ||
            inact_test_fault_set(name, skip, count, error) != 0) {
            fprintf(stderr, "libinact_faults.so: bad INACT_TEST_FAULTS at \"%s\"\n", spec);
            _exit(125);
        }
        spec += used;
        if (*spec == ',') spec++;
    }
}

/* Whether the call returning to `caller` comes from the object INACT_TEST_FAULTS_FROM names. */
static int from_chosen_caller(void *caller) {
    Dl_info object;
    if (only_from == NULL) return 1;
    return dladdr(caller, &object) != 0 && object.dli_fname != NULL &&
           strstr(object.dli_fname, only_from) != NULL;
}

/* The error number this call (returning to `caller`) must fail with, or 0 to pass it through. */
static int injected(int which, void *caller) {
    int error = 0;
    fault *f = &faults[which];
    if (!from_chosen_caller(caller)) return 0;
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
    int error = injected(PTHREAD_CREATE, __builtin_return_address(0));
    if (error) return error;
    {
        NEXT(real_t, "pthread_create", real);
        return real(thread, attributes, start, argument);
    }
}

int timerfd_create(int clock, int flags) {
    typedef int (*real_t)(int, int);
    int error = injected(TIMERFD_CREATE, __builtin_return_address(0));
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
    int error = injected(TIMERFD_SETTIME, __builtin_return_address(0));
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
    int error = injected(TIMERFD_SETTIME, __builtin_return_address(0));
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
        int error = injected(TIMERFD_SETTIME, __builtin_return_address(0));
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
    int error = injected(EVENTFD, __builtin_return_address(0));
    if (error) {
        errno = error;
        return -1;
    }
    {
        NEXT(real_t, "eventfd", real);
        return real(initial, flags);
    }
}
