/* The C library as the Swift core sees it. Every libc declaration the core and the shims use
 * comes through this one header, in both builds: the normal build (where these headers belong
 * to the toolchain's Glibc/Darwin modules) and the Embedded Swift build of the C library, which
 * has no Glibc overlay. The only code here is static inline wrappers for what Swift cannot
 * call: a variadic function and the errno macro. */
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
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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

/* errno is a macro (a thread-local lvalue); the Glibc overlay's `errno` is not in every build. */
static inline int inactivity_errno(void) { return errno; }
#endif
