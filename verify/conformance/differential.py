#!/usr/bin/env python3
"""Writes random op lists for the differential test of the bindings (verify/conformance/README.md,
"Differential"): seeded, reproducible sequences of engine calls in the op-list format the
runners execute, written directly rather than compiled from scenarios, so that they reach what
no scenario says: any input in any state, on a killed and relaunched engine, policies, ceilings
and durations at and past their limits (zero, negative, INACT_NEVER, beyond the clock's range),
restores of foreign, stale and corrupt snapshots, and queries between any two calls.

    python3 verify/conformance/differential.py OUTDIR [COUNT [SEED [FIRST]]]
        COUNT op lists (300 by default) named diff-SEED-INDEX.ops, INDEX from FIRST (0) on;
        sequence INDEX is drawn from random.Random(SEED * 1_000_003 + INDEX), so one list can
        be regenerated alone: `differential.py DIR 1 SEED INDEX`

The C runner's output is the reference; the Python, Kotlin and Swift runners' must be identical
line for line (every result, every error status and message, every event). Standard library only.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Dict, List, Tuple

# The op vocabulary (generated/ops.json, written by tools/generate from the header).
VOCABULARY = json.loads((Path(__file__).resolve().parent / "generated" / "ops.json").read_text())

NEVER = 2**63 - 1
# Far beyond any deadline (about 317,000 years) and still a duration in every binding's type (a
# Python timedelta holds about 2.7 million years, a Kotlin Duration 146 million): values between
# that and INACT_NEVER exist only in C, where int64 milliseconds are the type.
FAR = 10**16
CENTURY = 100 * 365 * 86_400_000
DEFAULT_COUNT = 300
DEFAULT_SEED = 0xD1FF

ACTIVITY_BITS = [1 << i for i in range(7)]
AUTH = [0, 1, 2]  # NONE (refused by unlock), BIOMETRIC, CREDENTIAL
REASONS = list(range(0, 24))  # every inact_reason: end() takes four, refuses the rest
# inact_holder_report: every kind (the Kotlin enum names them all), with a reason of the kind's
# state most of the time (LOCKED, EXPIRED; NONE for the others), else any reason
HOLDER_REASONS = {1: [0], 2: [8, 9, 10, 19], 3: [15, 16, 17, 23, 8, 12], 4: [0], 5: [0]}
REFRESH_STATUSES = [0, 200, 204, 400, 401, 403, 408, 429, 500, 503, 99, 600, -1]
OAUTH_ERRORS = ["invalid_grant", "invalid_token", "temporarily_unavailable"]

POLICY_BASE: Dict[str, int] = {
    "idle_action": 0,
    "idle_timeout_ms": 60_000,
    "warning_ms": 10_000,
    "background_timeout_ms": 30_000,
    "absolute_timeout_ms": 3_600_000,
    "locked_timeout_ms": 600_000,
    "max_unlock_failures": 3,
    "tick_ms": 1000,
    "background_grace_ms": 700,
    "activity_kinds": 63,
    "activity_dismisses_warning": 1,
    "pause_idle_in_background": 0,
    "lock_on_device_lock": 0,
    "lock_on_restart": 0,
    "strong_auth_timeout_ms": NEVER,
    "expected_interruption_max_ms": 60_000,
    "offline_timeout_ms": NEVER,
    "offline_expiry_ms": NEVER,
    "keepalive_interval_ms": 0,
}
CEILING_FIELDS = [
    "max_unlock_failures", "idle_timeout_ms", "background_timeout_ms", "absolute_timeout_ms",
    "locked_timeout_ms", "strong_auth_timeout_ms", "expected_interruption_max_ms",
    "offline_timeout_ms", "offline_expiry_ms", "lock_on_device_lock", "lock_on_restart",
]


class Sequence:
    def __init__(self, rng: random.Random) -> None:
        self.r = rng
        self.ops: List[str] = []
        self.scopes = 0
        self.holds = 0

    def duration(self) -> int:
        """A duration argument: mostly ordinary, sometimes at or past a limit."""
        p = self.r.random()
        if p < 0.55:
            return self.r.randrange(0, 5_000)
        if p < 0.8:
            return self.r.randrange(5_000, 700_000)
        if p < 0.88:
            return self.r.randrange(700_000, 8 * 3_600_000)
        return self.r.choice([0, -1, -60_000, NEVER, FAR, -FAR, 1])

    def generic_duration(self) -> int:
        """A duration argument of a generated op: mostly ordinary, sometimes 0, negative or long."""
        if self.r.random() < 0.85:
            return self.r.randrange(1, 700_000)
        return self.r.choice([0, -1, -60_000, 8 * 3_600_000, FAR])

    def timeout(self, ordinary: List[int], limits: bool = True) -> int:
        """A policy timeout: one of `ordinary`, or (with `limits`) sometimes 0, negative or NEVER."""
        if not limits or self.r.random() < 0.85:
            return self.r.choice(ordinary)
        return self.r.choice([0, -5, NEVER, 1, FAR])

    def policy(self, limits: bool = True) -> str:
        """All the policy fields; without `limits` a policy the library accepts."""
        r = self.r
        v = dict(POLICY_BASE)
        if r.random() < 0.7:
            v["idle_timeout_ms"] = self.timeout([30_000, 60_000, 120_000, 300_000], limits)
            warnings = [w for w in (0, 0, 5_000, 10_000, 20_000, 45_000) if limits or w < v["idle_timeout_ms"]]
            v["warning_ms"] = self.timeout(warnings, limits)
        for field, values in (
            ("idle_action", [0, 0, 1]),
            ("background_timeout_ms", [0, 15_000, 30_000, NEVER]),
            ("absolute_timeout_ms", [600_000, 3_600_000, NEVER]),
            ("locked_timeout_ms", [60_000, 600_000, NEVER]),
            ("max_unlock_failures", [0, 1, 2, 5]),
            ("tick_ms", [0, 1000, 2500]),
            ("background_grace_ms", [0, 700, 2000]),
            ("activity_kinds", [63, 127, 1, 9, 0, 64]),
            ("activity_dismisses_warning", [0, 1]),
            ("pause_idle_in_background", [0, 1]),
            ("lock_on_device_lock", [0, 1]),
            ("lock_on_restart", [0, 1]),
            ("strong_auth_timeout_ms", [NEVER, 120_000, 3_600_000]),
            ("expected_interruption_max_ms", [0, 60_000, 600_000]),
            ("offline_timeout_ms", [NEVER, 300_000]),
            ("offline_expiry_ms", [NEVER, 900_000]),
            ("keepalive_interval_ms", [0, 1000, 5000, 20_000]),
        ):
            if r.random() < 0.35:
                limit = limits and field.endswith("_ms") and r.random() < 0.1
                v[field] = self.timeout(values) if limit else r.choice(values)
        return " ".join(f"{k}={x}" for k, x in v.items())

    def ceilings(self) -> str:
        r = self.r
        fields = []
        for name in CEILING_FIELDS:
            if name in ("lock_on_device_lock", "lock_on_restart"):
                value = r.choice([0, 0, 1])
            elif name == "max_unlock_failures":
                value = r.choice([0, 0, 2, 10])
            else:
                value = NEVER if r.random() < 0.6 else self.timeout([30_000, 90_000, 600_000])
            fields.append(f"{name}={value}")
        return " ".join(fields)

    def launch(self) -> None:
        r = self.r
        mono = r.choice([0, 1000, r.randrange(0, 10**9)])
        wall = r.choice([1_700_000_000_000, 0, r.randrange(0, 4_000_000_000_000)])
        boot = r.choice([1, 2, r.randrange(1, 2**32)])
        if r.random() < 0.1:  # a launch the library may refuse (no engine), then one it takes
            self.ops += [f"launch {mono} {wall} {boot} {self.policy()}", "info"]
        self.ops.append(f"launch {mono} {wall} {boot} {self.policy(limits=False)}")
        self.scopes = self.holds = 0

    def step(self) -> None:
        op = self.r.choices(list(STEPS), list(STEPS.values()))[0]
        argument = getattr(self, "op_" + op.replace("-", "_"), None)
        if argument is None and KINDS.get(op):
            # A generated op with no argument method above: each argument drawn by its kind. A
            # duration stays within what every runner's generic op converts (Python's timedelta
            # ends near 2.7e5 years: not INACT_NEVER), with 0 and a negative among them.
            self.ops.append(" ".join([op] + [str(self.generic_duration()) if kind == "duration" else str(self.r.randrange(4))
                                             for kind in KINDS[op]]))
        elif argument is None:
            self.ops.append(op)
        elif op == "kill":
            argument()
        else:
            self.ops.append(f"{op} {argument()}")

    # The argument of each op that takes one (the op's name with '_' for '-').
    def op_advance(self) -> str:
        return str(self.duration())

    op_freeze = op_advance

    def op_wall_jump(self) -> str:
        # Either way, within a century: the Python binding reads the wall clock as a datetime
        # (years 1 to 9999, clamped beyond), C and Kotlin as milliseconds.
        return str(self.r.choice([-1, 1]) * min(abs(self.duration()), CENTURY))

    def op_activity(self) -> str:
        return str(self.r.choice(ACTIVITY_BITS))

    def op_unlock(self) -> str:
        return str(self.r.choice(AUTH))

    op_unlock_failed = op_unlock

    def op_end(self) -> str:
        return str(self.r.choice(REASONS))

    def op_refresh(self) -> str:
        status = self.r.choice(REFRESH_STATUSES)
        generation = self.r.choice([0, 0, 1, 2, 7])
        error = f" {self.r.choice(OAUTH_ERRORS)}" if status == 400 and self.r.random() < 0.6 else ""
        return f"{status} {generation}{error}"

    def op_push_scope(self) -> str:
        self.scopes += 1
        return f"s{self.scopes} {self.timeout([10_000, 60_000, 600_000])}"

    def op_pop_scope(self) -> str:  # sometimes a name never pushed (id 0: NOT_FOUND)
        return f"s{self.r.randrange(0, self.scopes + 2)}"

    def op_hold(self) -> str:
        self.holds += 1
        return f"h{self.holds}"

    def op_release(self) -> str:
        return f"h{self.r.randrange(0, self.holds + 2)}"

    def op_set_policy(self) -> str:
        return self.policy()

    def op_set_ceilings(self) -> str:
        return self.ceilings()

    def op_token_rotated(self) -> str:
        return str(self.r.choice([0, 1, 2, 5, 2**64 - 1]))

    def op_holder_report(self) -> str:
        kind = self.r.randrange(1, 6)
        reason = self.r.choice(HOLDER_REASONS[kind]) if self.r.random() < 0.85 else self.r.choice(REASONS)
        return f"{kind} {reason} {self.duration()}"

    def op_expect_interruption(self) -> str:
        return str(self.timeout([5_000, 60_000, 120_000]))

    def op_kill(self) -> None:
        self.ops.append("kill")
        if self.r.random() < 0.2:
            self.ops.append("info")  # no engine: every runner says so
        self.launch()  # the runner keeps the last snapshot: a restore may follow


# Ops and their weights: time passing and activity most, every input, queries in between.
STEPS: Dict[str, int] = {
    "advance": 16, "activity": 10, "start": 4, "continue": 3, "lock": 3, "unlock": 4,
    "unlock-failed": 3, "end": 1, "refresh": 3, "background": 3, "foreground": 3,
    "window-shown": 3, "window-hidden": 3, "push-scope": 3, "pop-scope": 3, "hold": 2,
    "release": 2, "set-policy": 2, "set-ceilings": 1, "save": 2, "restore": 2,
    "restore-corrupt": 1, "kill": 1, "freeze": 2, "wall-jump": 2, "biometrics-changed": 1,
    "token-rotated": 1, "server-contact": 1, "expect-interruption": 1, "device-locked": 1,
    "holder-report": 4,
    "info": 5, "policy": 1, "next-deadline": 2, "poll": 2, "clock": 1,
}


# An input of the header that has no weight above is drawn as often as the rarest; its arguments
# by their kinds (Sequence.step) unless an op_ method above draws them (an enum, a text or a
# struct needs one: such an op without a weight is not drawn).
KINDS: Dict[str, Tuple[str, ...]] = {
    _entry["op"]: tuple(a["kind"] for a in _entry["args"]) for _entry in VOCABULARY["ops"]
    if _entry["input"] and all(a["kind"] in ("duration", "int", "id") for a in _entry["args"])}
for _op in KINDS:
    STEPS.setdefault(_op, 1)


def sequence(seed: int, index: int) -> str:
    s = Sequence(random.Random(seed * 1_000_003 + index))
    s.launch()
    if s.r.random() < 0.8:
        s.ops.append("start")
    for _ in range(s.r.randrange(20, 70)):
        s.step()
    s.ops += ["info", "next-deadline"]
    return f"# ops v1: verify/conformance/differential.py seed {seed} index {index}\n" + "\n".join(s.ops) + "\n"


def main(argv: List[str]) -> int:
    if not 1 <= len(argv) <= 4:
        print("usage: differential.py OUTDIR [COUNT [SEED [FIRST]]]", file=sys.stderr)
        return 2
    outdir = Path(argv[0])
    count = int(argv[1]) if len(argv) > 1 else DEFAULT_COUNT
    seed = int(argv[2], 0) if len(argv) > 2 else DEFAULT_SEED
    first = int(argv[3]) if len(argv) > 3 else 0
    outdir.mkdir(parents=True, exist_ok=True)
    for index in range(first, first + count):
        (outdir / f"diff-{seed}-{index:04d}.ops").write_text(sequence(seed, index))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
