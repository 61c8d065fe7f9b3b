/*
 * inactivity.h (verify/compat/canary) -- put in front of a release's header on the include path
 * (-I verify/compat/canary -I verify/compat/<release>/include, -DCANARY_RELEASE_HEADER='"<path of the
 * release's inactivity.h>"'), so that every file of the release's C suite that includes
 * "inactivity.h" gets this one, which includes the release's header unchanged and then
 * routes the calls below through wrappers: every struct and buffer the suite passes to the
 * library lives in padded storage.
 *
 * Each call below goes through a wrapper (canary.c) that copies the caller's struct into a
 * heap block of exactly the caller's size followed by CANARY_GUARD guard bytes, calls the
 * library on that block, checks the guard bytes, and copies the caller's bytes back. A
 * library that writes past the struct the program declared (1.1's inact_policy_init writing
 * its 120-byte layout into a 1.0 program's 80-byte policy) changes guard bytes, and the test
 * fails there, with the file and line of the call, the function, the struct's size and the
 * bytes written past it (harness_fail) -- instead of silently corrupting the caller's stack
 * or heap. A library that writes into a struct or buffer it takes as const fails the same way.
 *
 * The caller's size: sizeof(T) of the release's header for the structs the library fills
 * without reading (inact_policy_init, inact_policy_preset, inact_config_init), the `size`
 * field when larger (a program may pass a bigger struct whose tail is zero), the capacity for
 * a snapshot buffer, the length for restored bytes. Sizes above CANARY_MAX_COPY are passed
 * through unwrapped (no 1.0 test uses one).
 *
 * The macros rename calls only (a function-like macro is not expanded in a declaration that
 * the release's header has already made, nor where a function's address is taken).
 */
#ifndef INACT_COMPAT_CANARY_H
#define INACT_COMPAT_CANARY_H

#ifndef CANARY_RELEASE_HEADER
#error "build with -DCANARY_RELEASE_HEADER='\"path/to/the/release/inactivity.h\"'"
#endif
#include CANARY_RELEASE_HEADER

#include <stddef.h>
#include <stdint.h>

#define CANARY_GUARD 256
#define CANARY_MAX_COPY 4096

int32_t canary_policy_init(inact_policy *policy, const char *file, int line);
int32_t canary_policy_preset(inact_policy *policy, int32_t preset, const char *file, int line);
int32_t canary_policy_validate(const inact_policy *policy, const char *file, int line);
int32_t canary_config_init(inact_config *config, const char *file, int line);
int32_t canary_engine_create(const inact_config *config, const inact_policy *policy,
                             inact_callback callback, void *user_data,
                             inact_user_data_free free_user_data, inact_engine *out_engine,
                             const char *file, int line);
int32_t canary_set_policy(inact_engine engine, const inact_policy *policy, const char *file,
                          int line);
int32_t canary_get_info(inact_engine engine, inact_info *info, const char *file, int line);
int32_t canary_get_policy(inact_engine engine, inact_policy *policy, const char *file, int line);
int32_t canary_restore(inact_engine engine, const uint8_t *bytes, size_t length, const char *file,
                       int line);
int32_t canary_snapshot_write(inact_engine engine, uint8_t *buffer, size_t capacity,
                              size_t *out_written, const char *file, int line);

#ifndef INACT_COMPAT_CANARY_IMPL
#define inact_policy_init(p) canary_policy_init((p), __FILE__, __LINE__)
#define inact_policy_preset(p, preset) canary_policy_preset((p), (preset), __FILE__, __LINE__)
#define inact_policy_validate(p) canary_policy_validate((p), __FILE__, __LINE__)
#define inact_config_init(c) canary_config_init((c), __FILE__, __LINE__)
#define inact_engine_create(c, p, cb, ud, fr, out) \
    canary_engine_create((c), (p), (cb), (ud), (fr), (out), __FILE__, __LINE__)
#define inact_set_policy(e, p) canary_set_policy((e), (p), __FILE__, __LINE__)
#define inact_get_info(e, i) canary_get_info((e), (i), __FILE__, __LINE__)
#define inact_get_policy(e, p) canary_get_policy((e), (p), __FILE__, __LINE__)
#define inact_restore(e, b, n) canary_restore((e), (b), (n), __FILE__, __LINE__)
#define inact_snapshot_write(e, b, c, w) canary_snapshot_write((e), (b), (c), (w), __FILE__, __LINE__)
#endif

#endif /* INACT_COMPAT_CANARY_H */
