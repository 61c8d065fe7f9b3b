/*
 * The C runner of the conformance suite (verify/conformance/README.md): executes op lists through
 * include/inactivity.h and prints the canonical output.
 *
 *   runner OUTDIR FILE.ops...     writes OUTDIR/FILE.out for each
 *
 * An input is one line of the ops table at the bottom. Exit 2 on bad usage or I/O.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inactivity.h"
#include "runner_ops.h"

#define MAX_WORDS 32
#define MAX_NAMES 64

typedef struct {
    char name[64];
    uint64_t id;
} named_id;

static FILE *out;
static inact_engine engine;
static uint8_t snapshot[INACT_SNAPSHOT_MAX_SIZE];
static size_t snapshot_length;
static named_id scopes[MAX_NAMES], holds[MAX_NAMES];
static char result[1024];

/* Events are written as they come (between the op's line and its result): a call may deliver
 * any number of them (a 1 ms tick over a long advance), and none may be dropped. */
static void on_event(const inact_event *e, void *user_data) {
    (void)user_data;
    fprintf(out, "event %d %d %d %d %d %" PRId64 " %" PRId64 " %" PRId64 "\n", e->kind, e->state,
            e->previous_state, e->reason, e->required_auth, e->remaining_ms, e->time_ms, e->now_ms);
}

static int64_t int_arg(char **a, int i) { return strtoll(a[i], NULL, 10); }

/* name -> id maps of the host (scope and hold names); id 0 for an unknown name. */
static uint64_t find_id(named_id *map, const char *name) {
    for (int i = 0; i < MAX_NAMES; i++)
        if (map[i].id != 0 && strcmp(map[i].name, name) == 0) return map[i].id;
    return 0;
}
static void set_id(named_id *map, const char *name, uint64_t id) {
    for (int i = 0; i < MAX_NAMES; i++) {
        if (map[i].id != 0 && strcmp(map[i].name, name) == 0) { map[i].id = id; return; }
    }
    if (id == 0) return;
    for (int i = 0; i < MAX_NAMES; i++) {
        if (map[i].id == 0) {
            snprintf(map[i].name, sizeof map[i].name, "%s", name);
            map[i].id = id;
            return;
        }
    }
}

/* `name=value` policy fields; each field is one line. */
static int32_t parse_policy(char **a, int n, inact_policy *p) {
    inact_policy_init(p);
    for (int i = 0; i < n; i++) {
        char *eq = strchr(a[i], '=');
        if (eq == NULL) return INACT_E_INVALID_ARGUMENT;
        *eq = '\0';
        const char *k = a[i];
        int64_t v = strtoll(eq + 1, NULL, 10);
        if (!strcmp(k, "idle_action")) p->idle_action = (int32_t)v;
        else if (!strcmp(k, "idle_timeout_ms")) p->idle_timeout_ms = v;
        else if (!strcmp(k, "warning_ms")) p->warning_ms = v;
        else if (!strcmp(k, "background_timeout_ms")) p->background_timeout_ms = v;
        else if (!strcmp(k, "absolute_timeout_ms")) p->absolute_timeout_ms = v;
        else if (!strcmp(k, "locked_timeout_ms")) p->locked_timeout_ms = v;
        else if (!strcmp(k, "max_unlock_failures")) p->max_unlock_failures = (uint32_t)v;
        else if (!strcmp(k, "tick_ms")) p->tick_ms = v;
        else if (!strcmp(k, "background_grace_ms")) p->background_grace_ms = v;
        else if (!strcmp(k, "activity_kinds")) p->activity_kinds = (uint32_t)v;
        else if (!strcmp(k, "activity_dismisses_warning")) p->activity_dismisses_warning = (int32_t)v;
        else if (!strcmp(k, "pause_idle_in_background")) p->pause_idle_in_background = (int32_t)v;
        else if (!strcmp(k, "lock_on_device_lock")) p->lock_on_device_lock = (int32_t)v;
        else if (!strcmp(k, "lock_on_restart")) p->lock_on_restart = (int32_t)v;
        else if (!strcmp(k, "strong_auth_timeout_ms")) p->strong_auth_timeout_ms = v;
        else if (!strcmp(k, "expected_interruption_max_ms")) p->expected_interruption_max_ms = v;
        else if (!strcmp(k, "offline_timeout_ms")) p->offline_timeout_ms = v;
        else if (!strcmp(k, "offline_expiry_ms")) p->offline_expiry_ms = v;
        else if (!strcmp(k, "keepalive_interval_ms")) p->keepalive_interval_ms = v;
        else return INACT_E_INVALID_ARGUMENT;
    }
    return INACT_OK;
}

/* `name=value` ceiling fields. */
static int32_t parse_ceilings(char **a, int n, inact_ceilings *c) {
    inact_ceilings_init(c);
    for (int i = 0; i < n; i++) {
        char *eq = strchr(a[i], '=');
        if (eq == NULL) return INACT_E_INVALID_ARGUMENT;
        *eq = '\0';
        const char *k = a[i];
        int64_t v = strtoll(eq + 1, NULL, 10);
        if (!strcmp(k, "max_unlock_failures")) c->max_unlock_failures = (uint32_t)v;
        else if (!strcmp(k, "idle_timeout_ms")) c->idle_timeout_ms = v;
        else if (!strcmp(k, "background_timeout_ms")) c->background_timeout_ms = v;
        else if (!strcmp(k, "absolute_timeout_ms")) c->absolute_timeout_ms = v;
        else if (!strcmp(k, "locked_timeout_ms")) c->locked_timeout_ms = v;
        else if (!strcmp(k, "strong_auth_timeout_ms")) c->strong_auth_timeout_ms = v;
        else if (!strcmp(k, "expected_interruption_max_ms")) c->expected_interruption_max_ms = v;
        else if (!strcmp(k, "offline_timeout_ms")) c->offline_timeout_ms = v;
        else if (!strcmp(k, "offline_expiry_ms")) c->offline_expiry_ms = v;
        else if (!strcmp(k, "lock_on_device_lock")) c->lock_on_device_lock = (int32_t)v;
        else if (!strcmp(k, "lock_on_restart")) c->lock_on_restart = (int32_t)v;
        else return INACT_E_INVALID_ARGUMENT;
    }
    return INACT_OK;
}

static int32_t op_set_ceilings(char **a, int n) {
    inact_ceilings ceilings;
    int32_t rc = parse_ceilings(a, n, &ceilings);
    return rc != INACT_OK ? rc : inact_set_ceilings(engine, &ceilings);
}

static int32_t op_launch(char **a, int n) {
    inact_config config;
    inact_policy policy;
    inact_config_init(&config);
    config.clock = INACT_CLOCK_MANUAL;
    config.manual_start_ms = int_arg(a, 0);
    config.manual_wall_ms = int_arg(a, 1);
    config.manual_boot_id = strtoull(a[2], NULL, 10);
    int32_t rc = parse_policy(a + 3, n - 3, &policy);
    if (rc != INACT_OK) return rc;
    return inact_engine_create(&config, &policy, on_event, NULL, NULL, &engine);
}

static int32_t op_kill(char **a, int n) {
    (void)a; (void)n;
    int32_t rc = inact_destroy(engine);
    engine = 0;
    memset(scopes, 0, sizeof scopes);
    memset(holds, 0, sizeof holds);
    return rc;
}

/* An op whose call writes one integer result: `ok LABEL=VALUE`. */
#define RESULT_OP(fn, type, label, fmt, call)                                          \
    static int32_t fn(char **a, int n) {                                              \
        (void)a; (void)n;                                                             \
        type value = 0;                                                               \
        int32_t rc = call;                                                            \
        snprintf(result, sizeof result, "ok " label "=%" fmt, value);                 \
        return rc;                                                                    \
    }
RESULT_OP(op_unlock_failed, uint32_t, "failures", PRIu32,
          inact_unlock_failed_with(engine, (int32_t)int_arg(a, 0), &value))
RESULT_OP(op_refresh, int32_t, "outcome", PRId32,
          inact_refresh_result_gen(engine, (int32_t)int_arg(a, 0), n > 2 ? a[2] : NULL,
                                   strtoull(a[1], NULL, 10), &value))
RESULT_OP(op_next_deadline, int64_t, "delay", PRId64, inact_next_deadline(engine, &value))

static int32_t op_push_scope(char **a, int n) {
    (void)n;
    uint64_t id = 0;
    int32_t rc = inact_scope_push(engine, int_arg(a, 1), &id);
    if (rc == INACT_OK) set_id(scopes, a[0], id);
    snprintf(result, sizeof result, "ok id=%" PRIu64, id);
    return rc;
}

static int32_t op_pop_scope(char **a, int n) {
    (void)n;
    int32_t rc = inact_scope_pop(engine, find_id(scopes, a[0]));
    if (rc == INACT_OK) set_id(scopes, a[0], 0);
    return rc;
}

static int32_t op_hold(char **a, int n) {
    (void)n;
    uint64_t id = 0;
    int32_t rc = inact_hold_acquire(engine, &id);
    if (rc == INACT_OK) set_id(holds, a[0], id);
    snprintf(result, sizeof result, "ok id=%" PRIu64, id);
    return rc;
}

static int32_t op_release(char **a, int n) {
    (void)n;
    int32_t rc = inact_hold_release(engine, find_id(holds, a[0]));
    if (rc == INACT_OK) set_id(holds, a[0], 0);
    return rc;
}

static int32_t op_set_policy(char **a, int n) {
    inact_policy policy;
    int32_t rc = parse_policy(a, n, &policy);
    return rc != INACT_OK ? rc : inact_set_policy(engine, &policy);
}

static int32_t op_save(char **a, int n) {
    (void)a; (void)n;
    size_t written = 0;
    int32_t rc = inact_snapshot_write(engine, snapshot, sizeof snapshot, &written);
    if (rc != INACT_OK) return rc;
    snapshot_length = written;
    int at = snprintf(result, sizeof result, "ok snapshot=");
    for (size_t i = 0; i < written; i++) at += snprintf(result + at, sizeof result - (size_t)at, "%02x", snapshot[i]);
    return rc;
}

static int32_t restore(int corrupt) {
    uint8_t bytes[INACT_SNAPSHOT_MAX_SIZE];
    memcpy(bytes, snapshot, snapshot_length);
    if (corrupt && snapshot_length > 0) bytes[snapshot_length / 2] ^= 0x5A;
    return inact_restore(engine, bytes, snapshot_length);
}
static int32_t op_restore(char **a, int n) { (void)a; (void)n; return restore(0); }
static int32_t op_restore_corrupt(char **a, int n) { (void)a; (void)n; return restore(1); }

static int32_t op_info(char **a, int n) {
    (void)a; (void)n;
    inact_info i;
    memset(&i, 0, sizeof i);
    i.size = sizeof i;
    int32_t rc = inact_get_info(engine, &i);
    snprintf(result, sizeof result,
             "ok state=%d reason=%d background=%d windows=%d scopes=%d holds=%d failures=%" PRIu32
             " now=%" PRId64 " remaining=%" PRId64 " next=%" PRId64 " idle=%" PRId64 " started=%" PRId64
             " activity=%" PRId64 " background_since=%" PRId64 " locked=%" PRId64
             " auth=%d needs_contact=%d credential=%" PRId64 " strong_auth=%" PRId64 " contact=%" PRId64
             " generation=%" PRIu64 " interruption=%" PRId64,
             i.state, i.reason, i.in_background, i.visible_windows, i.open_scopes, i.open_holds,
             i.unlock_failures, i.now_ms, i.remaining_ms, i.next_deadline_ms, i.effective_idle_timeout_ms,
             i.started_at_ms, i.last_activity_ms, i.background_since_ms, i.locked_at_ms,
             i.required_auth, i.needs_server_contact, i.last_credential_ms, i.strong_auth_deadline_ms,
             i.last_server_contact_ms, i.token_generation, i.interruption_until_ms);
    return rc;
}

static int32_t op_policy(char **a, int n) {
    (void)a; (void)n;
    inact_policy p;
    memset(&p, 0, sizeof p);
    p.size = sizeof p;
    int32_t rc = inact_get_policy(engine, &p);
    snprintf(result, sizeof result,
             "ok idle_action=%d idle_timeout_ms=%" PRId64 " warning_ms=%" PRId64 " background_timeout_ms=%" PRId64
             " absolute_timeout_ms=%" PRId64 " locked_timeout_ms=%" PRId64 " max_unlock_failures=%" PRIu32
             " tick_ms=%" PRId64 " background_grace_ms=%" PRId64 " activity_kinds=%" PRIu32
             " activity_dismisses_warning=%d pause_idle_in_background=%d lock_on_device_lock=%d"
             " lock_on_restart=%d strong_auth_timeout_ms=%" PRId64 " expected_interruption_max_ms=%" PRId64
             " offline_timeout_ms=%" PRId64 " offline_expiry_ms=%" PRId64 " keepalive_interval_ms=%" PRId64,
             p.idle_action, p.idle_timeout_ms, p.warning_ms, p.background_timeout_ms, p.absolute_timeout_ms,
             p.locked_timeout_ms, p.max_unlock_failures, p.tick_ms, p.background_grace_ms, p.activity_kinds,
             p.activity_dismisses_warning, p.pause_idle_in_background, p.lock_on_device_lock,
             p.lock_on_restart, p.strong_auth_timeout_ms, p.expected_interruption_max_ms,
             p.offline_timeout_ms, p.offline_expiry_ms, p.keepalive_interval_ms);
    return rc;
}

static int32_t op_clock(char **a, int n) {
    (void)a; (void)n;
    int64_t monotonic = 0, wall = 0;
    uint64_t boot = 0;
    int32_t rc = inact_clock_now(engine, &monotonic, &wall, &boot);
    snprintf(result, sizeof result, "ok monotonic=%" PRId64 " wall=%" PRId64 " boot=%" PRIu64, monotonic, wall, boot);
    return rc;
}

/* Names (issue 32): read by the library (inact_*_from_string), then the call; the same bad
 * name gives the same message through every binding. */
static int32_t op_preset_name(char **a, int n) {
    (void)n;
    int32_t preset = 0;
    inact_policy p;
    int32_t rc = inact_preset_from_string(a[0], &preset);
    if (rc == INACT_OK) rc = inact_policy_preset(&p, preset);
    if (rc == INACT_OK) snprintf(result, sizeof result, "ok idle_timeout_ms=%" PRId64, p.idle_timeout_ms);
    return rc;
}
static int32_t op_activity_name(char **a, int n) {
    (void)n;
    uint32_t kind = 0;
    int32_t rc = inact_activity_kind_from_string(a[0], &kind);
    return rc != INACT_OK ? rc : inact_activity(engine, kind);
}
static int32_t op_end_name(char **a, int n) {
    (void)n;
    int32_t reason = 0;
    int32_t rc = inact_reason_from_string(a[0], &reason);
    return rc != INACT_OK ? rc : inact_end(engine, reason);
}
static int32_t op_names(char **a, int n) {
    (void)a; (void)n;
    int32_t state = 0, reason = 0;
    int32_t rc = inact_get_state(engine, &state);
    if (rc == INACT_OK) rc = inact_get_reason(engine, &reason);
    snprintf(result, sizeof result, "ok state=%s reason=%s", inact_state_string(state), inact_reason_string(reason));
    return rc;
}
/* A call on a closed engine: destroyed, then called with its handle (the others' close()). */
static int32_t op_closed_call(char **a, int n) {
    inact_engine closed = engine;
    op_kill(a, n);
    return inact_lock(closed);
}

/* The inputs that are one C call each: one line per input (name, call; `a` holds the words
 * after the name). The ops with results or host state are the functions above. The inputs
 * that take the engine alone are GENERATED_OPS (runner_ops.h, from the header), tried after
 * these. */
#define SIMPLE_OPS(X)                                                   \
    X("unlock", inact_unlock_with(engine, (int32_t)int_arg(a, 0)))      \
    X("token-rotated", inact_token_rotated(engine, strtoull(a[0], NULL, 10))) \
    X("expect-interruption", inact_expect_interruption(engine, int_arg(a, 0))) \
    X("advance", inact_clock_advance(engine, int_arg(a, 0)))            \
    X("freeze", inact_clock_freeze(engine, int_arg(a, 0)))              \
    X("wall-jump", inact_clock_jump_wall(engine, int_arg(a, 0)))        \
    X("activity", inact_activity(engine, (uint32_t)strtoul(a[0], NULL, 10))) \
    X("end", inact_end(engine, (int32_t)int_arg(a, 0)))                 \
    X("holder-report", inact_holder_report(engine, (int32_t)int_arg(a, 0), (int32_t)int_arg(a, 1), int_arg(a, 2))) \
    X("poll", inact_poll(engine))

static int32_t simple_op(const char *name, char **a) {
#define RUN_IF(op, call) if (strcmp(name, op) == 0) return call;
    SIMPLE_OPS(RUN_IF)
    GENERATED_OPS(RUN_IF)
#undef RUN_IF
    return INT32_MIN; /* not a simple op */
}

static const struct {
    const char *name;
    int32_t (*run)(char **args, int count);
} ops[] = {
    {"launch", op_launch},       {"kill", op_kill},
    {"unlock-failed", op_unlock_failed},
    {"refresh", op_refresh},
    {"push-scope", op_push_scope}, {"pop-scope", op_pop_scope},
    {"hold", op_hold},           {"release", op_release},
    {"set-policy", op_set_policy}, {"set-ceilings", op_set_ceilings}, {"save", op_save},
    {"restore", op_restore},     {"restore-corrupt", op_restore_corrupt},
    {"info", op_info},           {"policy", op_policy},
    {"next-deadline", op_next_deadline}, {"clock", op_clock},
    {"preset-name", op_preset_name}, {"activity-name", op_activity_name}, {"end-name", op_end_name},
    {"names", op_names},         {"closed-call", op_closed_call},
};

static void run_line(char *line) {
    char *words[MAX_WORDS];
    int n = 0;
    for (char *w = strtok(line, " "); w != NULL && n < MAX_WORDS; w = strtok(NULL, " ")) words[n++] = w;
    if (n == 0) return;
    strcpy(result, "ok");
    size_t i = 0;
    while (i < sizeof ops / sizeof ops[0] && strcmp(ops[i].name, words[0]) != 0) i++;
    int32_t rc = INACT_OK;
    if (engine == 0 && strcmp(words[0], "launch") != 0) {
        strcpy(result, "no-engine");
    } else if (i < sizeof ops / sizeof ops[0]) {
        rc = ops[i].run(words + 1, n - 1);
    } else if ((rc = simple_op(words[0], words + 1)) == INT32_MIN) {
        rc = INACT_OK;
        strcpy(result, "unknown-op");
    }
    if (rc != INACT_OK) snprintf(result, sizeof result, "error %d %s", rc, inact_last_error());
    fprintf(out, "= %s\n", result);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: runner OUTDIR FILE.ops...\n");
        return 2;
    }
    for (int f = 2; f < argc; f++) {
        FILE *in = fopen(argv[f], "r");
        const char *base = strrchr(argv[f], '/');
        base = base ? base + 1 : argv[f];
        char path[4096];
        snprintf(path, sizeof path, "%s/%.*s.out", argv[1], (int)(strcspn(base, ".")), base);
        out = in ? fopen(path, "w") : NULL;
        if (in == NULL || out == NULL) {
            fprintf(stderr, "runner: cannot read %s or write %s\n", argv[f], path);
            return 2;
        }
        char line[8192];
        while (fgets(line, sizeof line, in)) {
            line[strcspn(line, "\n")] = '\0';
            if (line[0] == '\0' || line[0] == '#') continue;
            fprintf(out, "> %s\n", line);
            run_line(line);
        }
        if (engine != 0) op_kill(NULL, 0);
        snapshot_length = 0;
        fclose(in);
        fclose(out);
    }
    return 0;
}
