"""Sessions on the manual clock, through the Python API. The first test is the C suite's
full_session_through_the_abi, step for step; the rest pin one behaviour each."""

from __future__ import annotations

from datetime import timedelta

from conftest import TEST_POLICY, ManualFactory, Recorder, check_tick, check_transition, ms

from inactivity import NEVER, ActivityKind, ClockKind, Delivery, IdleAction, Reason, RefreshOutcome, State


def test_full_session(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(on_event=recorder)
    assert (engine.state(), engine.reason()) == (State.LOADING, Reason.NONE)

    # start: ACTIVE, delivered before start() returns
    engine.start()
    assert len(recorder) == 1
    check_transition(recorder[0], State.LOADING, State.ACTIVE, Reason.STARTED, 0)
    assert engine.remaining() == timedelta(seconds=60)

    # nothing before the warning deadline; WARNING exactly at 50 s
    engine.advance(ms(49_999))
    assert len(recorder) == 1
    assert engine.state() == State.ACTIVE
    engine.advance(ms(1))
    assert len(recorder) == 2
    check_transition(recorder[1], State.ACTIVE, State.WARNING, Reason.IDLE, 50_000)
    assert recorder[1].remaining == timedelta(seconds=10)

    # countdown ticks, aligned to the remaining time (steps of at most one deadline each, so
    # that this test does not depend on how one long advance is delivered: see below)
    for i in range(3):
        engine.advance(ms(999))
        assert len(recorder) == 2 + i
        engine.advance(ms(1))
        assert len(recorder) == 3 + i
        check_tick(recorder[2 + i], 9000 - 1000 * i, 51_000 + 1000 * i)

    # continue: ACTIVE, the idle timeout counts from now
    engine.continue_()
    assert len(recorder) == 6
    check_transition(recorder[5], State.WARNING, State.ACTIVE, Reason.CONTINUED, 53_000)
    assert engine.remaining() == timedelta(seconds=60)

    # idle again: WARNING at 103 s, ticks 9..1 s, LOCKED exactly at 113 s
    engine.advance(ms(49_999))
    assert len(recorder) == 6
    engine.advance(ms(1))
    check_transition(recorder[6], State.ACTIVE, State.WARNING, Reason.IDLE, 103_000)
    for i in range(9):
        engine.advance(1)
        check_tick(recorder[7 + i], 9000 - 1000 * i, 104_000 + 1000 * i)
    engine.advance(ms(999))
    assert len(recorder) == 16
    assert engine.state() == State.WARNING
    engine.advance(ms(1))
    assert len(recorder) == 17
    check_transition(recorder[16], State.WARNING, State.LOCKED, Reason.IDLE_TIMEOUT, 113_000)
    assert engine.info().locked_at == ms(113_000)

    # unlock
    engine.unlock()
    check_transition(recorder[17], State.LOCKED, State.ACTIVE, Reason.UNLOCKED, 113_000)
    assert engine.remaining() == timedelta(seconds=60)

    # background past the background timeout: LOCKED on time, still LOCKED in foreground
    engine.background()
    assert engine.info().in_background is True
    assert engine.info().background_since == ms(113_000)
    engine.advance(ms(29_999))
    assert len(recorder) == 18
    engine.advance(ms(1))
    assert len(recorder) == 19
    check_transition(recorder[18], State.ACTIVE, State.LOCKED, Reason.BACKGROUND_TIMEOUT, 143_000)
    engine.foreground()
    assert len(recorder) == 19
    assert engine.state() == State.LOCKED
    assert engine.info().in_background is False

    engine.unlock()
    check_transition(recorder[19], State.LOCKED, State.ACTIVE, Reason.UNLOCKED, 143_000)

    # network trouble never ends the session
    assert engine.refresh_result(503) == RefreshOutcome.RETRY
    assert engine.refresh_result(0) == RefreshOutcome.RETRY
    assert len(recorder) == 20
    assert engine.state() == State.ACTIVE

    # a revoked refresh token: EXPIRED before the call returns
    assert engine.refresh_result(400, "invalid_grant") == RefreshOutcome.REVOKED
    assert len(recorder) == 21
    check_transition(recorder[20], State.ACTIVE, State.EXPIRED, Reason.REVOKED, 143_000)
    assert engine.remaining() == NEVER

    # and a new sign-in starts a new session
    engine.advance(5)
    engine.start()
    check_transition(recorder[21], State.EXPIRED, State.ACTIVE, Reason.STARTED, 148_000)
    assert engine.info().started_at == ms(148_000)
    assert engine.remaining() == timedelta(seconds=60)

    # every event names its engine; time <= now
    assert all(e.engine_id == engine.handle for e in recorder.events)
    assert all(e.time <= e.now for e in recorder.events)
    engine.close()
    assert engine.closed


def test_advance_through_the_warning_delivers_every_tick(manual_engine: ManualFactory, recorder: Recorder) -> None:
    # header: inact_clock_advance "delivers every due event inside the call, in time order,
    # exactly as on the real clock"
    engine = manual_engine(on_event=recorder)
    engine.start()
    engine.advance(50)
    assert engine.state() == State.WARNING
    engine.advance(3.5)
    assert len(recorder) == 5
    check_tick(recorder[2], 9000, 51_000)
    check_tick(recorder[3], 8000, 52_000)
    check_tick(recorder[4], 7000, 53_000)


def test_idle_action_expire_expires_at_the_idle_timeout(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(TEST_POLICY.replace(idle_action=IdleAction.EXPIRE, tick=0), on_event=recorder)
    engine.start()
    engine.advance(ms(59_999))
    assert len(recorder) == 2  # STARTED, WARNING; no ticks with tick 0
    engine.advance(ms(1))
    check_transition(recorder[2], State.WARNING, State.EXPIRED, Reason.IDLE_TIMEOUT, 60_000)


def test_activity_postpones_the_idle_deadline(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(on_event=recorder)
    engine.start()
    engine.advance(30)
    engine.activity(ActivityKind.TOUCH_DOWN)
    assert engine.info().last_activity == ms(30_000)
    assert engine.remaining() == timedelta(seconds=60)
    engine.advance(ms(49_999))
    assert engine.state() == State.ACTIVE
    engine.advance(ms(1))
    check_transition(recorder[1], State.ACTIVE, State.WARNING, Reason.IDLE, 80_000)


def test_uncounted_activity_kind_is_ignored(manual_engine: ManualFactory) -> None:
    engine = manual_engine()
    engine.start()
    engine.advance(20)
    engine.activity(ActivityKind.PROGRAMMATIC)  # not in the default mask
    assert engine.info().last_activity == ms(0)
    engine.activity(ActivityKind.SCROLL)
    assert engine.info().last_activity == ms(20_000)


def test_activity_dismisses_the_warning_only_when_the_policy_says(manual_engine: ManualFactory, recorder: Recorder) -> None:
    strict = manual_engine(TEST_POLICY.replace(tick=0))
    strict.start()
    strict.advance(55)
    strict.activity(ActivityKind.KEY)
    assert strict.state() == State.WARNING
    assert strict.info().last_activity == ms(0)

    lenient = manual_engine(TEST_POLICY.replace(tick=0, activity_dismisses_warning=True), on_event=recorder)
    lenient.start()
    lenient.advance(55)
    lenient.activity(ActivityKind.KEY)
    check_transition(recorder[2], State.WARNING, State.ACTIVE, Reason.ACTIVITY, 55_000)


def test_one_long_advance_delivers_every_deadline_in_time_order(manual_engine: ManualFactory, recorder: Recorder) -> None:
    # THREAD delivery on a manual clock: events still arrive inside advance(), on this thread.
    engine = manual_engine(TEST_POLICY.replace(tick=0, locked_timeout=60), on_event=recorder, delivery=Delivery.THREAD)
    engine.start()
    engine.advance(timedelta(minutes=10))
    assert len(recorder) == 4
    check_transition(recorder[1], State.ACTIVE, State.WARNING, Reason.IDLE, 50_000)
    check_transition(recorder[2], State.WARNING, State.LOCKED, Reason.IDLE_TIMEOUT, 60_000)
    check_transition(recorder[3], State.LOCKED, State.EXPIRED, Reason.LOCKED_TIMEOUT, 120_000)
    assert recorder[3].now == ms(120_000)


def test_a_frozen_process_catches_up_with_one_transition(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(TEST_POLICY.replace(tick=0, locked_timeout=60), on_event=recorder)
    engine.start()
    engine.freeze(timedelta(minutes=10))
    assert len(recorder) == 1  # nothing is delivered while frozen
    assert engine.state() == State.EXPIRED  # the next call catches up
    assert len(recorder) == 2
    check_transition(recorder[1], State.ACTIVE, State.EXPIRED, Reason.LOCKED_TIMEOUT, 120_000)
    assert recorder[1].now == ms(600_000)


def test_unlock_failures_expire_at_the_limit(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(TEST_POLICY.replace(max_unlock_failures=3), on_event=recorder)
    engine.start()
    engine.lock()
    assert engine.unlock_failed() == 1
    assert engine.unlock_failed() == 2
    assert engine.state() == State.LOCKED
    assert engine.unlock_failed() == 3
    check_transition(recorder[2], State.LOCKED, State.EXPIRED, Reason.UNLOCK_FAILURES, 0)


def test_lock_when_locked_is_a_silent_success(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(on_event=recorder)
    engine.start()
    engine.lock()
    engine.advance(1)
    engine.lock()
    assert len(recorder) == 2
    assert engine.info().locked_at == ms(0)


def test_end_session_with_each_reason(manual_engine: ManualFactory) -> None:
    for reason in (Reason.LOGOUT, Reason.REVOKED, Reason.PASSWORD_CHANGED):
        engine = manual_engine()
        engine.start()
        engine.end(reason)
        assert (engine.state(), engine.reason()) == (State.EXPIRED, reason)
        engine.end()  # in EXPIRED a no-op success
        assert engine.reason() == reason
    engine = manual_engine()
    engine.start()
    engine.end()
    assert engine.reason() == Reason.LOGOUT


def test_refresh_results_are_classified(manual_engine: ManualFactory) -> None:
    cases = [
        (200, None, RefreshOutcome.OK),
        (204, None, RefreshOutcome.OK),
        (0, None, RefreshOutcome.RETRY),
        (408, None, RefreshOutcome.RETRY),
        (429, None, RefreshOutcome.RETRY),
        (500, None, RefreshOutcome.RETRY),
        (599, None, RefreshOutcome.RETRY),
        (401, None, RefreshOutcome.REVOKED),
        (400, "invalid_grant", RefreshOutcome.REVOKED),
        (400, "invalid_request", RefreshOutcome.FAILED),
        (400, None, RefreshOutcome.FAILED),
        (403, None, RefreshOutcome.FAILED),
        (404, "", RefreshOutcome.FAILED),
    ]
    for status, oauth_error, expected in cases:
        engine = manual_engine()
        engine.start()
        assert engine.refresh_result(status, oauth_error) == expected, (status, oauth_error)
        assert engine.state() == (State.EXPIRED if expected == RefreshOutcome.REVOKED else State.ACTIVE)
        assert isinstance(engine.refresh_result(200), RefreshOutcome)


def test_windows_hidden_past_the_grace_are_background_from_the_drop(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(on_event=recorder)
    engine.start()
    engine.window_shown()
    engine.advance(1)
    engine.window_hidden()
    engine.advance(0.7)
    info = engine.info()
    assert info.in_background and info.background_since == ms(1000) and info.visible_windows == 0
    engine.advance(ms(30_000 - 700 - 1))
    assert engine.state() == State.ACTIVE
    engine.advance(ms(1))
    check_transition(recorder[1], State.ACTIVE, State.LOCKED, Reason.BACKGROUND_TIMEOUT, 31_000)
    engine.window_shown()
    assert engine.info().in_background is False


def test_scopes_shorten_the_idle_timeout_until_popped(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(TEST_POLICY.replace(tick=0), on_event=recorder)
    engine.start()
    with engine.scope(30) as payment:
        strict = engine.push_scope(timedelta(seconds=20))
        assert 0 not in (payment, strict) and payment != strict
        assert engine.info().open_scopes == 2
        assert engine.info().effective_idle_timeout == timedelta(seconds=20)
        engine.pop_scope(strict)
        assert engine.info().effective_idle_timeout == timedelta(seconds=30)
        engine.advance(20)
        check_transition(recorder[1], State.ACTIVE, State.WARNING, Reason.IDLE, 20_000)
    # leaving the block popped the last scope: the idle deadline moved later
    check_transition(recorder[2], State.WARNING, State.ACTIVE, Reason.EXTENDED, 20_000)
    assert engine.info().open_scopes == 0
    assert engine.remaining() == timedelta(seconds=40)


def test_holds_suspend_idle_and_the_last_release_restarts_it(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(TEST_POLICY.replace(tick=0), on_event=recorder)
    engine.start()
    engine.advance(55)
    with engine.hold():
        check_transition(recorder[2], State.WARNING, State.ACTIVE, Reason.EXTENDED, 55_000)
        call = engine.acquire_hold()
        engine.advance(timedelta(hours=2))
        assert engine.state() == State.ACTIVE
        engine.release_hold(call)
        engine.advance(timedelta(minutes=10))
        assert engine.info().open_holds == 1
    info = engine.info()
    assert info.open_holds == 0
    assert info.last_activity == ms(55_000) + timedelta(hours=2, minutes=10)
    assert engine.remaining() == timedelta(seconds=60)


def test_set_policy_recomputes_deadlines_at_once(manual_engine: ManualFactory) -> None:
    policy = TEST_POLICY.replace(tick=0)
    engine = manual_engine(policy)
    engine.start()
    engine.advance(40)
    engine.set_policy(policy.replace(idle_timeout=45))
    assert engine.state() == State.WARNING
    assert engine.remaining() == timedelta(seconds=5)
    engine.set_policy(policy)
    assert (engine.state(), engine.reason()) == (State.ACTIVE, Reason.EXTENDED)
    assert engine.remaining() == timedelta(seconds=20)
    assert engine.policy() == policy


def test_info_without_a_session(manual_engine: ManualFactory) -> None:
    info = manual_engine().info()
    assert info.state == State.LOADING and info.reason == Reason.NONE
    assert info.remaining == NEVER
    assert (info.started_at, info.last_activity, info.locked_at, info.background_since, info.next_deadline) == (None,) * 5
    assert info.delivery == Delivery.HOST
    assert info.clock == ClockKind.MANUAL
    assert info.effective_idle_timeout == timedelta(seconds=60)
    assert info.now == timedelta(0)


def test_host_mode_next_deadline_and_poll(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(TEST_POLICY.replace(tick=0), on_event=recorder)
    assert engine.next_deadline() == NEVER
    engine.start()
    assert engine.next_deadline() == timedelta(seconds=50)
    engine.advance(20)
    assert engine.next_deadline() == timedelta(seconds=30)
    engine.poll()  # early: harmless
    assert len(recorder) == 1
    assert engine.info().next_deadline == ms(50_000)
