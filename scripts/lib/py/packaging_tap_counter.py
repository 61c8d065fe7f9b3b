"""The counter of the suites, scripts/lib/py/tap.py, and the toolbox's TAP writer, on streams
whose counts are known (run by scripts/lib/test-packaging, tap_counter_counts_as_documented):

- a stream with skips, TODOs (a known failure counts as passed, a TODO that passes as failed),
  comments and a YAML block counts as CONTRIBUTING.md's "How a suite reports" says;
- a bail-out, a missing plan, a plan that disagrees, a malformed line and a test number out of
  order are each a failure;
- the final line of `count` adds the suites up, and a suite's non-zero exit (NAME.exit) with no
  failed test point is one failure;
- names holding "\\" and "#" survive the toolbox's escaping and the counter's parsing (a name
  "x\\#y" comes back as itself: without the backslash's escape it would end at "x\\");
- from-ctest: a runner log without its closing line is one failure more; from-junit: failures,
  errors and skips, and --skip-fails.

    python3 scripts/lib/py/packaging_tap_counter.py ROOT
"""
import os
import subprocess
import sys
import tempfile


def run(*args: str, stdin: str = "") -> tuple[int, str]:
    p = subprocess.run(args, input=stdin, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main(root: str) -> int:
    tap = os.path.join(root, "scripts/lib/py/tap.py")
    toolbox = os.path.join(root, "scripts/lib/toolbox.sh")
    problems: list[str] = []

    def expect(what: str, got: object, want: object) -> None:
        if got != want:
            problems.append(f"{what}: got {got!r}, want {want!r}")

    with tempfile.TemporaryDirectory() as d:
        def write(name: str, text: str) -> str:
            path = os.path.join(d, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            return path

        def last_line(*args: str) -> tuple[int, str]:
            rc, out = run(sys.executable, tap, *args)
            return rc, out.strip().splitlines()[-1] if out.strip() else ""

        cases = {
            # name: (stream, the suite's line, exit status)
            "good": ("TAP version 14\nok 1 - a\n# a comment\nok 2 - b # SKIP no chromium here\n"
                     "not ok 3 - c # TODO allowed: pins 1.0's version\n  ---\n  why: the reason\n  ...\n"
                     "not ok 4 - d # skipped also when lower case\nok 5 - e\n1..5\n",
                     "good: 3 passed, 0 failed (TODO: 1, SKIP: 2)", 0),
            "plan_first": ("1..2\nok 1 - a\nnot ok 2 - b\n", "plan_first: 1 passed, 1 failed", 1),
            "failed": ("TAP version 14\nok 1 - a\nnot ok 2 - b\n1..2\n", "failed: 1 passed, 1 failed", 1),
            "todo_passed": ("ok 1 - a # TODO known to fail\n1..1\n", "todo_passed: 0 passed, 1 failed", 1),
            "bail_out": ("ok 1 - a\nBail out! the database went away\nok 2 - b\n1..2\n",
                         "bail_out: 1 passed, 1 failed", 1),
            "no_plan": ("TAP version 14\nok 1 - a\nok 2 - b\n", "no_plan: 2 passed, 1 failed", 1),
            "short_plan": ("ok 1 - a\n1..3\n", "short_plan: 1 passed, 1 failed", 1),
            "malformed": ("ok 1 - a\nok, that went well\nok 2 - b\n1..2\n", "malformed: 2 passed, 1 failed", 1),
            "out_of_order": ("ok 1 - a\nok 3 - b\n1..2\n", "out_of_order: 2 passed, 1 failed", 1),
            "after_plan": ("ok 1 - a\n1..1\nok 2 - b\n", "after_plan: 2 passed, 2 failed", 1),
            "empty": ("", "empty: 0 passed, 1 failed", 1),
            "skipped_suite": ("TAP version 14\n1..0 # SKIP no chromium\n", "skipped_suite: 0 passed, 0 failed", 0),
        }
        for name, (text, line, status) in cases.items():
            rc, got = last_line("count", "--suite", write(f"{name}.tap", text))
            expect(f"count --suite {name}", (got, rc), (line, status))

        # A run: per-suite lines, the final line; a suite that exited 1 with nothing failed.
        write("quiet.tap", "ok 1 - a\n1..1\n")
        write("quiet.exit", "1\n")
        write("fine.tap", "ok 1 - a\nok 2 - b\n1..2\n")
        write("fine.exit", "0\n")
        rc, out = run(sys.executable, tap, "count", *(os.path.join(d, f"{n}.tap") for n in ("good", "failed", "quiet", "missing", "fine")))
        lines = out.strip().splitlines()
        expect("count: the final line", (lines[-1], rc), ("7 passed, 3 failed", 1))
        expect("count: an exit 0 with a clean stream", "  fine                2 passed, 0 failed" in lines, True)
        expect("count: a suite's line", "  good                3 passed, 0 failed" in lines, True)
        expect("count: a non-zero exit without a failed test", "  quiet               1 passed, 1 failed" in lines, True)
        expect("count: a suite with no stream", "  missing             0 passed, 1 failed" in lines, True)
        rc, out = run(sys.executable, tap, "count", os.path.join(d, "good.tap"))
        expect("count: all passed", (out.strip().splitlines()[-1], rc), ("3 passed, 0 failed", 0))

        # The toolbox writes what the counter reads, names and all.
        names = ["x\\#y", "a # b", "back\\slash", "ends with \\", "multi\nline"]
        script = (f'. "{toolbox}"\nsuite tb\n'
                  'for n in "$@"; do ok "$n"; done\nbad "failed # one"\nskip_test "s\\\\k" "no tool # here"\n'
                  'todo "t" "known"\nfinish\n')
        env = dict(os.environ, INACT_RESULTS_DIR=d)
        p = subprocess.run(["bash", "-c", script, "bash", *names], capture_output=True, text=True, env=env)
        expect("toolbox: the suite's line and exit", (p.stdout.strip().splitlines()[-1], p.returncode),
               ("tb: 6 passed, 1 failed (TODO: 1, SKIP: 1)", 1))
        rc, out = run(sys.executable, tap, "splice", os.path.join(d, "tb.tap"))
        got = [line.split("\t")[:2] for line in out.splitlines()]
        expect("toolbox: the names read back", got,
               [["ok", n.replace("\n", " ")] for n in names] + [["bad", "failed # one"], ["skip", "s\\k"], ["todo", "t"]])

        # from-ctest: the harness's lines; no closing line is one failure more.
        write("ctest.log", "ok   a\nFAIL b\n    x.c:1: check failed\nok   c\n2 passed, 1 failed\n")
        write("died.log", "ok   a\nok   b\n")
        for log, line in (("ctest", "2 passed, 1 failed"), ("died", "2 passed, 1 failed")):
            _, stream = run(sys.executable, tap, "from-ctest", os.path.join(d, f"{log}.log"))
            rc, got = last_line("count", "--suite", write(f"{log}-c.tap", stream))
            expect(f"from-ctest {log}", got, f"{log}-c: {line}")

        # from-junit: a failure, an error, a skip (neither; a failure with --skip-fails), names
        # with "#"; no report is a failure.
        write("junit.xml", '<testsuites><testsuite name="s" tests="5">'
              '<testcase classname="tests.t" name="ok[a#b]"/><testcase classname="tests.t" name="f"><failure message="x"/></testcase>'
              '<testcase classname="tests.t" name="e"><error/></testcase><testcase classname="tests.t" name="s"><skipped message="no redis"/></testcase>'
              '<testcase classname="tests.t" name="ok2"/></testsuite></testsuites>')
        for flag, line in (([], "2 passed, 2 failed (SKIP: 1)"), (["--skip-fails"], "2 passed, 3 failed")):
            _, stream = run(sys.executable, tap, "from-junit", *flag, os.path.join(d, "junit.xml"))
            rc, got = last_line("count", "--suite", write("junit.tap", stream))
            expect(f"from-junit {flag}", got, f"junit: {line}")
        _, stream = run(sys.executable, tap, "from-junit", os.path.join(d, "none.xml"))
        rc, got = last_line("count", "--suite", write("nojunit.tap", stream))
        expect("from-junit without a report", got, "nojunit: 0 passed, 1 failed")

    for p in problems:
        print(p)
    print(f"tap counter: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
