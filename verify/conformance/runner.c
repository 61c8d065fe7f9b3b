/*
 * The C runner of the conformance suite (verify/conformance/README.md): executes op lists through
 * include/inactivity.h and prints the canonical output.
 *
 *   runner OUTDIR FILE.ops...     writes OUTDIR/FILE.out for each
 *
 * An op is interpreted from the op vocabulary: generated/ops.h (tools/generate, from the header
 * and names.toml) converts each word by its argument's kind (arg_* below), calls the function
 * and prints the result by its kind (print_* below). Only the ops with host state are written
 * here (host_ops[]). Exit 2 on bad usage or I/O.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inactivity.h"

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

/* The converters and printers by kind that generated/ops.h calls. */
static int64_t arg_i64(char **w, int i) { return strtoll(w[i], NULL, 10); }
static uint64_t arg_u64(char **w, int i) { return strtoull(w[i], NULL, 10); }
/* A NULLABLE text argument: the op line's last word, NULL when left out. */
static const char *arg_text(char **w, int n, int i) { return i < n ? w[i] : NULL; }
static void result_ok(void) { strcpy(result, "ok"); }
static void print_i64(const char *label, int64_t value) {
    size_t at = strlen(result);
    snprintf(result + at, sizeof result - at, " %s=%" PRId64, label, value);
}
static void print_u64(const char *label, uint64_t value) {
    size_t at = strlen(result);
    snprintf(result + at, sizeof result - at, " %s=%" PRIu64, label, value);
}

static void print_info(const inact_info *info) {
    const inact_info i = *info;
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
}

static void print_policy(const inact_policy *policy) {
    const inact_policy p = *policy;
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
}

#include "generated/ops.h"

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

/* The ops with host state (the engine, the snapshot, the scope and hold names) and the names ops
 * (issue 32: no header function of their own); every other op is generated_ops[]. */
static const struct {
    const char *name;
    int32_t (*run)(char **args, int count);
} host_ops[] = {
    {"launch", op_launch},       {"kill", op_kill},
    {"push-scope", op_push_scope}, {"pop-scope", op_pop_scope},
    {"hold", op_hold},           {"release", op_release},
    {"save", op_save},           {"restore", op_restore},     {"restore-corrupt", op_restore_corrupt},
    {"preset-name", op_preset_name}, {"activity-name", op_activity_name}, {"end-name", op_end_name},
    {"names", op_names},         {"closed-call", op_closed_call},
};

/* The op named `name`: a host op, else a generated one; NULL if none. */
static int32_t (*find_op(const char *name))(char **, int) {
    for (size_t i = 0; i < sizeof host_ops / sizeof host_ops[0]; i++)
        if (strcmp(host_ops[i].name, name) == 0) return host_ops[i].run;
    for (size_t i = 0; i < sizeof generated_ops / sizeof generated_ops[0]; i++)
        if (strcmp(generated_ops[i].name, name) == 0) return generated_ops[i].run;
    return NULL;
}

static void run_line(char *line) {
    char *words[MAX_WORDS];
    int n = 0;
    for (char *w = strtok(line, " "); w != NULL && n < MAX_WORDS; w = strtok(NULL, " ")) words[n++] = w;
    if (n == 0) return;
    strcpy(result, "ok");
    int32_t (*run)(char **, int) = find_op(words[0]);
    int32_t rc = INACT_OK;
    if (engine == 0 && strcmp(words[0], "launch") != 0) {
        strcpy(result, "no-engine");
    } else if (run != NULL) {
        rc = run(words + 1, n - 1);
    } else {
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
    /* A hand-written op must not also be generated: the hand case would hide the generated one. */
    for (size_t i = 0; i < sizeof host_ops / sizeof host_ops[0]; i++)
        for (size_t j = 0; j < sizeof generated_ops / sizeof generated_ops[0]; j++)
            if (strcmp(host_ops[i].name, generated_ops[j].name) == 0) {
                fprintf(stderr, "runner: hand-written op %s is generated (generated/ops.h): remove the hand case\n",
                        host_ops[i].name);
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
