/* System headers that the Swift core needs and that the Glibc module does not expose
 * (timerfd, eventfd). No code lives here. */
#ifndef INACTIVITY_PLATFORM_H
#define INACTIVITY_PLATFORM_H
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* pthread_setname_np */
#endif
#if defined(__linux__)
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#endif
#include <poll.h>
#include <pthread.h>
#include <time.h>
#endif
