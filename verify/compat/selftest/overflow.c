/*
 * overflow.c -- the canary's self-test (scripts/lib/test-compat, <release>/canary_catches_an_overflow):
 * preloaded (LD_PRELOAD) in front of a release's library, its inact_policy_init does what 1.1's
 * did to a 1.0 program: fills the policy, then writes 40 bytes more (the 120-byte 1.1 layout)
 * and stamps size 120. Built with the release's header; never part of a library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "inactivity.h"

int32_t inact_policy_init(inact_policy *policy) {
    int32_t (*real)(inact_policy *) =
        (int32_t (*)(inact_policy *))dlsym(RTLD_NEXT, "inact_policy_init");
    int32_t status = real(policy);
    if (status == INACT_OK) {
        memset((unsigned char *)policy + sizeof *policy, 0, 120 - sizeof *policy);
        policy->size = 120;
    }
    return status;
}
