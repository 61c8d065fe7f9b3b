/* header_c99.c -- include/inactivity.h alone, compiled as strict C99 with extra warnings
 * (-Wconversion, -Wshadow, -Wstrict-prototypes, ...): the header must not make a
 * careful C project's build fail. Compile-only. */
#include "inactivity.h"

int header_c99_probe(void);
int header_c99_probe(void) {
    inact_event event;
    (void)event;
    return (int)INACT_VERSION_NUMBER + (int)sizeof(inact_info) + (int)INACT_E_INTERNAL;
}
