"""Interpreter exit with engines still open: prompt, clean exit in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

EXIT_TIMEOUT = 30  # seconds: generous; a hang is what this catches


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    try:
        result = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=EXIT_TIMEOUT,
            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the interpreter did not exit within {EXIT_TIMEOUT} s")
    assert time.monotonic() - started < EXIT_TIMEOUT
    return result


def test_exit_with_live_engines_of_every_kind() -> None:
    result = run_python(
        """
        import time
        import inactivity as ia
        from datetime import timedelta
        fast = ia.Policy(idle_timeout=0.2, warning=0.15, tick=0.001)  # a tick every ms
        events = []
        busy = ia.Engine(fast, on_event=events.append)            # scheduler thread, busy
        busy.start()
        idle = ia.Engine(on_event=lambda e: None)                  # scheduler thread, idle
        idle.start()
        manual = ia.Engine(clock=ia.ManualClock(), on_event=print)
        manual.start()
        host = ia.Engine(delivery=ia.Delivery.HOST)
        cyclic = ia.Engine(fast)
        def query_own_engine(e):                                     # refers to its own engine
            try:
                cyclic.state()
            except ia.EngineClosedError:
                pass  # the exit's close can begin while this callback runs: the call is refused
        cyclic.on_event = query_own_engine
        cyclic.start()
        slow = ia.Engine(fast, on_event=lambda e: time.sleep(0.01))  # a callback in progress at exit
        slow.start()
        time.sleep(0.1)
        assert any(e.kind == ia.EventKind.TICK for e in events), events
        print("exiting")
        """
    )
    assert result.returncode == 0, result.stderr
    assert "exiting" in result.stdout
    assert "Traceback" not in result.stderr and "Fatal" not in result.stderr, result.stderr


def test_exit_from_sys_exit_inside_a_callback_on_this_thread() -> None:
    result = run_python(
        """
        import sys
        import inactivity as ia
        def on_event(event):
            sys.exit(3)  # SystemExit inside a callback: reported, not propagated through C
        engine = ia.Engine(clock=ia.ManualClock(), on_event=on_event)
        engine.start()
        print("carried on", engine.state().name)
        """
    )
    assert result.returncode == 0, result.stderr
    assert "carried on ACTIVE" in result.stdout


def test_exit_while_a_daemon_thread_hammers_an_engine() -> None:
    result = run_python(
        """
        import threading, time
        import inactivity as ia
        engine = ia.Engine(ia.Policy(idle_timeout=0.05, warning=0.02, tick=0.001), on_event=lambda e: None)
        engine.start()
        def hammer():
            while True:
                try:
                    engine.activity(ia.ActivityKind.KEY)
                    engine.info()
                except ia.EngineClosedError:
                    return
        threading.Thread(target=hammer, daemon=True).start()
        time.sleep(0.2)
        """
    )
    assert result.returncode == 0, result.stderr
