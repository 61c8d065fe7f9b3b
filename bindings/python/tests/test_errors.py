"""Every bad input raises a clear exception of the right class and changes nothing."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Callable, List, Tuple, Type

import pytest
from conftest import REPO_ROOT, TEST_POLICY, ManualFactory, Recorder

import inactivity
from inactivity import (
    NEVER,
    ActivityKind,
    Engine,
    IdleAction,
    InactivityError,
    InvalidArgumentError,
    InvalidStateError,
    ManualClock,
    NotFoundError,
    Policy,
    Reason,
    SnapshotError,
    State,
    Status,
    WrongClockError,
)


def fingerprint(engine: Engine, recorder: Recorder) -> Tuple[Any, ...]:
    return (engine.info(), engine.policy(), len(recorder))


def expect_rejected(engine: Engine, recorder: Recorder, error: Type[BaseException], call: Callable[[], object], *words: str) -> BaseException:
    before = fingerprint(engine, recorder)
    with pytest.raises(error) as caught:
        call()
    assert fingerprint(engine, recorder) == before, f"{call} changed the engine"
    text = str(caught.value)
    for word in words:
        assert word in text, f"{word!r} not in {text!r}"
    return caught.value


def test_inputs_not_allowed_in_the_state_raise_invalid_state(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(on_event=recorder)
    # LOADING
    for call in (engine.continue_, engine.lock, engine.unlock, engine.unlock_failed, engine.snapshot, engine.window_hidden):
        error = expect_rejected(engine, recorder, InvalidStateError, call)
        assert isinstance(error, InactivityError) and error.status == Status.E_INVALID_STATE
        assert error.message  # the library's explanation
    # ACTIVE
    engine.start()
    for call in (engine.start, engine.continue_, engine.unlock, engine.unlock_failed):
        expect_rejected(engine, recorder, InvalidStateError, call)
    snapshot = engine.snapshot()
    expect_rejected(engine, recorder, InvalidStateError, lambda: engine.restore(snapshot))
    # EXPIRED
    engine.end()
    expect_rejected(engine, recorder, InvalidStateError, engine.lock)


def test_bad_arguments_raise_value_errors(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(on_event=recorder)
    engine.start()
    cases: list[Tuple[Callable[[], object], Type[BaseException]]] = [
        (lambda: engine.activity(0), InvalidArgumentError),
        (lambda: engine.activity(ActivityKind.KEY | ActivityKind.SCROLL), InvalidArgumentError),
        (lambda: engine.activity(1 << 7), InvalidArgumentError),
        (lambda: engine.activity(-1), InvalidArgumentError),
        (lambda: engine.end(Reason.IDLE_TIMEOUT), InvalidArgumentError),
        (lambda: engine.end(99), InvalidArgumentError),
        (lambda: engine.refresh_result(600), InvalidArgumentError),
        (lambda: engine.refresh_result(99), InvalidArgumentError),
        (lambda: engine.refresh_result(-1), InvalidArgumentError),
        (lambda: engine.refresh_result(2**40), InvalidArgumentError),
        (lambda: engine.refresh_result(401, "bad\0grant"), ValueError),
        (lambda: engine.push_scope(10), InvalidArgumentError),  # not above the warning (10 s)
        (lambda: engine.push_scope(-5), InvalidArgumentError),
        (lambda: engine.push_scope(timedelta(days=365 * 200)), InvalidArgumentError),
        (lambda: engine.push_scope(float("nan")), InvalidArgumentError),
        (lambda: engine.pop_scope(123456), NotFoundError),
        (lambda: engine.release_hold(123456), NotFoundError),
        (lambda: engine.advance(-1), InvalidArgumentError),
        (lambda: engine.advance(float("-inf")), InvalidArgumentError),
        (lambda: engine.reboot(-1), InvalidArgumentError),
        (lambda: engine.activity("wink"), InvalidArgumentError),  # a name the library does not know
        (lambda: engine.activity(b"KEY"), TypeError),  # type: ignore[arg-type]
        (lambda: engine.advance("1s"), TypeError),  # type: ignore[arg-type]
        (lambda: engine.set_policy("strict"), TypeError),  # type: ignore[arg-type]
    ]
    for call, error in cases:
        expect_rejected(engine, recorder, error, call)
    # the library's message names the argument or rule
    assert "kind" in str(expect_rejected(engine, recorder, InvalidArgumentError, lambda: engine.activity(0)))
    assert "status" in str(expect_rejected(engine, recorder, InvalidArgumentError, lambda: engine.refresh_result(600)))
    # both kinds of error are ValueErrors / LookupErrors to generic handlers
    assert issubclass(InvalidArgumentError, ValueError) and issubclass(NotFoundError, LookupError)


def test_clock_moves_that_would_overflow_are_rejected(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(on_event=recorder)
    engine.start()
    engine.advance(1)
    for call, word in (
        (lambda: engine.advance(NEVER), "ms"),
        (lambda: engine.reboot(NEVER), "downtime_ms"),
        (lambda: engine.jump_wall(NEVER), "delta_ms"),
    ):
        expect_rejected(engine, recorder, InvalidArgumentError, call, word)


@pytest.mark.parametrize(
    "changes, word",
    [
        ({"idle_timeout": 0}, "idle"),
        ({"idle_timeout": -1}, "idle"),
        ({"warning": 60}, "warning"),
        ({"warning": 61}, "warning"),
        ({"warning": -1}, "warning"),
        ({"background_timeout": -1}, "background"),
        ({"absolute_timeout": timedelta(days=365 * 101)}, "absolute"),
        ({"locked_timeout": -0.001}, "locked"),
        ({"tick": -1}, "tick"),
        ({"background_grace": -1}, "grace"),
        ({"idle_action": 2}, "idle_action"),
        ({"activity_kinds": 0x80}, "activity_kinds"),
    ],
)
def test_invalid_policies_are_rejected_everywhere(manual_engine: ManualFactory, recorder: Recorder, changes: dict[str, Any], word: str) -> None:
    bad = TEST_POLICY.replace(**changes)
    with pytest.raises(InvalidArgumentError, match=word):
        bad.validate()
    with pytest.raises(InvalidArgumentError, match=word):
        Engine(bad, clock=ManualClock())
    engine = manual_engine(on_event=recorder)
    engine.start()
    expect_rejected(engine, recorder, InvalidArgumentError, lambda: engine.set_policy(bad), word)
    assert engine.policy() == TEST_POLICY


def test_policy_warning_must_stay_below_open_scopes(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(on_event=recorder)
    engine.start()
    engine.push_scope(20)
    expect_rejected(engine, recorder, InvalidArgumentError, lambda: engine.set_policy(TEST_POLICY.replace(warning=25)))


def test_policy_arguments_of_the_wrong_type_fail_at_construction() -> None:
    with pytest.raises(TypeError):
        Policy(idle_timeout="15 min")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Policy(max_unlock_failures=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Policy(activity_dismisses_warning=2)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Policy(idle_action="lock")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        Policy(max_unlock_failures=-1)
    with pytest.raises(InvalidArgumentError):
        Policy(idle_timeout=1e300)


def test_bad_engine_configurations_are_rejected() -> None:
    with pytest.raises(InvalidArgumentError):
        Engine(clock=ManualClock(start=-1))
    with pytest.raises(InvalidArgumentError):
        Engine(clock=ManualClock(boot_id=0))
    with pytest.raises(InvalidArgumentError):
        Engine(delivery=7)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        ManualClock(wall=datetime(2030, 1, 1))  # naive: ambiguous
    with pytest.raises(InvalidArgumentError):
        ManualClock(boot_id=-1)
    clock = ManualClock(start=5, wall=datetime(2030, 1, 1, tzinfo=timezone.utc), boot_id=7)
    with Engine(clock=clock) as engine:
        reading = engine.clock_now()
        assert reading.monotonic == timedelta(seconds=5)
        assert reading.wall == datetime(2030, 1, 1, tzinfo=timezone.utc)
        assert reading.boot_id == 7


@pytest.mark.parametrize(
    "arguments, named",
    [
        ((("banking",), {}), "policy must be a Policy or None, not str (a preset: Policy.preset('banking'))"),
        (((inactivity.Preset.BANKING,), {}), "policy must be a Policy or None, not Preset"),
        (((), {"on_event": 42}), "on_event must be a callable taking an Event, or None, not int"),
        (((), {"on_event": "print"}), "on_event must be a callable"),
        (((), {"clock": 0}), "clock must be a ManualClock or None, not int"),
    ],
)
def test_engine_arguments_of_the_wrong_type_fail_at_the_call(arguments: Tuple[Tuple[Any, ...], dict[str, Any]], named: str) -> None:
    from inactivity import engine as engine_module

    args, kwargs = arguments
    open_before = dict(engine_module._engines)
    with pytest.raises(TypeError) as caught:
        Engine(*args, **kwargs)
    assert named in str(caught.value)
    assert engine_module._engines == open_before, "a refused Engine() registered an engine"


def test_manual_clock_operations_need_a_manual_clock() -> None:
    with Engine(Policy(), delivery=inactivity.Delivery.HOST) as engine:
        calls: List[Callable[[], object]] = [lambda: engine.advance(1), lambda: engine.jump_wall(1), engine.reboot]
        for call in calls:
            with pytest.raises(WrongClockError):
                call()
        assert engine.clock_now().boot_id != 0  # reading works on every clock


def test_unknown_preset_is_rejected() -> None:
    with pytest.raises(InvalidArgumentError):
        Policy.preset(99)


def test_corrupt_snapshots_fail_secure(manual_engine: ManualFactory, recorder: Recorder) -> None:
    source = manual_engine()
    source.start()
    good = source.snapshot()
    flipped = bytearray(good)
    flipped[len(flipped) // 2] ^= 0x40
    for bad in (b"", good[:-1], bytes(flipped)):
        engine = manual_engine(on_event=recorder)
        with pytest.raises(SnapshotError) as caught:
            engine.restore(bad)
        assert caught.value.status in (
            Status.E_SNAPSHOT_TRUNCATED,
            Status.E_SNAPSHOT_CHECKSUM,
            Status.E_SNAPSHOT_VERSION,
            Status.E_SNAPSHOT_INVALID,
        )
        assert isinstance(caught.value, ValueError)
        # the one documented exception to "a failed call changes nothing"
        assert (engine.state(), engine.reason()) == (State.EXPIRED, Reason.RESTORE_FAILED)


def test_idle_action_enum_out_of_range_is_kept_for_the_library_to_reject() -> None:
    policy = Policy(idle_action=5)
    assert int(policy.idle_action) == 5
    with pytest.raises(InvalidArgumentError):
        policy.validate()
    assert Policy(idle_action=1).idle_action is IdleAction.EXPIRE


@pytest.mark.skipif(REPO_ROOT is None, reason="not run from a source checkout")
def test_every_status_raises_its_categorys_class() -> None:
    """tools/codegen/names.toml gives each status an error category: the class raised is that
    category's, a subclass of its parent category's (the same tree in every binding)."""
    tomllib = pytest.importorskip("tomllib")
    assert REPO_ROOT is not None
    table = tomllib.loads((REPO_ROOT / "tools" / "codegen" / "names.toml").read_text())
    categories = table["categories"]
    for status, category in table["statuses"].items():
        code = int(inactivity.Status[status.removeprefix("INACT_")])
        error = inactivity.errors.error_for_status(code, "m")
        name = category
        while name:
            assert isinstance(error, getattr(inactivity, categories[name]["python"])), (status, name)
            name = categories[name].get("parent", "")
        assert type(error).__name__ == categories[category]["python"], status
        assert isinstance(error, inactivity.InactivityError)
