/*
 * canary.c -- the wrappers of verify/compat/canary/inactivity.h: every struct or buffer a release's C suite passes to
 * the library is copied into a heap block of the caller's size plus CANARY_GUARD guard bytes;
 * after the call the guard bytes must be intact (and a const input unchanged), else the test
 * fails at the call site (harness_fail, the release's own harness).
 */
#define INACT_COMPAT_CANARY_IMPL
#include "inactivity.h" /* verify/compat/canary's: the release's header and the wrappers */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The release's harness (Tests/CTests/harness.c): records a failed check and goes on. */
void harness_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Not a constant fill: a library that writes one repeated byte still changes most of it. */
static uint8_t guard_byte(size_t i) { return (uint8_t)(0xA5u ^ (i * 29u)); }

typedef struct padded {
    uint8_t *block; /* size bytes of the caller's, then CANARY_GUARD guard bytes */
    size_t size;
} padded;

static padded pad(const void *bytes, size_t size) {
    padded p;
    size_t i;
    p.size = size;
    p.block = malloc(size + CANARY_GUARD);
    if (p.block == NULL) {
        perror("canary: malloc");
        abort();
    }
    memcpy(p.block, bytes, size);
    for (i = 0; i < CANARY_GUARD; i++) p.block[size + i] = guard_byte(i);
    return p;
}

/* Checks the guard bytes (and, for a const input, that nothing changed); copies the caller's
 * bytes back into `back` unless it is NULL; frees the block. */
static void unpad(padded p, void *back, const void *original, const char *what, const char *file,
                  int line) {
    size_t i, first = CANARY_GUARD, last = 0;
    for (i = 0; i < CANARY_GUARD; i++) {
        if (p.block[p.size + i] != guard_byte(i)) {
            if (first == CANARY_GUARD) first = i;
            last = i;
        }
    }
    if (first != CANARY_GUARD)
        harness_fail(file, line,
                     "canary: %s wrote past the caller's %zu bytes (guard bytes %zu..%zu after "
                     "the struct changed)",
                     what, p.size, first, last);
    if (original != NULL && memcmp(p.block, original, p.size) != 0)
        harness_fail(file, line, "canary: %s wrote into its const %zu-byte input", what, p.size);
    if (back != NULL) memcpy(back, p.block, p.size);
    free(p.block);
}

/* The size a caller declares for a struct it fills itself: its `size` field when that is
 * larger than the release's sizeof (a bigger struct with a zero tail), else sizeof. */
static size_t declared(const void *s, size_t release_size) {
    uint32_t size;
    memcpy(&size, s, sizeof size);
    return size > release_size && size <= CANARY_MAX_COPY ? size : release_size;
}

int32_t canary_policy_init(inact_policy *policy, const char *file, int line) {
    padded p;
    int32_t status;
    if (policy == NULL) return inact_policy_init(NULL);
    p = pad(policy, sizeof *policy); /* uninitialised input: the library must not read it */
    status = inact_policy_init((inact_policy *)(void *)p.block);
    unpad(p, policy, NULL, "inact_policy_init", file, line);
    return status;
}

int32_t canary_policy_preset(inact_policy *policy, int32_t preset, const char *file, int line) {
    padded p;
    int32_t status;
    if (policy == NULL) return inact_policy_preset(NULL, preset);
    p = pad(policy, sizeof *policy);
    status = inact_policy_preset((inact_policy *)(void *)p.block, preset);
    unpad(p, policy, NULL, "inact_policy_preset", file, line);
    return status;
}

int32_t canary_policy_validate(const inact_policy *policy, const char *file, int line) {
    padded p;
    int32_t status;
    if (policy == NULL) return inact_policy_validate(NULL);
    p = pad(policy, declared(policy, sizeof *policy));
    status = inact_policy_validate((const inact_policy *)(void *)p.block);
    unpad(p, NULL, policy, "inact_policy_validate", file, line);
    return status;
}

int32_t canary_config_init(inact_config *config, const char *file, int line) {
    padded p;
    int32_t status;
    if (config == NULL) return inact_config_init(NULL);
    p = pad(config, sizeof *config);
    status = inact_config_init((inact_config *)(void *)p.block);
    unpad(p, config, NULL, "inact_config_init", file, line);
    return status;
}

int32_t canary_engine_create(const inact_config *config, const inact_policy *policy,
                             inact_callback callback, void *user_data,
                             inact_user_data_free free_user_data, inact_engine *out_engine,
                             const char *file, int line) {
    padded c = {NULL, 0}, p = {NULL, 0}, o = {NULL, 0};
    int32_t status;
    if (config != NULL) c = pad(config, declared(config, sizeof *config));
    if (policy != NULL) p = pad(policy, declared(policy, sizeof *policy));
    if (out_engine != NULL) o = pad(out_engine, sizeof *out_engine);
    status = inact_engine_create((const inact_config *)(void *)c.block,
                                 (const inact_policy *)(void *)p.block, callback, user_data,
                                 free_user_data, (inact_engine *)(void *)o.block);
    if (config != NULL) unpad(c, NULL, config, "inact_engine_create (config)", file, line);
    if (policy != NULL) unpad(p, NULL, policy, "inact_engine_create (policy)", file, line);
    if (out_engine != NULL) unpad(o, out_engine, NULL, "inact_engine_create (out_engine)", file, line);
    return status;
}

int32_t canary_set_policy(inact_engine engine, const inact_policy *policy, const char *file,
                          int line) {
    padded p;
    int32_t status;
    if (policy == NULL) return inact_set_policy(engine, NULL);
    p = pad(policy, declared(policy, sizeof *policy));
    status = inact_set_policy(engine, (const inact_policy *)(void *)p.block);
    unpad(p, NULL, policy, "inact_set_policy", file, line);
    return status;
}

int32_t canary_get_info(inact_engine engine, inact_info *info, const char *file, int line) {
    padded p;
    int32_t status;
    if (info == NULL) return inact_get_info(engine, NULL);
    p = pad(info, declared(info, sizeof *info));
    status = inact_get_info(engine, (inact_info *)(void *)p.block);
    unpad(p, info, NULL, "inact_get_info", file, line);
    return status;
}

int32_t canary_get_policy(inact_engine engine, inact_policy *policy, const char *file, int line) {
    padded p;
    int32_t status;
    if (policy == NULL) return inact_get_policy(engine, NULL);
    p = pad(policy, declared(policy, sizeof *policy));
    status = inact_get_policy(engine, (inact_policy *)(void *)p.block);
    unpad(p, policy, NULL, "inact_get_policy", file, line);
    return status;
}

int32_t canary_restore(inact_engine engine, const uint8_t *bytes, size_t length, const char *file,
                       int line) {
    padded p;
    int32_t status;
    if (bytes == NULL || length > CANARY_MAX_COPY) return inact_restore(engine, bytes, length);
    p = pad(bytes, length);
    status = inact_restore(engine, p.block, length);
    unpad(p, NULL, bytes, "inact_restore", file, line);
    return status;
}

int32_t canary_snapshot_write(inact_engine engine, uint8_t *buffer, size_t capacity,
                              size_t *out_written, const char *file, int line) {
    padded b, w = {NULL, 0};
    int32_t status;
    if (buffer == NULL || capacity > CANARY_MAX_COPY)
        return inact_snapshot_write(engine, buffer, capacity, out_written);
    b = pad(buffer, capacity);
    if (out_written != NULL) w = pad(out_written, sizeof *out_written);
    status = inact_snapshot_write(engine, b.block, capacity, (size_t *)(void *)w.block);
    unpad(b, buffer, NULL, "inact_snapshot_write (buffer)", file, line);
    if (out_written != NULL) unpad(w, out_written, NULL, "inact_snapshot_write (out_written)", file, line);
    return status;
}
