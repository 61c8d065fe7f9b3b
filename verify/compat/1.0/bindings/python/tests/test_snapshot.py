"""Snapshot and restore across engines (a cold start), on manual clocks.

A new engine stands for the same app after a process restart: its manual clock is created
where the old one would be (same boot id, the continuous clock moved on), or after a reboot.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from conftest import TEST_POLICY, ManualFactory, Recorder, check_transition, ms

from inactivity import SNAPSHOT_MAX_SIZE, ActivityKind, Engine, EventKind, InvalidStateError, ManualClock, Reason, State


def later(engine: Engine, elapsed: timedelta, boot_id: int = 0) -> ManualClock:
    """A manual clock `elapsed` after `engine`'s now, on the same boot unless boot_id is given."""
    now = engine.clock_now()
    return ManualClock(start=now.monotonic + elapsed, wall=now.wall + elapsed, boot_id=boot_id or now.boot_id)


def saved_session(manual_engine: ManualFactory) -> Engine:
    engine = manual_engine()
    engine.start()
    engine.advance(10)
    engine.activity(ActivityKind.KEY)
    engine.background()
    return engine


def test_snapshot_is_small_bytes(manual_engine: ManualFactory) -> None:
    engine = saved_session(manual_engine)
    data = engine.snapshot()
    assert isinstance(data, bytes) and 0 < len(data) <= SNAPSHOT_MAX_SIZE
    assert engine.snapshot() == data  # nothing moved


def test_restore_soon_after_continues_the_session(manual_engine: ManualFactory, recorder: Recorder) -> None:
    old = saved_session(manual_engine)
    data = old.snapshot()
    new = manual_engine(on_event=recorder, clock=later(old, timedelta(seconds=5)))
    new.restore(bytearray(data))  # any bytes-like
    assert len(recorder) == 1
    event = recorder[0]
    assert (event.kind, event.previous_state, event.state, event.reason) == (EventKind.STATE_CHANGED, State.LOADING, State.ACTIVE, Reason.RESTORED)
    # the time since the snapshot was background time; the idle deadline kept running
    new.foreground()
    assert new.state() == State.ACTIVE
    assert new.remaining() == timedelta(seconds=60 - 5)


def test_restore_after_the_background_timeout_is_locked(manual_engine: ManualFactory, recorder: Recorder) -> None:
    old = saved_session(manual_engine)
    new = manual_engine(on_event=recorder, clock=later(old, timedelta(seconds=31)))
    new.restore(old.snapshot())
    assert len(recorder) == 1
    check_transition(recorder[0], State.LOADING, State.LOCKED, Reason.BACKGROUND_TIMEOUT, 10_000 + 30_000)


def test_restore_after_the_absolute_lifetime_is_expired(manual_engine: ManualFactory) -> None:
    old = saved_session(manual_engine)
    new = manual_engine(clock=later(old, timedelta(hours=13)))
    new.restore(old.snapshot())
    assert (new.state(), new.reason()) == (State.EXPIRED, Reason.ABSOLUTE_TIMEOUT)


def test_restore_after_a_reboot_is_locked_untrusted(manual_engine: ManualFactory) -> None:
    old = saved_session(manual_engine)
    data = old.snapshot()
    new = manual_engine(clock=later(old, timedelta(0)))
    new.reboot(downtime=timedelta(seconds=1))
    assert new.clock_now().boot_id != old.clock_now().boot_id
    new.restore(data)
    assert (new.state(), new.reason()) == (State.LOCKED, Reason.UNTRUSTED_CLOCK)


def test_restore_on_another_boot_past_the_absolute_lifetime_by_the_wall_clock_is_expired(manual_engine: ManualFactory) -> None:
    old = saved_session(manual_engine)
    new = manual_engine(clock=later(old, timedelta(hours=13), boot_id=99))
    new.restore(old.snapshot())
    assert new.state() == State.EXPIRED


def test_restore_with_the_wall_clock_set_back_is_expired(manual_engine: ManualFactory) -> None:
    old = saved_session(manual_engine)
    new = manual_engine(clock=later(old, timedelta(0), boot_id=99))
    new.jump_wall(timedelta(hours=-1))
    new.restore(old.snapshot())
    assert new.state() == State.EXPIRED


def test_a_locked_session_restores_locked(manual_engine: ManualFactory) -> None:
    old = manual_engine()
    old.start()
    old.lock()
    new = manual_engine(clock=later(old, ms(100)))
    new.restore(old.snapshot())
    assert (new.state(), new.reason()) == (State.LOCKED, Reason.RESTORED)


def test_restore_needs_loading(manual_engine: ManualFactory) -> None:
    old = saved_session(manual_engine)
    new = manual_engine(clock=later(old, ms(1)))
    new.restore(old.snapshot())
    with pytest.raises(InvalidStateError):
        new.restore(old.snapshot())
    with pytest.raises(InvalidStateError):
        manual_engine().snapshot()  # LOADING: no session to save


def test_round_trip_through_the_policy_of_the_new_engine(manual_engine: ManualFactory) -> None:
    # The snapshot holds the session, not the policy: the restoring app brings its own.
    old = saved_session(manual_engine)
    strict = manual_engine(TEST_POLICY.replace(background_timeout=2), clock=later(old, timedelta(seconds=3)))
    strict.restore(old.snapshot())
    assert (strict.state(), strict.reason()) == (State.LOCKED, Reason.BACKGROUND_TIMEOUT)
