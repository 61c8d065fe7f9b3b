"""Two servers whose clocks differ by +e and -e, on one store.

The rule (the core's): a decision is made at max(the server's now, the record's own instant). So
a server behind the record never extends the session (the record's time wins), and a server
ahead decides at most its error earlier: stricter, never laxer.
"""

from __future__ import annotations

from conftest import POLICY, FleetClock
from inactivity.server import SessionManager, Store

E = 1_500


def test_a_server_behind_never_extends_and_one_ahead_is_stricter_by_its_error(store: Store, clock: FleetClock) -> None:
    ahead = SessionManager(store, POLICY, precision=0, clock=clock.skewed(+E))
    behind = SessionManager(store, POLICY, precision=0, clock=clock.skewed(-E))

    s = behind.sign_in("alice").session_id               # started at T - e
    assert behind.status(s).idle_remaining_ms == 10_000
    assert ahead.status(s).idle_remaining_ms == 10_000 - 2 * E   # stricter by its error, no more

    ahead.request(s)                                      # activity at T + e, written
    o = behind.request(s)                                 # at T - e by its clock
    assert o.decision is not None and o.decision.now_ms == clock.now + E   # the record's time wins
    assert o.idle_remaining_ms == 10_000                  # not 10 s + 2e: never extended
    assert behind.status(s).idle_remaining_ms == 10_000

    clock.advance(10_000 - 1)
    assert ahead.request(s, machine=True).state == "WARNING"
    clock.advance(1)
    assert ahead.request(s, machine=True).state == "LOCKED"   # written by the server ahead
    # By its own clock the session still has 2e to go; the stored lock stands.
    o = behind.request(s)
    assert (o.state, o.reason) == ("LOCKED", "IDLE_TIMEOUT")


def test_the_absolute_limit_holds_across_both(store: Store, clock: FleetClock) -> None:
    ahead = SessionManager(store, POLICY, precision=0, clock=clock.skewed(+E))
    behind = SessionManager(store, POLICY, precision=0, clock=clock.skewed(-E))
    s = ahead.sign_in("alice").session_id                 # started at T + e
    for _ in range(11):
        clock.advance(5_000)
        assert behind.request(s).allowed
        assert ahead.request(s).allowed
    clock.advance(5_000)
    assert ahead.request(s).reason == "ABSOLUTE_TIMEOUT"
    assert behind.request(s).reason == "ABSOLUTE_TIMEOUT"
