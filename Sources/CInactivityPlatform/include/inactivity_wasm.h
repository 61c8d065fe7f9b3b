/* The WebAssembly platform (wasm32, scripts/build-wasm), included by inactivity_platform.h and
 * by nothing else. Every wasm-only line of the engine is here or names this file.
 *
 * wasm32 (wasi-libc without threads) has no pthreads, no mmap and no clock that counts deep
 * sleep, so this file gives the core the same C names it uses everywhere:
 * - the pthread subset the core calls, for ONE thread: a mutex is a lock count (a lock the
 *   thread already holds is a bug the count makes visible: it traps), a condition variable is
 *   never waited on (a wait could never end: it traps), and pthread_create fails with ENOTSUP,
 *   which makes a THREAD engine on the SYSTEM clock fail to create (INACT_E_SYSTEM) while HOST
 *   delivery (inact_next_deadline / inact_poll) and manual clocks need no thread;
 * - thread-specific values as a small table of keys (wasm_host.c);
 * - zeroed memory from calloc (no mmap);
 * - the two host clocks, imported from JavaScript (module "inactivity_host"): `monotonic_ms`
 *   (performance.timeOrigin + performance.now(): may stop while the machine sleeps) and
 *   `wall_ms` (Date.now(): the user can set it). The rule that makes one clock of the two
 *   (time only the wall clock saw counts; a wall clock set back counts nothing) is Swift, in the
 *   core: WebClock in Sources/InactivityCore/Clock.swift, so JavaScript only reads clocks.
 * A trap is a WebAssembly RuntimeError in the host, never a crash of it. */
#ifndef INACTIVITY_WASM_H
#define INACTIVITY_WASM_H
/* SwiftPM's module for this target takes every header of include/: empty but on wasm. */
#if defined(__wasm__)
#include <stdint.h>
#include <stdlib.h>

/* ---- Names Swift cannot import from wasi-libc's headers -----------------------------------
 * wasi-libc spells these as expressions (an address, a UINT16_C cast) that the Swift importer
 * skips; the core names them in code that never runs here (the scheduler thread's wait). */
#include <errno.h>
#include <time.h>
_Static_assert(__WASI_ERRNO_TIMEDOUT == 73, "wasi's ETIMEDOUT");
#undef ETIMEDOUT
#define ETIMEDOUT 73
#undef CLOCK_MONOTONIC
static const clockid_t CLOCK_MONOTONIC = &_CLOCK_MONOTONIC;

/* ---- Host clocks -------------------------------------------------------------------------- */
__attribute__((import_module("inactivity_host"), import_name("monotonic_ms")))
double inactivity_host_monotonic_ms_import(void);
__attribute__((import_module("inactivity_host"), import_name("wall_ms")))
double inactivity_host_wall_ms_import(void);

/* A host reading in whole ms (floor), clamped into int64_t; NaN (a host that returned
 * garbage) reads 0, which the core's clock rule never lets move time back. */
static inline int64_t inactivity_host_ms_(double ms) {
    if (!(ms == ms)) return 0;
    if (ms <= -9.2e18) return INT64_MIN;
    if (ms >= 9.2e18) return INT64_MAX;
    int64_t v = (int64_t)ms;
    return ((double)v > ms) ? v - 1 : v;
}
static inline int64_t inactivity_host_monotonic_ms(void) {
    return inactivity_host_ms_(inactivity_host_monotonic_ms_import());
}
static inline int64_t inactivity_host_wall_ms(void) {
    return inactivity_host_ms_(inactivity_host_wall_ms_import());
}
/* The wall clock as the other platforms' helper names it (snapshots). */
static inline int64_t inactivity_wall_ms(void) { return inactivity_host_wall_ms(); }

/* ---- Files and memory --------------------------------------------------------------------- */
/* No file system: the boot id falls back to its hash of the boot instant (Clock.swift). */
static inline int inactivity_open_read_only(const char *path) {
    (void)path;
    errno = ENOENT;
    return -1;
}
static inline void *inactivity_map_zeroed(size_t bytes) { return calloc(1, bytes); }

/* ---- One thread --------------------------------------------------------------------------- */
typedef struct { int32_t locked; } pthread_mutex_t;
typedef struct { int32_t unused; } pthread_mutexattr_t;
typedef struct { int32_t unused; } pthread_cond_t;
typedef struct { int32_t unused; } pthread_condattr_t;
typedef struct { int32_t detached; } pthread_attr_t;
typedef uintptr_t pthread_t;
typedef int32_t pthread_once_t;
typedef uint32_t pthread_key_t;
#define PTHREAD_ONCE_INIT 0
#define PTHREAD_CREATE_DETACHED 1

static inline int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a) {
    (void)a;
    m->locked = 0;
    return 0;
}
static inline int pthread_mutex_destroy(pthread_mutex_t *m) { (void)m; return 0; }
static inline int pthread_mutex_lock(pthread_mutex_t *m) {
    if (m->locked) __builtin_trap(); /* the one thread would wait for itself forever */
    m->locked = 1;
    return 0;
}
static inline int pthread_mutex_unlock(pthread_mutex_t *m) {
    m->locked = 0;
    return 0;
}
static inline int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a) {
    (void)c;
    (void)a;
    return 0;
}
static inline int pthread_cond_destroy(pthread_cond_t *c) { (void)c; return 0; }
static inline int pthread_cond_signal(pthread_cond_t *c) { (void)c; return 0; }
static inline int pthread_cond_broadcast(pthread_cond_t *c) { (void)c; return 0; }
/* No other thread can ever signal. */
static inline int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
    (void)c;
    (void)m;
    __builtin_trap();
}
static inline int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t) {
    (void)c;
    (void)m;
    (void)t;
    __builtin_trap();
}
static inline int pthread_condattr_init(pthread_condattr_t *a) { (void)a; return 0; }
static inline int pthread_condattr_destroy(pthread_condattr_t *a) { (void)a; return 0; }
static inline int pthread_condattr_setclock(pthread_condattr_t *a, clockid_t c) {
    (void)a;
    (void)c;
    return 0;
}
static inline int pthread_attr_init(pthread_attr_t *a) { a->detached = 0; return 0; }
static inline int pthread_attr_destroy(pthread_attr_t *a) { (void)a; return 0; }
static inline int pthread_attr_setdetachstate(pthread_attr_t *a, int s) { a->detached = s; return 0; }
/* The engine asks for a thread only for THREAD delivery on the SYSTEM clock (the scheduler):
 * refused, so inact_engine_create fails with INACT_E_SYSTEM and its message names the rule
 * (inactivity_no_threads_reason below). */
static inline int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg) {
    (void)t;
    (void)a;
    (void)f;
    (void)arg;
    return ENOTSUP;
}
static inline pthread_t pthread_self(void) { return 1; }
static inline int pthread_equal(pthread_t a, pthread_t b) { return a == b; }
/* One thread: nothing to yield to. A spin-wait on other threads' readers (the registry's
 * release) finds none here, so it never spins. */
static inline int sched_yield(void) { return 0; }
/* No fork on the web. */
static inline int pthread_atfork(void (*p)(void), void (*pa)(void), void (*c)(void)) {
    (void)p;
    (void)pa;
    (void)c;
    return 0;
}
static inline int pthread_once(pthread_once_t *o, void (*f)(void)) {
    if (*o == 0) {
        *o = 1;
        f();
    }
    return 0;
}
/* Thread-specific values for the one thread: a small table of keys in wasm_host.c (the
 * last-error buffer and the engine's delivery run each make one). Destructors never run: the
 * one thread never exits while the module lives. */
int inactivity_wasm_key_create(pthread_key_t *key);
void *inactivity_wasm_getspecific(pthread_key_t key);
int inactivity_wasm_setspecific(pthread_key_t key, const void *value);
static inline int pthread_key_create(pthread_key_t *k, void (*destructor)(void *)) {
    (void)destructor;
    return inactivity_wasm_key_create(k);
}
static inline void *pthread_getspecific(pthread_key_t k) { return inactivity_wasm_getspecific(k); }
static inline int pthread_setspecific(pthread_key_t k, const void *v) { return inactivity_wasm_setspecific(k, v); }
#endif /* __wasm__ */
#endif
