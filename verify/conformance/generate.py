#!/usr/bin/env python3
"""Writes the generated conformance scenarios: random but reproducible sessions (a fixed seed
per file) that together use every input, every process and device event, and every deadline
kind (warning, ticks, idle lock and expiry, background timeout, window grace, absolute and
locked timeouts, unlock-failure expiry, catch-up after a freeze, restores after reboots and
wall-clock jumps), with arguments the library must refuse mixed in.

    python3 verify/conformance/generate.py OUTDIR [COUNT]      (COUNT: 40 files by default)

The files are scenario text (docs/scenarios.md) so that the one parser reads them; their
`expect` lines are only queries of the engine for the conformance runners (the suite compares
the bindings' outputs, not expectations), so the demo would report them as failures.
Standard library only; the same COUNT gives the same files on every machine.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Dict, List, Tuple

PRESETS = ["default", "nist-aal2", "nist-aal3", "pci-dss", "banking"]
PRESET_IDLE_MS = {"default": 900_000, "nist-aal2": 1_800_000, "nist-aal3": 900_000, "pci-dss": 900_000, "banking": 300_000}
KINDS = ["touch-down", "touch-up", "touch-move", "key", "scroll", "pointer", "programmatic"]
END_REASONS = ["logout", "revoked", "password-changed", "device-limit"]
# What another holder reports (a tab, the server): each kind, ages and times left around the
# short timeouts below, a lock or an expiry with a reason of its state.
HOLDER = ["activity", "activity 3s", "activity 1h", "locked manual-lock", "locked background-timeout 5s",
          "expired device-limit", "expired revoked 2s", "idle-deadline 20s", "idle-deadline 0s",
          "idle-deadline 10m", "absolute-deadline 3m", "absolute-deadline 5h"]
# Network outcomes, revocations, other failures and statuses the library refuses (99, 600).
REFRESH = ["0", "200", "204", "400", "400 invalid_grant", "401", "403", "408", "429", "500", "503", "99", "600"]

# The op vocabulary (generated/ops.json, written by tools/generate from the header and names.toml).
VOCABULARY = json.loads((Path(__file__).resolve().parent / "generated" / "ops.json").read_text())

# What a step draws and how often: time passing in the gaps, activity most, every input. A key is
# the command a branch of Session.step writes (its syntax or its host state is its own), in the
# order that the fixed seeds' files were drawn with (a reordering redraws every file).
WEIGHTS: Dict[str, int] = {
    "start": 6, "activity": 14, "continue": 4, "lock": 3, "unlock": 5, "unlock-failed": 4, "end": 2,
    "refresh": 4, "background": 5, "foreground": 5, "window-shown": 5, "window-hidden": 5,
    "push-scope": 3, "pop-scope": 3, "hold": 2, "release": 2, "policy": 3, "save": 3, "kill": 2,
    "freeze": 2, "wall-jump": 1, "expect": 6, "restore": 1, "holder": 4,
}
# The vocabulary's inputs that a branch above writes under another command.
COMMANDS = {"holder-report": "holder", "set-policy": "policy"}
# Inputs not drawn here, and why.
NOT_DRAWN = {"set-ceilings": "a `ceiling` line limits the policy lines after it; differential.py draws ceilings"}
# An input with a plain scenario command (the op and its arguments, `screen-shared 30s`) and no
# weight above is drawn this often, its arguments by their kinds: a new input of the header is in
# the generated scenarios with no line here.
DEFAULT_WEIGHT = 2
# The arguments of a plain command drawn by kind (durations in the scenario form).
PLAIN_ARGUMENTS = {"duration": ["0s", "5s", "30s", "1m", "10m"], "int": ["0", "1", "2"], "id": ["0", "1", "2", "7"]}


def steps(vocabulary: dict) -> Tuple[Dict[str, int], Dict[str, List[str]]]:
    """The weight of each step (WEIGHTS, then every plain command without one at DEFAULT_WEIGHT)
    and the argument kinds of each plain command. An input that none of these draws, nor
    NOT_DRAWN names, fails: its scenario syntax is its own, so its branch is written by hand."""
    weights = dict(WEIGHTS)
    plain: Dict[str, List[str]] = {}
    for entry in vocabulary["ops"]:
        op = entry["op"]
        if entry.get("scenario_command"):
            plain[op] = [a["kind"] for a in entry["args"]]
            weights.setdefault(op, DEFAULT_WEIGHT)
        elif entry["input"] and COMMANDS.get(op, op) not in weights and op not in NOT_DRAWN:
            raise SystemExit(f"generate.py: the input {op} has a scenario syntax of its own (names.toml "
                             f"hand lists scen): write its branch in Session.step with a weight in "
                             f"WEIGHTS, or say why it is not drawn in NOT_DRAWN")
    return weights, plain


STEPS, PLAIN = steps(VOCABULARY)


def duration(ms: int) -> str:
    """Milliseconds in the scenario's unit form, large to small: 3723250 -> 1h2m3s250ms."""
    if ms == 0:
        return "0s"
    text = ""
    for unit, scale in (("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1)):
        if ms >= scale:
            text += f"{ms // scale}{unit}"
            ms %= scale
    return text


class Session:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.lines: List[str] = []
        self.now = 0
        self.running = True
        self.saved = False
        self.idle_ms = 0
        self.warning_ms = 0
        self.scopes = 0
        self.holds = 0

    def at(self, command: str) -> None:
        self.lines.append(f"at {duration(self.now)} {command}")

    def same(self, command: str) -> None:
        self.lines.append(f"    {command}")

    def header(self, index: int) -> None:
        r = self.rng
        preset = r.choice(PRESETS)
        self.idle_ms, self.warning_ms = PRESET_IDLE_MS[preset], 30_000
        self.lines += [f"# generated by verify/conformance/generate.py (file {index})", f"name generated {index}", f"policy {preset}"]
        if r.random() < 0.8:  # short timeouts so that every deadline comes up within the session
            self.idle_ms = r.choice([60_000, 90_000, 120_000, 300_000])
            self.warning_ms = r.choice([0, 5_000, 10_000, 30_000])
            self.lines += [f"set idle-timeout {duration(self.idle_ms)}", f"set warning {duration(self.warning_ms)}"]
        for field, values in (
            ("tick", ["0s", "1s", "2500ms", "5s"]),
            ("background-timeout", ["0s", "10s", "30s", "never"]),
            ("absolute-timeout", ["20m", "1h", "never"]),
            ("locked-timeout", ["2m", "10m", "never"]),
            ("max-unlock-failures", ["0", "2", "3"]),
            ("background-grace", ["0ms", "700ms", "2s"]),
            ("idle-action", ["lock", "lock", "expire"]),
            ("activity-kinds", ["user", "all", "touch-down,key", "scroll"]),
            ("activity-dismisses-warning", ["yes", "no"]),
            ("pause-idle-in-background", ["yes", "no"]),
            ("keepalive-interval", ["0s", "5s", "20s"]),
        ):
            if r.random() < 0.6:
                self.lines.append(f"set {field} {r.choice(values)}")

    def gap(self) -> int:
        """Time to the next line: often short, sometimes past a warning, a lock or an expiry."""
        r = self.rng.random()
        if r < 0.45:
            return self.rng.randrange(0, 2_000)
        if r < 0.8:
            return self.rng.randrange(2_000, 60_000)
        if r < 0.95:
            return self.rng.randrange(60_000, 6 * 60_000)
        return self.rng.randrange(15 * 60_000, 3 * 3_600_000)

    def policy_change(self) -> None:
        r = self.rng
        if r.random() < 0.2:
            preset = r.choice(PRESETS)
            self.idle_ms, self.warning_ms = PRESET_IDLE_MS[preset], 30_000
            self.at(f"policy {preset}")
            return
        field = r.choice(["idle-timeout", "warning", "tick", "background-timeout", "locked-timeout",
                          "absolute-timeout", "max-unlock-failures", "idle-action", "background-grace",
                          "activity-dismisses-warning", "pause-idle-in-background"])
        if field == "idle-timeout":
            self.idle_ms = r.choice([v for v in (45_000, 60_000, 120_000, 600_000) if v > self.warning_ms])
            value = duration(self.idle_ms)
        elif field == "warning":
            self.warning_ms = r.choice([v for v in (0, 5_000, 20_000) if v < self.idle_ms])
            value = duration(self.warning_ms)
        else:
            value = r.choice({
                "tick": ["0s", "1s", "3s"], "background-timeout": ["0s", "15s", "never"],
                "locked-timeout": ["1m", "never"], "absolute-timeout": ["30m", "2h", "never"],
                "max-unlock-failures": ["0", "1", "4"], "idle-action": ["lock", "expire"],
                "background-grace": ["0ms", "500ms"], "activity-dismisses-warning": ["yes", "no"],
                "pause-idle-in-background": ["yes", "no"],
            }[field])
        self.at(f"set {field} {value}")

    def step(self) -> None:
        r = self.rng
        self.now += self.gap()
        if not self.running:
            choice = r.random()
            if choice < 0.3:
                self.at("reboot")
            elif choice < 0.4:
                self.at(f"wall-jump {r.choice(['-2h', '-5m', '30m', '3h'])}")
            self.now += self.rng.randrange(0, 60_000)
            self.at("launch")
            self.running = True
            self.scopes = self.holds = 0
            if self.saved and r.random() < 0.8:
                self.same(r.choice(["restore", "restore", "restore", "restore corrupt"]))
            return
        pick = r.choices(list(STEPS), list(STEPS.values()))[0]
        if pick == "activity":
            self.at(f"activity {r.choice(KINDS)}")
        elif pick == "end":
            self.at(f"end {r.choice(END_REASONS)}")
        elif pick == "holder":
            self.at(f"holder {r.choice(HOLDER)}")
        elif pick == "refresh":
            self.at(f"refresh {r.choice(REFRESH)}")
        elif pick == "push-scope":
            self.scopes += 1
            self.at(f"push-scope s{self.scopes} {r.choice(['20s', '1m', '3m', '10m'])}")
        elif pick == "pop-scope":  # sometimes a name never pushed (id 0, NOT_FOUND)
            self.at(f"pop-scope s{r.randrange(0, self.scopes + 2)}")
        elif pick == "hold":
            self.holds += 1
            self.at(f"hold h{self.holds}")
        elif pick == "release":
            self.at(f"release h{r.randrange(0, self.holds + 2)}")
        elif pick == "policy":
            self.policy_change()
        elif pick == "save":
            self.at("save")
            self.saved = True
        elif pick == "kill":
            self.at("kill")
            self.running = False
        elif pick == "freeze":
            ms = r.choice([5_000, 60_000, 20 * 60_000, 2 * 3_600_000])
            self.at(f"freeze {duration(ms)}")
            self.now += ms
        elif pick == "wall-jump":
            self.at(f"wall-jump {r.choice(['-1h', '-10s', '45m'])}")
        elif pick == "expect":
            self.at("expect events 0")
        elif pick == "restore":  # on a running engine: refused unless it is LOADING
            if self.saved:
                self.at("restore")
        elif pick == "unlock-failed":
            for _ in range(r.choice([1, 1, 2, 3])):
                self.at("unlock-failed")
        else:  # a plain command: its arguments drawn by their kinds
            self.at(" ".join([pick] + [r.choice(PLAIN_ARGUMENTS[kind]) for kind in PLAIN.get(pick, [])]))


def generate(index: int) -> str:
    session = Session(seed=0x1AC7 + index)
    session.header(index)
    session.at("start")
    for _ in range(session.rng.randrange(60, 140)):
        session.step()
    if session.running:
        session.now += 4 * 3_600_000  # let every remaining deadline come due
        session.at("expect events 0")
    return "\n".join(session.lines) + "\n"


# States the random walk rarely reaches, written out: a restore inside the warning window
# (WARNING, RESTORED), with and without the idle countdown paused in background.
TARGETED = {
    f"targeted-restore-in-warning-{pause}": f"""# generated by verify/conformance/generate.py (targeted)
name targeted: restore inside the warning window (pause-idle-in-background {pause})
set idle-timeout 1m
set warning 30s
set background-timeout never
set pause-idle-in-background {pause}
at 0s start
      save
      kill
at 40s launch
      restore
      expect events 0
at 1m expect events 0
"""
    for pause in ("no", "yes")
}


def main(argv: List[str]) -> int:
    if not argv or len(argv) > 2:
        print("usage: generate.py OUTDIR [COUNT]", file=sys.stderr)
        return 2
    outdir = Path(argv[0])
    outdir.mkdir(parents=True, exist_ok=True)
    for index in range(int(argv[1]) if len(argv) > 1 else 40):
        (outdir / f"generated-{index:03d}.scenario").write_text(generate(index))
    for name, text in TARGETED.items():
        (outdir / f"{name}.scenario").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
