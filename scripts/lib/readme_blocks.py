"""Extracts every fenced code block of every README for the readme suite (scripts/lib/test-readme).

    python3 scripts/lib/readme_blocks.py OUTDIR      writes OUTDIR/<readme>-<line>.<ext> and
                                                     OUTDIR/manifest (one block a line)

The rule (stated in CONTRIBUTING.md, "README code blocks"): every block runs as printed, in the
environment its language names, or says visibly why not. A block that cannot run here (an install
line for another platform, an Android-only snippet) is preceded by a line (the nearest non-blank
line above its fence) of the form

    *Not run by the readme suite: REASON.*

which renders as an italic note for the reader too. Untagged blocks and `text` are output or
listings, `mermaid` is a diagram (scripts/state-diagram writes and checks it): they are not code.
A block in a language the suite has no runner for and without the note fails the suite.

Manifest line: `run LANG PATH README:LINE` or `skip LANG - README:LINE REASON`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

def readmes() -> list[str]:
    """README.md, then bindings/*/README.md and examples/*/README.md: a new one is included."""
    root = Path(".")
    return ["README.md"] + sorted(str(p) for pattern in ("bindings/*/README.md", "examples/*/README.md")
                                  for p in root.glob(pattern))
RUNNERS = {"c": "c", "swift": "swift", "js": "mjs", "python": "py"}  # language -> file extension
NOT_CODE = {"", "text", "mermaid"}
NOTE = re.compile(r"^\*Not run by the readme suite: (.+?)\.?\*\s*$")
FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)


def main(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for readme in readmes():
        path = Path(readme)
        if not path.is_file():
            continue
        text = path.read_text()
        for m in FENCE.finditer(text):
            lang, body = m.group(1), m.group(2)
            line = text.count("\n", 0, m.start()) + 1
            where = f"{readme}:{line}"
            above = [l for l in text[: m.start()].splitlines() if l.strip()]
            note = NOTE.match(above[-1]) if above else None
            if note:
                manifest.append(f"skip {lang or '-'} - {where} {note.group(1)}")
            elif lang in NOT_CODE:
                continue
            elif lang in RUNNERS:
                name = f"{readme.replace('/', '_').removesuffix('.md')}-{line}.{RUNNERS[lang]}"
                (out / name).write_text(body)
                manifest.append(f"run {lang} {out / name} {where}")
            else:
                manifest.append(f"bad {lang} - {where} a ```{lang} block with no runner and no 'Not run' note")
    (out / "manifest").write_text("\n".join(manifest) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
