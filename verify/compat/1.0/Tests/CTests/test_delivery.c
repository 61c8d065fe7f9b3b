/*
 * test_delivery.c -- host-mode delivery (next-deadline / poll) and thread-mode delivery
 * (the process-wide scheduler thread). The manual-clock tests are exact; the few
 * system-clock tests sleep past deadlines and only bound how late things may be
 * (generously: seconds, and more under valgrind).
 */
#define _GNU_SOURCE
#include "support.h"

#include <dirent.h>
#include <string.h>
#include <time.h>

static int64_t generous_ms(void) { return harness_slow() ? 20000 : 5000; }

/* Real-clock durations, stretched 5x under valgrind so that a slow first call cannot
 * reach a deadline before the test expects it. */
#define T(ms) ((int64_t)(ms) * (harness_slow() ? 5 : 1))

/* A short real-clock policy: idle 400 ms, warning 200 ms, no ticks, background 100 ms
 * (times T). */
static inact_policy real_clock_policy(void) {
    inact_policy policy = test_policy();
    policy.idle_timeout_ms = T(400);
    policy.warning_ms = T(200);
    policy.tick_ms = 0;
    policy.background_timeout_ms = T(100);
    policy.background_grace_ms = T(50);
    return policy;
}

static inact_engine make_system_engine(recorder *rec, const inact_policy *policy,
                                       int32_t delivery) {
    inact_config config;
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_SYSTEM;
    config.delivery = delivery;
    return make_engine(rec, &config, policy);
}

/* --- host mode, manual clock ------------------------------------------------------ */

TEST(next_deadline_follows_the_session_on_the_manual_clock) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    int64_t delay = -1;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_next_deadline(engine, &delay));
    CHECK_EQ(delay, INACT_NEVER); /* LOADING: nothing scheduled */
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_next_deadline(engine, &delay));
    CHECK_EQ(delay, 50000); /* the warning */
    CHECK_EQ(info_of(engine).next_deadline_ms, 50000);
    advance(engine, 20000);
    REQUIRE_OK(inact_next_deadline(engine, &delay));
    CHECK_EQ(delay, 30000);
    advance(engine, 30000);
    CHECK_EQ(state_of(engine), INACT_STATE_WARNING);
    REQUIRE_OK(inact_next_deadline(engine, &delay));
    CHECK_EQ(delay, 1000); /* the next countdown tick */
    REQUIRE_OK(inact_lock(engine));
    REQUIRE_OK(inact_next_deadline(engine, &delay));
    CHECK_EQ(delay, 12 * HOUR_MS - 50000); /* only the absolute lifetime is left */
    REQUIRE_OK(inact_end(engine, INACT_REASON_LOGOUT));
    REQUIRE_OK(inact_next_deadline(engine, &delay));
    CHECK_EQ(delay, INACT_NEVER);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(poll_early_or_repeated_is_harmless) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    int i;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    for (i = 0; i < 5; i++) CHECK_STATUS(inact_poll(engine), INACT_OK);
    advance(engine, 49999);
    CHECK_STATUS(inact_poll(engine), INACT_OK);
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    advance(engine, 1);
    CHECK_STATUS(inact_poll(engine), INACT_OK);
    CHECK_EQ(recorder_count(&rec), 2); /* WARNING once, not again on poll */
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

/* --- host mode, system clock ------------------------------------------------------ */

TEST(host_mode_poll_delivers_due_events_on_the_calling_thread) {
    recorder rec;
    inact_policy policy = real_clock_policy();
    inact_engine engine;
    int64_t delay = -1, started;
    recorded_event warning;
    recorder_init(&rec);
    engine = make_system_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    started = info_of(engine).started_at_ms;
    REQUIRE_OK(inact_next_deadline(engine, &delay));
    CHECK(delay > 0 && delay <= T(200));
    sleep_ms(delay + T(30));
    /* host mode starts no thread: nothing arrives until the host calls in */
    CHECK_EQ(recorder_count(&rec), 1);
    REQUIRE_OK(inact_poll(engine));
    REQUIRE(recorder_count(&rec) == 2);
    warning = recorder_at(&rec, 1);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_WARNING, INACT_REASON_IDLE,
                     started + T(200));
    CHECK(warning.event.now_ms >= warning.event.time_ms);
    CHECK(pthread_equal(warning.thread, pthread_self()));
    REQUIRE_OK(inact_next_deadline(engine, &delay));
    CHECK(delay > 0 && delay <= T(200));
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(host_mode_late_poll_folds_catch_up_into_one_event) {
    recorder rec;
    inact_policy policy = real_clock_policy();
    inact_engine engine;
    int64_t started;
    recorder_init(&rec);
    engine = make_system_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    started = info_of(engine).started_at_ms;
    sleep_ms(T(700)); /* the warning (200 ms) and the lock (400 ms) both fell due */
    CHECK_EQ(recorder_count(&rec), 1);
    REQUIRE_OK(inact_poll(engine));
    CHECK_EQ(recorder_count(&rec), 2);
    /* no stale WARNING: one transition from what the host saw to the final state */
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_LOCKED, INACT_REASON_IDLE_TIMEOUT,
                     started + T(400));
    CHECK(recorder_at(&rec, 1).event.now_ms >= started + T(700));
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(background_past_timeout_locks_on_foreground_before_it_returns) {
    recorder rec;
    inact_policy policy = real_clock_policy();
    inact_engine engine;
    int64_t since;
    recorder_init(&rec);
    policy.idle_timeout_ms = 60000;
    policy.warning_ms = 10000;
    engine = make_system_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_background(engine));
    since = info_of(engine).background_since_ms;
    sleep_ms(T(300));
    CHECK_EQ(recorder_count(&rec), 1);
    REQUIRE_OK(inact_foreground(engine));
    /* the lock screen comes before any content: delivered inside inact_foreground */
    CHECK_EQ(recorder_count(&rec), 2);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_LOCKED,
                     INACT_REASON_BACKGROUND_TIMEOUT, since + T(100));
    CHECK(pthread_equal(recorder_at(&rec, 1).thread, pthread_self()));
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(system_clock_counts_like_boottime) {
    inact_config config;
    inact_engine engine;
    struct timespec ts;
    int64_t mono = -1, boottime, wall = -1;
    uint64_t boot = 0;
    REQUIRE_OK(inact_config_init(&config));
    config.delivery = INACT_DELIVERY_HOST;
    engine = make_engine(NULL, &config, NULL);
    REQUIRE_OK(inact_clock_now(engine, &mono, &wall, &boot));
    clock_gettime(CLOCK_BOOTTIME, &ts);
    boottime = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    CHECK(mono <= boottime + 1);
    CHECK(boottime - mono < 1000);
    clock_gettime(CLOCK_REALTIME, &ts);
    CHECK((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 - wall < 1000);
    CHECK(boot != 0);
    REQUIRE_OK(inact_destroy(engine));
}

/* --- thread mode, system clock ---------------------------------------------------- */

TEST(thread_mode_delivers_timed_events_on_the_scheduler_thread) {
    recorder rec;
    inact_policy policy = real_clock_policy();
    inact_engine engine;
    int64_t started, t0 = monotonic_ms();
    recorded_event warning, locked;
    recorder_init(&rec);
    engine = make_system_engine(&rec, &policy, INACT_DELIVERY_THREAD);
    REQUIRE_OK(inact_start(engine));
    started = info_of(engine).started_at_ms;
    /* STARTED was caused by the call: delivered on this thread before it returned */
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK(pthread_equal(recorder_at(&rec, 0).thread, pthread_self()));
    CHECK_EQ(recorder_wait(&rec, 3, generous_ms()), 3);
    warning = recorder_at(&rec, 1);
    locked = recorder_at(&rec, 2);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_WARNING, INACT_REASON_IDLE,
                     started + T(200));
    CHECK_TRANSITION(&rec, 2, INACT_STATE_WARNING, INACT_STATE_LOCKED, INACT_REASON_IDLE_TIMEOUT,
                     started + T(400));
    CHECK(!pthread_equal(warning.thread, pthread_self()));
    CHECK(pthread_equal(warning.thread, locked.thread));
    /* never early (1 ms slack between CLOCK_BOOTTIME and CLOCK_MONOTONIC readings) */
    CHECK(warning.wall_ns / 1000000 - t0 >= T(200) - 1);
    CHECK(locked.wall_ns / 1000000 - t0 >= T(400) - 1);
    CHECK(locked.event.now_ms >= locked.event.time_ms);
    CHECK_EQ(state_of(engine), INACT_STATE_LOCKED);
    REQUIRE_OK(inact_destroy(engine));
    CHECK_EQ(recorder_frees(&rec), 1);
    recorder_deinit(&rec);
}

TEST(one_scheduler_thread_serves_every_engine) {
    enum { N = 4 };
    recorder recs[N];
    inact_engine engines[N];
    int i;
    for (i = 0; i < N; i++) {
        inact_policy policy = real_clock_policy();
        policy.idle_timeout_ms = T(300 + 50 * i);
        policy.warning_ms = T(100);
        recorder_init(&recs[i]);
        engines[i] = make_system_engine(&recs[i], &policy, INACT_DELIVERY_THREAD);
        REQUIRE_OK(inact_start(engines[i]));
    }
    for (i = 0; i < N; i++) {
        CHECK_EQ(recorder_wait(&recs[i], 3, generous_ms()), 3);
        CHECK_EQ(recorder_at(&recs[i], 2).event.state, INACT_STATE_LOCKED);
        CHECK_EQ_U64(recorder_at(&recs[i], 2).event.engine, engines[i]);
        CHECK(pthread_equal(recorder_at(&recs[i], 1).thread, recorder_at(&recs[0], 1).thread));
        CHECK(pthread_equal(recorder_at(&recs[i], 2).thread, recorder_at(&recs[0], 1).thread));
    }
    for (i = 0; i < N; i++) {
        REQUIRE_OK(inact_destroy(engines[i]));
        recorder_deinit(&recs[i]);
    }
}

TEST(destroyed_thread_engine_never_calls_back_again) {
    recorder rec;
    inact_policy policy = real_clock_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_system_engine(&rec, &policy, INACT_DELIVERY_THREAD);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_destroy(engine));
    sleep_ms(T(600));
    CHECK_EQ(recorder_count(&rec), 1);
    CHECK_EQ(recorder_frees(&rec), 1);
    recorder_deinit(&rec);
}

typedef struct slow_callback {
    pthread_mutex_t mutex;
    int inside;
    int finished;
} slow_callback;

static void sleep_in_warning(recorder *rec, const inact_event *event) {
    slow_callback *slow = (slow_callback *)rec->hook_context;
    if (event->state != INACT_STATE_WARNING) return;
    pthread_mutex_lock(&slow->mutex);
    slow->inside = 1;
    pthread_mutex_unlock(&slow->mutex);
    sleep_ms(T(300));
    pthread_mutex_lock(&slow->mutex);
    slow->inside = 0;
    slow->finished = 1;
    pthread_mutex_unlock(&slow->mutex);
}

TEST(destroy_from_another_thread_waits_for_the_running_callback) {
    recorder rec;
    slow_callback slow;
    inact_policy policy = real_clock_policy();
    inact_engine engine;
    int64_t give_up = monotonic_ms() + generous_ms();
    int inside = 0, finished;
    recorder_init(&rec);
    memset(&slow, 0, sizeof slow);
    pthread_mutex_init(&slow.mutex, NULL);
    rec.hook = sleep_in_warning;
    rec.hook_context = &slow;
    engine = make_system_engine(&rec, &policy, INACT_DELIVERY_THREAD);
    REQUIRE_OK(inact_start(engine));
    while (!inside && monotonic_ms() < give_up) {
        sleep_ms(5);
        pthread_mutex_lock(&slow.mutex);
        inside = slow.inside;
        pthread_mutex_unlock(&slow.mutex);
    }
    REQUIRE(inside);
    REQUIRE_OK(inact_destroy(engine));
    pthread_mutex_lock(&slow.mutex);
    finished = slow.finished;
    pthread_mutex_unlock(&slow.mutex);
    CHECK_EQ(finished, 1); /* destroy returned only after the callback did */
    CHECK_EQ(recorder_frees(&rec), 1);
    sleep_ms(T(300)); /* past the lock deadline: no LOCKED for a destroyed engine */
    CHECK_EQ(recorder_count(&rec), 2);
    pthread_mutex_destroy(&slow.mutex);
    recorder_deinit(&rec);
}

static int thread_count(void) {
    DIR *dir = opendir("/proc/self/task");
    struct dirent *entry;
    int n = 0;
    if (dir == NULL) return -1;
    while ((entry = readdir(dir)) != NULL)
        if (entry->d_name[0] != '.') n++;
    closedir(dir);
    return n;
}

TEST(scheduler_thread_ends_with_the_last_engine) {
    inact_policy policy = real_clock_policy();
    inact_engine first, second;
    int before = thread_count(), during;
    int64_t give_up;
    REQUIRE(before > 0);
    first = make_system_engine(NULL, &policy, INACT_DELIVERY_THREAD);
    second = make_system_engine(NULL, &policy, INACT_DELIVERY_THREAD);
    REQUIRE_OK(inact_start(first));
    during = thread_count();
    CHECK_EQ(during, before + 1);
    REQUIRE_OK(inact_destroy(first));
    CHECK_EQ(thread_count(), during);
    REQUIRE_OK(inact_destroy(second));
    give_up = monotonic_ms() + generous_ms();
    while (thread_count() != before && monotonic_ms() < give_up) sleep_ms(10);
    CHECK_EQ(thread_count(), before);
}

typedef struct activity_worker {
    inact_engine engine;
    int calls;
    int failures;
} activity_worker;

static void *send_activity(void *arg) {
    activity_worker *worker = (activity_worker *)arg;
    int i;
    for (i = 0; i < worker->calls; i++) {
        if (inact_activity(worker->engine, INACT_ACTIVITY_TOUCH_MOVE) != INACT_OK)
            worker->failures++;
        if (i % 64 == 0) {
            int32_t state;
            if (inact_get_state(worker->engine, &state) != INACT_OK) worker->failures++;
        }
    }
    return NULL;
}

TEST(activity_from_many_threads_at_once) {
    enum { THREADS = 4 };
    pthread_t threads[THREADS];
    activity_worker workers[THREADS];
    inact_policy policy = test_policy();
    inact_engine engine;
    int64_t before;
    int i;
    engine = make_system_engine(NULL, &policy, INACT_DELIVERY_THREAD);
    REQUIRE_OK(inact_start(engine));
    before = info_of(engine).last_activity_ms;
    for (i = 0; i < THREADS; i++) {
        workers[i].engine = engine;
        workers[i].calls = harness_slow() ? 2000 : 20000;
        workers[i].failures = 0;
        REQUIRE(pthread_create(&threads[i], NULL, send_activity, &workers[i]) == 0);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK_EQ(workers[i].failures, 0);
    }
    CHECK_EQ(state_of(engine), INACT_STATE_ACTIVE);
    CHECK(info_of(engine).last_activity_ms >= before);
    CHECK(remaining_of(engine) > 50000);
    REQUIRE_OK(inact_destroy(engine));
}

static void destroy_on_scheduler_warning(recorder *rec, const inact_event *event) {
    if (event->state == INACT_STATE_WARNING) {
        int32_t *status = (int32_t *)rec->hook_context;
        *status = inact_destroy(event->engine);
    }
}

TEST(destroy_from_a_scheduler_thread_callback_does_not_deadlock) {
    recorder rec;
    inact_policy policy = real_clock_policy();
    inact_engine engine;
    int32_t destroy_status = -99, state = -1;
    int64_t give_up;
    recorder_init(&rec);
    rec.hook = destroy_on_scheduler_warning;
    rec.hook_context = &destroy_status;
    engine = make_system_engine(&rec, &policy, INACT_DELIVERY_THREAD);
    REQUIRE_OK(inact_start(engine));
    give_up = monotonic_ms() + generous_ms();
    while (recorder_frees(&rec) == 0 && monotonic_ms() < give_up) sleep_ms(5);
    CHECK_EQ(recorder_frees(&rec), 1);
    CHECK_STATUS(destroy_status, INACT_OK);
    CHECK(!pthread_equal(recorder_at(&rec, 1).thread, pthread_self()));
    sleep_ms(T(300)); /* past the lock deadline */
    CHECK_EQ(recorder_count(&rec), 2);
    CHECK_STATUS(inact_get_state(engine, &state), INACT_E_INVALID_HANDLE);
    recorder_deinit(&rec);
}

static void continue_on_first_warning(recorder *rec, const inact_event *event) {
    int *budget = (int *)rec->hook_context;
    if (event->state == INACT_STATE_WARNING && event->kind == INACT_EVENT_STATE_CHANGED &&
        (*budget)-- > 0)
        inact_continue(event->engine);
}

TEST(scheduler_thread_callback_may_call_into_its_engine) {
    recorder rec;
    inact_policy policy = real_clock_policy();
    inact_engine engine;
    int budget = 1, i;
    recorder_init(&rec);
    rec.hook = continue_on_first_warning;
    rec.hook_context = &budget;
    engine = make_system_engine(&rec, &policy, INACT_DELIVERY_THREAD);
    REQUIRE_OK(inact_start(engine));
    /* STARTED, WARNING, CONTINUED (queued by the callback), WARNING, LOCKED */
    CHECK_EQ(recorder_wait(&rec, 5, generous_ms()), 5);
    CHECK_TRANSITION(&rec, 1, INACT_STATE_ACTIVE, INACT_STATE_WARNING, INACT_REASON_IDLE, -1);
    CHECK_TRANSITION(&rec, 2, INACT_STATE_WARNING, INACT_STATE_ACTIVE, INACT_REASON_CONTINUED,
                     -1);
    CHECK_TRANSITION(&rec, 3, INACT_STATE_ACTIVE, INACT_STATE_WARNING, INACT_REASON_IDLE, -1);
    CHECK_TRANSITION(&rec, 4, INACT_STATE_WARNING, INACT_STATE_LOCKED, INACT_REASON_IDLE_TIMEOUT,
                     -1);
    for (i = 1; i < 5; i++) CHECK(!pthread_equal(recorder_at(&rec, i).thread, pthread_self()));
    CHECK_EQ(rec.recursions, 0);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

typedef struct racing_user {
    inact_engine engine;
    int ok_after_invalid; /* an OK after the handle was seen invalid: must stay 0 */
    int unexpected;       /* any status but OK / INVALID_HANDLE */
    int calls;
} racing_user;

static void *use_until_destroyed(void *arg) {
    racing_user *user = (racing_user *)arg;
    int seen_invalid = 0, i;
    for (i = 0; i < 2000000 && seen_invalid < 100; i++) {
        int32_t state, status;
        status = (i % 2) ? inact_activity(user->engine, INACT_ACTIVITY_KEY)
                         : inact_get_state(user->engine, &state);
        user->calls++;
        if (status == INACT_E_INVALID_HANDLE) seen_invalid++;
        else if (status == INACT_OK) {
            if (seen_invalid) user->ok_after_invalid++;
        } else {
            user->unexpected++;
        }
    }
    return NULL;
}

TEST(destroy_while_other_threads_use_the_engine) {
    enum { THREADS = 3 };
    pthread_t threads[THREADS];
    racing_user users[THREADS];
    inact_policy policy = test_policy();
    inact_engine engine = make_system_engine(NULL, &policy, INACT_DELIVERY_THREAD);
    int i;
    REQUIRE_OK(inact_start(engine));
    for (i = 0; i < THREADS; i++) {
        memset(&users[i], 0, sizeof users[i]);
        users[i].engine = engine;
        REQUIRE(pthread_create(&threads[i], NULL, use_until_destroyed, &users[i]) == 0);
    }
    sleep_ms(T(50));
    REQUIRE_OK(inact_destroy(engine));
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(users[i].calls > 0);
        CHECK_EQ(users[i].unexpected, 0);
        CHECK_EQ(users[i].ok_after_invalid, 0);
    }
}
