/* Internal to libinactivity: not part of the API and not exported (see exports.map). */
#ifndef INACTIVITY_INTERNAL_H
#define INACTIVITY_INTERNAL_H
#include "inactivity.h"
/* Sets the calling thread's message for inact_last_error (copied, truncated to 511 bytes). */
void inactivity_set_last_error(const char *message);
#endif
