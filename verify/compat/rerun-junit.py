#!/usr/bin/env python3
"""Runs once more, alone, each failed test of a release's pytest run that verify/compat/load-sensitive
names for that release (suite "python"), and keeps its second result in the JUnit report, so
such a test fails the suite only if it fails twice. Every other result stands as it is.

    verify/compat/rerun-junit.py RELEASE JUNIT LOAD_SENSITIVE LOG -- PYTEST COMMAND...

Run from the release's bindings/python folder (the command is the pytest run without its test
arguments and its --junitxml). Prints one line for each re-run."""
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def case_id(case: ET.Element) -> str:
    return f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}"


def main() -> int:
    release, junit, listed_path, log = sys.argv[1:5]
    if sys.argv[5] != "--":
        print("usage: verify/compat/rerun-junit.py RELEASE JUNIT LOAD_SENSITIVE LOG -- COMMAND...", file=sys.stderr)
        return 2
    command = sys.argv[6:]
    listed = set()
    for line in open(listed_path, encoding="utf-8"):
        words = line.split()
        if len(words) >= 3 and not words[0].startswith("#") and words[0] == release and words[1] == "python":
            listed.add(words[2])
    try:
        tree = ET.parse(junit)
    except Exception:
        return 0  # no report: the judge names that failure
    changed = False
    for parent in tree.getroot().iter():
        for i, case in enumerate(list(parent)):
            if case.tag != "testcase" or case_id(case) not in listed:
                continue
            if case.find("failure") is None and case.find("error") is None:
                continue
            name = case_id(case)
            print(f"     {release}/python/{name} failed; re-run alone (verify/compat/load-sensitive)")
            with tempfile.NamedTemporaryFile(suffix=".xml") as second, open(log, "a", encoding="utf-8") as out:
                out.write(f"### re-run alone: {name}\n")
                out.flush()
                subprocess.run([*command, f"--junitxml={second.name}", name], stdout=out, stderr=out, timeout=300)
                try:
                    again = [c for c in ET.parse(second.name).getroot().iter("testcase") if case_id(c) == name]
                except Exception:
                    again = []
            if again:
                parent[i] = again[0]  # its second result is the one judged
                changed = True
    if changed:
        tree.write(junit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
