/*
 * alloc_profile.c -- where an engine's bytes go. Interposes malloc & co. (the executable's
 * definitions win over libc's for the whole process, the Swift runtime included), creates a
 * few warm-up engines, then traces every allocation made by inact_engine_create and
 * inact_start of one more engine (HOST delivery, SYSTEM clock, no callback: the memory bench's
 * configuration). Each allocation is printed with its size, malloc's usable size and the first
 * frames of its call stack; pipe through `swift demangle` to read the Swift frames.
 *
 * Usage: alloc_profile [frames=6] 2>&1 | swift demangle --simplified
 */
#include "bench_common.h"

#include <execinfo.h>
#include <malloc.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static int tracing, in_trace, frames = 6;
static size_t traced_count, traced_bytes, freed_count;
/* Every traced block, so that the ones still alive at the end can be named. */
static void *traced_ptr[256];
static int traced_live[256], traced_n;

static void trace(const char *what, void *p, size_t size) {
    if (!tracing || in_trace || !p) return;
    in_trace = 1;
    traced_count++;
    traced_bytes += malloc_usable_size(p);
    if (traced_n < 256) {
        traced_ptr[traced_n] = p;
        traced_live[traced_n++] = 1;
    }
    fprintf(stderr, "#%-3d %-8s %6zu bytes (usable %zu)\n", traced_n, what, size, malloc_usable_size(p));
    void *stack[32];
    int n = backtrace(stack, frames + 2);
    backtrace_symbols_fd(stack + 2, n - 2, 2);
    in_trace = 0;
}

void *malloc(size_t size) {
    void *p = __libc_malloc(size);
    trace("malloc", p, size);
    return p;
}
void *calloc(size_t n, size_t size) {
    void *p = __libc_calloc(n, size);
    trace("calloc", p, n * size);
    return p;
}
void *realloc(void *old, size_t size) {
    void *p = __libc_realloc(old, size);
    trace("realloc", p, size);
    return p;
}
void *aligned_alloc(size_t alignment, size_t size) {
    void *p = __libc_memalign(alignment, size);
    trace("aligned", p, size);
    return p;
}
void *memalign(size_t alignment, size_t size) {
    void *p = __libc_memalign(alignment, size);
    trace("memalign", p, size);
    return p;
}
int posix_memalign(void **out, size_t alignment, size_t size) {
    void *p = __libc_memalign(alignment, size);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    trace("posix_ma", p, size);
    return 0;
}
void free(void *p) {
    if (p && !in_trace) {
        if (tracing) freed_count++;
        for (int i = 0; i < traced_n; i++)
            if (traced_ptr[i] == p && traced_live[i]) traced_live[i] = 0;
    }
    __libc_free(p);
}

static void print_live(void) {
    size_t bytes = 0;
    fprintf(stderr, "==== traced blocks still allocated while the engine lives:");
    for (int i = 0; i < traced_n; i++)
        if (traced_live[i]) {
            fprintf(stderr, " #%d (%zu)", i + 1, malloc_usable_size(traced_ptr[i]));
            bytes += malloc_usable_size(traced_ptr[i]) + 8; /* + the malloc chunk header */
        }
    fprintf(stderr, "\n==== = %zu bytes with malloc's 8-byte chunk headers\n", bytes);
}

int main(int argc, char **argv) {
    if (argc > 1) frames = atoi(argv[1]);
    { /* backtrace() loads libgcc on first use: do it before tracing */
        void *s[4];
        backtrace(s, 4);
    }
    inact_config config;
    CHECK_OK(inact_config_init(&config));
    config.delivery = INACT_DELIVERY_HOST;
    inact_policy policy;
    CHECK_OK(inact_policy_init(&policy));
    inact_engine e[3000];
    /* Past the first registry chunk (1024 slots) and array growth steps, so that what is
     * traced is the steady-state cost of one more engine. */
    for (int i = 0; i < 3000; i++) {
        CHECK_OK(inact_engine_create(&config, &policy, NULL, NULL, NULL, &e[i]));
        CHECK_OK(inact_start(e[i]));
    }
    inact_engine traced;
    fprintf(stderr, "==== inact_engine_create\n");
    tracing = 1;
    CHECK_OK(inact_engine_create(&config, &policy, NULL, NULL, NULL, &traced));
    tracing = 0;
    fprintf(stderr, "==== create: %zu allocations, %zu usable bytes, %zu frees\n", traced_count, traced_bytes,
            freed_count);
    size_t c_count = traced_count, c_bytes = traced_bytes, c_freed = freed_count;
    fprintf(stderr, "==== inact_start\n");
    tracing = 1;
    CHECK_OK(inact_start(traced));
    tracing = 0;
    fprintf(stderr, "==== start: %zu allocations, %zu usable bytes, %zu frees\n", traced_count - c_count,
            traced_bytes - c_bytes, freed_count - c_freed);
    print_live();
    fprintf(stderr, "(plus, per engine, the registry's share: one ActivityGate in a 1024-slot chunk and one\n"
                    " entry in its table array, which grows by doubling; those are not traced here)\n");
    CHECK_OK(inact_destroy(traced));
    for (int i = 0; i < 3000; i++) CHECK_OK(inact_destroy(e[i]));
    return 0;
}
