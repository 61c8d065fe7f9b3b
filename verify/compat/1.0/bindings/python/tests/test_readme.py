"""The README's examples run: its test examples pass, and its other snippets execute."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
pytestmark = pytest.mark.skipif(not README.is_file(), reason="README.md not beside the tests")


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_the_manual_clock_examples_pass() -> None:
    blocks = [b for b in python_blocks() if "def test_" in b]
    assert blocks
    namespace: Dict[str, Any] = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    tests = [name for name in namespace if name.startswith("test_")]
    assert len(tests) == 2
    for name in tests:
        namespace[name]()


def test_the_callback_example_runs() -> None:
    block = next(b for b in python_blocks() if "def on_event" in b)
    exec(compile(block.replace("...", "pass"), str(README), "exec"), {})


def test_the_asyncio_example_runs() -> None:
    import inactivity as ia
    from inactivity.aio import AsyncEngine

    block = next(b for b in python_blocks() if "AsyncEngine" in b).replace("asyncio.run(main())", "")
    created: list[AsyncEngine] = []

    class ShortEngine(AsyncEngine):
        """The example's engine with a policy that locks within a second."""

        def __init__(self, policy: Optional[ia.Policy] = None, **kwargs: Any) -> None:
            super().__init__(ia.Policy(idle_timeout=0.2, warning=0.1, tick=0), **kwargs)
            created.append(self)

    async def show_lock_screen() -> None:
        created[0].close()  # ends the example's `async for`

    namespace: Dict[str, Any] = {}
    exec(compile(block, str(README), "exec"), namespace)
    namespace["AsyncEngine"] = ShortEngine
    namespace["show_lock_screen"] = show_lock_screen
    asyncio.run(asyncio.wait_for(namespace["main"](), 10))
    assert len(created) == 1 and created[0].closed
