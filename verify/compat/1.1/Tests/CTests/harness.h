/*
 * harness.h -- a tiny self-contained test harness for the C suite.
 *
 * A test is `TEST(name) { ... }` in any test_*.c file, listed once in tests.def.
 * Every test runs in its own forked child (so a crash or a hang fails that test only,
 * and under valgrind each test is leak-checked on its own); `--no-fork` runs them in
 * process for debugging. The runner prints `ok name` / `FAIL name` per test and ends
 * with one line `N passed, N failed`.
 *
 * CHECK* record a failure and go on; REQUIRE* record it and end the test at once.
 * Never use REQUIRE* inside an engine callback (it would longjmp through the library):
 * callbacks record what they see and the test checks it afterwards.
 */
#ifndef INACT_CTESTS_HARNESS_H
#define INACT_CTESTS_HARNESS_H

#include <stdint.h>
#include <string.h>

#include "inactivity.h"

#define TEST(name) void test_##name(void)

/* Declarations of every registered test (a test not listed fails -Wmissing-prototypes). */
#define INACT_TEST_DECLARE_(name) void test_##name(void);
#define X INACT_TEST_DECLARE_
#include "tests.def"
#undef X

/* Records one failed check: file, line, and a formatted explanation. */
void harness_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Ends the current test (after a failed REQUIRE). */
void harness_abort_test(void) __attribute__((noreturn));
/* Name of an inact_status value ("INACT_E_NULL_POINTER"), or "?" */
const char *harness_status_name(int32_t status);
/* 1 when the suite runs under valgrind (INACT_CTEST_SLOW=1): timing bounds widen. */
int harness_slow(void);

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) harness_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);             \
    } while (0)

#define REQUIRE(cond)                                                                 \
    do {                                                                              \
        if (!(cond)) {                                                                \
            harness_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond);                    \
            harness_abort_test();                                                     \
        }                                                                             \
    } while (0)

#define CHECK_EQ(actual, expected)                                                    \
    do {                                                                              \
        long long a_ = (long long)(actual), e_ = (long long)(expected);               \
        if (a_ != e_)                                                                 \
            harness_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld",       \
                         #actual, a_, #expected, e_);                                 \
    } while (0)

#define CHECK_EQ_U64(actual, expected)                                                \
    do {                                                                              \
        unsigned long long a_ = (unsigned long long)(actual),                         \
                           e_ = (unsigned long long)(expected);                       \
        if (a_ != e_)                                                                 \
            harness_fail(__FILE__, __LINE__, "%s == %llu, expected %s == %llu",       \
                         #actual, a_, #expected, e_);                                 \
    } while (0)

#define CHECK_STR(actual, expected)                                                   \
    do {                                                                              \
        const char *a_ = (actual), *e_ = (expected);                                  \
        if (a_ == 0 || strcmp(a_, e_) != 0)                                           \
            harness_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #actual, \
                         a_ ? a_ : "(null)", e_);                                     \
    } while (0)

/* A call that must return `expected` (an inact_status). */
#define CHECK_STATUS(call, expected)                                                  \
    do {                                                                              \
        int32_t s_ = (call), e_ = (expected);                                         \
        if (s_ != e_)                                                                 \
            harness_fail(__FILE__, __LINE__, "%s returned %s (%d), expected %s (%d); " \
                         "last error: \"%s\"", #call, harness_status_name(s_), (int)s_, \
                         harness_status_name(e_), (int)e_, inact_last_error());       \
    } while (0)

/* A call that must succeed, else the test cannot go on. */
#define REQUIRE_OK(call)                                                              \
    do {                                                                              \
        int32_t s_ = (call);                                                          \
        if (s_ != INACT_OK) {                                                         \
            harness_fail(__FILE__, __LINE__, "%s returned %s (%d); last error: \"%s\"", \
                         #call, harness_status_name(s_), (int)s_, inact_last_error()); \
            harness_abort_test();                                                     \
        }                                                                             \
    } while (0)

#endif
