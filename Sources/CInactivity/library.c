/* The parts of the C ABI that are pure functions of the header's own tables: the version, the
 * status strings (generated from INACT_STATUS_TABLE, so they cannot drift from the codes), the
 * names of states, reasons, presets and activity kinds (names.h, which tools/generate writes
 * from the header's enums) and the thread-local last-error buffer. Everything else is implemented in Swift
 * (Sources/InactivityCABI). */
#include "inactivity.h"
#include "inactivity_internal.h"
#include "names.h"

#if defined(__wasm__)
#include "inactivity_wasm.h" /* one thread: pthread_once and the key are its single-thread forms */
#else
#include <pthread.h>
#endif
#include <stdlib.h>
#include <string.h>

/* The thread's last-error buffer: allocated at the thread's first error and freed when it exits.
 * A pthread key rather than _Thread_local: general-dynamic TLS in a shared library calls
 * __tls_get_addr, which would make the library need the dynamic loader (ld-linux) as well as
 * libc, and bionic before API 29 has no ELF TLS at all. */
enum { LAST_ERROR_SIZE = 512 };
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

const char *inact_last_error(void) {
    pthread_once(&last_error_once, last_error_key_create);
    const char *buffer = last_error_key_ok ? pthread_getspecific(last_error_key) : NULL;
    return buffer ? buffer : "";
}

void inactivity_set_last_error(const char *message) {
    pthread_once(&last_error_once, last_error_key_create);
    if (!last_error_key_ok) return;   /* no key: the status code alone reports the error */
    char *buffer = pthread_getspecific(last_error_key);
    if (!buffer) {
        buffer = malloc(LAST_ERROR_SIZE);
        if (!buffer) return;   /* out of memory: as above */
        if (pthread_setspecific(last_error_key, buffer) != 0) {
            free(buffer);
            return;
        }
    }
    size_t n = message ? strlen(message) : 0;
    if (n >= LAST_ERROR_SIZE) n = LAST_ERROR_SIZE - 1;
    if (n) memcpy(buffer, message, n);
    buffer[n] = '\0';
}
