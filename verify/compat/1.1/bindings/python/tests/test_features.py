"""Issue 13 through the Python binding: unlock strength, expected interruption, device lock,
token generations, offline limits, managed ceilings, lock on restart, presets. Manual clock."""

from __future__ import annotations

from datetime import timedelta

import pytest

import inactivity
from inactivity import (
    NEVER,
    Auth,
    Ceilings,
    CeilingError,
    InvalidArgumentError,
    InvalidStateError,
    ManualClock,
    OfflineError,
    Policy,
    Preset,
    Reason,
    RefreshOutcome,
    State,
    WeakAuthError,
)

from conftest import TEST_POLICY, ManualFactory, Recorder, check_transition, ms


def test_unlock_strength(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(TEST_POLICY.replace(strong_auth_timeout=20), on_event=recorder)
    engine.start()
    engine.lock()
    assert recorder[-1].required_auth is Auth.BIOMETRIC
    assert engine.required_auth() is Auth.BIOMETRIC
    engine.advance(20)
    assert engine.required_auth() is Auth.CREDENTIAL
    before = engine.info()
    with pytest.raises(WeakAuthError, match=r"strong_auth_timeout_ms \(20000\)"):
        engine.unlock(Auth.BIOMETRIC)
    with pytest.raises(WeakAuthError):
        engine.unlock_failed(Auth.BIOMETRIC)
    assert engine.info() == before
    with pytest.raises(InvalidArgumentError, match=r"method \(0\)"):
        engine.unlock(Auth.NONE)
    engine.unlock(Auth.CREDENTIAL)
    assert engine.info().last_credential == ms(20_000)
    engine.biometrics_changed()
    engine.lock()
    assert engine.required_auth() is Auth.CREDENTIAL
    assert engine.unlock_failed() == 1


def test_expected_interruption(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(TEST_POLICY.replace(background_timeout=0), on_event=recorder)
    engine.start()
    engine.expect_interruption(5)
    assert engine.info().interruption_until == ms(5_000)
    engine.background()
    engine.advance(4)
    engine.foreground()
    assert engine.state() is State.ACTIVE
    engine.background()
    check_transition(recorder[-1], State.ACTIVE, State.LOCKED, Reason.BACKGROUND_TIMEOUT, 4_000)
    with pytest.raises(InvalidStateError):
        engine.expect_interruption(1)
    other = manual_engine(TEST_POLICY)
    other.start()
    with pytest.raises(InvalidArgumentError, match="expected_interruption_max_ms"):
        other.expect_interruption(61)


def test_device_lock(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(TEST_POLICY, on_event=recorder)
    engine.start()
    engine.device_locked()
    assert engine.state() is State.ACTIVE and engine.info().in_background
    engine.foreground()
    engine.set_policy(TEST_POLICY.replace(lock_on_device_lock=True))
    engine.advance(1)
    engine.device_locked()
    check_transition(recorder[-1], State.ACTIVE, State.LOCKED, Reason.DEVICE_LOCKED, 1_000)


def test_token_generations(manual_engine: ManualFactory) -> None:
    engine = manual_engine()
    engine.start()
    assert engine.refresh_result(200, generation=1) is RefreshOutcome.OK
    engine.token_rotated(2)
    assert engine.refresh_result(400, "invalid_grant", generation=1) is RefreshOutcome.STALE
    assert engine.state() is State.ACTIVE
    with pytest.raises(InvalidArgumentError, match=r"generation \(1\) is older than the newest generation seen \(2\)"):
        engine.token_rotated(1)
    assert engine.info().token_generation == 2
    assert engine.refresh_result(400, "invalid_grant", generation=2) is RefreshOutcome.REVOKED
    assert engine.reason() is Reason.REVOKED



def test_generations_keep_their_whole_uint64_range_and_order(manual_engine: ManualFactory) -> None:
    # The same extremes as the Kotlin binding's UnsignedRangeTest: where a signed 64-bit or
    # 32-bit integer would turn negative.
    engine = manual_engine(delivery=inactivity.Delivery.HOST)
    engine.start()
    assert engine.info().token_generation == 0
    for generation in (2**31, 2**63):
        engine.token_rotated(generation)
        assert engine.info().token_generation == generation
    # 2**63 - 1 is INT64_MAX: below 2**63 only when compared unsigned.
    assert engine.refresh_result(400, "invalid_grant", generation=2**63 - 1) is RefreshOutcome.STALE
    with pytest.raises(InvalidArgumentError, match="older than the newest"):
        engine.token_rotated(2**63 - 1)
    assert engine.refresh_result(200, generation=2**64 - 1) is RefreshOutcome.OK
    engine.token_rotated(2**64 - 1)
    assert engine.info().token_generation == 2**64 - 1
    assert engine.refresh_result(400, "invalid_grant", generation=2**63) is RefreshOutcome.STALE
    for bad in (-1, 2**64):
        with pytest.raises(InvalidArgumentError, match=r"generation \(%d\) is outside" % bad):
            engine.token_rotated(bad)
        with pytest.raises(InvalidArgumentError, match=r"generation \(%d\) is outside" % bad):
            engine.refresh_result(400, "invalid_grant", generation=bad)
    assert engine.state() is State.ACTIVE and engine.info().token_generation == 2**64 - 1
    # Generation 0 is "not tracked": never stale, an invalid_grant revokes.
    assert engine.refresh_result(400, "invalid_grant", generation=0) is RefreshOutcome.REVOKED
    assert engine.state() is State.EXPIRED


def test_max_unlock_failures_keeps_its_whole_uint32_range(manual_engine: ManualFactory) -> None:
    for limit in (0, 2**31, 2**32 - 1):
        policy = TEST_POLICY.replace(max_unlock_failures=limit)
        policy.validate()
        engine = manual_engine(policy, delivery=inactivity.Delivery.HOST)
        assert engine.policy() == policy and engine.policy().max_unlock_failures == limit
        engine.start()
        engine.lock()
        assert engine.unlock_failed() == 1 and engine.info().unlock_failures == 1
        assert engine.state() is State.LOCKED
    with pytest.raises(InvalidArgumentError, match=r"max_unlock_failures \(4294967296\) must be in \[0, 4294967295\]"):
        Policy(max_unlock_failures=2**32)
    engine = manual_engine(TEST_POLICY.replace(max_unlock_failures=2**31))
    engine.set_ceilings(Ceilings(max_unlock_failures=2**32 - 1))
    assert engine.ceilings().max_unlock_failures == 2**32 - 1
    engine.set_ceilings(Ceilings(max_unlock_failures=2**31))
    assert engine.ceilings().max_unlock_failures == 2**31
    with pytest.raises(CeilingError, match=r"policy.max_unlock_failures \(2147483649\) exceeds the managed ceiling \(2147483648;"):
        engine.set_policy(TEST_POLICY.replace(max_unlock_failures=2**31 + 1))
    assert engine.policy().max_unlock_failures == 2**31


def test_offline_limits(manual_engine: ManualFactory, recorder: Recorder) -> None:
    engine = manual_engine(TEST_POLICY.replace(offline_timeout=40, offline_expiry=50), on_event=recorder)
    engine.start()
    engine.advance(40)
    check_transition(recorder[-1], State.ACTIVE, State.LOCKED, Reason.OFFLINE_TIMEOUT, 40_000)
    assert engine.info().needs_server_contact
    with pytest.raises(OfflineError, match="offline_timeout_ms"):
        engine.unlock()
    engine.server_contact()
    engine.unlock()
    engine.advance(50)
    # locked again at 80 s (40 s without contact), then expired at 90 s
    check_transition(recorder[-1], State.LOCKED, State.EXPIRED, Reason.OFFLINE_EXPIRY, 90_000)
    with pytest.raises(InvalidArgumentError, match=r"policy.offline_timeout_ms \(0\) must be > 0"):
        Policy(offline_timeout=0).validate()


def test_managed_ceilings(manual_engine: ManualFactory) -> None:
    engine = manual_engine()
    engine.start()
    ceilings = Ceilings(idle_timeout=30, max_unlock_failures=5)
    engine.set_ceilings(ceilings)
    assert engine.ceilings() == ceilings
    assert engine.policy().idle_timeout == timedelta(seconds=30)
    assert engine.policy().max_unlock_failures == 5
    with pytest.raises(CeilingError, match=r"policy.idle_timeout_ms \(60000\) exceeds the managed ceiling \(30000\)"):
        engine.set_policy(TEST_POLICY)
    with pytest.raises(CeilingError):
        engine.set_policy(Policy.preset(Preset.PSD2))
    with pytest.raises(InvalidArgumentError, match="warning_ms"):
        engine.set_ceilings(Ceilings(idle_timeout=5))
    assert engine.ceilings() == ceilings
    assert Ceilings() == Ceilings(idle_timeout=NEVER)


def test_lock_on_restart_and_snapshot_format_2(recorder: Recorder) -> None:
    policy = TEST_POLICY.replace(lock_on_restart=True)
    clock = ManualClock()
    with inactivity.Engine(policy, clock=clock, delivery=inactivity.Delivery.HOST) as engine:
        engine.start()
        engine.token_rotated(3)
        data = engine.snapshot()
        reading = engine.clock_now()
    assert len(data) == 104 and data[4] == 2
    restored = inactivity.Engine(
        policy,
        on_event=recorder,
        delivery=inactivity.Delivery.HOST,
        clock=ManualClock(start=reading.monotonic, wall=reading.wall, boot_id=reading.boot_id),
    )
    with restored:
        restored.restore(data)
        check_transition(recorder[-1], State.LOADING, State.LOCKED, Reason.RESTART, 0)
        assert restored.info().token_generation == 3


def test_presets_with_sources() -> None:
    psd2 = Policy.preset(Preset.PSD2)
    assert psd2.idle_timeout == timedelta(minutes=5) and psd2.max_unlock_failures == 5
    enterprise = Policy.preset(Preset.ENTERPRISE)
    assert enterprise.strong_auth_timeout == timedelta(minutes=30)
    assert enterprise.offline_timeout == timedelta(minutes=720)
    assert enterprise.offline_expiry == timedelta(days=90)
    assert enterprise.absolute_timeout == NEVER
