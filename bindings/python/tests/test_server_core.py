"""inactivity._server_core: a server's decision over a stored record (inact_server_decide).

The rules are the library's (its C and Swift suites test them); these tests check the
conversions both ways, and the rules a server leans on, through the Python API.
"""

from __future__ import annotations

import dataclasses

import pytest

from inactivity import Auth, InvalidArgumentError, Policy, Reason, State
from inactivity._server_core import DEFAULT_PRECISION_MS, RECORD_SIZE, Decision, ServerInput, decide

T0 = 1_700_000_000_000
POLICY = Policy(idle_timeout=60, warning=10, absolute_timeout=3600, max_unlock_failures=3)


def signed_in(at: int = T0) -> bytes:
    decision, record = decide(POLICY, None, at, ServerInput.SIGN_IN)
    assert record is not None
    return record


def test_sign_in_starts_a_session_and_gives_its_record() -> None:
    decision, record = decide(POLICY, None, T0, ServerInput.SIGN_IN)
    assert record is not None and len(record) == RECORD_SIZE
    assert decision == Decision(
        state=State.ACTIVE, reason=Reason.STARTED, required_auth=Auth.NONE, write=True, unlock_failures=0,
        now_ms=T0, remaining_ms=60_000, idle_deadline_ms=T0 + 60_000, absolute_deadline_ms=T0 + 3_600_000,
        started_at_ms=T0, last_activity_ms=T0,
    )
    assert decision.allowed
    assert (decision.idle_remaining_ms, decision.absolute_remaining_ms) == (60_000, 3_600_000)
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.state = State.EXPIRED  # type: ignore[misc]


def test_requests_within_the_precision_write_nothing_and_later_ones_move_the_deadline() -> None:
    record = signed_in()
    quiet, none = decide(POLICY, record, T0 + DEFAULT_PRECISION_MS - 1, ServerInput.REQUEST)
    assert none is None and not quiet.write
    assert quiet.last_activity_ms == T0 and quiet.idle_deadline_ms == T0 + 60_000
    moved, newer = decide(POLICY, record, T0 + DEFAULT_PRECISION_MS, ServerInput.REQUEST)
    assert newer is not None and moved.write
    assert moved.idle_deadline_ms == T0 + DEFAULT_PRECISION_MS + 60_000


def test_machine_traffic_never_extends_and_the_idle_lock_is_decided() -> None:
    record = signed_in()
    polled, _ = decide(POLICY, record, T0 + 30_000, ServerInput.MACHINE)
    assert polled.state is State.ACTIVE and polled.idle_deadline_ms == T0 + 60_000
    warned, _ = decide(POLICY, record, T0 + 50_000, ServerInput.MACHINE)
    assert (warned.state, warned.reason) == (State.WARNING, Reason.IDLE)
    locked, stored = decide(POLICY, record, T0 + 60_000, ServerInput.REQUEST)
    assert (locked.state, locked.reason, locked.required_auth) == (State.LOCKED, Reason.IDLE_TIMEOUT, Auth.BIOMETRIC)
    assert stored is not None and not locked.allowed
    assert locked.idle_remaining_ms is None and locked.absolute_remaining_ms == 3_600_000 - 60_000
    # The lock sticks: the record says LOCKED, a later request changes nothing.
    again, none = decide(POLICY, stored, T0 + 61_000, ServerInput.REQUEST)
    assert again.state is State.LOCKED and none is None


def test_unlock_failures_count_to_the_policy_limit() -> None:
    _, record = decide(POLICY, signed_in(), T0 + 1000, ServerInput.LOCK, Reason.MANUAL_LOCK)
    assert record is not None
    for n in (1, 2):
        d, record = decide(POLICY, record, T0 + 2000, ServerInput.UNLOCK_FAILED)
        assert (d.state, d.unlock_failures) == (State.LOCKED, n) and record is not None
    d, record = decide(POLICY, record, T0 + 2000, ServerInput.UNLOCK_FAILED)
    assert (d.state, d.reason) == (State.EXPIRED, Reason.UNLOCK_FAILURES)


def test_end_takes_the_device_limit_and_a_corrupt_record_is_expired() -> None:
    d, record = decide(POLICY, signed_in(), T0 + 1000, ServerInput.END, Reason.DEVICE_LIMIT)
    assert (d.state, d.reason) == (State.EXPIRED, Reason.DEVICE_LIMIT) and record is not None
    forged = bytearray(signed_in())
    forged[30] ^= 1
    d, record = decide(POLICY, bytes(forged), T0 + 1000, ServerInput.REQUEST)
    assert (d.state, d.reason, d.write) == (State.EXPIRED, Reason.RESTORE_FAILED, True) and record is not None
    assert len(record) == RECORD_SIZE


def test_a_server_behind_the_record_decides_at_the_records_instant() -> None:
    _, record = decide(POLICY, signed_in(), T0 + 20_000, ServerInput.REQUEST)
    assert record is not None
    behind, _ = decide(POLICY, record, T0 + 5_000, ServerInput.MACHINE)
    assert behind.now_ms == T0 + 20_000 and behind.remaining_ms == 60_000


@pytest.mark.parametrize(
    ("input", "arg", "precision", "words"),
    [
        (ServerInput.REQUEST, 1, DEFAULT_PRECISION_MS, "arg (1) must be 0"),
        (ServerInput.LOCK, int(Reason.LOGOUT), DEFAULT_PRECISION_MS, "LOCKED reason"),
        (ServerInput.END, int(Reason.MANUAL_LOCK), DEFAULT_PRECISION_MS, "EXPIRED reason"),
        (ServerInput.HOLDER_ACTIVITY, -1, DEFAULT_PRECISION_MS, "must be >= 0"),
        (99, 0, DEFAULT_PRECISION_MS, "input (99)"),
        (ServerInput.REQUEST, 0, 50_000, "precision_ms (50000)"),
    ],
)
def test_bad_arguments_name_the_argument_and_decide_nothing(input: int, arg: int, precision: int, words: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        decide(POLICY, signed_in(), T0 + 1000, input, arg, precision)
    assert words in str(caught.value)


def test_threads_and_policies_do_not_share_a_decision() -> None:
    """Each thread has its own out-buffers, and a policy object changing between calls is read
    anew (the binding caches the C struct of the last one per thread)."""
    import threading

    strict = POLICY.replace(idle_timeout=20)
    record = signed_in()
    expected = {
        id(policy): decide(policy, record, T0 + 30_000, ServerInput.MACHINE)[0].state for policy in (POLICY, strict)
    }
    assert expected == {id(POLICY): State.ACTIVE, id(strict): State.LOCKED}
    failures: list[str] = []

    def work(n: int) -> None:
        for i in range(300):
            policy = POLICY if (i + n) % 2 else strict
            d, _ = decide(policy, record, T0 + 30_000, ServerInput.MACHINE)
            if d.state != expected[id(policy)]:
                failures.append(f"thread {n} call {i}: {d.state}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_the_unchecked_call_gives_what_the_checked_call_gives() -> None:
    """decide() calls inact_server_decide_prepared without argtypes and reads the struct back in one
    unpack (the per-request cost); the table's checked call, its fields read one by one, is the
    reference: every field, every input, the record bytes."""
    import ctypes

    from inactivity import _lib
    from inactivity._generated.ffi import CDecision
    from inactivity._server_core import _c_policy_of

    record = signed_in()
    cases = [(record, T0 + 5_000, ServerInput.REQUEST, 0, 1_000), (record, T0 + 500, ServerInput.REQUEST, 0, 1_000),
             (record, T0 + 55_000, ServerInput.MACHINE, 0, 0), (record, T0 + 2_000, ServerInput.HOLDER_ACTIVITY, 700, 0),
             (record, T0 + 2_000, ServerInput.LOCK, int(Reason.MANUAL_LOCK), 0),
             (record, T0 + 2_000, ServerInput.END, int(Reason.REVOKED), 0), (record, T0 + 4_000_000, ServerInput.MACHINE, 0, 0),
             (b"\x00" * RECORD_SIZE, T0, ServerInput.REQUEST, 0, 0), (None, T0 + 7, ServerInput.SIGN_IN, 0, 0)]
    seen = set()
    for stored, now, input, arg, precision in cases:
        d, written = decide(POLICY, stored, now, input, arg, precision)
        ref = CDecision()
        ref.size = ctypes.sizeof(CDecision)
        out = ctypes.create_string_buffer(RECORD_SIZE)
        length = ctypes.c_size_t(0)
        _lib.LIB.inact_server_decide(ctypes.byref(_c_policy_of(POLICY)), stored, 0 if stored is None else len(stored), now,
                                     input, arg, precision, ctypes.byref(ref), out, RECORD_SIZE, ctypes.byref(length))
        never = 2**63 - 1
        assert dataclasses.astuple(d) == (
            State(ref.state), Reason(ref.reason), Auth(ref.required_auth), ref.write == 1, ref.unlock_failures, ref.now_ms,
            *(None if v == never else v for v in (ref.remaining_ms, ref.idle_deadline_ms, ref.absolute_deadline_ms,
                                                  ref.started_at_ms, ref.last_activity_ms)))
        assert written == (out.raw[:length.value] if ref.write else None)
        seen.add((d.state, d.write))
    assert len(seen) >= 4   # the cases reach several states, written and not
    # A bad argument still gets the checked call's error, naming it.
    with pytest.raises(InvalidArgumentError, match="precision_ms"):
        decide(POLICY, record, T0, ServerInput.REQUEST, 0, -1)
    with pytest.raises(InvalidArgumentError, match="arg"):
        decide(POLICY, record, T0, ServerInput.REQUEST, 5)
    with pytest.raises(ctypes.ArgumentError):
        decide(POLICY, record, 1.5, ServerInput.REQUEST)  # type: ignore[arg-type]


def _checked_unprepared(policy: Policy, stored: object, now: int, input: int, arg: int, precision: int) -> object:
    """inact_server_decide through the table's checked call, under the policy itself: the
    reference for decide(), which calls inact_server_decide_prepared with the policy prepared
    once. Returns the decision's bytes and the record written, or the error's type and text."""
    import ctypes

    from inactivity import _lib
    from inactivity._generated.ffi import CDecision
    from inactivity._server_core import _c_policy_of

    ref = CDecision()
    ref.size = ctypes.sizeof(CDecision)
    out = ctypes.create_string_buffer(RECORD_SIZE)
    length = ctypes.c_size_t(0)
    try:
        _lib.LIB.inact_server_decide(ctypes.byref(_c_policy_of(policy)), stored, 0 if stored is None else len(stored),  # type: ignore[arg-type]
                                     now, input, arg, precision, ctypes.byref(ref), out, RECORD_SIZE, ctypes.byref(length))
    except Exception as e:
        return (type(e), str(e))
    never = 2**63 - 1
    return ((State(ref.state), Reason(ref.reason), Auth(ref.required_auth), ref.write == 1, ref.unlock_failures, ref.now_ms,
             *(None if v == never else v for v in (ref.remaining_ms, ref.idle_deadline_ms, ref.absolute_deadline_ms,
                                                   ref.started_at_ms, ref.last_activity_ms))),
            out.raw[:length.value] if ref.write else None)


def test_the_prepared_call_decides_as_the_policy_byte_for_byte() -> None:
    """Random policies x records x instants x inputs: decide() (the policy prepared once,
    inact_server_decide_prepared) gives what inact_server_decide gives under the policy: every
    field, the record written byte for byte, and the same error for a refused argument."""
    import random

    rng = random.Random(29)
    compared = written = refused = 0
    for _ in range(25):
        policy = Policy(idle_timeout=rng.choice([10, 60, 600]), warning=rng.choice([0, 5]),
                        absolute_timeout=rng.choice([30, 3600]), max_unlock_failures=rng.choice([0, 1, 3]),
                        activity_dismisses_warning=rng.choice([False, True]))
        now = T0
        stored = decide(policy, None, now, ServerInput.SIGN_IN)[1]
        assert stored is not None
        for _ in range(40):
            now += rng.choice([0, 1, 300, 1_000, 4_000, 9_000, 60_000, 3_600_000]) - rng.choice([0, 0, 2_000])
            input = rng.choice([*ServerInput, 0, 9])
            arg = {ServerInput.HOLDER_ACTIVITY: rng.choice([0, 700, 5_000, -1]),
                   ServerInput.LOCK: rng.choice([int(Reason.MANUAL_LOCK), int(Reason.IDLE_TIMEOUT), int(Reason.LOGOUT)]),
                   ServerInput.END: rng.choice([int(Reason.LOGOUT), int(Reason.REVOKED), int(Reason.RESTORED)])}.get(
                       input, 1 if rng.random() < 0.1 else 0)
            precision = rng.choice([0, 1, 250, 1_000])
            given = bytearray(stored)
            if rng.random() < 0.1:
                given[rng.randrange(RECORD_SIZE)] ^= 0x10
            record = None if rng.random() < 0.03 else bytes(given)
            expected = _checked_unprepared(policy, record, now, int(input), arg, precision)
            try:
                d, out = decide(policy, record, now, int(input), arg, precision)
                got: object = (dataclasses.astuple(d), out)
            except Exception as e:
                got = (type(e), str(e))
            assert got == expected, (policy, input, arg, now, precision)
            if isinstance(got[0], type):   # type: ignore[index]
                refused += 1
                continue
            compared += 1
            if out is not None:
                written += 1
                if d.state != State.EXPIRED or rng.random() < 0.3:
                    stored = out
            if d.state == State.EXPIRED and rng.random() < 0.4:
                stored = decide(policy, None, now, ServerInput.SIGN_IN)[1] or stored
    assert compared > 500 and written > 100 and compared - written > 100 and refused > 20


def test_a_prepared_block_changed_anywhere_is_refused_naming_prepared() -> None:
    import ctypes

    from inactivity import _lib
    from inactivity._generated.ffi import CDecision
    from inactivity._server_core import PREPARED_POLICY_SIZE, _prepared_of

    block = _prepared_of(POLICY).raw
    assert len(block) == PREPARED_POLICY_SIZE
    record = signed_in()
    d = CDecision()
    d.size = ctypes.sizeof(CDecision)
    out = ctypes.create_string_buffer(RECORD_SIZE)
    length = ctypes.c_size_t(0)
    for i in range(PREPARED_POLICY_SIZE):
        changed = bytearray(block)
        changed[i] ^= 0x04
        with pytest.raises(InvalidArgumentError, match="^prepared "):
            _lib.LIB.inact_server_decide_prepared(bytes(changed), record, RECORD_SIZE, T0, ServerInput.REQUEST, 0, 0,
                                                  ctypes.byref(d), out, RECORD_SIZE, ctypes.byref(length))
    _lib.LIB.inact_server_decide_prepared(block, record, RECORD_SIZE, T0, ServerInput.REQUEST, 0, 0,
                                          ctypes.byref(d), out, RECORD_SIZE, ctypes.byref(length))
    assert State(d.state) == State.ACTIVE
    # An invalid policy is refused when it is prepared, as the decision refuses it.
    with pytest.raises(InvalidArgumentError, match="policy.warning"):
        decide(Policy(idle_timeout=10, warning=10), record, T0, ServerInput.REQUEST)
