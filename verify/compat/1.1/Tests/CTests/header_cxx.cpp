// header_cxx.cpp -- include/inactivity.h used from C++11 (built with -std=c++11 -Wall
// -Wextra -Werror -pedantic): it must compile cleanly, link (extern "C"), and keep the
// layouts that the C suite and the bindings assume. Exits 0 when everything holds.
#include "inactivity.h"

#include <cstddef>
#include <cstdio>
#include <cstring>

static_assert(sizeof(inact_engine) == 8, "handles are 64-bit");
static_assert(sizeof(inact_policy) == 120, "inact_policy layout");
static_assert(sizeof(inact_ceilings) == 80, "inact_ceilings layout");
static_assert(sizeof(inact_config) == 40, "inact_config layout");
static_assert(sizeof(inact_event) == 56, "inact_event layout");
static_assert(sizeof(inact_info) == 152, "inact_info layout");
static_assert(offsetof(inact_event, engine) == 48, "inact_event.engine offset");
static_assert(INACT_NEVER == INT64_MAX, "INACT_NEVER is INT64_MAX");
static_assert(INACT_OK == 0 && INACT_E_INTERNAL < 0, "status values");

namespace {

int events = 0;

extern "C" void on_event(const inact_event *event, void *user_data) {
    static_cast<void>(event);
    ++*static_cast<int *>(user_data);
}

int failures = 0;

void expect(bool ok, const char *what) {
    if (!ok) {
        std::printf("C++: FAILED %s\n", what);
        ++failures;
    }
}

}  // namespace

int main() {
#define CXX_STATUS_CASE(name, value, message) \
    expect(std::strcmp(inact_status_string(value), message) == 0, #name);
    INACT_STATUS_TABLE(CXX_STATUS_CASE)
#undef CXX_STATUS_CASE
    expect(inact_version_number() == INACT_VERSION_NUMBER, "version number");

    inact_config config;
    expect(inact_config_init(&config) == INACT_OK, "config init");
    config.clock = INACT_CLOCK_MANUAL;
    config.delivery = INACT_DELIVERY_HOST;
    inact_policy policy;
    expect(inact_policy_preset(&policy, INACT_PRESET_BANKING) == INACT_OK, "preset");
    inact_engine engine = 0;
    expect(inact_engine_create(&config, &policy, on_event, &events, nullptr, &engine) == INACT_OK,
           "create");
    expect(inact_start(engine) == INACT_OK, "start");
    expect(inact_clock_advance(engine, policy.idle_timeout_ms) == INACT_OK, "advance");
    int32_t state = -1;
    expect(inact_get_state(engine, &state) == INACT_OK && state == INACT_STATE_LOCKED, "locked");
    expect(events >= 2, "events delivered");
    expect(inact_destroy(engine) == INACT_OK, "destroy");
    if (failures == 0) std::printf("C++11: header compiles, links and works\n");
    return failures == 0 ? 0 : 1;
}
