"""Extracts every fenced code block of every README for the readme suite (scripts/lib/test-readme).

    python3 scripts/lib/readme_blocks.py OUTDIR      writes OUTDIR/<readme>-<line>.<ext> and
                                                     OUTDIR/manifest (one block a line)
    python3 scripts/lib/readme_blocks.py --built-by WORKFLOW OUTDIR
                                                     only the blocks labelled as built by that
                                                     workflow (below), manifest lines
                                                     `build LANG PATH README:LINE`: what the
                                                     workflow builds (scripts/lib/build_readme_blocks.py)

The rule (stated in CONTRIBUTING.md, "README code blocks"): every block runs as printed, in the
environment its language names, or says visibly why not. A block that cannot run here (an install
line for another platform, an Android-only snippet) is preceded by a line (the nearest non-blank
line above its fence) of the form

    *Not run by the readme suite: REASON.*

which renders as an italic note for the reader too. A block that only a CI workflow can build
(a React, Svelte or Vue component: no npm registry here) says

    *Built only by the `WORKFLOW` workflow: REASON.*

and the readme suite checks that .github/workflows/WORKFLOW.yml runs this extractor with
`--built-by WORKFLOW` and that scripts/lib/build_readme_blocks.py has a builder for the block's
language. Untagged blocks and `text` are output or listings, `mermaid` is a diagram
(scripts/state-diagram writes and checks it): they are not code. A block in a language the suite
has no runner for and without either note fails the suite. An ```html block is a whole page, run
in Chromium (scripts/lib/readme_html.py says what it must show).

Manifest lines: `run LANG PATH README:LINE`, `skip LANG - README:LINE REASON`,
`built LANG PATH README:LINE WORKFLOW REASON` or `bad LANG - README:LINE REASON`.
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
RUNNERS = {"c": "c", "swift": "swift", "js": "mjs", "python": "py", "html": "html"}  # language -> file extension
# The languages a workflow builds (scripts/lib/build_readme_blocks.py), by file extension.
BUILT = {"jsx": "jsx", "svelte": "svelte", "vue": "vue"}
NOT_CODE = {"", "text", "mermaid"}
NOTE = re.compile(r"^\*Not run by the readme suite: (.+?)\.?\*\s*$")
BUILT_NOTE = re.compile(r"^\*Built only by the `([A-Za-z0-9_.-]+)` workflow: (.+?)\.?\*\s*$")
FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)


def block_file(readme: str, line: int, ext: str) -> str:
    return f"{readme.replace('/', '_').removesuffix('.md')}-{line}.{ext}"


def main(out: Path, built_by: str | None = None) -> int:
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
            built = BUILT_NOTE.match(above[-1]) if above else None
            if built_by is not None:
                # The workflow's extraction: its own blocks only, in a language it can build.
                if built and built.group(1) == built_by:
                    if lang not in BUILT:
                        print(f"{where}: a ```{lang} block labelled as built by {built_by}, which builds "
                              f"only {', '.join(sorted(BUILT))}", file=sys.stderr)
                        return 1
                    name = block_file(readme, line, BUILT[lang])
                    (out / name).write_text(body)
                    manifest.append(f"build {lang} {out / name} {where}")
                continue
            if note:
                manifest.append(f"skip {lang or '-'} - {where} {note.group(1)}")
            elif built:
                name = block_file(readme, line, BUILT.get(lang, "txt"))
                (out / name).write_text(body)
                manifest.append(f"built {lang or '-'} {out / name} {where} {built.group(1)} {built.group(2)}")
            elif lang in NOT_CODE:
                continue
            elif lang in RUNNERS:
                name = block_file(readme, line, RUNNERS[lang])
                (out / name).write_text(body)
                manifest.append(f"run {lang} {out / name} {where}")
            else:
                manifest.append(f"bad {lang} - {where} a ```{lang} block with no runner and no 'Not run' or 'Built only by' note")
    (out / "manifest").write_text("\n".join(manifest) + ("\n" if manifest else ""))
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "--built-by":
        sys.exit(main(Path(args[2]), built_by=args[1]))
    if len(args) != 1 or args[0].startswith("-"):
        sys.exit("usage: readme_blocks.py [--built-by WORKFLOW] OUTDIR")
    sys.exit(main(Path(args[0])))
