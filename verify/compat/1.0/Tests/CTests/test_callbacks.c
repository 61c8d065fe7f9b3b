/*
 * test_callbacks.c -- the callback contract: the event struct, user_data ownership,
 * re-entrant calls from inside a callback (queued, never recursive) and destroy from
 * inside a callback (takes effect when it returns). Manual clock.
 */
#include "support.h"

#include <stdlib.h>
#include <string.h>

TEST(event_struct_is_complete) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorded_event got;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 50000);
    REQUIRE(recorder_count(&rec) == 2);
    got = recorder_at(&rec, 1);
    CHECK_EQ(got.event.size, sizeof(inact_event));
    CHECK_EQ(got.event.kind, INACT_EVENT_STATE_CHANGED);
    CHECK_EQ(got.event.reserved0, 0);
    CHECK_EQ(got.event.remaining_ms, 10000);
    CHECK_EQ(got.event.time_ms, 50000);
    CHECK_EQ(got.event.now_ms, 50000);
    CHECK_EQ_U64(got.event.engine, engine);
    CHECK(pthread_equal(got.thread, pthread_self()));
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

TEST(user_data_free_runs_exactly_once_at_destroy) {
    recorder rec;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 70000);
    CHECK_EQ(recorder_frees(&rec), 0);
    REQUIRE_OK(inact_destroy(engine));
    CHECK_EQ(recorder_frees(&rec), 1);
    CHECK_STATUS(inact_destroy(engine), INACT_E_INVALID_HANDLE);
    CHECK_EQ(recorder_frees(&rec), 1);
    recorder_deinit(&rec);
}

static int free_calls;
static void *freed_pointer;
static void free_heap_user_data(void *user_data) {
    free_calls++;
    freed_pointer = user_data;
    free(user_data);
}

TEST(user_data_free_runs_without_a_callback) {
    inact_engine engine = 0;
    void *data = malloc(64);
    REQUIRE(data != NULL);
    free_calls = 0;
    REQUIRE_OK(inact_engine_create(NULL, NULL, NULL, data, free_heap_user_data, &engine));
    REQUIRE_OK(inact_destroy(engine));
    CHECK_EQ(free_calls, 1);
    CHECK(freed_pointer == data);
}

TEST(no_user_data_free_is_fine) {
    recorder rec;
    inact_engine engine = 0;
    inact_config config;
    recorder_init(&rec);
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    REQUIRE_OK(inact_engine_create(&config, NULL, recorder_callback, &rec, NULL, &engine));
    REQUIRE_OK(inact_start(engine));
    CHECK_EQ(recorder_count(&rec), 1);
    REQUIRE_OK(inact_destroy(engine));
    CHECK_EQ(recorder_frees(&rec), 0);
    recorder_deinit(&rec);
}

/* --- re-entrant calls ------------------------------------------------------------ */

typedef struct reentry_probe {
    int32_t lock_status;
    int32_t state_seen;
    int32_t info_status;
    int events_seen_after_lock;
    int calls;
} reentry_probe;

/* On WARNING: lock the engine and query it from inside the callback. */
static void lock_on_warning(recorder *rec, const inact_event *event) {
    reentry_probe *probe = (reentry_probe *)rec->hook_context;
    inact_info info;
    if (event->kind != INACT_EVENT_STATE_CHANGED || event->state != INACT_STATE_WARNING) return;
    probe->calls++;
    probe->lock_status = inact_lock(event->engine);
    /* the lock is applied at once; its event is queued until this callback returns */
    inact_get_state(event->engine, &probe->state_seen);
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    probe->info_status = inact_get_info(event->engine, &info);
    probe->events_seen_after_lock = recorder_count(rec);
}

TEST(reentrant_calls_from_the_callback_are_queued_not_recursive) {
    recorder rec;
    reentry_probe probe;
    inact_policy policy = test_policy();
    inact_engine engine;
    recorder_init(&rec);
    memset(&probe, 0, sizeof probe);
    rec.hook = lock_on_warning;
    rec.hook_context = &probe;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance(engine, 50000);
    CHECK_EQ(probe.calls, 1);
    CHECK_STATUS(probe.lock_status, INACT_OK);
    CHECK_EQ(probe.state_seen, INACT_STATE_LOCKED);
    CHECK_STATUS(probe.info_status, INACT_OK);
    CHECK_EQ(probe.events_seen_after_lock, 2); /* LOCKED not delivered inside the callback */
    CHECK_EQ(rec.recursions, 0);
    /* ... but delivered after it returned, before inact_clock_advance returned */
    CHECK_EQ(recorder_count(&rec), 3);
    CHECK_TRANSITION(&rec, 2, INACT_STATE_WARNING, INACT_STATE_LOCKED, INACT_REASON_MANUAL_LOCK,
                     50000);
    /* no stale ticks of the dismissed WARNING */
    advance(engine, 20000);
    CHECK_EQ(recorder_count(&rec), 3);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

/* Unlocks then locks from inside the callback on every LOCKED, at most `budget` times. */
typedef struct ping_pong {
    int budget;
} ping_pong;
static void unlock_relock(recorder *rec, const inact_event *event) {
    ping_pong *pp = (ping_pong *)rec->hook_context;
    if (event->kind != INACT_EVENT_STATE_CHANGED || event->state != INACT_STATE_LOCKED) return;
    if (pp->budget-- <= 0) return;
    inact_unlock(event->engine);
    inact_lock(event->engine);
}

TEST(events_queued_from_callbacks_arrive_in_order) {
    recorder rec;
    ping_pong pp;
    inact_policy policy = test_policy();
    inact_engine engine;
    int i;
    recorder_init(&rec);
    pp.budget = 3;
    rec.hook = unlock_relock;
    rec.hook_context = &pp;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    REQUIRE_OK(inact_lock(engine));
    /* STARTED, LOCKED, then 3 x (UNLOCKED, LOCKED), all before inact_lock returned */
    CHECK_EQ(recorder_count(&rec), 8);
    for (i = 0; i < 3; i++) {
        CHECK_TRANSITION(&rec, 2 + 2 * i, INACT_STATE_LOCKED, INACT_STATE_ACTIVE,
                         INACT_REASON_UNLOCKED, 0);
        CHECK_TRANSITION(&rec, 3 + 2 * i, INACT_STATE_ACTIVE, INACT_STATE_LOCKED,
                         INACT_REASON_MANUAL_LOCK, 0);
    }
    CHECK_EQ(rec.recursions, 0);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&rec);
}

/* --- destroy from inside the callback -------------------------------------------- */

typedef struct destroy_probe {
    int32_t lock_status;
    int32_t destroy_status;
    int frees_inside;      /* user_data_free calls seen right after destroy, inside */
    int32_t query_status;  /* a query on the engine inside, after destroy */
} destroy_probe;

static void destroy_on_warning(recorder *rec, const inact_event *event) {
    destroy_probe *probe = (destroy_probe *)rec->hook_context;
    int32_t state = -1;
    if (event->kind != INACT_EVENT_STATE_CHANGED || event->state != INACT_STATE_WARNING) return;
    probe->lock_status = inact_lock(event->engine); /* queues LOCKED: must be dropped */
    probe->destroy_status = inact_destroy(event->engine);
    probe->frees_inside = rec->frees;
    probe->query_status = inact_get_state(event->engine, &state);
}

TEST(destroy_from_inside_the_callback_takes_effect_when_it_returns) {
    recorder rec;
    destroy_probe probe;
    inact_policy policy = test_policy();
    inact_engine engine;
    int32_t advance_status;
    int32_t state = -1;
    recorder_init(&rec);
    memset(&probe, 0, sizeof probe);
    rec.hook = destroy_on_warning;
    rec.hook_context = &probe;
    engine = make_manual_engine(&rec, &policy, INACT_DELIVERY_HOST);
    REQUIRE_OK(inact_start(engine));
    advance_status = inact_clock_advance(engine, 50000);
    CHECK(advance_status == INACT_OK || advance_status == INACT_E_INVALID_HANDLE);
    CHECK_STATUS(probe.lock_status, INACT_OK);
    CHECK_STATUS(probe.destroy_status, INACT_OK);
    CHECK_EQ(probe.frees_inside, 0);
    /* queued events were dropped, user data freed once, handle gone */
    CHECK_EQ(recorder_count(&rec), 2);
    CHECK_EQ(recorder_frees(&rec), 1);
    CHECK_STATUS(inact_get_state(engine, &state), INACT_E_INVALID_HANDLE);
    CHECK_STATUS(inact_destroy(engine), INACT_E_INVALID_HANDLE);
    CHECK_EQ(recorder_frees(&rec), 1);
    recorder_deinit(&rec);
}

static int heap_frees;
static void free_heap_recorder(void *user_data) {
    recorder *rec = (recorder *)user_data;
    heap_frees++;
    recorder_deinit(rec);
    free(rec);
}
static void destroy_self_on_start(recorder *rec, const inact_event *event) {
    (void)rec;
    if (event->state == INACT_STATE_ACTIVE) inact_destroy(event->engine);
}

TEST(destroy_from_the_callback_may_free_its_own_user_data) {
    /* The callback's user data is freed by user_data_free after the callback returns:
     * valgrind checks that the library never touches it afterwards. */
    recorder *rec = (recorder *)malloc(sizeof *rec);
    inact_engine engine = 0;
    inact_config config;
    int32_t state = -1;
    REQUIRE(rec != NULL);
    recorder_init(rec);
    rec->hook = destroy_self_on_start;
    heap_frees = 0;
    REQUIRE_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    REQUIRE_OK(inact_engine_create(&config, NULL, recorder_callback, rec, free_heap_recorder,
                                   &engine));
    CHECK_STATUS(inact_start(engine), INACT_OK);
    CHECK_EQ(heap_frees, 1);
    CHECK_STATUS(inact_get_state(engine, &state), INACT_E_INVALID_HANDLE);
}

/* Destroys another engine from inside a callback: immediate, since it is not delivering. */
static void destroy_other(recorder *rec, const inact_event *event) {
    inact_engine *other = (inact_engine *)rec->hook_context;
    if (event->state == INACT_STATE_ACTIVE && *other != 0) {
        inact_destroy(*other);
        *other = 0;
    }
}

TEST(callback_may_destroy_another_engine) {
    recorder first, second;
    inact_policy policy = test_policy();
    inact_engine engine, other, other_handle;
    int32_t state = -1;
    recorder_init(&first);
    recorder_init(&second);
    engine = make_manual_engine(&first, &policy, INACT_DELIVERY_HOST);
    other = make_manual_engine(&second, &policy, INACT_DELIVERY_HOST);
    other_handle = other;
    first.hook = destroy_other;
    first.hook_context = &other;
    REQUIRE_OK(inact_start(engine));
    CHECK_EQ(recorder_frees(&second), 1);
    CHECK_STATUS(inact_get_state(other_handle, &state), INACT_E_INVALID_HANDLE);
    REQUIRE_OK(inact_destroy(engine));
    recorder_deinit(&first);
    recorder_deinit(&second);
}
