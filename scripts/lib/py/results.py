"""Counts from a test runner's machine-readable report (JUnit XML), never from its text.

    results.py xunit DIR COUNTS         every DIR/*.xml that `swift test --xunit-output` wrote:
                                        prints "FAIL class.name" per failed <testcase> and one
                                        line per file; writes "<passed> <failed>" to COUNTS
                                        ("0 1" when no file holds a test: the runner did not
                                        finish)
    results.py junit XML skipped=ignore|fail
                                        a pytest --junitxml report: prints "<passed> <failed>"
                                        from its <testsuite> totals ("0 1" when it cannot be
                                        read: pytest died before writing it); a skipped test is
                                        counted as neither (ignore) or as a failure (fail: where
                                        a skip is a missing proof)

Run by scripts/test (swift), scripts/lib/test-python and scripts/lib/test-server.
"""
import glob
import os
import sys
import xml.etree.ElementTree as ET


def xunit(directory: str, counts: str) -> None:
    # Every <testcase> is a test; one with a <failure> or <error> child failed.
    total = failed = 0
    for path in sorted(glob.glob(os.path.join(directory, "*.xml"))):
        n = bad = 0
        for case in ET.parse(path).getroot().iter("testcase"):
            n += 1
            if case.find("failure") is not None or case.find("error") is not None:
                bad += 1
                print(f"FAIL {case.get('classname')}.{case.get('name')}")
        print(f"{os.path.basename(path)}: {n} tests, {bad} failed")
        total, failed = total + n, failed + bad
    with open(counts, "w") as f:
        f.write(f"{total - failed} {failed}\n" if total else "0 1\n")


def junit(path: str, skipped_as: str) -> None:
    try:
        root = ET.parse(path).getroot()
    except Exception:
        print(0, 1)
        return
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    total = sum(int(s.get("tests", 0)) for s in suites)
    bad = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    print(total - bad - skipped, bad + (skipped if skipped_as == "fail" else 0))


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "xunit":
        xunit(argv[1], argv[2])
        return 0
    if len(argv) == 3 and argv[0] == "junit" and argv[2] in ("skipped=ignore", "skipped=fail"):
        junit(argv[1], argv[2].split("=", 1)[1])
        return 0
    print("usage: results.py xunit DIR COUNTS | results.py junit XML skipped=ignore|fail", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
