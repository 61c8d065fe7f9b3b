"""The README's server snippet runs as printed (in a directory of its own)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


def test_the_readme_server_snippet_runs_as_printed(tmp_path: object) -> None:
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    m = re.search(r"### The server half \(Python\).*?```python\n(.*?)```", text, re.S)
    assert m, "README.md has no server snippet"
    r = subprocess.run([sys.executable, "-c", m.group(1)], cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ACTIVE\n"
    assert os.path.exists(os.path.join(str(tmp_path), "sessions.sqlite3"))
