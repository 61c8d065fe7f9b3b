#!/usr/bin/env python3
"""Compares the conformance runners' outputs byte for byte (verify/conformance/README.md).

    python3 verify/conformance/compare.py OPSDIR REFERENCE_DIR OTHER_DIR...

For each OPSDIR/NAME.ops, every DIR/NAME.out must be identical to REFERENCE_DIR/NAME.out. One
test per scenario: it fails when an output is missing or differs, and the message names the
first differing line of each binding. Prints "<passed> passed, <failed> failed" last.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional


def first_difference(reference: bytes, other: bytes) -> Optional[int]:
    """The 1-based line where two outputs first differ; None if they are byte-identical."""
    if reference == other:
        return None
    a, b = reference.split(b"\n"), other.split(b"\n")
    for number, (x, y) in enumerate(zip(a, b), start=1):
        if x != y:
            return number
    return min(len(a), len(b)) + 1 if len(a) != len(b) else len(a)


def line(data: bytes, number: int) -> str:
    lines = data.split(b"\n")
    return lines[number - 1].decode("utf-8", "replace") if number <= len(lines) else "<end of output>"


def compare(ops_dir: Path, reference: Path, others: List[Path]) -> int:
    passed = failed = 0
    for ops in sorted(ops_dir.glob("*.ops")):
        name = ops.stem + ".out"
        problems: List[str] = []
        ref_path = reference / name
        if not ref_path.is_file():
            problems.append(f"{reference.name}: no output (the runner failed)")
            ref = b""
        else:
            ref = ref_path.read_bytes()
        for other in others:
            path = other / name
            if not path.is_file():
                problems.append(f"{other.name}: no output (the runner failed)")
                continue
            data = path.read_bytes()
            at = first_difference(ref, data)
            if at is not None:
                problems.append(
                    f"{other.name} differs from {reference.name} at line {at}:\n"
                    f"      {reference.name}: {line(ref, at)}\n      {other.name}: {line(data, at)}"
                )
        if problems:
            failed += 1
            print(f"FAIL {ops.stem}: " + "\n    ".join(problems))
        else:
            passed += 1
            print(f"ok   {ops.stem}")  # the C harness's format: tap.py from-ctest reads it
    return _summary(passed, failed)


def _summary(passed: int, failed: int) -> int:
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def self_test() -> None:
    """The comparison itself can fail: known differences are found at the right line."""
    assert first_difference(b"a\nb\n", b"a\nb\n") is None
    assert first_difference(b"a\nb\n", b"a\nc\n") == 2
    assert first_difference(b"a\nb\n", b"a\n") == 2
    assert first_difference(b"a\n", b"a\nb\n") == 2
    assert first_difference(b"a\nb", b"a\nb\n") == 3  # a missing final newline is a difference


def main(argv: List[str]) -> int:
    if argv == ["--self-test"]:
        self_test()
        return 0
    if len(argv) < 3:
        print("usage: compare.py OPSDIR REFERENCE_DIR OTHER_DIR... | --self-test", file=sys.stderr)
        return 2
    return compare(Path(argv[0]), Path(argv[1]), [Path(p) for p in argv[2:]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
