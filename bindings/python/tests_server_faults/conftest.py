"""The fault runs of the server half (scripts/test server-faults; not in the default run)."""

from __future__ import annotations

import os
import sys

import pytest

# The default suite's helpers (the gateway, nginx and HTTP fixtures) are reused as they are.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests_server"))


def redis_url() -> str:
    url = os.environ.get("INACT_TEST_REDIS")
    if not url:
        pytest.fail("INACT_TEST_REDIS is not set: run scripts/lib/test-server --faults")
    return url
