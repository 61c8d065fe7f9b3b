#!/usr/bin/env python3
"""Judges a release's pytest run (a JUnit XML report) against verify/compat/allowed-failures, as
verify/compat/run-c-suite does for its C suite:

    verify/compat/judge-junit.py RELEASE LABEL JUNIT ALLOWED LOG

Lines of ALLOWED for RELEASE and suite "python" name a test as FILE::NAME (e.g.
tests/test_types.py::test_versions). A failed or errored test: failed, unless listed (then
passed, printed "xfail" with the reason). A listed test that passed: failed (the line is stale).
A skipped test counts neither way and is printed. No report (pytest died): one failure. Writes
"<passed> <failed>" to LOG.counts.
"""

import sys
import xml.etree.ElementTree as ET


def main() -> int:
    release, label, junit, allowed_path, log = sys.argv[1:6]
    allowed = {}
    for line in open(allowed_path, encoding="utf-8"):
        words = line.split(None, 3)
        if len(words) >= 3 and not words[0].startswith("#") and words[0] == release and words[1] == "python":
            allowed[words[2]] = words[3].strip() if len(words) > 3 else ""
    passed = failed = xfail = skipped = crashed = 0
    seen = set()
    try:
        root = ET.parse(junit).getroot()
    except Exception as exc:  # pytest died before writing its report
        print(f"FAIL {label}: no pytest report ({exc}); see {log}")
        failed = 1
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
                print(f"skip {label}/{name}: {case.find('skipped').get('message', '')[:120]}")
            elif bad is None and name in allowed:
                print(f"FAIL {label}/{name}: listed in verify/compat/allowed-failures but passed: remove its line")
                failed += 1
            elif bad is None:
                passed += 1
            elif name in allowed:
                print(f"xfail {label}/{name} (allowed: verify/compat/allowed-failures)")
                passed += 1
                xfail += 1
            else:
                why = " ".join((bad.get("message") or bad.text or "").split())
                if "died by signal" in why:
                    crashed += 1
                print(f"FAIL {label}/{name}: {why[:160]}")
                failed += 1
    for name in allowed:
        if name not in seen:
            print(f"FAIL {label}: verify/compat/allowed-failures names {name}, which the suite does not have")
            failed += 1
    print(f"{label}: {passed} passed ({xfail} of them allowed failures), {failed} failed "
          f"({crashed} crashed or timed out), {skipped} skipped; log {log}")
    with open(log + ".counts", "w", encoding="utf-8") as counts:
        counts.write(f"{passed} {failed}\n")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
