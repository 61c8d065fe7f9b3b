#!/usr/bin/env python3
"""Judges a release's pytest run (a JUnit XML report) against verify/compat/allowed-failures, as
verify/compat/run-c-suite does for its C suite:

    verify/compat/judge-junit.py RELEASE LABEL JUNIT ALLOWED LOG

Lines of ALLOWED for RELEASE and suite "python" name a test as FILE::NAME (e.g.
tests/test_types.py::test_versions). A failed or errored test: failed, unless listed (then a
known failure, "not ok ... # TODO" with the reason, counted as passed; printed "xfail"). A listed
test that passed: "ok ... # TODO", counted as failed (the line is stale). A skipped test is
"# SKIP", counted neither way, and printed. No report (pytest died): one failure. Writes the
judged run as a TAP stream to LOG.tap (scripts/lib/toolbox.sh's tap_stream adds it to compat's).
"""

import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "lib", "py"))
from tap import escape  # noqa: E402  (the one TAP writer's escaping: "\\" and "\#")


def main() -> int:
    release, label, junit, allowed_path, log = sys.argv[1:6]
    allowed = {}
    for line in open(allowed_path, encoding="utf-8"):
        words = line.split(None, 3)
        if len(words) >= 3 and not words[0].startswith("#") and words[0] == release and words[1] == "python":
            allowed[words[2]] = words[3].strip() if len(words) > 3 else ""
    passed = failed = xfail = skipped = crashed = 0
    seen = set()
    points = []  # (ok, name, directive)
    try:
        root = ET.parse(junit).getroot()
    except Exception as exc:  # pytest died before writing its report
        print(f"FAIL {label}: no pytest report ({exc}); see {log}")
        failed = 1
        points.append((False, f"{label}: no pytest report", ""))
        root = None
    if root is not None:
        for case in root.iter("testcase"):
            path = case.get("classname", "").replace(".", "/")
            name = f"{path}.py::{case.get('name')}"
            seen.add(name)
            bad = case.find("failure")
            if bad is None:
                bad = case.find("error")
            if case.find("skipped") is not None:
                skipped += 1
                why = " ".join(case.find("skipped").get("message", "").split())[:120]
                print(f"skip {label}/{name}: {why}")
                points.append((True, f"{label}/{name}", f"SKIP {why}"))
            elif bad is None and name in allowed:
                print(f"FAIL {label}/{name}: listed in verify/compat/allowed-failures but passed: remove its line")
                failed += 1
                points.append((True, f"{label}/{name}", "TODO listed in verify/compat/allowed-failures but passed: "
                               f"remove its line ({allowed[name]})"))
            elif bad is None:
                passed += 1
                points.append((True, f"{label}/{name}", ""))
            elif name in allowed:
                print(f"xfail {label}/{name} (allowed: verify/compat/allowed-failures)")
                passed += 1
                xfail += 1
                points.append((False, f"{label}/{name}", f"TODO allowed (verify/compat/allowed-failures): {allowed[name]}"))
            else:
                why = " ".join((bad.get("message") or bad.text or "").split())
                if "died by signal" in why:
                    crashed += 1
                print(f"FAIL {label}/{name}: {why[:160]}")
                failed += 1
                points.append((False, f"{label}/{name}", ""))
    for name in allowed:
        if name not in seen:
            print(f"FAIL {label}: verify/compat/allowed-failures names {name}, which the suite does not have")
            failed += 1
            points.append((False, f"{label}: verify/compat/allowed-failures names {name}, which the suite does not have", ""))
    print(f"{label}: {passed} passed ({xfail} of them allowed failures), {failed} failed "
          f"({crashed} crashed or timed out), {skipped} skipped; log {log}")
    with open(log + ".tap", "w", encoding="utf-8") as tap:
        tap.write("TAP version 14\n")
        for i, (ok, name, directive) in enumerate(points, 1):
            tap.write(f"{'ok' if ok else 'not ok'} {i} - {escape(name)}" + (f" # {directive}" if directive else "") + "\n")
        tap.write(f"1..{len(points)}\n")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
