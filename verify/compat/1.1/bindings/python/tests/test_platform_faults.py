"""The scheduler thread under real platform faults, through the binding (the C suite's
test_platform_faults.c, the same faults): each scenario runs fault_child.py in a fresh
interpreter with libinact_faults.so (Tests/CTests/fault_preload.c, built here) preloaded, which
makes libc's pthread_create or timerfd_settime fail for calls from libinactivity only.

A THREAD engine that cannot get its thread or its timer is not created: SystemResourceError (an OSError, the
C status INACT_E_SYSTEM), whose message names the call and the errno; the next creation tries
again. A timer that cannot be re-armed is reported by scheduler_faults() as degraded with the
errno, and the engine still decides at every call and still delivers its deadlines.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest
from conftest import REPO_ROOT

import inactivity
from inactivity.errors import error_for_status

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")

CHILD = Path(__file__).with_name("fault_child.py")


@pytest.fixture(scope="module")
def interposer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert REPO_ROOT is not None, "the tests run from the repository (Tests/CTests/fault_preload.c)"
    library = tmp_path_factory.mktemp("faults") / "libinact_faults.so"
    subprocess.run(
        ["cc", "-std=c99", "-fPIC", "-shared", "-O1", "-o", str(library),
         str(REPO_ROOT / "Tests" / "CTests" / "fault_preload.c"), "-ldl"],
        check=True,
    )
    return library


def run_child(interposer: Path, scenario: str, faults: str) -> Dict[str, Any]:
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(sys.path),
        LD_PRELOAD=str(interposer),
        INACT_TEST_FAULTS=faults,
        # Only the library's own calls: the interpreter's threads are not the engine's.
        INACT_TEST_FAULTS_FROM=Path(inactivity.LIBRARY_PATH).name,
    )
    result = subprocess.run(
        [sys.executable, str(CHILD), scenario], capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 0, result.stdout + result.stderr
    seen: Dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return seen


@pytest.mark.parametrize(
    "call, faults, error",
    [
        ("pthread_create", f"pthread_create:0:1:{errno.EAGAIN}", errno.EAGAIN),
        ("timerfd_create", f"timerfd_create:0:1:{errno.ENODEV}", errno.ENODEV),
        ("timerfd_settime", f"timerfd_settime:0:1:{errno.EINVAL}", errno.EINVAL),
    ],
)
def test_engine_without_its_thread_or_timer_is_not_created_and_the_next_creation_retries(
    interposer: Path, call: str, faults: str, error: int
) -> None:
    seen = run_child(interposer, "create-fails", faults)
    create = seen["create"]
    assert create != "created", f"{call} failed and the engine was created anyway"
    assert create["type"] == "SystemResourceError" and create["is_os_error"], create
    assert create["status"] == int(inactivity.Status.E_SYSTEM) == -15
    assert call in create["message"], create
    assert f"{os.strerror(error)} (errno {error})" in create["message"], create
    assert create["errno"] == error
    assert seen["threads_left"] == 0 and seen["scheduler_threads"] == 0, "a failed creation left a thread"
    assert seen["manual_states"] == ["ACTIVE", "WARNING"], "the manual-clock engine stopped deciding"
    assert seen["retry_warning_on_scheduler_thread"], seen
    assert seen["retry_scheduler_threads"] == 1, "one scheduler thread for the engine that was created"
    if call != "timerfd_settime":  # a creation error, not a fault of a timer that was had
        assert seen["faults"] == {"degraded": False, "failures": 0, "last_errno": 0}


def test_timer_that_cannot_be_rearmed_is_reported_degraded_and_the_engine_goes_on(interposer: Path) -> None:
    # The first timerfd_settime (at creation) succeeds, every later one fails with EINVAL.
    seen = run_child(interposer, "timer-fails", f"timerfd_settime:1:-1:{errno.EINVAL}")
    assert seen["faults_before"] == {"degraded": False, "failures": 0, "last_errno": 0}
    after_lock = seen["faults_after_lock"]
    assert after_lock["degraded"] is True and after_lock["failures"] >= 1, after_lock
    assert after_lock["last_errno"] == errno.EINVAL
    assert seen["state_at_call_after_deadline"] == "LOCKED"
    assert seen["unlock_events"] == [["ACTIVE", True]], seen["unlock_events"]
    assert seen["state_after_unlock"] == "ACTIVE"
    assert seen["next_warning_on_scheduler_thread"], seen
    # up to the WARNING after the unlock: the first lock (however it was found), then the unlock
    assert seen["states"][0] == "ACTIVE" and seen["states"][-3:] == ["LOCKED", "ACTIVE", "WARNING"], seen
    final = seen["faults_after"]
    assert final["degraded"] is True and final["last_errno"] == errno.EINVAL
    assert final["failures"] > after_lock["failures"], "the re-arm after the unlock did not fail again"


def test_system_resource_error_is_an_os_error_with_the_errno_of_the_message() -> None:
    error = error_for_status(
        -15, "scheduler thread: timerfd_create failed: No such device (errno 19)"
    )
    assert type(error) is inactivity.SystemResourceError
    assert isinstance(error, OSError) and isinstance(error, inactivity.InactivityError)
    assert (error.status, error.errno) == (inactivity.Status.E_SYSTEM, errno.ENODEV)
    assert str(error) == "scheduler thread: timerfd_create failed: No such device (errno 19) [E_SYSTEM]"
    numberless = error_for_status(-15, "no number here")
    assert isinstance(numberless, inactivity.SystemResourceError) and numberless.errno is None
