"""Tests of the conformance suite's own tools (verify/conformance/README.md): the Python runner's
duration conversion and the generated scenarios' draw from the op vocabulary.

    INACTIVITY_LIBRARY=.../libinactivity.so PYTHONPATH=bindings/python/src \\
        python3 -m unittest verify/conformance/test_tools.py

scripts/lib/test-conformance runs it (the runner needs the library: it launches an engine).
"""

from __future__ import annotations

import copy
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate  # noqa: E402
import runner  # noqa: E402
from inactivity._time import duration_to_ms  # noqa: E402

NEVER_MS = 2**63 - 1
BEYOND_TIMEDELTA_MS = 10**17  # about 3.2 million years: past timedelta's 2.7 million


class RunnerDurations(unittest.TestCase):
    def test_never_is_the_bindings_never(self) -> None:
        self.assertIs(runner.ms_in(NEVER_MS), runner.ia.NEVER)
        self.assertEqual(duration_to_ms(runner.ms_in(NEVER_MS), "d"), NEVER_MS)

    def test_a_duration_beyond_timedelta_in_whole_seconds_is_passed_exactly(self) -> None:
        for ms in (BEYOND_TIMEDELTA_MS, -BEYOND_TIMEDELTA_MS):
            self.assertEqual(duration_to_ms(runner.ms_in(ms), "d"), ms)

    def test_timedelta_holds_the_rest(self) -> None:
        for ms in (0, 1, -1, 86_400_000 * 365 * 1000):
            self.assertEqual(duration_to_ms(runner.ms_in(ms), "d"), ms)

    def test_a_duration_the_binding_cannot_take_is_said_on_its_line(self) -> None:
        # Not whole seconds and past timedelta: no exact Python value. The op's result line says
        # so (the comparison with C then names it) and the list goes on.
        launch = next(line for line in (Path(__file__).parent / "limits.ops").read_text().splitlines()
                      if line.startswith("launch "))
        out = runner.Runner().run([launch, "start", f"push-scope s1 {BEYOND_TIMEDELTA_MS + 1}",
                                   f"advance {BEYOND_TIMEDELTA_MS + 1}", "advance 1000", "info"])
        refused = [line for line in out if line.startswith("= unrepresentable")]
        self.assertEqual(len(refused), 2, out)
        self.assertIn(f"duration {BEYOND_TIMEDELTA_MS + 1} ms", refused[0])
        self.assertIn("whole seconds", refused[0])
        self.assertIn("now=2000", out[-1])  # the later ops ran: launched at 1000, advanced 1000


class GeneratedScenarios(unittest.TestCase):
    def vocabulary_with(self, entry: dict) -> dict:
        vocabulary = copy.deepcopy(generate.VOCABULARY)
        vocabulary["ops"].append(entry)
        return vocabulary

    def test_an_input_without_a_weight_is_drawn(self) -> None:
        # A throwaway input with a plain scenario command (as tools/generate writes one for
        # inact_screen_shared(engine, INACT_MS int64_t ms)) and no line in generate.py.
        throwaway = {"op": "screen-shared", "function": "inact_screen_shared", "input": True,
                     "scenario_command": True,
                     "args": [{"name": "ms", "kind": "duration", "ctype": "int64_t", "word": 0, "optional": False}]}
        weights, plain = generate.steps(self.vocabulary_with(throwaway))
        self.assertGreater(weights["screen-shared"], 0)
        saved = generate.STEPS, generate.PLAIN
        generate.STEPS, generate.PLAIN = weights, plain
        try:
            text = "".join(generate.generate(index) for index in range(10))
        finally:
            generate.STEPS, generate.PLAIN = saved
        drawn = [line.split(" ", 2)[2] for line in text.splitlines() if " screen-shared" in line]
        self.assertTrue(drawn, "screen-shared was never drawn")
        durations = {command.split(" ")[1] for command in drawn}
        self.assertLessEqual(durations, set(generate.PLAIN_ARGUMENTS["duration"]))
        self.assertTrue(all(len(command.split(" ")) == 2 for command in drawn), drawn)

    def test_an_input_with_a_syntax_of_its_own_and_no_branch_fails(self) -> None:
        # Its scenario command is hand-written (an enum by name): generate.py cannot write it.
        throwaway = {"op": "screen-mode", "function": "inact_screen_mode", "input": True,
                     "scenario_command": False,
                     "args": [{"name": "mode", "kind": "enum", "ctype": "int32_t", "word": 0, "optional": False}]}
        with self.assertRaises(SystemExit) as caught:
            generate.steps(self.vocabulary_with(throwaway))
        self.assertIn("screen-mode", str(caught.exception.code))

    def test_every_input_of_the_vocabulary_is_drawn_or_said_not_to_be(self) -> None:
        weights, _ = generate.steps(generate.VOCABULARY)
        for entry in generate.VOCABULARY["ops"]:
            if entry["input"] and entry["op"] not in generate.NOT_DRAWN:
                self.assertGreater(weights.get(generate.COMMANDS.get(entry["op"], entry["op"]), 0), 0, entry["op"])


if __name__ == "__main__":
    unittest.main()
