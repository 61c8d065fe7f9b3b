"""The Python types against the C contract: enums and status codes as in the header, struct
layouts as the C compiler lays them out, every policy field and enum round-trips through the
library, presets, durations."""

from __future__ import annotations

import ctypes
import dataclasses
import math
import re
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Dict, Type

import enum

import pytest
from conftest import HEADER, TEST_POLICY, ManualFactory, Recorder

import inactivity
from inactivity import (
    NEVER,
    ActivityKind,
    ClockKind,
    Delivery,
    EventKind,
    IdleAction,
    Policy,
    Preset,
    Reason,
    RefreshOutcome,
    State,
    Status,
)
from inactivity import _lib

needs_header = pytest.mark.skipif(HEADER is None, reason="not run from a source checkout")


def header_text() -> str:
    assert HEADER is not None
    return HEADER.read_text()


def header_enum(prefix: str) -> Dict[str, int]:
    """NAME -> value for `INACT_<prefix>_NAME = value` entries (values may be `1 << n`)."""
    found: Dict[str, int] = {}
    for name, value in re.findall(rf"\bINACT_{prefix}_(\w+)\s*=\s*([^,\n/]+)", header_text()):
        found[name] = int(eval(value.strip(), {}))  # literals and shifts only
    return found


@needs_header
@pytest.mark.parametrize(
    "enum_type, prefix, extra",
    [
        (State, "STATE", {}),
        (Reason, "REASON", {}),
        (ActivityKind, "ACTIVITY", {"USER": 0x3F, "ALL": 0x7F}),
        (IdleAction, "IDLE_ACTION", {}),
        (Preset, "PRESET", {}),
        (EventKind, "EVENT", {}),
        (Delivery, "DELIVERY", {}),
        (ClockKind, "CLOCK", {}),
        (RefreshOutcome, "REFRESH", {}),
    ],
)
def test_enums_match_the_header(enum_type: Type[enum.Enum], prefix: str, extra: Dict[str, int]) -> None:
    expected = {**header_enum(prefix), **extra}
    assert expected, prefix
    assert {name: int(m.value) for name, m in enum_type.__members__.items()} == expected


@needs_header
def test_header_masks_match() -> None:
    text = header_text()
    assert f"INACT_ACTIVITY_USER 0x{ActivityKind.USER:X}u" in text
    assert f"INACT_ACTIVITY_ALL 0x{ActivityKind.ALL:X}u" in text
    assert f"INACT_SNAPSHOT_MAX_SIZE {inactivity.SNAPSHOT_MAX_SIZE}" in text


@needs_header
def test_status_codes_and_messages_match_the_header_and_the_library() -> None:
    table = re.findall(r'XX\(INACT_(\w+),\s*(-?\d+),\s*"([^"]*)"\)', header_text())
    assert len(table) == len(Status)
    for name, value, message in table:
        assert Status[name] == int(value)
        assert _lib.status_string(int(value)) == message
    assert _lib.status_string(-999) == "unknown status"


@needs_header
def test_the_function_table_covers_every_function_of_the_header() -> None:
    declared = set(re.findall(r"INACT_EXPORT[^;(]*?\b(inact_\w+)\s*\(", header_text()))
    assert declared == set(_lib.FUNCTION_NAMES)


STRUCTS = {"inact_policy": _lib.CPolicy, "inact_config": _lib.CConfig, "inact_event": _lib.CEvent, "inact_info": _lib.CInfo}


@needs_header
@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_struct_layouts_match_the_c_compiler(tmp_path: Path) -> None:
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "inactivity.h"', "int main(void) {"]
    for c_name, py_type in STRUCTS.items():
        lines.append(f'printf("{c_name} size %zu\\n", sizeof({c_name}));')
        for field, *_ in py_type._fields_:
            lines.append(f'printf("{c_name} {field} %zu\\n", offsetof({c_name}, {field}));')
    lines += ["return 0; }"]
    source = tmp_path / "layout.c"
    source.write_text("\n".join(lines))
    assert HEADER is not None
    subprocess.run(["cc", "-std=c99", "-I", str(HEADER.parent), "-o", str(tmp_path / "layout"), str(source)], check=True)
    out = subprocess.run([str(tmp_path / "layout")], check=True, capture_output=True, text=True).stdout
    expected = set()
    for c_name, py_type in STRUCTS.items():
        expected.add(f"{c_name} size {ctypes.sizeof(py_type)}")
        for field, *_ in py_type._fields_:
            expected.add(f"{c_name} {field} {getattr(py_type, field).offset}")
    assert set(out.split("\n")) - {""} == expected


def test_default_policy_is_the_librarys() -> None:
    assert Policy() == Policy.library_default() == Policy.preset(Preset.DEFAULT)
    p = Policy()
    assert p.idle_timeout == timedelta(minutes=15)
    assert p.warning == timedelta(seconds=30)
    assert p.idle_action is IdleAction.LOCK
    assert p.background_timeout == timedelta(seconds=60)
    assert p.absolute_timeout == timedelta(hours=12)
    assert p.locked_timeout == NEVER
    assert p.tick == timedelta(seconds=1)
    assert p.background_grace == timedelta(milliseconds=700)
    assert p.activity_kinds == ActivityKind.USER
    assert (p.max_unlock_failures, p.activity_dismisses_warning, p.pause_idle_in_background) == (0, False, False)
    p.validate()


def test_presets() -> None:
    defaults = Policy()
    aal2 = Policy.preset(Preset.NIST_AAL2)
    assert aal2 == defaults.replace(idle_timeout=timedelta(minutes=30), absolute_timeout=timedelta(hours=12))
    for preset in (Preset.NIST_AAL3, Preset.PCI_DSS):
        assert Policy.preset(preset) == defaults.replace(idle_timeout=timedelta(minutes=15), absolute_timeout=timedelta(hours=12))
    banking = Policy.preset(Preset.BANKING)
    assert banking == defaults.replace(
        idle_timeout=timedelta(minutes=5),
        warning=30,
        background_timeout=30,
        absolute_timeout=timedelta(hours=8),
        locked_timeout=timedelta(minutes=15),
        max_unlock_failures=5,
        activity_dismisses_warning=False,
    )
    for preset in Preset:
        Policy.preset(preset).validate()
    assert Policy.preset(int(Preset.BANKING)) == banking


def test_every_policy_field_round_trips_through_the_library(manual_engine: ManualFactory) -> None:
    # every field differs from its default and from the other fields
    policy = Policy(
        idle_timeout=timedelta(minutes=7, milliseconds=1),
        warning=timedelta(seconds=42, milliseconds=2),
        idle_action=IdleAction.EXPIRE,
        background_timeout=timedelta(seconds=13, milliseconds=3),
        absolute_timeout=timedelta(hours=3, milliseconds=4),
        locked_timeout=timedelta(minutes=9, milliseconds=5),
        tick=timedelta(milliseconds=250),
        background_grace=timedelta(milliseconds=1234),
        activity_kinds=ActivityKind.KEY | ActivityKind.PROGRAMMATIC,
        max_unlock_failures=4,
        activity_dismisses_warning=True,
        pause_idle_in_background=True,
    )
    assert all(getattr(policy, f.name) != getattr(Policy(), f.name) for f in dataclasses.fields(Policy))
    engine = manual_engine(policy)
    assert engine.policy() == policy
    engine.set_policy(TEST_POLICY)
    assert engine.policy() == TEST_POLICY
    engine.set_policy(policy.replace(background_timeout=NEVER, absolute_timeout=math.inf, tick=0, warning=0))
    read = engine.policy()
    assert (read.background_timeout, read.absolute_timeout, read.tick, read.warning) == (NEVER, NEVER, timedelta(0), timedelta(0))


def test_every_enum_round_trips_through_the_library(manual_engine: ManualFactory, recorder: Recorder) -> None:
    for action in IdleAction:
        engine = manual_engine(TEST_POLICY.replace(idle_action=action))
        assert engine.policy().idle_action is action
    for kind in ActivityKind:
        engine = manual_engine(TEST_POLICY.replace(activity_kinds=kind))
        assert engine.policy().activity_kinds == kind
    for delivery in Delivery:
        engine = manual_engine(delivery=delivery)
        assert engine.info().delivery is delivery and engine.info().clock is ClockKind.MANUAL
    with inactivity.Engine(delivery=Delivery.HOST) as system:
        assert system.info().clock is ClockKind.SYSTEM
    # states, reasons, event kinds: each value the library reports is a member
    engine = manual_engine(TEST_POLICY.replace(max_unlock_failures=1), on_event=recorder)
    engine.start()
    engine.advance(50)
    engine.advance(1)  # a tick
    engine.advance(10)
    engine.unlock_failed()
    seen_states = {e.state for e in recorder.events} | {e.previous_state for e in recorder.events}
    assert seen_states == set(State)
    assert {e.kind for e in recorder.events} == set(EventKind)
    assert all(type(e.state) is State and type(e.reason) is Reason and type(e.kind) is EventKind for e in recorder.events)
    assert {engine.refresh_result(s) for s in (200, 503, 403, 401)} == set(RefreshOutcome)


def test_durations_accept_timedelta_seconds_and_never() -> None:
    assert Policy(idle_timeout=90).idle_timeout == timedelta(seconds=90)
    assert Policy(idle_timeout=0.25, warning=0).idle_timeout == timedelta(milliseconds=250)
    assert Policy(background_grace=0.0004).background_grace == timedelta(0)  # rounded to ms
    assert Policy(background_grace=timedelta(microseconds=1500)).background_grace == timedelta(milliseconds=2)
    assert Policy(locked_timeout=math.inf).locked_timeout is NEVER
    assert Policy(locked_timeout=NEVER) == Policy()
    assert Policy().replace(warning=5).warning == timedelta(seconds=5)
    assert hash(Policy()) == hash(Policy.library_default())
    with pytest.raises(Exception):
        Policy().idle_timeout = timedelta(1)  # type: ignore[misc]


def test_versions() -> None:
    assert inactivity.__version__ == "1.0.0"
    assert inactivity.LIBRARY_VERSION_NUMBER // 10000 == 1
    number = inactivity.LIBRARY_VERSION_NUMBER
    assert inactivity.LIBRARY_VERSION == f"{number // 10000}.{number // 100 % 100}.{number % 100}"
    assert Path(inactivity.LIBRARY_PATH).name.startswith("libinactivity")


def test_errors_carry_status_and_message_and_pickle() -> None:
    import pickle

    from inactivity import EngineClosedError, InvalidStateError

    for error in (InvalidStateError(Status.E_INVALID_STATE, "lock is not allowed in LOADING"), EngineClosedError()):
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error)
        assert (copy.status, copy.message, str(copy)) == (error.status, error.message, str(error))
    assert str(InvalidStateError(Status.E_INVALID_STATE, "lock is not allowed")) == "lock is not allowed [E_INVALID_STATE]"


def test_wall_times_beyond_datetime_are_clamped() -> None:
    from datetime import datetime, timezone

    from inactivity._time import INT64_MAX, INT64_MIN, ms_to_wall, wall_to_ms

    assert ms_to_wall(INT64_MAX) == datetime.max.replace(tzinfo=timezone.utc)
    assert ms_to_wall(INT64_MIN) == datetime.min.replace(tzinfo=timezone.utc)
    moment = datetime(2031, 5, 6, 7, 8, 9, 123000, tzinfo=timezone.utc)
    assert ms_to_wall(wall_to_ms(moment, "t")) == moment
