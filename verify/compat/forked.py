"""A pytest plugin (``-p forked``, with verify/compat/ on sys.path): every test runs in its own forked
child with an alarm, so that a crash of the library under test (a segfault inside ctypes) or a
hang is that one test's failure, named, and the rest of the suite still runs.

The child runs the test's whole protocol (setup, call, teardown) and sends its reports back as
JSON (pytest's own report serialization); the parent logs them as if the test had run in
process. A child that dies by a signal, or sends nothing, gets a failed report naming the
signal or the exit status. COMPAT_TEST_TIMEOUT (seconds, default 60) is the alarm.
"""

from __future__ import annotations

import json
import os
import signal
from typing import Any, List

import pytest
from _pytest.reports import TestReport
from _pytest.runner import runtestprotocol


def _child(item: pytest.Item, write_fd: int) -> None:
    signal.alarm(int(os.environ.get("COMPAT_TEST_TIMEOUT", "60")))
    reports = runtestprotocol(item, log=False)
    data = [item.config.hook.pytest_report_to_serializable(config=item.config, report=r) for r in reports]
    payload = json.dumps(data).encode()
    with os.fdopen(write_fd, "wb") as pipe:
        pipe.write(payload)
    os._exit(0)


def _read_all(fd: int) -> bytes:
    chunks: List[bytes] = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> bool:
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            _child(item, write_fd)
        finally:
            os._exit(3)
    os.close(write_fd)
    payload = _read_all(read_fd)
    os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    reports: List[TestReport] = []
    if payload and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        for data in json.loads(payload):
            reports.append(item.config.hook.pytest_report_from_serializable(config=item.config, data=data))
    else:
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            why = "timed out (hang?)" if sig == signal.SIGALRM else "crashed"
            text = f"{why}: the test's process died by signal {sig} ({signal.Signals(sig).name})"
        else:
            text = f"the test's process exited with status {os.WEXITSTATUS(status)} without a report"
        reports.append(
            TestReport(item.nodeid, item.location, {}, "failed", text, "call", [], 0.0)
        )
    for report in reports:
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True
