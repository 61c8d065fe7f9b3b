"""tools/generate: writes every generated file from include/inactivity.h; --check only compares.

One model (model.py), one emitter per target (emit_*.py, each `emit(model) -> {path: text}`).
Adding a target: a new emit_<target>.py and its name in EMITTERS."""

from __future__ import annotations

import argparse
import difflib
import sys

from . import emit_conformance, emit_docs, emit_js, emit_kotlin, emit_names, emit_python, emit_regions, emit_swift
from .model import ROOT, HeaderError, load

EMITTERS = [emit_names, emit_python, emit_swift, emit_kotlin, emit_js, emit_conformance, emit_docs, emit_regions]


def outputs() -> dict[str, str]:
    model = load()
    files: dict[str, str] = {}
    for emitter in EMITTERS:
        for path, text in emitter.emit(model).items():
            if path in files:
                raise SystemExit(f"tools/generate: two targets write {path}")
            files[path] = text
    return files


def main() -> int:
    parser = argparse.ArgumentParser(prog="tools/generate", description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail (exit 1) when a generated file is stale")
    args = parser.parse_args()
    try:
        files = outputs()
    except HeaderError as exc:
        print(f"tools/generate: {exc}", file=sys.stderr)
        return 2
    stale = []
    for path, text in files.items():
        target = ROOT / path
        current = target.read_text() if target.exists() else None
        if current == text:
            continue
        if args.check:
            stale.append(path)
            diff = difflib.unified_diff((current or "").splitlines(), text.splitlines(),
                                        f"{path} (in the tree)", f"{path} (from the header)", lineterm="", n=1)
            print("\n".join(list(diff)[:40]), file=sys.stderr)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            print(f"tools/generate: wrote {path}")
    if stale:
        print(f"tools/generate --check: {len(stale)} generated file(s) stale: {', '.join(stale)}; "
              "run tools/generate (hand edits go to include/inactivity.h or the emitter)", file=sys.stderr)
        return 1
    if args.check:
        print(f"tools/generate --check: {len(files)} generated files up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
