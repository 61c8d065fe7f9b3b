/*
 * bench_server.c -- what a server's decision costs (inact_server_decide), against its floors,
 * in the same process, the runs interleaved.
 *
 *   decide_read        MACHINE over a stored ACTIVE record: the read path (nothing written);
 *   decide_coalesced   REQUEST within the precision of the stored activity: nothing written;
 *   decide_write       REQUEST 1 ms after the stored activity, precision 0: a record written;
 *   prepared_*         the same three through inact_server_decide_prepared, the policy prepared
 *                      once (inact_server_policy_prepare): what validating and converting the
 *                      policy on every call costs is the difference;
 *   floor_checksum     the least any checked 96-byte record costs: its FNV-1a checksum verified,
 *                      the bytes copied out and the checksum written again (plain C);
 *   engine_restore     the other way a server could decide: an engine per request (created on
 *                      a manual clock, the snapshot restored, a snapshot written, destroyed).
 *
 * Each figure is the median over runs of the CPU ns per call (the thread's CPU time over the
 * calls: one thread, and on a loaded machine its wall time would count the other processes).
 * A run stops when a decision is not what the benchmark measures (the read path writing, the
 * write path not).
 *
 * Usage: bench_server [runs=15] [calls=200000] -- prints one JSON object on stdout.
 */
#include "bench_common.h"

#define T0 1700000000000LL

static inact_policy policy;
static uint8_t prepared[INACT_SERVER_POLICY_SIZE];
static uint8_t record[INACT_SNAPSHOT_MAX_SIZE];
static uint8_t device_snapshot[INACT_SNAPSHOT_MAX_SIZE];
static size_t device_length;
static int64_t device_mono, device_wall;
static uint64_t device_boot;
static volatile uint64_t sink;

static double per_call(int64_t ns, long calls) { return (double)ns / (double)calls; }

/* This thread's CPU time, ns. */
static int64_t cpu_ns(void) { return bench_ns(CLOCK_THREAD_CPUTIME_ID); }

static double run_decide(long calls, int use_prepared, int32_t input, int64_t now, int64_t precision, int expect_write) {
    inact_decision d;
    uint8_t out[INACT_SNAPSHOT_MAX_SIZE];
    size_t length = 0;
    CHECK_OK(inact_decision_init(&d));
    int64_t t0 = cpu_ns();
    if (use_prepared) {
        for (long i = 0; i < calls; i++) {
            CHECK_OK(inact_server_decide_prepared(prepared, record, sizeof record, now, input, 0, precision, &d, out, sizeof out,
                                                  &length));
        }
    } else {
        for (long i = 0; i < calls; i++) {
            CHECK_OK(inact_server_decide(&policy, record, sizeof record, now, input, 0, precision, &d, out, sizeof out, &length));
        }
    }
    int64_t t1 = cpu_ns();
    CHECK(d.state == INACT_STATE_ACTIVE, "the session left ACTIVE (state %d)", d.state);
    CHECK(d.write == expect_write, "write is %d, the benchmark measures %d", d.write, expect_write);
    sink += length;
    return per_call(t1 - t0, calls);
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static double run_checksum(long calls) {
    uint8_t out[INACT_SNAPSHOT_MAX_SIZE];
    int64_t t0 = cpu_ns();
    for (long i = 0; i < calls; i++) {
        uint64_t stored;
        memcpy(&stored, record + 88, 8);
        CHECK(fnv1a(record, 88) == stored, "the record's checksum does not match");
        memcpy(out, record, sizeof out);
        out[48] ^= (uint8_t)i; /* a new instant, as a write has */
        uint64_t h = fnv1a(out, 88);
        memcpy(out + 88, &h, 8);
        sink += out[90];
    }
    return per_call(cpu_ns() - t0, calls);
}

static double run_engine(long calls) {
    inact_config config;
    uint8_t out[INACT_SNAPSHOT_MAX_SIZE];
    size_t length = 0;
    CHECK_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    config.manual_start_ms = device_mono + 1000;
    config.manual_wall_ms = device_wall + 1000;
    config.manual_boot_id = device_boot;
    int64_t t0 = cpu_ns();
    for (long i = 0; i < calls; i++) {
        inact_engine e;
        CHECK_OK(inact_engine_create(&config, &policy, NULL, NULL, NULL, &e));
        CHECK_OK(inact_restore(e, device_snapshot, device_length));
        CHECK_OK(inact_snapshot_write(e, out, sizeof out, &length));
        CHECK_OK(inact_destroy(e));
    }
    int64_t t1 = cpu_ns();
    CHECK(out[6] == INACT_STATE_ACTIVE, "the restored engine is not ACTIVE (state %d)", out[6]);
    return per_call(t1 - t0, calls);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 15;
    long calls = argc > 2 ? atol(argv[2]) : 200000;
    CHECK(runs > 0 && calls > 0, "usage: bench_server [runs] [calls]");
    CHECK_OK(inact_policy_init(&policy));
    policy.background_timeout_ms = INACT_NEVER; /* the engine floor: the restore's gap is background */
    CHECK_OK(inact_server_policy_prepare(&policy, prepared, sizeof prepared));

    inact_decision d;
    size_t length = 0;
    CHECK_OK(inact_decision_init(&d));
    CHECK_OK(inact_server_decide(&policy, NULL, 0, T0, INACT_SERVER_SIGN_IN, 0, 0, &d, record, sizeof record, &length));
    CHECK(length == INACT_SNAPSHOT_MAX_SIZE, "sign-in wrote no record");

    inact_config config;
    inact_engine e;
    CHECK_OK(inact_config_init(&config));
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    CHECK_OK(inact_engine_create(&config, &policy, NULL, NULL, NULL, &e));
    CHECK_OK(inact_start(e));
    CHECK_OK(inact_snapshot_write(e, device_snapshot, sizeof device_snapshot, &device_length));
    CHECK_OK(inact_clock_now(e, &device_mono, &device_wall, &device_boot));
    CHECK_OK(inact_destroy(e));

    const long engine_calls = calls / 10 > 0 ? calls / 10 : 1;
    double *read = calloc((size_t)runs, sizeof(double)), *coalesced = calloc((size_t)runs, sizeof(double));
    double *write = calloc((size_t)runs, sizeof(double)), *checksum = calloc((size_t)runs, sizeof(double));
    double *engine = calloc((size_t)runs, sizeof(double));
    double *p_read = calloc((size_t)runs, sizeof(double)), *p_coalesced = calloc((size_t)runs, sizeof(double));
    double *p_write = calloc((size_t)runs, sizeof(double));
    CHECK(read && coalesced && write && checksum && engine && p_read && p_coalesced && p_write, "out of memory");
    for (int r = 0; r < runs; r++) {
        read[r] = run_decide(calls, 0, INACT_SERVER_MACHINE, T0 + 5000, 1000, 0);
        p_read[r] = run_decide(calls, 1, INACT_SERVER_MACHINE, T0 + 5000, 1000, 0);
        coalesced[r] = run_decide(calls, 0, INACT_SERVER_REQUEST, T0 + 500, 1000, 0);
        p_coalesced[r] = run_decide(calls, 1, INACT_SERVER_REQUEST, T0 + 500, 1000, 0);
        write[r] = run_decide(calls, 0, INACT_SERVER_REQUEST, T0 + 1, 0, 1);
        p_write[r] = run_decide(calls, 1, INACT_SERVER_REQUEST, T0 + 1, 0, 1);
        checksum[r] = run_checksum(calls);
        engine[r] = run_engine(engine_calls);
    }
    printf("{\"runs\": %d, \"calls\": %ld, \"ns_per_call\": {\"decide_read\": %.1f, \"decide_coalesced\": %.1f, "
           "\"decide_write\": %.1f, \"prepared_read\": %.1f, \"prepared_coalesced\": %.1f, \"prepared_write\": %.1f, "
           "\"floor_checksum\": %.1f, \"engine_restore\": %.1f}}\n",
           runs, calls, median(read, runs), median(coalesced, runs), median(write, runs), median(p_read, runs),
           median(p_coalesced, runs), median(p_write, runs), median(checksum, runs), median(engine, runs));
    free(read), free(coalesced), free(write), free(checksum), free(engine), free(p_read), free(p_coalesced), free(p_write);
    return sink == 0xdeadbeef ? 1 : 0;
}
