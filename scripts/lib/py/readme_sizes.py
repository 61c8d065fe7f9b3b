"""The sizes README.md states against the built libraries.

Run by scripts/lib/test-readme, with the arguments it passes.
"""
import re, sys
from pathlib import Path
line = next((l for l in Path("README.md").read_text().splitlines() if "scripts/build-embedded [" in l), "")
figures = dict(re.findall(r"(x86_64|aarch64|armv7) (\d+) KiB", line))
if len(figures) != 3:
    sys.exit(f"README.md's scripts/build-embedded row names no KiB figure for each of x86_64, aarch64, armv7: {line!r}")
checked = 0
for arch, kib in figures.items():
    lib = Path(f".build/embedded/{arch}/libinactivity.so")
    if not lib.is_file():
        print(f"{arch}: not built here, not compared")
        continue
    size = lib.stat().st_size / 1024
    off = abs(size - int(kib)) / size
    print(f"{arch}: README {kib} KiB, built {size:.1f} KiB ({off:.1%} off)")
    if off > 0.05:
        sys.exit(f"{arch}: README.md says {kib} KiB, the built library is {size:.0f} KiB (more than 5% off)")
    checked += 1
sys.exit(0 if checked else "no Embedded library built to compare")
