/* The WebAssembly host's callbacks and the one thread's pthread keys (scripts/build-wasm;
 * compiled to nothing elsewhere).
 * JavaScript cannot put its own function into the module's function table, so inact_engine_create
 * gets these two C functions, which forward to functions the host imports (module
 * "inactivity_host"): `event(event_pointer, user_data)` and `release(user_data)`. user_data is
 * the host's number for the engine's listener. inactivity_wasm_event_callback and
 * inactivity_wasm_release_callback give their table indexes (the only exports beyond the header
 * and the allocator). */
#if defined(__wasm__)
#include <stdint.h>

__attribute__((import_module("inactivity_host"), import_name("event")))
void inactivity_host_event(const void *event, void *user_data);
__attribute__((import_module("inactivity_host"), import_name("release")))
void inactivity_host_release(void *user_data);

static void deliver(const void *event, void *user_data) { inactivity_host_event(event, user_data); }
static void release(void *user_data) { inactivity_host_release(user_data); }

__attribute__((export_name("inactivity_wasm_event_callback")))
uintptr_t inactivity_wasm_event_callback(void) { return (uintptr_t)&deliver; }
__attribute__((export_name("inactivity_wasm_release_callback")))
uintptr_t inactivity_wasm_release_callback(void) { return (uintptr_t)&release; }

/* pthread keys for one thread (inactivity_wasm.h). EAGAIN past the table, as pthread_key_create
 * answers when the system's keys run out. */
#include <errno.h>
enum { KEYS = 16 };
static const void *key_values[KEYS];
static uint32_t keys_made;

int inactivity_wasm_key_create(uint32_t *key) {
    if (keys_made == KEYS) return EAGAIN;
    *key = keys_made++;
    return 0;
}
void *inactivity_wasm_getspecific(uint32_t key) { return key < keys_made ? (void *)key_values[key] : 0; }
int inactivity_wasm_setspecific(uint32_t key, const void *value) {
    if (key >= keys_made) return EINVAL;
    key_values[key] = value;
    return 0;
}
#else
typedef int inactivity_wasm_host_unused; /* ISO C: a translation unit is not empty */
#endif
