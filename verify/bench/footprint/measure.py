"""Footprint of a shared library: file size, stripped size (strip --strip-all on a copy), the
runtime dependencies that ldd resolves, and the exported (dynamic, defined) symbols.

With --growth A B, also attributes what library A defines and library B does not (symbol
bytes from nm -S, grouped by the module the demangled name belongs to): where a self-contained
library's size over the empty baseline comes from.

Usage: python3 measure.py [--growth A B] NAME=PATH...   -- prints one JSON object keyed by NAME.
"""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys
import tempfile


def measure(path: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        stripped = os.path.join(tmp, "stripped.so")
        subprocess.run(["strip", "--strip-all", "-o", stripped, path], check=True)
        stripped_size = os.path.getsize(stripped)
    ldd = subprocess.run(["ldd", path], check=True, capture_output=True, text=True).stdout
    deps = []
    for line in ldd.splitlines():
        line = line.strip()
        if not line or line.startswith("linux-vdso"):
            continue
        name = line.split()[0]
        target = line.split("=>")[1].split("(")[0].strip() if "=>" in line else name
        deps.append({"name": os.path.basename(name), "path": target})
    nm = subprocess.run(["nm", "-D", "--defined-only", path], check=True, capture_output=True, text=True).stdout
    # Global or weak only: nm prints local bindings in lower case (Swift metadata records that
    # stay in .dynsym after the version script made them local are not visible to anyone).
    exported = sorted(p[2] for p in (line.split() for line in nm.splitlines()) if len(p) >= 3 and p[1].isupper())
    return {
        "path": path,
        "bytes": os.path.getsize(path),
        "stripped_bytes": stripped_size,
        "dependencies": deps,
        "swift_runtime_dependencies": [d["name"] for d in deps if "swift" in d["path"] or "dispatch" in d["name"]
                                       or "Blocks" in d["name"]],
        "exported_symbols": len(exported),
        "exported_non_api": [s for s in exported if not (s.startswith("inact_") or s.startswith("bench_"))],
    }


def defined_symbols(path: str) -> dict:
    out = subprocess.run(["nm", "-S", "--defined-only", path], check=True, capture_output=True, text=True).stdout
    sizes = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4:
            sizes[parts[3]] = int(parts[1], 16)
    return sizes


# Demangled-name patterns, checked in order. Swift's _Concurrency runtime (AsyncStream, tasks,
# executors, its private _Deque) pulls in libdispatch and BlocksRuntime when linked statically.
GROUPS = (
    ("engine", r"InactivityCore|InactivityCABI|CInactivity|^inact_|inactivity"),
    ("Concurrency", r"Async|Task|Executor|_Deque|Continuation|Actor|swift_task|swift_job|swift_async|"
                    r"Concurrency|_Wrapped|Clock|Duration|Cooperative|Job"),
    ("dispatch+Blocks", r"(?i)dispatch|Block"),
    ("Synchronization", r"Synchronization|Atomic|Mutex"),
    ("Glibc overlay", r"Glibc"),
)


def growth(path_a: str, path_b: str) -> dict:
    a, b = defined_symbols(path_a), defined_symbols(path_b)
    extra = [name for name in a if name not in b]
    demangled = subprocess.run(["swift", "demangle", "--compact"], input="\n".join(extra), capture_output=True,
                               text=True).stdout.splitlines() if extra else []
    if len(demangled) != len(extra):
        demangled = extra  # no swift demangle: group on the mangled names
    totals: collections.Counter = collections.Counter()
    for name, readable in zip(extra, demangled):
        group = next((g for g, pattern in GROUPS if re.search(pattern, readable)), "other stdlib")
        totals[group] += a[name]
    return dict(totals)


def main() -> int:
    result: dict = {}
    args = sys.argv[1:]
    growth_of = None
    if args[:1] == ["--growth"]:
        growth_of = (args[1], args[2])
        args = args[3:]
    for arg in args:
        name, _, path = arg.partition("=")
        result[name] = measure(path)
    if growth_of:
        result[f"{growth_of[0]}_growth"] = growth(result[growth_of[0]]["path"], result[growth_of[1]]["path"])
    json.dump(result, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
