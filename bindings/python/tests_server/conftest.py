"""Fixtures of the server suite: real stores (scripts/lib/test-server starts Redis and a Redis
Cluster and names them in the environment), a manual fleet clock, and small policies."""

from __future__ import annotations

import os
import secrets
import time
from typing import Callable, Iterator, List

import pytest

from inactivity import IdleAction, Policy
from inactivity.server import RedisStore, SessionManager, SQLiteStore, Store


def redis_url() -> str:
    url = os.environ.get("INACT_TEST_REDIS")
    if not url:
        pytest.fail("INACT_TEST_REDIS is not set: run the suite with scripts/lib/test-server (it starts Redis)")
    return url


def cluster_nodes() -> List[tuple[str, int]]:
    text = os.environ.get("INACT_TEST_CLUSTER")
    if not text:
        pytest.fail("INACT_TEST_CLUSTER is not set: run the suite with scripts/lib/test-server (it starts the cluster)")
    return [(h, int(p)) for h, _, p in (n.rpartition(":") for n in text.split(","))]


class FleetClock:
    """The fleet's wall clock in ms, moved by the test (starts at the real time, so that the
    stores' collection times stay in the future)."""

    def __init__(self) -> None:
        self.now = time.time_ns() // 1_000_000

    def advance(self, ms: int) -> None:
        self.now += ms

    def skewed(self, offset_ms: int) -> Callable[[], int]:
        return lambda: self.now + offset_ms

    def __call__(self) -> int:
        return self.now


#: idle 10 s -> LOCKED (2 s warning), absolute 60 s, locked 30 s, 3 unlock failures.
POLICY = Policy(
    idle_timeout=10, warning=2, idle_action=IdleAction.LOCK, absolute_timeout=60, locked_timeout=30,
    max_unlock_failures=3,
)


def make_store(kind: str, *, tmp_path: object = None, timeout: float = 1.0) -> Store:
    prefix = "t" + secrets.token_hex(4)  # each test its own keys on the shared servers
    if kind == "sqlite":
        return SQLiteStore(os.path.join(str(tmp_path), "sessions.sqlite3"), timeout=timeout)
    if kind == "redis":
        return RedisStore.from_url(redis_url(), timeout=timeout, prefix=prefix)
    if kind == "cluster":
        return RedisStore.cluster(cluster_nodes(), timeout=timeout, prefix=prefix)
    raise AssertionError(kind)


STORES = ["sqlite", "redis", "cluster"]


@pytest.fixture(params=STORES)
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(store_kind: str, tmp_path: object) -> Iterator[Store]:
    s = make_store(store_kind, tmp_path=tmp_path)
    yield s
    s.close()


@pytest.fixture
def clock() -> FleetClock:
    return FleetClock()


@pytest.fixture
def manager(store: Store, clock: FleetClock) -> SessionManager:
    return SessionManager(store, POLICY, precision=0, clock=clock)
