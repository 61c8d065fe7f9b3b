/* The parts of the C ABI that are pure functions of the header's own tables: the version, the
 * status strings (generated from INACT_STATUS_TABLE, so they cannot drift from the codes), the
 * names of states, reasons, presets and activity kinds (generated/names.h, which tools/generate writes
 * from the header's enums) and the thread-local last-error buffer. Everything else is implemented in Swift
 * (Sources/InactivityCABI). */
#include "inactivity_internal.h"
#include "generated/names.h"

#if defined(__wasm__)
#include "inactivity_wasm.h" /* one thread: pthread_once and the key are its single-thread forms */
#else
#include <pthread.h>
#endif
#include <stdlib.h>
#include <string.h>

/* The thread's last error (its message and errno): allocated at the thread's first error and
 * freed when it exits.
 * A pthread key rather than _Thread_local: general-dynamic TLS in a shared library calls
 * __tls_get_addr, which would make the library need the dynamic loader (ld-linux) as well as
 * libc, and bionic before API 29 has no ELF TLS at all. */
enum { LAST_ERROR_SIZE = 512 };
struct last_error {
    int32_t error_number;
    char message[LAST_ERROR_SIZE];
};
static pthread_key_t last_error_key;
static pthread_once_t last_error_once = PTHREAD_ONCE_INIT;
static int last_error_key_ok;

static void last_error_key_create(void) { last_error_key_ok = pthread_key_create(&last_error_key, free) == 0; }

uint32_t inact_version_number(void) { return INACT_VERSION_NUMBER; }

const char *inact_version_string(void) { return INACT_VERSION_STRING; }

#define INACT_STATUS_CASE_(name, value, message) \
    case value:                                  \
        return message;
const char *inact_status_string(int32_t status) {
    switch (status) {
        INACT_STATUS_TABLE(INACT_STATUS_CASE_)
    default:
        return "unknown status";
    }
}
#undef INACT_STATUS_CASE_

static const struct last_error *last_error_get(void) {
    pthread_once(&last_error_once, last_error_key_create);
    return last_error_key_ok ? pthread_getspecific(last_error_key) : NULL;
}

const char *inact_last_error(void) {
    const struct last_error *last = last_error_get();
    return last ? last->message : "";
}

int32_t inact_last_errno(void) {
    const struct last_error *last = last_error_get();
    return last ? last->error_number : 0;
}

void inactivity_set_last_error(const char *message, int32_t error_number) {
    pthread_once(&last_error_once, last_error_key_create);
    if (!last_error_key_ok) return;   /* no key: the status code alone reports the error */
    struct last_error *last = pthread_getspecific(last_error_key);
    if (!last) {
        last = malloc(sizeof *last);
        if (!last) return;   /* out of memory: as above */
        if (pthread_setspecific(last_error_key, last) != 0) {
            free(last);
            return;
        }
    }
    size_t n = message ? strlen(message) : 0;
    if (n >= LAST_ERROR_SIZE) n = LAST_ERROR_SIZE - 1;
    if (n) memcpy(last->message, message, n);
    last->message[n] = '\0';
    last->error_number = error_number;
}
