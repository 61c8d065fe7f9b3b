"""Issue 30 through the Python binding: ``Engine.holder_report`` (one test per kind), the new
reason DEVICE_LIMIT, and the keepalive (``Policy.keepalive_interval``, ``EventKind.KEEPALIVE``).
Manual clock; TEST_POLICY: idle 60 s, warning 10 s, absolute 12 h."""

from __future__ import annotations

from datetime import timedelta

import pytest

from inactivity import (
    EventKind,
    HolderKind,
    InvalidArgumentError,
    InvalidStateError,
    Policy,
    Reason,
    State,
)

from conftest import TEST_POLICY, ManualFactory, Recorder, ms


def test_activity_counts_at_its_age(manual_engine: ManualFactory) -> None:
    engine = manual_engine()
    engine.start()
    engine.advance(20)
    engine.holder_report(HolderKind.ACTIVITY, duration=timedelta(seconds=5))
    assert engine.info().last_activity == ms(15_000)
    assert engine.remaining() == timedelta(seconds=55)
    engine.lock()
    engine.holder_report(HolderKind.ACTIVITY)
    assert engine.state() is State.LOCKED, "activity never unlocks"


def test_a_lock_is_followed_with_the_holders_reason_at_its_instant(
    manual_engine: ManualFactory, recorder: Recorder
) -> None:
    engine = manual_engine(on_event=recorder)
    engine.start()
    engine.advance(20)
    engine.holder_report(HolderKind.LOCKED, duration=4, reason=Reason.BACKGROUND_TIMEOUT)
    assert (recorder[-1].state, recorder[-1].reason, recorder[-1].time) == (
        State.LOCKED,
        Reason.BACKGROUND_TIMEOUT,
        ms(16_000),
    )
    engine.holder_report(HolderKind.LOCKED, reason=Reason.MANUAL_LOCK)
    assert engine.reason() is Reason.BACKGROUND_TIMEOUT, "the strictest wins, the reason stays"
    loading = manual_engine()
    with pytest.raises(InvalidStateError):
        loading.holder_report(HolderKind.LOCKED, reason=Reason.MANUAL_LOCK)


def test_an_expiry_is_followed_with_device_limit(manual_engine: ManualFactory) -> None:
    engine = manual_engine()
    engine.start()
    engine.holder_report(HolderKind.EXPIRED, reason=Reason.DEVICE_LIMIT)
    assert (engine.state(), engine.reason()) == (State.EXPIRED, Reason.DEVICE_LIMIT)
    engine.start()
    engine.end(Reason.DEVICE_LIMIT)
    assert engine.reason() is Reason.DEVICE_LIMIT


def test_an_earlier_idle_deadline_is_adopted(manual_engine: ManualFactory) -> None:
    engine = manual_engine()
    engine.start()
    engine.holder_report(HolderKind.IDLE_DEADLINE, duration=timedelta(minutes=5))
    assert engine.remaining() == timedelta(seconds=60), "a later one changes nothing"
    engine.holder_report(HolderKind.IDLE_DEADLINE, duration=30)
    assert engine.remaining() == timedelta(seconds=30)
    engine.advance(30)
    assert (engine.state(), engine.reason()) == (State.LOCKED, Reason.IDLE_TIMEOUT)


def test_an_earlier_absolute_deadline_is_adopted(manual_engine: ManualFactory) -> None:
    engine = manual_engine()
    engine.start()
    engine.holder_report(HolderKind.ABSOLUTE_DEADLINE, duration=timedelta(seconds=40))
    engine.advance(39)
    engine.activity(8)
    engine.advance(1)
    assert (engine.state(), engine.reason()) == (State.EXPIRED, Reason.ABSOLUTE_TIMEOUT)


def test_bad_reports_name_the_argument_and_change_nothing(manual_engine: ManualFactory) -> None:
    engine = manual_engine()
    engine.start()
    before = engine.info()
    with pytest.raises(InvalidArgumentError, match=r"kind \(9\)"):
        engine.holder_report(9)
    with pytest.raises(InvalidArgumentError, match=r"reason \(10\)"):
        engine.holder_report(HolderKind.ACTIVITY, reason=Reason.MANUAL_LOCK)
    with pytest.raises(InvalidArgumentError, match=r"reason \(0\)"):
        engine.holder_report(HolderKind.EXPIRED)
    with pytest.raises(InvalidArgumentError, match=r"ms \(-1000\)"):
        engine.holder_report(HolderKind.ACTIVITY, duration=-1)
    with pytest.raises(TypeError):
        engine.holder_report(HolderKind.ACTIVITY, duration="1")  # type: ignore[arg-type]
    assert engine.info() == before


def test_keepalive_events_from_real_activity(manual_engine: ManualFactory, recorder: Recorder) -> None:
    assert Policy().keepalive_interval == timedelta(0)
    engine = manual_engine(TEST_POLICY.replace(keepalive_interval=5), on_event=recorder)
    assert engine.policy().keepalive_interval == timedelta(seconds=5)
    engine.start()
    engine.advance(2)
    engine.activity(8)
    engine.advance(3)
    pings = [e for e in recorder.events if e.kind is EventKind.KEEPALIVE]
    assert [(p.now, p.time, p.now - p.time) for p in pings] == [(ms(5_000), ms(2_000), ms(3_000))]
    with pytest.raises(InvalidArgumentError, match="keepalive_interval"):
        engine.set_policy(TEST_POLICY.replace(keepalive_interval=0.5))
