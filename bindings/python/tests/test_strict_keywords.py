"""An unknown keyword is refused, naming it and listing the accepted ones (issue 32), at every
public callable of the package that takes keywords, before anything is created or changed."""

from __future__ import annotations

import inspect
import re
from typing import Any, Callable

import pytest

from inactivity import Ceilings, Engine, HolderKind, ManualClock, Policy, Reason, State
from inactivity.aio import AsyncEngine
from inactivity.policy_file import load_policy, parse_duration_ms, policy_from_mapping

from conftest import TEST_POLICY


def accepted(fn: Callable[..., Any]) -> list[str]:
    """The keywords ``fn`` takes, from its signature (self and cls left out)."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in inspect.signature(fn).parameters.values() if p.kind in kinds and p.name not in ("self", "cls")]


def refused(call: Callable[[], Any], unknown: str, names: list[str]) -> str:
    with pytest.raises(TypeError) as raised:
        call()
    message = str(raised.value)
    assert re.search(rf"unexpected keyword arguments? (.*, )?{re.escape(repr(unknown))}", message), message
    listed = message.split("; it accepts: ", 1)[1]
    assert listed == (", ".join(names) or "none"), message
    return message


def test_policy_names_the_keyword_lists_the_fields_and_suggests_the_close_one() -> None:
    fields = accepted(Policy.__init__)
    assert "idle_timeout" in fields and "keepalive_interval" in fields
    message = refused(lambda: Policy(idle_timout=300), "idle_timout", fields)  # type: ignore[call-arg]
    assert message.startswith("Policy() got an unexpected keyword argument 'idle_timout' (did you mean 'idle_timeout'?)")
    # Two at once: both named; a name like nothing gets no suggestion.
    message = refused(lambda: Policy(warnign=5, colour="red"), "warnign", fields)  # type: ignore[call-arg]
    assert "'warnign' (did you mean 'warning'?), 'colour';" in message
    assert message.startswith("Policy() got an unexpected keyword arguments")


def test_replace_and_ceilings() -> None:
    fields = accepted(Policy.__init__)
    message = refused(lambda: TEST_POLICY.replace(idle=5), "idle", fields)
    assert message.startswith("Policy.replace() got")
    ceilings = accepted(Ceilings.__init__)
    refused(lambda: Ceilings(max_idle=5), "max_idle", ceilings)  # type: ignore[call-arg]
    refused(lambda: Ceilings().replace(idle_timout=5), "idle_timout", ceilings)
    refused(lambda: Policy.preset(preset="BANKING", strict=True), "strict", ["preset"])  # type: ignore[call-arg]


def test_engine_options() -> None:
    options = ["policy", "on_event", "delivery", "clock"]
    assert accepted(Engine.__init__) == options
    message = refused(lambda: Engine(polcy=TEST_POLICY), "polcy", options)  # type: ignore[call-arg]
    assert message.startswith("Engine() got an unexpected keyword argument 'polcy' (did you mean 'policy'?)")
    refused(lambda: Engine(TEST_POLICY, onEvent=print), "onEvent", options)  # type: ignore[call-arg]
    refused(lambda: ManualClock(boot=2), "boot", ["start", "wall", "boot_id"])  # type: ignore[call-arg]


def test_asyncio_engine_options() -> None:
    refused(lambda: AsyncEngine(delivery=None), "delivery", ["policy", "on_event", "clock"])  # type: ignore[call-arg]


def test_methods_refuse_and_change_nothing(manual_engine: Any) -> None:
    engine = manual_engine()
    engine.start()
    before = (engine.state(), engine.reason(), engine.remaining())
    refused(lambda: engine.holder_report(HolderKind.LOCKED, reasn=Reason.MANUAL_LOCK), "reasn",
            ["kind", "duration", "reason"])
    refused(lambda: engine.end(reason=Reason.LOGOUT, now=True), "now", ["reason"])
    refused(lambda: engine.unlock(metod=1), "metod", ["method"])
    # A method of required arguments only keeps Python's own TypeError (no wrapper on the
    # activity hot path): it still names the keyword and changes nothing.
    natives: list[tuple[Callable[[], Any], str]] = [
        (lambda: engine.activity(knd="KEY"), "knd"),
        (lambda: engine.lock(force=True), "force"),
        (lambda: engine.advance(seconds=5), "seconds"),
    ]
    for call, unknown in natives:
        with pytest.raises(TypeError, match=f"unexpected keyword argument '{unknown}'"):
            call()
    assert not hasattr(Engine.activity, "__strict_keywords__")
    assert (engine.state(), engine.reason(), engine.remaining()) == before
    assert engine.state() is State.ACTIVE


def test_policy_file_functions() -> None:
    refused(lambda: parse_duration_ms("5m", never=False), "never", ["text", "allow_never"])  # type: ignore[call-arg]
    refused(lambda: policy_from_mapping({}, name="x"), "name", ["mapping", "source"])  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'path'"):
        load_policy(path="x")  # type: ignore[call-arg]


def test_every_public_callable_with_options_is_checked() -> None:
    """A method added later gets the check too (strict_class wraps the class, not a list)."""
    checked = []
    for cls in (Policy, Ceilings, Engine, AsyncEngine, ManualClock):
        for name, member in vars(cls).items():
            if name.startswith("_") and name != "__init__":
                continue
            fn = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
            if not inspect.isfunction(fn) or "**" in str(inspect.signature(fn)):
                continue
            params = inspect.signature(fn).parameters.values()
            if name == "__init__" or any(p.default is not inspect.Parameter.empty for p in params):
                assert hasattr(fn, "__strict_keywords__"), f"{cls.__name__}.{name} is not checked"
                checked.append(f"{cls.__name__}.{name}")
    for name in ("Engine.holder_report", "Engine.end", "Engine.unlock", "Engine.refresh_result", "ManualClock.__init__"):
        assert name in checked, name
