/*
 * test_platform_faults.c -- the scheduler thread under real platform faults: a THREAD engine
 * that cannot get its timer, its wake-up channel or its thread is not created (INACT_E_SYSTEM,
 * a message naming the call and the errno), nothing of it is kept, the engines that exist go
 * on, and the next creation tries again.
 *
 * Each test runs in a fresh process of its own (this suite's binary again, `--no-fork NAME`),
 * because the scheduler keeps its timer for the life of the process. The faults are real:
 * RLIMIT_NOFILE makes the kernel refuse the file descriptors, and libinact_faults.so
 * (fault_preload.c, LD_PRELOAD) makes libc's pthread_create or timerfd_settime fail. Real
 * clock, generous bounds (as in test_delivery.c). The last test forks: the scheduler in a
 * child process.
 */
#define _GNU_SOURCE
#include "support.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*fault_set_fn)(const char *function, int skip, int count, int error);

static int64_t generous_ms(void) { return harness_slow() ? 20000 : 5000; }

/* Runs test `name` again in a fresh process, with libinact_faults.so preloaded when
 * `preload`. Returns 1 in that process (run the test's body there) and 0 in the calling one,
 * after checking that the fresh process passed it (its output is the failure message). */
static int in_fresh_process(const char *name, int preload) {
    const char *marker = getenv("INACT_CTEST_FRESH");
    char exe[2048], lib[2100], output[16384];
    ssize_t n;
    size_t used = 0;
    int pipe_fds[2], status = 0;
    pid_t pid;
    if (marker != NULL && strcmp(marker, name) == 0) return 1;
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    REQUIRE(n > 0);
    exe[n] = '\0';
    snprintf(lib, sizeof lib, "%.*s/libinact_faults.so", (int)(strrchr(exe, '/') - exe), exe);
    if (preload && access(lib, R_OK) != 0) {
        harness_fail(__FILE__, __LINE__, "no %s (scripts/lib/test-c builds it next to the suite)", lib);
        return 0;
    }
    REQUIRE(pipe(pipe_fds) == 0);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        char asan[512];
        const char *old_asan = getenv("ASAN_OPTIONS");
        dup2(pipe_fds[1], 1);
        dup2(pipe_fds[1], 2);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        setenv("INACT_CTEST_FRESH", name, 1);
        if (preload) {
            setenv("LD_PRELOAD", lib, 1);
            /* an ASan build: the interposer comes before the sanitizer's runtime */
            snprintf(asan, sizeof asan, "%s%sverify_asan_link_order=0", old_asan ? old_asan : "",
                     old_asan ? ":" : "");
            setenv("ASAN_OPTIONS", asan, 1);
        }
        alarm(60);
        execl(exe, exe, "--no-fork", name, (char *)NULL);
        _exit(127);
    }
    close(pipe_fds[1]);
    while (used < sizeof output - 1 &&
           (n = read(pipe_fds[0], output + used, sizeof output - 1 - used)) > 0)
        used += (size_t)n;
    output[used] = '\0';
    close(pipe_fds[0]);
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || strstr(output, "1 passed, 0 failed") == NULL)
        harness_fail(__FILE__, __LINE__, "the fresh process of %s (status %#x) said:\n%s", name,
                     status, output);
    return 0;
}

static fault_set_fn faults(void) {
    fault_set_fn set;
    *(void **)(&set) = dlsym(RTLD_DEFAULT, "inact_test_fault_set");
    REQUIRE(set != NULL);
    return set;
}

/* When a THREAD engine's WARNING is due: 200 ms, and 2 s under valgrind, where a fork() of the
 * process alone can take longer than the 200 ms between WARNING and LOCKED, so that the engine
 * wakes past both deadlines and rightly goes straight to LOCKED. */
static int64_t warning_due_ms(void) { return harness_slow() ? 2000 : 200; }

/* idle twice the warning, no ticks: WARNING at warning_due_ms(), LOCKED at twice that. */
static inact_policy short_policy(void) {
    inact_policy policy = test_policy();
    policy.idle_timeout_ms = 2 * warning_due_ms();
    policy.warning_ms = warning_due_ms();
    policy.tick_ms = 0;
    return policy;
}

/* inact_engine_create of a SYSTEM-clock THREAD engine; its status. */
static int32_t create_thread_engine(recorder *rec, inact_engine *out) {
    inact_config config;
    inact_policy policy = short_policy();
    REQUIRE_OK(inact_config_init(&config));
    return inact_engine_create(&config, &policy, rec ? recorder_callback : NULL, rec,
                               rec ? recorder_free : NULL, out);
}

/* A creation that must fail for the platform: INACT_E_SYSTEM naming `call` and the text of
 * `error`, inact_last_errno() == `error`, no handle written, user_data_free not run, no thread started. */
static void check_create_fails_(const char *file, int line, const char *call, int error) {
    recorder rec;
    inact_engine out = 0xA5A5A5A5A5A5A5A5ULL;
    int threads = thread_count();
    int32_t status;
    const char *message;
    recorder_init(&rec);
    status = create_thread_engine(&rec, &out);
    message = inact_last_error();
    if (status != INACT_E_SYSTEM)
        harness_fail(file, line, "create returned %s, expected INACT_E_SYSTEM (\"%s\")",
                     harness_status_name(status), message);
    else if (strstr(message, call) == NULL || strstr(message, strerror(error)) == NULL)
        harness_fail(file, line, "last error \"%s\" does not name %s and \"%s\"", message, call,
                     strerror(error));
    /* The number reaches a binding as a value (inact_last_errno), never parsed from the text. */
    if (inact_last_errno() != error)
        harness_fail(file, line, "inact_last_errno() is %d, expected %d", (int)inact_last_errno(), error);
    if (out != 0xA5A5A5A5A5A5A5A5ULL) harness_fail(file, line, "a failed create wrote a handle");
    if (recorder_frees(&rec) != 0) harness_fail(file, line, "a failed create ran user_data_free");
    if (thread_count() != threads) harness_fail(file, line, "a failed create left a thread");
    if (status == INACT_OK) inact_destroy(out);
    recorder_deinit(&rec);
}
#define CHECK_CREATE_FAILS(call, error) check_create_fails_(__FILE__, __LINE__, (call), (error))

/* A THREAD engine that works: created, started, WARNING delivered on another thread (the
 * scheduler's) no earlier than its deadline and within the bound. Destroyed after. */
static void check_thread_engine_works_(const char *file, int line) {
    recorder rec;
    inact_engine engine = 0;
    int64_t started;
    recorded_event warning;
    recorder_init(&rec);
    if (create_thread_engine(&rec, &engine) != INACT_OK) {
        harness_fail(file, line, "create failed: %s", inact_last_error());
        recorder_deinit(&rec);
        return;
    }
    started = monotonic_ms();
    REQUIRE_OK(inact_start(engine));
    if (recorder_wait(&rec, 2, generous_ms()) < 2) {
        harness_fail(file, line, "no WARNING from the scheduler thread within %lld ms",
                     (long long)generous_ms());
    } else {
        warning = recorder_at(&rec, 1);
        if (warning.event.state != INACT_STATE_WARNING)
            harness_fail(file, line, "event 1 is state %d, not WARNING", (int)warning.event.state);
        if (pthread_equal(warning.thread, pthread_self()))
            harness_fail(file, line, "WARNING came on the test's thread, not the scheduler's");
        if (warning.wall_ns / 1000000 - started < warning_due_ms() - 1)
            harness_fail(file, line, "WARNING after %lld ms, before its deadline",
                         (long long)(warning.wall_ns / 1000000 - started));
    }
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}
#define CHECK_THREAD_ENGINE_WORKS() check_thread_engine_works_(__FILE__, __LINE__)

/* Waits (bounded) until the process has `threads` threads. */
static void wait_for_threads(int threads) {
    int64_t give_up = monotonic_ms() + generous_ms();
    while (thread_count() != threads && monotonic_ms() < give_up) sleep_ms(5);
    CHECK_EQ(thread_count(), threads);
}

/* An engine that never uses the scheduler goes on through every fault. */
static void check_manual_engine_goes_on(inact_engine engine, recorder *rec, int64_t ms) {
    int before = recorder_count(rec);
    advance(engine, ms);
    CHECK(recorder_count(rec) > before);
}

TEST(thread_engine_without_file_descriptors_is_not_created) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine manual;
    struct rlimit saved, limit;
    int lowest;
    if (!in_fresh_process("thread_engine_without_file_descriptors_is_not_created", 0)) return;
    recorder_init(&rec);
    manual = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(manual));
    REQUIRE(getrlimit(RLIMIT_NOFILE, &saved) == 0);
    lowest = dup(1);
    REQUIRE(lowest >= 0);
    close(lowest);
    /* no descriptor left: the timerfd is refused */
    limit = saved;
    limit.rlim_cur = (rlim_t)lowest;
    REQUIRE(setrlimit(RLIMIT_NOFILE, &limit) == 0);
    CHECK_CREATE_FAILS("timerfd_create", EMFILE);
    CHECK_CREATE_FAILS("timerfd_create", EMFILE); /* tried again, failed again */
    check_manual_engine_goes_on(manual, &rec, 55 * SECOND_MS); /* WARNING */
    /* one descriptor left: the timerfd is had, the eventfd is refused (and the timerfd given
     * back: afterwards the lowest free descriptor is the same) */
    limit.rlim_cur = (rlim_t)lowest + 1;
    REQUIRE(setrlimit(RLIMIT_NOFILE, &limit) == 0);
    CHECK_CREATE_FAILS("eventfd", EMFILE);
    REQUIRE(setrlimit(RLIMIT_NOFILE, &saved) == 0);
    CHECK_EQ(dup(1), lowest);
    close(lowest);
    /* the limit lifted, the next creation succeeds and its timers fire */
    CHECK_THREAD_ENGINE_WORKS();
    check_manual_engine_goes_on(manual, &rec, 5 * SECOND_MS); /* LOCKED */
    REQUIRE_OK(inact_destroy(manual));
    recorder_deinit(&rec);
}

TEST(thread_engine_without_a_thread_is_not_created) {
    recorder rec, shared_rec;
    inact_policy policy = test_policy();
    inact_engine manual, shared = 0;
    int threads;
    if (!in_fresh_process("thread_engine_without_a_thread_is_not_created", 1)) return;
    recorder_init(&rec);
    recorder_init(&shared_rec);
    manual = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(manual));
    threads = thread_count();
    /* the first THREAD engine: pthread_create fails once */
    REQUIRE(faults()("pthread_create", 0, 1, EAGAIN) == 0);
    CHECK_CREATE_FAILS("pthread_create", EAGAIN);
    check_manual_engine_goes_on(manual, &rec, 55 * SECOND_MS);
    /* the next creation tries again, and succeeds */
    CHECK_THREAD_ENGINE_WORKS();
    /* while a THREAD engine lives the thread is shared: a new engine needs no new thread */
    REQUIRE(create_thread_engine(&shared_rec, &shared) == INACT_OK);
    REQUIRE(faults()("pthread_create", 0, -1, EAGAIN) == 0);
    CHECK_THREAD_ENGINE_WORKS();
    REQUIRE_OK(inact_destroy(shared));
    /* the last one gone, the thread ends; a new one cannot be started, so no engine */
    wait_for_threads(threads);
    CHECK_CREATE_FAILS("pthread_create", EAGAIN);
    REQUIRE(faults()("pthread_create", 0, 0, 0) == 0);
    CHECK_THREAD_ENGINE_WORKS();
    check_manual_engine_goes_on(manual, &rec, 5 * SECOND_MS);
    REQUIRE_OK(inact_destroy(manual));
    recorder_deinit(&rec);
    recorder_deinit(&shared_rec);
}

TEST(thread_engine_whose_timer_cannot_be_set_is_not_created) {
    if (!in_fresh_process("thread_engine_whose_timer_cannot_be_set_is_not_created", 1)) return;
    REQUIRE(faults()("timerfd_settime", 0, 1, EINVAL) == 0);
    CHECK_CREATE_FAILS("timerfd_settime", EINVAL);
    REQUIRE(faults()("timerfd_create", 0, 1, ENODEV) == 0);
    CHECK_CREATE_FAILS("timerfd_create", ENODEV);
    CHECK_THREAD_ENGINE_WORKS();
}

/* inact_scheduler_faults, checked against what the test expects. */
static void check_scheduler_faults_(const char *file, int line, int32_t degraded, uint64_t min_failures,
                                    int32_t last_errno, uint64_t *out_failures) {
    int32_t got_degraded = -1, got_errno = -1;
    uint64_t got_failures = UINT64_MAX;
    REQUIRE_OK(inact_scheduler_faults(&got_degraded, &got_failures, &got_errno));
    if (got_degraded != degraded || got_failures < min_failures || got_errno != last_errno)
        harness_fail(file, line, "inact_scheduler_faults: degraded %d, failures %llu, errno %d; expected %d, "
                     ">= %llu, %d", (int)got_degraded, (unsigned long long)got_failures, (int)got_errno,
                     (int)degraded, (unsigned long long)min_failures, (int)last_errno);
    if (out_failures) *out_failures = got_failures;
}
#define CHECK_SCHEDULER_FAULTS(degraded, min_failures, last_errno, out_failures) \
    check_scheduler_faults_(__FILE__, __LINE__, (degraded), (min_failures), (last_errno), (out_failures))

TEST(timers_still_fire_when_the_timer_fails_later) {
    /* The timer was had at creation but every later setting fails: no deadline is lost
     * (the thread is woken and waits with a bounded timeout), the thread still ends with the
     * last engine, and the fault is reported (inact_scheduler_faults), not silent. When the
     * timer can be set again the report says so and keeps the count. */
    int threads;
    uint64_t failures = 0, later = 0;
    if (!in_fresh_process("timers_still_fire_when_the_timer_fails_later", 1)) return;
    threads = thread_count();
    CHECK_SCHEDULER_FAULTS(0, 0, 0, &failures);
    CHECK_EQ(failures, 0);
    REQUIRE_OK(inact_scheduler_faults(NULL, NULL, NULL));
    REQUIRE(faults()("timerfd_settime", 1, -1, EINVAL) == 0);
    CHECK_THREAD_ENGINE_WORKS();
    wait_for_threads(threads);
    CHECK_SCHEDULER_FAULTS(1, 1, EINVAL, &failures);
    CHECK_THREAD_ENGINE_WORKS();
    wait_for_threads(threads);
    CHECK_SCHEDULER_FAULTS(1, failures + 1, EINVAL, &failures);
    /* The platform recovers: the next setting succeeds, the count and the last errno stay. */
    REQUIRE(faults()("timerfd_settime", 0, 0, 0) == 0);
    CHECK_THREAD_ENGINE_WORKS();
    wait_for_threads(threads);
    CHECK_SCHEDULER_FAULTS(0, failures, EINVAL, &later);
    CHECK_EQ(later, failures);
}

TEST(a_degraded_timer_fires_at_most_a_second_late) {
    /* Every setting after the first fails while a WARNING is 1.5 s away: it comes from the
     * bounded poll, no earlier than its deadline and at most 1 s after it (plus scheduling
     * slack), while inact_scheduler_faults says the scheduler is degraded. */
    recorder rec;
    inact_config config;
    inact_policy policy = test_policy();
    inact_engine engine = 0;
    int64_t started, late;
    if (!in_fresh_process("a_degraded_timer_fires_at_most_a_second_late", 1)) return;
    policy.idle_timeout_ms = 3000;
    policy.warning_ms = 1500;
    policy.tick_ms = 0;
    recorder_init(&rec);
    REQUIRE(faults()("timerfd_settime", 1, -1, EINVAL) == 0);
    REQUIRE_OK(inact_config_init(&config));
    REQUIRE_OK(inact_engine_create(&config, &policy, recorder_callback, &rec, recorder_free, &engine));
    started = monotonic_ms();
    REQUIRE_OK(inact_start(engine));
    CHECK_SCHEDULER_FAULTS(1, 1, EINVAL, NULL);
    REQUIRE(recorder_wait(&rec, 2, generous_ms()) >= 2);
    CHECK_EQ(recorder_at(&rec, 1).event.state, INACT_STATE_WARNING);
    late = recorder_at(&rec, 1).wall_ns / 1000000 - started - 1500;
    CHECK(late >= -1);
    CHECK(late <= 1000 + (harness_slow() ? 2000 : 250));
    CHECK_SCHEDULER_FAULTS(1, 2, EINVAL, NULL);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

/* In a forked process: a new THREAD engine of its own gets its WARNING from a scheduler thread.
 * 0, or the exit code of the step that failed (2 create, 3 start, 4 no WARNING, 5 another
 * state, 7 destroy). */
static int new_engine_gets_its_warning(void) {
    recorder rec;
    inact_engine engine = 0;
    int code;
    recorder_init(&rec);
    if (create_thread_engine(&rec, &engine) != INACT_OK) return 2;
    if (inact_start(engine) != INACT_OK) return 3;
    if (recorder_wait(&rec, 2, generous_ms()) < 2) return 4;
    if (recorder_at(&rec, 1).event.state != INACT_STATE_WARNING) return 5;
    code = inact_destroy(engine) == INACT_OK ? 0 : 7;
    recorder_deinit(&rec);
    return code;
}

TEST(thread_engines_work_in_a_forked_child) {
    /* fork() copies the scheduler's memory (running, the heap, the parent's engines) but not
     * its thread, and the child shares the parent's timerfd. The child starts its own thread:
     * its new engines and the copies of the parent's get their timers, and the parent's timers
     * are not disturbed, and a fork of that child gets a thread of its own again. (Forking
     * while another thread is inside a library call is not
     * supported, as with any library that takes locks: let the scheduler thread sleep first.) */
    recorder parent_rec;
    inact_engine parent_engine = 0;
    pid_t pid;
    int status = 0;
    recorder_init(&parent_rec);
    REQUIRE(create_thread_engine(&parent_rec, &parent_engine) == INACT_OK);
    REQUIRE_OK(inact_start(parent_engine));
    sleep_ms(20);
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        inact_engine idle = 0;
        int code = new_engine_gets_its_warning();
        if (code != 0) _exit(code);
        if (recorder_wait(&parent_rec, 2, generous_ms()) < 2) _exit(6); /* the copied engine */
        if (inact_destroy(parent_engine) != INACT_OK) _exit(7);
        /* A fork of the child: the grandchild must see that the thread the child started (with
         * an engine that has no deadline, so that it sleeps) is not in it either. */
        if (create_thread_engine(NULL, &idle) != INACT_OK) _exit(8);
        sleep_ms(20);
        pid = fork();
        if (pid < 0) _exit(9);
        if (pid == 0) _exit(new_engine_gets_its_warning());
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) _exit(10);
        if (WEXITSTATUS(status) != 0) _exit(10 + WEXITSTATUS(status));
        _exit(inact_destroy(idle) == INACT_OK ? 0 : 7);
    }
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        harness_fail(__FILE__, __LINE__,
                     "the forked child failed (status %#x; exit 4: its own engine got no "
                     "WARNING, 6: the engine copied from the parent got none, 14: the "
                     "grandchild's engine got none)", status);
    CHECK(recorder_wait(&parent_rec, 2, generous_ms()) >= 2);
    CHECK_EQ(recorder_at(&parent_rec, 1).event.state, INACT_STATE_WARNING);
    REQUIRE_OK(inact_destroy(parent_engine));
    recorder_deinit(&parent_rec);
}
