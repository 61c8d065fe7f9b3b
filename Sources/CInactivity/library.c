/* The parts of the C ABI that are pure functions of the header's own tables: the version, the
 * status strings (generated from INACT_STATUS_TABLE, so they cannot drift from the codes) and
 * the thread-local last-error buffer. Everything else is implemented in Swift
 * (Sources/InactivityCABI). */
#include "inactivity.h"
#include "inactivity_internal.h"

#include <string.h>

static _Thread_local char last_error[512];

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

const char *inact_last_error(void) { return last_error; }

void inactivity_set_last_error(const char *message) {
    size_t n = message ? strlen(message) : 0;
    if (n >= sizeof last_error) n = sizeof last_error - 1;
    if (n) memcpy(last_error, message, n);
    last_error[n] = '\0';
}
