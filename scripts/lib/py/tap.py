"""The one counter of the test suites: every suite reports as a TAP 14 stream, and this reads it.

    tap.py count FILE...        each FILE (a suite's stream, $INACT_RESULTS_DIR/NAME.tap):
                                its problems, then "  NAME  P passed, F failed" per file and
                                the final "P passed, F failed"; exit 1 when anything failed.
                                NAME.exit next to NAME.tap (the suite's exit status, written by
                                scripts/test) is read when present; a missing FILE is 1 failure
    tap.py count --suite FILE   one stream: its problems and "NAME: P passed, F failed" (what
                                the toolbox's finish prints); exit 1 when anything failed
    tap.py from-junit [--skip-fails] [--prefix P] XML|DIR...
                                a TAP stream on stdout from JUnit XML reports (pytest
                                --junitxml, XCTest's and Swift Testing's --xunit-output; a DIR:
                                its *.xml): one test point per <testcase>, "not ok" with a
                                <failure> or <error> child, "# SKIP" with <skipped> (with
                                --skip-fails a skip is "not ok": where a skip is a missing proof).
                                An unreadable report, or none with a test in it, is a "not ok"
                                (the runner died before writing it)
    tap.py from-ctest LOG       a TAP stream from the C harness's output (Tests/CTests/harness.c
                                and the earlier releases' copies; verify/conformance/compare.py
                                writes the same: "ok   NAME", "FAIL NAME[: why]", a closing
                                "N passed, N failed"); without the closing line, or when
                                it disagrees with the lines, one "not ok" more (the runner died)
    tap.py splice FILE          a TAP stream as tab-separated records for the toolbox's
                                tap_stream (KIND<TAB>NAME<TAB>REASON, KIND one of ok, bad, skip,
                                todo, todo_ok), the stream's own problems as "bad" records

How a stream counts (CONTRIBUTING.md, "How a suite reports"):
  ok                      passed              not ok              failed
  ok/not ok # SKIP why    skipped (neither)   not ok # TODO why   a known failure: passed (the
                                                                  reason is printed)
  ok # TODO why           failed: the known failure passes now; remove the TODO
  Bail out!               1 failure; nothing after it is read
  no plan, or a plan that disagrees with the test points: 1 failure (the suite died midway)
  a line that is not TAP (or a test number out of order): 1 failure each
A description escapes "#" as "\\#" and "\\" as "\\\\" (TAP 14); escape() and the toolbox do it.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

PLAN = re.compile(r"^1\.\.(\d+)(?:\s+#\s*(.*))?$")
POINT = re.compile(r"^(not ok|ok)\b(?:\s+(\d+))?(?:\s+-)?(?:\s+(.*))?$")
DIRECTIVE = re.compile(r"^(SKIP|TODO)\S*(?:\s+(.*))?$", re.IGNORECASE)


def escape(text: str) -> str:
    """A description as TAP 14 writes it: backslash first, then '#'; one line."""
    return " ".join(text.replace("\\", "\\\\").replace("#", "\\#").split())


def split_description(rest: str) -> tuple[str, str | None, str]:
    """'desc \\# x # TODO why' -> ('desc # x', 'TODO', 'why'): the first unescaped '#' starts
    the directive; escapes are undone in the description."""
    out, i, directive, reason = [], 0, None, ""
    while i < len(rest):
        c = rest[i]
        if c == "\\" and i + 1 < len(rest) and rest[i + 1] in "\\#":
            out.append(rest[i + 1])
            i += 2
            continue
        if c == "#":
            m = DIRECTIVE.match(rest[i + 1:].strip())
            if m:
                directive, reason = m.group(1).upper(), (m.group(2) or "").strip()
            break  # a comment after the description that is no directive is dropped
        out.append(c)
        i += 1
    return "".join(out).strip(), directive, reason


@dataclass
class Record:
    kind: str  # ok, bad, skip, todo (a known failure), todo_ok (a known failure that passed)
    name: str
    reason: str = ""


@dataclass
class Stream:
    records: list[Record] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # each one a failure

    def count(self) -> tuple[int, int, int, int]:
        passed = sum(r.kind in ("ok", "todo") for r in self.records)
        failed = sum(r.kind in ("bad", "todo_ok") for r in self.records) + len(self.problems)
        todo = sum(r.kind == "todo" for r in self.records)
        skipped = sum(r.kind == "skip" for r in self.records)
        return passed, failed, todo, skipped


def parse(lines: list[str]) -> Stream:
    s = Stream()
    plan: int | None = None
    plan_closes = False
    in_yaml = False
    number = 0
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        if in_yaml:
            if line.strip() == "...":
                in_yaml = False
            elif not line.startswith("  "):
                s.problems.append(f"line {lineno}: a YAML block without its closing '...'")
                in_yaml = False
            continue
        if line.strip() == "" or line.startswith("#"):
            continue
        if lineno == 1 and re.fullmatch(r"TAP version \d+", line):
            continue
        if line.startswith("Bail out!"):
            s.problems.append(f"line {lineno}: {line}")
            return s
        if line.strip() == "---" and line.startswith("  ") and s.records:
            in_yaml = True
            continue
        if line.startswith("pragma "):
            continue
        m = PLAN.match(line)
        if m:
            if plan is not None:
                s.problems.append(f"line {lineno}: a second plan ({line})")
            plan, plan_closes = int(m.group(1)), bool(s.records)
            continue
        m = POINT.match(line)
        if not m:
            s.problems.append(f"line {lineno}: not TAP: {line[:120]}")
            continue
        if plan_closes:  # a plan after the test points closes the stream
            s.problems.append(f"line {lineno}: a test point after the closing plan")
        number += 1
        if m.group(2) is not None and int(m.group(2)) != number:
            s.problems.append(f"line {lineno}: test number {m.group(2)}, expected {number}")
        name, directive, reason = split_description(m.group(3) or "")
        passed = m.group(1) == "ok"
        if directive == "SKIP":
            s.records.append(Record("skip", name, reason))
        elif directive == "TODO":
            s.records.append(Record("todo_ok" if passed else "todo", name, reason))
        else:
            s.records.append(Record("ok" if passed else "bad", name))
    if in_yaml:
        s.problems.append("the stream ends inside a YAML block")
    if plan is None:
        s.problems.append("no plan (1..N): the suite stopped before its end")
    elif plan != len(s.records):
        s.problems.append(f"the plan says {plan} tests, the stream has {len(s.records)}")
    return s


def read(path: str) -> Stream:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return parse(f.readlines())
    except OSError as exc:
        return Stream(problems=[f"no TAP stream ({exc.strerror}: {path})"])


def report(name: str, s: Stream) -> None:
    for r in s.records:
        if r.kind == "todo_ok":
            print(f"{name}: TODO passed: {r.name} (its known failure is gone: remove the TODO; {r.reason})")
    for p in s.problems:
        print(f"{name}: {p}")


def count(args: list[str]) -> int:
    if args[:1] == ["--suite"] and len(args) == 2:
        path = args[1]
        name = os.path.basename(path).removesuffix(".tap")
        s = read(path)
        report(name, s)
        p, f, todo, skipped = s.count()
        extra = ", ".join(x for x in (f"TODO: {todo}" if todo else "", f"SKIP: {skipped}" if skipped else "") if x)
        print(f"{name}: {p} passed, {f} failed" + (f" ({extra})" if extra else ""))
        return 0 if f == 0 else 1
    rows = []
    for path in args:
        name = os.path.basename(path).removesuffix(".tap")
        s = read(path)
        exit_path = path.removesuffix(".tap") + ".exit"
        rc = 0
        if os.path.exists(exit_path):
            with open(exit_path, encoding="utf-8") as f:
                rc = int(f.read().strip() or "1")
        p, f, _, _ = s.count()
        report(name, s)
        if rc != 0 and f == 0:
            print(f"suite {name} exited {rc} with no failed test: counted as 1 failure")
            f = 1
        rows.append((name, p, f))
    for name, p, f in rows:
        print(f"  {name:<15} {p:5d} passed, {f} failed")
    passed, failed = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def emit(points: list[tuple[bool, str, str]]) -> None:
    """points: (passed, name, directive-or-''); printed as one TAP 14 stream."""
    print("TAP version 14")
    for i, (passed, name, directive) in enumerate(points, 1):
        print(f"{'ok' if passed else 'not ok'} {i} - {escape(name)}" + (f" # {directive}" if directive else ""))
    print(f"1..{len(points)}")


def from_junit(args: list[str]) -> int:
    skip_fails = "--skip-fails" in args
    args = [a for a in args if a != "--skip-fails"]
    prefix = ""
    if args[:1] == ["--prefix"]:
        prefix, args = args[1], args[2:]
    paths: list[str] = []
    for a in args:
        paths += sorted(glob.glob(os.path.join(a, "*.xml"))) if os.path.isdir(a) else [a]
    points: list[tuple[bool, str, str]] = []
    for path in paths:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as exc:
            points.append((False, f"{prefix}{os.path.basename(path)}: no readable JUnit report ({exc})", ""))
            continue
        for case in root.iter("testcase"):
            cls, name = case.get("classname") or "", case.get("name") or "?"
            full = prefix + (f"{cls}.{name}" if cls else name)
            if case.find("failure") is not None or case.find("error") is not None:
                points.append((False, full, ""))
            elif (sk := case.find("skipped")) is not None:
                why = " ".join((sk.get("message") or sk.text or "").split())
                if skip_fails:
                    points.append((False, f"{full} (skipped where a skip is a missing proof: {why})", ""))
                else:
                    points.append((True, full, f"SKIP {why}"))
            else:
                points.append((True, full, ""))
    if not points:
        points.append((False, f"{prefix}no test in the JUnit reports ({', '.join(paths) or 'none'}): the runner did not finish", ""))
    emit(points)
    return 0


def from_ctest(args: list[str]) -> int:
    (path,) = args
    points: list[tuple[bool, str, str]] = []
    closing = None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        lines = []
        points.append((False, f"no runner log ({exc.strerror}: {path})", ""))
    for line in lines:
        m = re.fullmatch(r"(ok  |FAIL) ([^\s:]+)(?::.*)?", line)
        if m:
            points.append((m.group(1) == "ok  ", m.group(2), ""))
        elif re.fullmatch(r"\d+ passed, \d+ failed", line):
            closing = line
    if closing is None:
        points.append((False, f"the runner stopped before its closing line (log: {path})", ""))
    else:
        p, f = (int(x) for x in re.findall(r"\d+", closing))
        seen = (sum(ok for ok, _, _ in points), sum(not ok for ok, _, _ in points))
        if (p, f) != seen:
            points.append((False, f"the runner's closing line ({closing}) disagrees with its {seen[0]} ok and {seen[1]} FAIL lines (log: {path})", ""))
    emit(points)
    return 0


def splice(args: list[str]) -> int:
    (path,) = args
    s = read(path)
    for r in s.records:
        print(f"{r.kind}\t{r.name}\t{r.reason}".replace("\n", " "))
    for p in s.problems:
        print(f"bad\t{os.path.basename(path)}: {p}\t")
    return 0


def main(argv: list[str]) -> int:
    commands = {"count": count, "from-junit": from_junit, "from-ctest": from_ctest, "splice": splice}
    if not argv or argv[0] not in commands or len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
