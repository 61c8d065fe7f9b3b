/* Internal to libinactivity: not part of the API and not exported (see exports.map). */
#ifndef INACTIVITY_INTERNAL_H
#define INACTIVITY_INTERNAL_H
/* The header itself, by its place in the repository (no copy or link of it here): every recipe
 * finds it without a search path of its own. */
#include "../../../include/inactivity.h"
/* Sets the calling thread's message for inact_last_error (copied, truncated to 511 bytes) and its
 * number for inact_last_errno (the system's errno for INACT_E_SYSTEM, else 0). */
void inactivity_set_last_error(const char *message, int32_t error_number);
#endif
