"""Fail fast while Neo4j is unreachable: a circuit breaker in front of the API's one graph connection.

Without it every request retries inside the driver for its whole retry budget (15–31 s) before it fails.
The breaker opens when a call or a probe finds Neo4j unreachable; while it is open, graph calls are refused at
once with :class:`GraphUnavailableError` (503), without touching the driver. A background probe checks the
server every ``probe_interval_s`` (also while closed, so an outage is noticed before a request pays for it)
and closes the breaker when the server answers again: recovery needs no restart.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar

from neo4j import ManagedTransaction

from dkg.config import Settings
from dkg.errors import GraphUnavailableError
from dkg.graph.db import Graph

log = logging.getLogger("dkg.api")
T = TypeVar("T")


class BreakerState(StrEnum):
    CLOSED = "closed"  # calls go to Neo4j
    OPEN = "open"  # calls are refused at once; the probe decides when to close


class CircuitBreaker:
    """Open/closed state with counters; thread-safe. ``probe`` raises :class:`GraphUnavailableError` when the
    server cannot be reached."""

    def __init__(self, probe: Callable[[], None], probe_interval_s: float, target: str) -> None:
        self.probe = probe
        self.probe_interval_s = probe_interval_s
        self.target = target
        self.state = BreakerState.CLOSED
        self.opened = 0  # times the breaker opened
        self.refused = 0  # calls refused without trying
        self.probes = 0
        self._since = 0.0
        self._reason = ""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ---- state ------------------------------------------------------------------------------------------
    def check(self) -> None:
        """Raise :class:`GraphUnavailableError` at once when the breaker is open."""
        if self.state is BreakerState.CLOSED:
            return
        with self._lock:
            self.refused += 1
            since = datetime.fromtimestamp(self._since, UTC).strftime("%H:%M:%S UTC")
            reason = self._reason
        raise GraphUnavailableError(
            f"Neo4j at {self.target} is unreachable (circuit open since {since}: {reason}); the request was refused "
            f"without waiting. The API checks the server every {self.probe_interval_s:g} s and serves again as soon "
            "as it answers: start it (`dkg neo4j start`) or check DKG_NEO4J_URI.")

    def trip(self, exc: BaseException) -> None:
        """Open the breaker (or keep it open) because ``exc`` says the server cannot be reached."""
        with self._lock:
            if self.state is BreakerState.CLOSED:
                self.state = BreakerState.OPEN
                self.opened += 1
                self._since = time.time()
                log.warning("Neo4j at %s unreachable, failing fast until it answers: %s", self.target, exc)
            self._reason = str(exc).split(";")[0][:300]

    def reset(self) -> None:
        with self._lock:
            if self.state is BreakerState.OPEN:
                log.warning("Neo4j at %s answers again after %.1f s", self.target, time.time() - self._since)
            self.state = BreakerState.CLOSED

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {"state": self.state.value, "opened": self.opened, "refused": self.refused,
                    "probes": self.probes, "probe_interval_s": self.probe_interval_s}

    # ---- probing ----------------------------------------------------------------------------------------
    def probe_once(self) -> bool:
        """Probe the server now; returns whether it answered (and sets the state accordingly)."""
        with self._lock:
            self.probes += 1
        try:
            self.probe()
        except GraphUnavailableError as exc:
            self.trip(exc)
            return False
        self.reset()
        return True

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="dkg-neo4j-probe", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.probe_interval_s + 15.0)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.probe_interval_s):
            try:
                self.probe_once()
            except Exception as exc:  # noqa: BLE001  (the probe thread must outlive any surprise)
                log.warning("Neo4j probe failed unexpectedly: %s", exc)


class GuardedGraph(Graph):
    """The API's graph connection: every call passes the circuit breaker first, and an unreachable server
    found by a call opens it."""

    def __init__(self, settings: Settings | None = None, *, probe_interval_s: float = 1.0) -> None:
        super().__init__(settings)
        self.breaker = CircuitBreaker(super().verify, probe_interval_s, self.uri)

    def _guarded(self, call: Callable[[], T]) -> T:
        self.breaker.check()
        try:
            return call()
        except GraphUnavailableError as exc:
            self.breaker.trip(exc)
            raise

    def verify(self) -> None:
        self._guarded(super().verify)

    def execute_read(self, work: Callable[[ManagedTransaction], T]) -> T:
        return self._guarded(lambda: super(GuardedGraph, self).execute_read(work))

    def execute_write(self, work: Callable[[ManagedTransaction], T]) -> T:
        return self._guarded(lambda: super(GuardedGraph, self).execute_write(work))

    def run_autocommit(self, cypher: str, params: Any = None) -> None:
        self._guarded(lambda: super(GuardedGraph, self).run_autocommit(cypher, params))

    def close(self) -> None:
        self.breaker.stop()
        super().close()
