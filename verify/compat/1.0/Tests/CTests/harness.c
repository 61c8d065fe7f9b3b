/*
 * harness.c -- runner of the C suite: runs every test of tests.def (or those whose
 * name contains one of the arguments), each in its own forked child unless --no-fork,
 * and ends with `N passed, N failed`.
 *
 * Child exit codes: 0 passed; 10 a check failed; 86 valgrind found errors or definite
 * leaks (scripts/test-c runs valgrind with --error-exitcode=86, a code that nothing else
 * uses); a signal: crashed, or killed by the per-test alarm.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct test_entry {
    const char *name;
    void (*run)(void);
} test_entry;

#define INACT_TEST_ENTRY_(name) {#name, test_##name},
static const test_entry all_tests[] = {
#define X INACT_TEST_ENTRY_
#include "tests.def"
#undef X
};
#define TEST_COUNT (sizeof(all_tests) / sizeof(all_tests[0]))

enum { EXIT_CHECK_FAILED = 10, EXIT_MEMCHECK_ERRORS = 86 };

static int failed_checks;
static jmp_buf abort_point;

void harness_fail(const char *file, int line, const char *fmt, ...) {
    va_list args;
    failed_checks++;
    fprintf(stdout, "    %s:%d: ", file, line);
    va_start(args, fmt);
    vfprintf(stdout, fmt, args);
    va_end(args);
    fputc('\n', stdout);
    fflush(stdout);
}

void harness_abort_test(void) { longjmp(abort_point, 1); }

const char *harness_status_name(int32_t status) {
    switch (status) {
#define INACT_STATUS_NAME_CASE_(name, value, message) \
    case value:                                       \
        return #name;
        INACT_STATUS_TABLE(INACT_STATUS_NAME_CASE_)
#undef INACT_STATUS_NAME_CASE_
    default:
        return "?";
    }
}

int harness_slow(void) {
    const char *slow = getenv("INACT_CTEST_SLOW");
    return slow != NULL && strcmp(slow, "1") == 0;
}

/* Runs one test in this process; returns 1 when it passed. */
static int run_in_process(const test_entry *test) {
    failed_checks = 0;
    if (setjmp(abort_point) == 0) test->run();
    return failed_checks == 0;
}

/* Runs one test in a forked child with an alarm; returns 1 when it passed. */
static int run_forked(const test_entry *test, unsigned timeout_s) {
    pid_t pid;
    int status = 0;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        return 0;
    }
    if (pid == 0) {
        alarm(timeout_s);
        exit(run_in_process(test) ? 0 : EXIT_CHECK_FAILED);
    }
    if (waitpid(pid, &status, 0) < 0) {
        perror("waitpid");
        return 0;
    }
    if (WIFEXITED(status)) {
        switch (WEXITSTATUS(status)) {
        case 0:
            return 1;
        case EXIT_CHECK_FAILED:
            return 0;
        case EXIT_MEMCHECK_ERRORS:
            printf("    memcheck reported errors or definite leaks (see valgrind output)\n");
            return 0;
        default:
            printf("    exited with status %d\n", WEXITSTATUS(status));
            return 0;
        }
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        printf("    %s (signal %d)\n",
               sig == SIGALRM ? "timed out (hang?)" : "crashed", sig);
    }
    return 0;
}

static int selected(const char *name, int argc, char **argv, int first_filter) {
    int i, any = 0;
    for (i = first_filter; i < argc; i++) {
        any = 1;
        if (strstr(name, argv[i]) != NULL) return 1;
    }
    return !any;
}

int main(int argc, char **argv) {
    int fork_tests = 1, first_filter = 1, passed = 0, failed = 0;
    unsigned timeout_s;
    size_t i;
    const char *no_fork = getenv("INACT_CTEST_NOFORK");
    if (no_fork != NULL && strcmp(no_fork, "1") == 0) fork_tests = 0;
    if (argc > 1 && strcmp(argv[1], "--no-fork") == 0) {
        fork_tests = 0;
        first_filter = 2;
    }
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (i = 0; i < TEST_COUNT; i++) printf("%s\n", all_tests[i].name);
        return 0;
    }
    timeout_s = harness_slow() ? 120u : 30u;
    setvbuf(stdout, NULL, _IOLBF, 0);

    for (i = 0; i < TEST_COUNT; i++) {
        const test_entry *test = &all_tests[i];
        int ok;
        if (!selected(test->name, argc, argv, first_filter)) continue;
        ok = fork_tests ? run_forked(test, timeout_s) : run_in_process(test);
        printf("%s %s\n", ok ? "ok  " : "FAIL", test->name);
        if (ok) passed++;
        else failed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
