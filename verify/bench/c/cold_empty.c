/* The cold start's floors (scripts/bench cold): an empty program, one that also loads a trivial
 * .so (WITH_SO), and one that also starts a thread that only blocks (WITH_THREAD); it reports
 * its one stage as cold_start.c's cold_record does. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#ifdef WITH_SO
int cold_trivial(void);
#else
static int cold_trivial(void) { return 1; }
#endif
#ifdef WITH_THREAD
#include <pthread.h>
static void *cold_blocked(void *unused) { (void)unused; for (;;) pause(); }
#endif
struct cold_record { char byte; int64_t ns[6]; } __attribute__((packed));
int main(void) {
    struct cold_record record = {'D', {0}};
    struct timespec ts;
    const char *fd = getenv("COLD_DECISION_FD");
    clock_gettime(CLOCK_MONOTONIC, &ts);
    record.ns[0] = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    if (!cold_trivial()) return 1;
#ifdef WITH_THREAD
    pthread_t thread;
    if (pthread_create(&thread, NULL, cold_blocked, NULL) != 0) return 1;
#endif
    return !fd || write(atoi(fd), &record, sizeof record) == (ssize_t)sizeof record ? 0 : 1;
}
