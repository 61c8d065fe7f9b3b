"""Tests of the conformance suite's own tools (verify/conformance/README.md): the Python runner's
duration conversion.

    INACTIVITY_LIBRARY=.../libinactivity.so PYTHONPATH=bindings/python/src \\
        python3 -m unittest verify/conformance/test_tools.py

scripts/lib/test-conformance runs it (the runner needs the library: it launches an engine).
"""

from __future__ import annotations

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

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


if __name__ == "__main__":
    unittest.main()
