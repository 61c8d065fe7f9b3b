"""The model check's own checker, on histories made here with the core (no server): a history
that needs its operations reordered is found linearizable, and a lost update, an answer the
core would not give, or a clock reading outside its operation are each refused."""

from __future__ import annotations

import json
from typing import Any, List, Optional, Tuple

import pytest

from inactivity import Policy
from inactivity._server_core import decide
from inactivity.policy_file import load_policy
from inactivity.server.ids import session_handle
from inactivity.server.manager import LIST_STEP
from modelcheck import (HOLDER_ACTIVITY, LOCK, MANUAL_LOCK, MACHINE, POLICY, PRECISION_MS, REQUEST, SIGN_IN, History, Op,
                        Step, Violation, _headers_of, check_answer, check_clock, check_histories)

T0 = 1_800_000_000_000


def _policy(tmp_path: Any) -> Policy:
    path = tmp_path / "p.json"
    path.write_text(POLICY)
    return load_policy(str(path)).policy


def _step(policy: Policy, record: Optional[bytes], clock: int, input: int, arg: int = 0) -> Tuple[Step, Optional[bytes]]:
    d, new = decide(policy, record, clock, input, arg, PRECISION_MS)
    step: Step = [input, arg, clock, d.now_ms, d.state.name, d.reason.name, d.idle_remaining_ms,
                  d.absolute_remaining_ms, d.unlock_failures, 1 if new is not None else 0, True]
    if input == SIGN_IN:
        step[9] = 0   # the sessions a sign-in ended (none)
    return step, new


def _op(kind: str, inv: int, resp: int, step: Step, session: str = "s1") -> Op:
    state = step[4]
    if kind == "sign-in":
        status = 200
    elif kind == "lock":
        status = 204
    else:
        status = 204 if state in ("ACTIVE", "WARNING") else 403 if state == "LOCKED" else 401
    body = {"session_id": session, "state": step[4], "reason": step[5]} if kind == "sign-in" else {}
    return Op("u", kind, session, 0, inv, resp, status, _headers_of(step), body, [step])


def _history(tmp_path: Any) -> Tuple[Policy, List[Op], bytes]:
    """A sign-in, then a lock and a request that overlap; the request, sent first and read the
    clock first, was decided after the lock (LOCKED): only the order lock, request explains it."""
    policy = _policy(tmp_path)
    s0, rec0 = _step(policy, None, T0, SIGN_IN)
    assert rec0 is not None
    lock, rec1 = _step(policy, rec0, T0 + 100, LOCK, MANUAL_LOCK)
    assert rec1 is not None
    request, _ = _step(policy, rec1, T0 + 90, REQUEST)
    assert request[4] == "LOCKED" and request[3] == T0 + 100   # decided at the record's instant
    ops = [_op("sign-in", T0 - 5, T0 + 5, s0), _op("request", T0 + 80, T0 + 130, request),
           _op("lock", T0 + 95, T0 + 120, lock)]
    return policy, ops, rec1


def test_a_history_that_needs_reordering_is_linearizable(tmp_path: Any) -> None:
    policy, ops, _ = _history(tmp_path)
    for o in ops:
        check_answer(o)
        check_clock(o)
    History(ops, policy, PRECISION_MS, 0).check()
    result = check_histories(ops, policy, PRECISION_MS, 0)
    assert (result.histories, result.ops, result.steps) == (1, 3, 3)
    # The same answers with the lock sent after the request was answered: no order explains them.
    ops[2].inv_ms, ops[2].resp_ms = ops[1].resp_ms + 1, ops[1].resp_ms + 20
    with pytest.raises(Violation, match="no serial order"):
        History(ops, policy, PRECISION_MS, 0).check()


def test_a_lost_update_has_no_serial_order(tmp_path: Any) -> None:
    policy, ops, _ = _history(tmp_path)
    # After the lock was answered, a request allowed as over the record before it (the lock lost).
    before = decide(policy, None, T0, SIGN_IN, 0, PRECISION_MS)[1]
    stale, _ = _step(policy, before, T0 + 200, REQUEST)
    assert stale[4] == "ACTIVE"
    ops.append(_op("request", T0 + 190, T0 + 210, stale))
    with pytest.raises(Violation, match="no serial order"):
        History(ops, policy, PRECISION_MS, 0).check()


def test_an_answer_the_core_would_not_give_is_refused(tmp_path: Any) -> None:
    policy, ops, _ = _history(tmp_path)
    lax = json.loads(json.dumps(ops[1].steps[0]))
    lax[6] = 1500   # a remaining idle time where the core gives none (LOCKED)
    ops[1].steps = [lax]
    ops[1].headers = _headers_of(lax)
    with pytest.raises(Violation, match="the core decides"):
        History(ops, policy, PRECISION_MS, 0).check()


def test_answers_and_clock_readings_are_checked(tmp_path: Any) -> None:
    _, ops, _ = _history(tmp_path)
    wrong = ops[1]
    wrong.status = 204   # a LOCKED step answered as allowed
    with pytest.raises(Violation, match="answered 204"):
        check_answer(wrong)
    late = ops[2]
    late.offset_ms = -50   # the server read its clock 50 ms after the lock was answered
    with pytest.raises(Violation, match="outside"):
        check_clock(late)


def test_the_search_backtracks(tmp_path: Any) -> None:
    """Two overlapping requests: the one sent first matches first (it decides the same over
    either record) but leaves the other nothing to match; only the other order explains both."""
    policy = _policy(tmp_path)
    s0, rec0 = _step(policy, None, T0, SIGN_IN)
    first, rec1 = _step(policy, rec0, T0 + 300, REQUEST)
    assert rec1 is not None
    second, _ = _step(policy, rec1, T0 + 600, REQUEST)
    assert second[:8] == _step(policy, rec0, T0 + 600, REQUEST)[0][:8]   # the same over rec0
    ops = [_op("sign-in", T0 - 5, T0 + 5, s0), _op("request", T0 + 10, T0 + 700, second),
           _op("request", T0 + 20, T0 + 400, first)]
    History(ops, policy, PRECISION_MS, 0).check()


SID = "s1"


def _list_op(policy: Policy, record: bytes, inv: int, clock: int, resp: int, row_clock: int) -> Op:
    """A sessions list of SID's user: its request step at `clock`, then its list step at
    `clock`, with the one row judged at `row_clock`."""
    request, after = _step(policy, record, clock, REQUEST)
    d, _ = decide(policy, after if after is not None else record, row_clock, MACHINE, 0, PRECISION_MS)
    row = {"handle": session_handle(SID), "device": "c0", "created_ms": T0, "last_activity_ms": d.last_activity_ms,
           "state": d.state.name, "reason": d.reason.name, "is_current": True}
    listed: Step = [LIST_STEP, 0, clock, None, None, None, None, None, None, 1, False]
    return Op("u", "list", SID, 0, inv, resp, 200, _headers_of(request), {"sessions": [row]}, [request, listed])


def _sid_step(policy: Policy) -> Tuple[Op, bytes]:
    s0, rec0 = _step(policy, None, T0, SIGN_IN)
    assert rec0 is not None
    return _op("sign-in", T0 - 5, T0 + 5, s0, SID), rec0


def test_a_list_row_is_the_replay_at_the_lists_clock(tmp_path: Any) -> None:
    policy = _policy(tmp_path)
    sign_in, rec0 = _sid_step(policy)
    at = T0 + 1_400   # the row in its warning at the list's clock
    good = _list_op(policy, rec0, at - 10, at, at + 10, at)
    check_answer(good)
    History([sign_in, good], policy, PRECISION_MS, 0).check()
    # The same list with its row judged 200 ms later (a clock read per row): no order explains it.
    late = _list_op(policy, rec0, at - 10, at, at + 10, at + 200)
    assert late.body != good.body
    with pytest.raises(Violation, match="the list shows"):
        History([sign_in, late], policy, PRECISION_MS, 0).check()


def test_a_keepalive_is_replayed_with_its_claim_and_a_future_claim_is_refused(tmp_path: Any) -> None:
    policy = _policy(tmp_path)
    sign_in, rec0 = _sid_step(policy)
    at = T0 + 1_000
    step, _ = _step(policy, rec0, at, HOLDER_ACTIVITY, 300)
    keepalive = _op("keepalive", at - 10, at + 10, step, SID)
    keepalive.age_ms = 300
    check_answer(keepalive)
    History([sign_in, keepalive], policy, PRECISION_MS, 0).check()
    # Answered as if the claim were newer (decided 400 ms ahead): the core decides otherwise.
    ahead, _ = _step(policy, rec0, at + 400, HOLDER_ACTIVITY, 300)
    ahead[2] = at
    wrong = _op("keepalive", at - 10, at + 10, ahead, SID)
    wrong.age_ms = 300
    with pytest.raises(Violation, match="the core decides"):
        History([sign_in, wrong], policy, PRECISION_MS, 0).check()
    future = Op("u", "keepalive", SID, 0, at, at + 5, 400, {}, {}, [], age_ms=-100)
    check_answer(future)
    future.status = 204
    with pytest.raises(Violation, match="in the future answered 204"):
        check_answer(future)
