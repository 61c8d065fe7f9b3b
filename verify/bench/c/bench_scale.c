/*
 * bench_scale.c -- many engines: memory and create/destroy rate, scheduler wake-ups, lateness.
 * Each mode runs in its own process (scripts/bench runs them), so that one mode's allocations,
 * slots and scheduler thread do not colour another's figures. Prints one JSON object.
 *
 *   bench_scale memory   [engines=1000000]
 *       HOST delivery, SYSTEM clock (no thread), default policy, started (ACTIVE). Resident
 *       memory per engine from /proc/self/statm before and after; create, start and destroy
 *       rates.
 *
 *   bench_scale wakeups  [engines=100000] [seconds=3]
 *       THREAD delivery, SYSTEM clock. The scheduler thread (named "inactivity") is found in
 *       /proc/self/task and its wake-ups are its voluntary context switches (it sleeps in
 *       poll() on a timerfd; each return from that sleep is one switch).
 *       Phase "nothing_due": the default policy (15 min idle), activity sent round-robin to
 *       every engine for `seconds`, then `seconds` with no calls at all: 0 wake-ups expected.
 *       Phase "moving_deadlines": a fresh set of engines with a 2 s idle timeout (no warning,
 *       no ticks) and activity round-robin for `seconds` (more than one idle period): armed
 *       wake-ups fall due, find that activity moved the deadline, and re-arm once. Reported:
 *       wake-ups per second against activity calls per second (what a timer re-armed per
 *       event would cost), and that no engine changed state.
 *
 *   bench_scale lateness [engines=10000] [spread_ms=2000]
 *       THREAD delivery, SYSTEM clock, idle timeouts spread over spread_ms (1 s + i * spread/N),
 *       no warning, no ticks. Each engine locks once; the callback (on the scheduler thread)
 *       records CLOCK_BOOTTIME at arrival. Lateness = arrival - event->time_ms; never early
 *       means time_ms equals the deadline (last activity + idle timeout) and arrival >= it.
 *       spread_ms = 0 puts every deadline at the same instant (a burst).
 */
#include "bench_common.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static inact_engine *handles;

static inact_policy default_policy(void) {
    inact_policy p;
    CHECK_OK(inact_policy_init(&p));
    return p;
}

static inact_config config_for(int32_t delivery) {
    inact_config c;
    CHECK_OK(inact_config_init(&c));
    c.delivery = delivery;
    c.clock = INACT_CLOCK_SYSTEM;
    return c;
}

static void alloc_handles(long n) {
    handles = calloc((size_t)n, sizeof *handles);
    CHECK(handles != NULL, "out of memory");
    /* Resident before the first reading, so that the per-engine figure counts only the
     * library's memory. A memset would not do: the compiler drops a memset of zeros after calloc
     * (it did, and the array's 8 B per engine were counted as the engine's). A volatile write per
     * page faults each one in. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = (size_t)n * sizeof *handles;
    for (size_t off = 0; off < bytes; off += page) ((volatile char *)handles)[off] = 0;
}

/* ---- memory ----------------------------------------------------------------------------- */

static int mode_memory(long n) {
    alloc_handles(n);
    inact_config config = config_for(INACT_DELIVERY_HOST);
    inact_policy policy = default_policy();
    /* Warm the library's one-time state (registry, clock statics) before the first reading. */
    inact_engine warm;
    CHECK_OK(inact_engine_create(&config, &policy, NULL, NULL, NULL, &warm));
    CHECK_OK(inact_start(warm));
    CHECK_OK(inact_destroy(warm));

    long rss0 = rss_bytes();
    int64_t t0 = now_ns();
    for (long i = 0; i < n; i++) CHECK_OK(inact_engine_create(&config, &policy, NULL, NULL, NULL, &handles[i]));
    int64_t t1 = now_ns();
    long rss_created = rss_bytes();
    for (long i = 0; i < n; i++) CHECK_OK(inact_start(handles[i]));
    int64_t t2 = now_ns();
    long rss_started = rss_bytes();

    for (long i = 0; i < n; i += n / 16 + 1) {
        int32_t state;
        CHECK_OK(inact_get_state(handles[i], &state));
        CHECK(state == INACT_STATE_ACTIVE, "engine %ld is in state %d, not ACTIVE", i, state);
    }

    int64_t t3 = now_ns();
    for (long i = 0; i < n; i++) CHECK_OK(inact_destroy(handles[i]));
    int64_t t4 = now_ns();
    long rss_destroyed = rss_bytes();
    /* A destroyed handle is dead. */
    int32_t state;
    CHECK(inact_get_state(handles[0], &state) == INACT_E_INVALID_HANDLE, "a destroyed handle still works");

    printf("{\"mode\": \"memory\", \"engines\": %ld, \"rss_before_bytes\": %ld, \"rss_created_bytes\": %ld, "
           "\"rss_started_bytes\": %ld, \"rss_destroyed_bytes\": %ld,\n"
           " \"bytes_per_engine_created\": %.1f, \"bytes_per_engine\": %.1f,\n"
           " \"create_per_s\": %.0f, \"start_per_s\": %.0f, \"destroy_per_s\": %.0f}\n",
           n, rss0, rss_created, rss_started, rss_destroyed, (double)(rss_created - rss0) / (double)n,
           (double)(rss_started - rss0) / (double)n, (double)n / ((double)(t1 - t0) / 1e9),
           (double)n / ((double)(t2 - t1) / 1e9), (double)n / ((double)(t4 - t3) / 1e9));
    return 0;
}

/* ---- the scheduler thread --------------------------------------------------------------- */

static pid_t scheduler_tid(void) {
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL, "cannot open /proc/self/task");
    pid_t found = 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[300], name[64] = {0};
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(name, sizeof name, f) && strncmp(name, "inactivity\n", 11) == 0) {
            found = (pid_t)atoi(e->d_name);
            count++;
        }
        fclose(f);
    }
    closedir(d);
    CHECK(count == 1, "expected one thread named 'inactivity', found %d", count);
    return found;
}

struct thread_counters {
    long voluntary, involuntary;
    double cpu_s;
};

static struct thread_counters read_counters(pid_t tid) {
    char path[128];
    snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
    struct thread_counters c;
    c.voluntary = proc_status_field(path, "voluntary_ctxt_switches");
    c.involuntary = proc_status_field(path, "nonvoluntary_ctxt_switches");
    CHECK(c.voluntary >= 0 && c.involuntary >= 0, "cannot read %s", path);
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    char buf[1024];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = 0;
    char *p = strrchr(buf, ')'); /* fields after the command name */
    CHECK(p != NULL, "cannot parse %s", path);
    unsigned long utime = 0, stime = 0;
    /* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
    CHECK(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) == 2,
          "cannot parse %s", path);
    c.cpu_s = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
    return c;
}

static atomic_long state_changes_after_start;

static void count_changes(const inact_event *event, void *user_data) {
    (void)user_data;
    if (event->kind == INACT_EVENT_STATE_CHANGED && event->state != INACT_STATE_ACTIVE)
        atomic_fetch_add_explicit(&state_changes_after_start, 1, memory_order_relaxed);
}

/* Activity round-robin over handles[from, from+n) for `seconds`; returns the number of calls. */
static long activity_for(long from, long n, double seconds) {
    long calls = 0;
    int64_t end = now_ns() + (int64_t)(seconds * 1e9);
    while (now_ns() < end) {
        for (long i = from; i < from + n; i++) {
            if (inact_activity(handles[i], INACT_ACTIVITY_TOUCH_DOWN) != INACT_OK) die("inact_activity failed");
        }
        calls += n;
    }
    return calls;
}

static void sleep_s(double seconds) {
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int mode_wakeups(long n, double seconds) {
    alloc_handles(2 * n);
    inact_config config = config_for(INACT_DELIVERY_THREAD);
    inact_policy quiet = default_policy(); /* 15 min idle: nothing is due for 14.5 min */
    for (long i = 0; i < n; i++) {
        CHECK_OK(inact_engine_create(&config, &quiet, count_changes, NULL, NULL, &handles[i]));
        CHECK_OK(inact_start(handles[i]));
    }
    pid_t tid = scheduler_tid();
    sleep_s(0.2); /* let the thread settle after the arms of creation */

    struct thread_counters a = read_counters(tid);
    long calls_quiet = activity_for(0, n, seconds);
    struct thread_counters b = read_counters(tid);
    sleep_s(seconds);
    struct thread_counters c = read_counters(tid);
    CHECK(atomic_load(&state_changes_after_start) == 0, "an engine changed state in the quiet phase");

    /* Moving deadlines: a 2 s idle timeout that activity keeps pushing back. */
    inact_policy moving = default_policy();
    moving.idle_timeout_ms = 2000;
    moving.warning_ms = 0;
    moving.tick_ms = 0;
    for (long i = n; i < 2 * n; i++) {
        CHECK_OK(inact_engine_create(&config, &moving, count_changes, NULL, NULL, &handles[i]));
        CHECK_OK(inact_start(handles[i]));
    }
    for (long i = 0; i < n; i++) CHECK_OK(inact_destroy(handles[i])); /* the thread lives on */
    CHECK(scheduler_tid() == tid, "the scheduler thread was replaced");
    double moving_seconds = seconds < 2.5 ? 2.5 : seconds; /* more than one idle period */
    struct thread_counters d = read_counters(tid);
    long calls_moving = activity_for(n, n, moving_seconds);
    struct thread_counters e = read_counters(tid);
    long changes = atomic_load(&state_changes_after_start);
    CHECK(changes == 0, "%ld engines changed state although activity kept them ACTIVE", changes);
    for (long i = n; i < 2 * n; i++) CHECK_OK(inact_destroy(handles[i]));

    printf("{\"mode\": \"wakeups\", \"engines\": %ld, \"seconds\": %.1f,\n"
           " \"nothing_due\": {\"activity_calls\": %ld, \"activity_calls_per_s\": %.0f,"
           " \"wakeups_during_activity\": %ld, \"wakeups_while_idle\": %ld, \"involuntary\": %ld,"
           " \"scheduler_cpu_s\": %.2f},\n"
           " \"moving_deadlines\": {\"idle_timeout_ms\": 2000, \"seconds\": %.1f, \"activity_calls\": %ld,"
           " \"activity_calls_per_s\": %.0f, \"wakeups\": %ld, \"wakeups_per_s\": %.1f, \"involuntary\": %ld,"
           " \"scheduler_cpu_s\": %.2f, \"state_changes\": %ld}}\n",
           n, seconds, calls_quiet, (double)calls_quiet / seconds, b.voluntary - a.voluntary,
           c.voluntary - b.voluntary, (c.involuntary - a.involuntary), c.cpu_s - a.cpu_s, moving_seconds,
           calls_moving, (double)calls_moving / moving_seconds, e.voluntary - d.voluntary,
           (double)(e.voluntary - d.voluntary) / moving_seconds, e.involuntary - d.involuntary,
           e.cpu_s - d.cpu_s, changes);
    return 0;
}

/* ---- lateness --------------------------------------------------------------------------- */

static int64_t *arrival_ns, *event_time_ms, *event_now_ms;
static int32_t *event_reason;
static atomic_long delivered, unexpected_events;

static void record_lock(const inact_event *event, void *user_data) {
    int64_t arrival = boottime_ns();
    long i = (long)(intptr_t)user_data;
    if (event->kind != INACT_EVENT_STATE_CHANGED || event->state != INACT_STATE_LOCKED ||
        event_time_ms[i] != 0) {
        if (!(event->kind == INACT_EVENT_STATE_CHANGED && event->state == INACT_STATE_ACTIVE))
            atomic_fetch_add_explicit(&unexpected_events, 1, memory_order_relaxed);
        return;
    }
    arrival_ns[i] = arrival;
    event_time_ms[i] = event->time_ms;
    event_now_ms[i] = event->now_ms;
    event_reason[i] = event->reason;
    atomic_fetch_add_explicit(&delivered, 1, memory_order_release);
}

static int mode_lateness(long n, long spread_ms) {
    alloc_handles(n);
    arrival_ns = calloc((size_t)n, sizeof *arrival_ns);
    event_time_ms = calloc((size_t)n, sizeof *event_time_ms);
    event_now_ms = calloc((size_t)n, sizeof *event_now_ms);
    event_reason = calloc((size_t)n, sizeof *event_reason);
    int64_t *deadline_ms = calloc((size_t)n, sizeof *deadline_ms);
    CHECK(arrival_ns && event_time_ms && event_now_ms && event_reason && deadline_ms, "out of memory");

    inact_config config = config_for(INACT_DELIVERY_THREAD);
    int64_t base_idle_ms = 1000;
    /* With spread 0 every engine has the same timeout; their deadlines then fall inside the
     * window in which they were started (start_window_ms, a few ms): a burst. Each engine's
     * deadline is read back from the engine itself below. */
    for (long i = 0; i < n; i++) {
        inact_policy p = default_policy();
        p.idle_timeout_ms = base_idle_ms + (spread_ms > 0 ? (int64_t)((double)i * (double)spread_ms / (double)n) : 0);
        p.warning_ms = 0;
        p.tick_ms = 0;
        CHECK_OK(inact_engine_create(&config, &p, record_lock, (void *)(intptr_t)i, NULL, &handles[i]));
    }
    int64_t start_ms = boottime_ns() / 1000000;
    for (long i = 0; i < n; i++) CHECK_OK(inact_start(handles[i]));
    int64_t started_by_ms = boottime_ns() / 1000000;
    for (long i = 0; i < n; i++) {
        inact_info info;
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        CHECK_OK(inact_get_info(handles[i], &info));
        CHECK(info.state == INACT_STATE_ACTIVE, "engine %ld not ACTIVE after start", i);
        deadline_ms[i] = info.last_activity_ms + info.effective_idle_timeout_ms;
    }
    int64_t wait_until = boottime_ns() + (base_idle_ms + spread_ms + 10000) * 1000000LL;
    while (atomic_load_explicit(&delivered, memory_order_acquire) < n && boottime_ns() < wait_until) sleep_s(0.02);
    long got = atomic_load(&delivered);
    CHECK(got == n, "only %ld of %ld engines locked within 10 s of their deadline", got, n);

    double *late = malloc(sizeof(double) * (size_t)n);
    CHECK(late != NULL, "out of memory");
    long early = 0, wrong_time = 0, wrong_reason = 0;
    for (long i = 0; i < n; i++) {
        late[i] = (double)(arrival_ns[i] - event_time_ms[i] * 1000000) / 1e6;
        if (arrival_ns[i] < deadline_ms[i] * 1000000 || event_now_ms[i] < deadline_ms[i]) early++;
        if (event_time_ms[i] != deadline_ms[i]) wrong_time++;
        if (event_reason[i] != INACT_REASON_IDLE_TIMEOUT) wrong_reason++;
    }
    qsort(late, (size_t)n, sizeof(double), cmp_double);
    for (long i = 0; i < n; i++) CHECK_OK(inact_destroy(handles[i]));

    printf("{\"mode\": \"lateness\", \"engines\": %ld, \"spread_ms\": %ld, \"start_window_ms\": %" PRId64 ",\n"
           " \"lateness_ms\": {\"min\": %.3f, \"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"max\": %.3f},\n"
           " \"early\": %ld, \"event_time_not_deadline\": %ld, \"wrong_reason\": %ld, \"unexpected_events\": %ld}\n",
           n, spread_ms, started_by_ms - start_ms, late[0], percentile_sorted(late, (int)n, 50),
           percentile_sorted(late, (int)n, 90), percentile_sorted(late, (int)n, 99), late[n - 1], early, wrong_time,
           wrong_reason, atomic_load(&unexpected_events));
    CHECK(early == 0 && wrong_time == 0 && wrong_reason == 0, "transitions early or at the wrong time (see above)");
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    CHECK(inact_version_number() == INACT_VERSION_NUMBER, "library and header versions differ");
    if (strcmp(mode, "memory") == 0) return mode_memory(argc > 2 ? atol(argv[2]) : 1000000);
    if (strcmp(mode, "wakeups") == 0)
        return mode_wakeups(argc > 2 ? atol(argv[2]) : 100000, argc > 3 ? atof(argv[3]) : 3);
    if (strcmp(mode, "lateness") == 0)
        return mode_lateness(argc > 2 ? atol(argv[2]) : 10000, argc > 3 ? atol(argv[3]) : 2000);
    fprintf(stderr, "usage: bench_scale memory [engines] | wakeups [engines] [seconds] | lateness [engines] [spread_ms]\n");
    return 2;
}
