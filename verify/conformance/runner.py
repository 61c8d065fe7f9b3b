"""The Python runner of the conformance suite (verify/conformance/README.md): executes op lists through
the ``inactivity`` package (bindings/python) and prints the canonical output.

    python3 verify/conformance/runner.py OUTDIR FILE.ops...     writes OUTDIR/FILE.out for each

The package must be importable (installed, or PYTHONPATH=bindings/python/src) and find the
library (INACTIVITY_LIBRARY). An op is interpreted from the op vocabulary (generated/ops.json,
written by tools/generate from the header and names.toml): each word converted by its argument's
kind, the Engine member called as names.toml says Python takes it, the result printed by its
kind. Only the ops with host state are written here (Runner.HOST).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import inactivity as ia

VOCABULARY = json.loads((Path(__file__).resolve().parent / "generated" / "ops.json").read_text())
OPS: Dict[str, Any] = {entry["op"]: entry for entry in VOCABULARY["ops"]}
NEVER_MS = int(VOCABULARY["never"])


class Unrepresentable(Exception):
    """An op word the Python binding has no value for: the runner says so on the op's result
    line (which then differs from the C runner's, and the comparison names it) instead of
    dying on the whole op list."""


# timedelta's range in whole milliseconds (about 2.7 million years either way).
_TIMEDELTA_MS = (timedelta.max.days * 86_400 + timedelta.max.seconds) * 1000


def ms_in(value: int) -> ia.Duration:
    """Milliseconds as the binding takes a duration: its NEVER for INACT_NEVER; a timedelta
    where one holds the value; beyond timedelta's range, a whole number of seconds as an int
    (the binding's other exact form). A value past timedelta that is not whole seconds has no
    exact Python duration: Unrepresentable."""
    if value == NEVER_MS:
        return ia.NEVER
    if -_TIMEDELTA_MS <= value <= _TIMEDELTA_MS:
        return timedelta(milliseconds=value)
    if value % 1000 == 0:
        return value // 1000
    raise Unrepresentable(
        f"duration {value} ms: the Python binding takes a duration beyond timedelta's range "
        f"(+-{_TIMEDELTA_MS} ms) only as whole seconds, or INACT_NEVER as NEVER")


def ms_out(value: Optional[timedelta]) -> int:
    """A duration or instant back to milliseconds; NEVER and None (none) are INACT_NEVER."""
    if value is None or value == ia.NEVER:
        return NEVER_MS
    return (value.days * 86_400_000) + (value.seconds * 1000) + value.microseconds // 1000


def policy(pairs: List[str]) -> ia.Policy:
    """``name=value`` policy fields; each field is one line."""
    v = {k: int(x) for k, x in (p.split("=", 1) for p in pairs)}
    return ia.Policy(
        idle_action=ia.IdleAction(v["idle_action"]),
        idle_timeout=ms_in(v["idle_timeout_ms"]),
        warning=ms_in(v["warning_ms"]),
        background_timeout=ms_in(v["background_timeout_ms"]),
        absolute_timeout=ms_in(v["absolute_timeout_ms"]),
        locked_timeout=ms_in(v["locked_timeout_ms"]),
        max_unlock_failures=v["max_unlock_failures"],
        tick=ms_in(v["tick_ms"]),
        background_grace=ms_in(v["background_grace_ms"]),
        activity_kinds=ia.ActivityKind(v["activity_kinds"]),
        activity_dismisses_warning=bool(v["activity_dismisses_warning"]),
        pause_idle_in_background=bool(v["pause_idle_in_background"]),
        lock_on_device_lock=bool(v["lock_on_device_lock"]),
        lock_on_restart=bool(v["lock_on_restart"]),
        strong_auth_timeout=ms_in(v["strong_auth_timeout_ms"]),
        expected_interruption_max=ms_in(v["expected_interruption_max_ms"]),
        offline_timeout=ms_in(v["offline_timeout_ms"]),
        offline_expiry=ms_in(v["offline_expiry_ms"]),
        keepalive_interval=ms_in(v["keepalive_interval_ms"]),
    )


def ceilings(pairs: List[str]) -> ia.Ceilings:
    """``name=value`` ceiling fields."""
    v = {k: int(x) for k, x in (p.split("=", 1) for p in pairs)}
    return ia.Ceilings(
        max_unlock_failures=v["max_unlock_failures"],
        idle_timeout=ms_in(v["idle_timeout_ms"]),
        background_timeout=ms_in(v["background_timeout_ms"]),
        absolute_timeout=ms_in(v["absolute_timeout_ms"]),
        locked_timeout=ms_in(v["locked_timeout_ms"]),
        strong_auth_timeout=ms_in(v["strong_auth_timeout_ms"]),
        expected_interruption_max=ms_in(v["expected_interruption_max_ms"]),
        offline_timeout=ms_in(v["offline_timeout_ms"]),
        offline_expiry=ms_in(v["offline_expiry_ms"]),
        lock_on_device_lock=bool(v["lock_on_device_lock"]),
        lock_on_restart=bool(v["lock_on_restart"]),
    )


class Runner:
    def __init__(self) -> None:
        self.out: List[str] = []
        self.events: List[ia.Event] = []
        self.engine: Optional[ia.Engine] = None
        self.snapshot = b""
        self.scopes: Dict[str, int] = {}
        self.holds: Dict[str, int] = {}
        self.checked = False

    def launch(self, a: List[str]) -> str:
        wall = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=int(a[1]))
        clock = ia.ManualClock(start=timedelta(milliseconds=int(a[0])), wall=wall, boot_id=int(a[2]))
        self.engine = ia.Engine(policy(a[3:]), on_event=self.events.append, clock=clock)
        return "ok"

    def closed_call(self) -> str:
        assert self.engine is not None
        closed = self.engine
        self.kill()
        closed.lock()
        return "ok"

    def kill(self) -> str:
        assert self.engine is not None
        self.engine.close()
        self.engine = None
        self.scopes, self.holds = {}, {}
        return "ok"

    def push_scope(self, e: ia.Engine, name: str, ms: str) -> str:
        self.scopes[name] = e.push_scope(ms_in(int(ms)))
        return f"ok id={self.scopes[name]}"

    def pop_scope(self, e: ia.Engine, name: str) -> str:
        e.pop_scope(self.scopes.get(name, 0))
        self.scopes.pop(name, None)
        return "ok"

    def hold(self, e: ia.Engine, name: str) -> str:
        self.holds[name] = e.acquire_hold()
        return f"ok id={self.holds[name]}"

    def release(self, e: ia.Engine, name: str) -> str:
        e.release_hold(self.holds.get(name, 0))
        self.holds.pop(name, None)
        return "ok"

    def save(self, e: ia.Engine) -> str:
        self.snapshot = e.snapshot()
        return "ok snapshot=" + self.snapshot.hex()

    def corrupted(self) -> bytes:
        data = bytearray(self.snapshot)
        if data:
            data[len(data) // 2] ^= 0x5A
        return bytes(data)

    def execute(self, op: str, a: List[str]) -> str:
        if op == "launch":
            return self.launch(a)
        e = self.engine
        if e is None:
            return "no-engine"
        host: Dict[str, Callable[[], object]] = {
            "kill": self.kill,
            # names (issue 32): read and printed by the binding as its users write them
            "preset-name": lambda: f"ok idle_timeout_ms={ms_out(ia.Policy.preset(a[0]).idle_timeout)}",
            "activity-name": lambda: e.activity(a[0]),
            "end-name": lambda: e.end(a[0]),
            "names": lambda: f"ok state={e.state()} reason={e.reason()}",
            "closed-call": lambda: self.closed_call(),
            "push-scope": lambda: self.push_scope(e, a[0], a[1]),
            "pop-scope": lambda: self.pop_scope(e, a[0]),
            "hold": lambda: self.hold(e, a[0]),
            "release": lambda: self.release(e, a[0]),
            "save": lambda: self.save(e),
            "restore": lambda: e.restore(self.snapshot),
            "restore-corrupt": lambda: e.restore(self.corrupted()),
        }
        if not self.checked:
            check_hand_ops(host)
            self.checked = True
        if op in host:
            result = host[op]()
            return result if isinstance(result, str) else "ok"
        entry = OPS.get(op)
        return "unknown-op" if entry is None else interpret(e, entry, a)

    def run(self, lines: List[str]) -> List[str]:
        for line in lines:
            if not line or line.startswith("#"):
                continue
            self.out.append("> " + line)
            words = line.split(" ")
            try:
                result = self.execute(words[0], words[1:])
            except ia.InactivityError as error:
                # the library's own text (policy.idle_timeout_ms), the same in every binding
                result = f"error {int(error.status)} {error.engine_message}"
            except Unrepresentable as refusal:
                result = f"unrepresentable {refusal}"
            for ev in self.events:
                self.out.append(
                    f"event {int(ev.kind)} {int(ev.state)} {int(ev.previous_state)} {int(ev.reason)} {int(ev.required_auth)} "
                    f"{ms_out(ev.remaining)} {ms_out(ev.time)} {ms_out(ev.now)}"
                )
            self.events.clear()
            self.out.append("= " + result)
        if self.engine is not None:
            self.engine.close()
        return self.out


# The ops written here that are not a function's (names.toml has no row for them).
OWN_OPS = {"restore-corrupt", "closed-call", "preset-name", "activity-name", "end-name", "names"}


def check_hand_ops(host: Dict[str, object]) -> None:
    """A hand-written op must be a host op of the vocabulary or one of OWN_OPS: a hand case left
    for a generated op would hide the generated one (and its names.toml convention)."""
    stray = sorted(set(host) - set(VOCABULARY["host_ops"]) - OWN_OPS)
    if stray:
        sys.exit(f"runner.py: hand-written ops that the vocabulary generates: {', '.join(stray)} "
                 "(generated/ops.json; remove the hand case, or list `op` in the row's hand)")


def argument(arg: Dict[str, Any], words: List[str]) -> object:
    """One argument from the op's words, by its kind, as the Python binding takes it."""
    kind, at = arg["kind"], arg["word"]
    if kind == "struct":
        return STRUCTS[arg["struct"]](words[at:])
    if kind == "text":
        return words[at] if at < len(words) else None
    value = int(words[at])
    return ms_in(value) if kind == "duration" else value  # enum, bits, id, int: the header's integer


def interpret(e: ia.Engine, entry: Dict[str, Any], words: List[str]) -> str:
    """A generated op: the Engine member called with the converted words (positional, or by the
    keyword names.toml's python_args gives), the result printed by its kind."""
    positional, keywords = [], {}
    for arg, keyword in zip(entry["args"], entry["python"]["args"]):
        value = argument(arg, words)
        if keyword:
            keywords[keyword] = value
        else:
            positional.append(value)
    value = getattr(e, entry["python"]["member"])(*positional, **keywords)
    result = entry["result"]
    if result is None:
        return "ok"
    if result["kind"] == "struct":
        return "ok " + PRINTERS[result["struct"]](value)
    if result["kind"] == "outs":
        return "ok " + " ".join(f"{v['label']}={x}" for v, x in zip(result["values"], READINGS[entry["function"]](value)))
    return f"ok {result['label']}={ms_out(value) if result['kind'] == 'duration' else int(value)}"


def policy_fields(p: ia.Policy) -> str:
    return (
        f"idle_action={int(p.idle_action)} idle_timeout_ms={ms_out(p.idle_timeout)} warning_ms={ms_out(p.warning)} "
        f"background_timeout_ms={ms_out(p.background_timeout)} absolute_timeout_ms={ms_out(p.absolute_timeout)} "
        f"locked_timeout_ms={ms_out(p.locked_timeout)} max_unlock_failures={p.max_unlock_failures} "
        f"tick_ms={ms_out(p.tick)} background_grace_ms={ms_out(p.background_grace)} "
        f"activity_kinds={int(p.activity_kinds)} activity_dismisses_warning={int(p.activity_dismisses_warning)} "
        f"pause_idle_in_background={int(p.pause_idle_in_background)} "
        f"lock_on_device_lock={int(p.lock_on_device_lock)} lock_on_restart={int(p.lock_on_restart)} "
        f"strong_auth_timeout_ms={ms_out(p.strong_auth_timeout)} "
        f"expected_interruption_max_ms={ms_out(p.expected_interruption_max)} "
        f"offline_timeout_ms={ms_out(p.offline_timeout)} offline_expiry_ms={ms_out(p.offline_expiry)} "
        f"keepalive_interval_ms={ms_out(p.keepalive_interval)}"
    )


def clock(c: ia.ClockReading) -> List[int]:
    """inact_clock_now's outs, in the header's order, from the binding's ClockReading."""
    return [ms_out(c.monotonic), ms_out(c.wall - datetime(1970, 1, 1, tzinfo=timezone.utc)), c.boot_id]


def info(i: ia.Info) -> str:
    return (
        f"state={int(i.state)} reason={int(i.reason)} background={int(i.in_background)} "
        f"windows={i.visible_windows} scopes={i.open_scopes} holds={i.open_holds} failures={i.unlock_failures} "
        f"now={ms_out(i.now)} remaining={ms_out(i.remaining)} next={ms_out(i.next_deadline)} "
        f"idle={ms_out(i.effective_idle_timeout)} started={ms_out(i.started_at)} "
        f"activity={ms_out(i.last_activity)} background_since={ms_out(i.background_since)} "
        f"locked={ms_out(i.locked_at)} auth={int(i.required_auth)} needs_contact={int(i.needs_server_contact)} "
        f"credential={ms_out(i.last_credential)} strong_auth={ms_out(i.strong_auth_deadline)} "
        f"contact={ms_out(i.last_server_contact)} generation={i.token_generation} "
        f"interruption={ms_out(i.interruption_until)}"
    )


# The binding's types for the header's structs and multi-out readings, by the C name.
STRUCTS: Dict[str, Callable[[List[str]], object]] = {"inact_policy": policy, "inact_ceilings": ceilings}
PRINTERS: Dict[str, Callable[[Any], str]] = {"inact_info": info, "inact_policy": policy_fields}
READINGS: Dict[str, Callable[[Any], List[int]]] = {"inact_clock_now": clock}


def main(argv: List[str]) -> int:
    if len(argv) < 2:
        print("usage: runner.py OUTDIR FILE.ops...", file=sys.stderr)
        return 2
    outdir = Path(argv[0])
    for name in argv[1:]:
        path = Path(name)
        lines = path.read_text().split("\n")
        (outdir / (path.name.split(".")[0] + ".out")).write_text("\n".join(Runner().run(lines)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
