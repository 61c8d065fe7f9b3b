/* scripts/lib/check-android-time64's compile-time probe: the clock and timer helpers take the
 * 64-bit-time system calls exactly where time_t is 32 bits (armeabi-v7a). */
#include "inactivity_platform.h"
#if defined(EXPECT_TIME64_SYSCALLS)
#if !defined(INACTIVITY_HAS_TIME64_SYSCALLS)
#error "the helpers have no 64-bit-time system calls for this CPU"
#endif
_Static_assert(sizeof(time_t) == 4, "a 32-bit time_t: the helpers take the system calls");
#else
#if defined(INACTIVITY_HAS_TIME64_SYSCALLS)
#error "a 64-bit target must not have the system call path"
#endif
_Static_assert(sizeof(time_t) == 8, "a 64-bit time_t: the helpers are the libc calls");
#endif
int64_t probe(int fd) { return inactivity_wall_ms() + inactivity_timerfd_set_abs_ms(fd, 1); }
