"""The README's Python snippets run exactly as printed: each block is extracted from README.md
and executed in a fresh namespace (its test functions are then called). Nothing is replaced or
injected, so a snippet that stops working fails here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
pytestmark = pytest.mark.skipif(not README.is_file(), reason="README.md not beside the tests")


def python_blocks() -> List[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_the_readme_has_its_python_snippets() -> None:
    blocks = python_blocks()
    assert len(blocks) >= 3
    assert any("def on_event" in b for b in blocks) and any("AsyncEngine" in b for b in blocks)


@pytest.mark.parametrize("index", range(len(python_blocks()) if README.is_file() else 0))
def test_the_snippet_runs_as_printed(index: int) -> None:
    namespace: Dict[str, Any] = {"__name__": f"readme_snippet_{index}"}
    exec(compile(python_blocks()[index], f"{README}:python block {index + 1}", "exec"), namespace)
    tests = [name for name in namespace if name.startswith("test_")]
    for name in tests:
        namespace[name]()
