"""The circuit breaker in front of the API's graph connection (issue 21 item 7): opens when Neo4j cannot be
reached, refuses at once while open, closes again when a probe answers."""

from __future__ import annotations

import time

import pytest

from dkg.api.breaker import BreakerState, CircuitBreaker
from dkg.errors import GraphUnavailableError


class Server:
    """Stands in for the probe: up or down."""

    def __init__(self) -> None:
        self.up = True
        self.calls = 0

    def probe(self) -> None:
        self.calls += 1
        if not self.up:
            raise GraphUnavailableError("cannot reach Neo4j at bolt://127.0.0.1:1: refused; run `dkg neo4j start`.")


def test_open_refuses_at_once_and_a_probe_closes_it() -> None:
    server = Server()
    breaker = CircuitBreaker(server.probe, 5.0, "bolt://127.0.0.1:1")
    breaker.check()  # closed: passes
    server.up = False
    assert breaker.probe_once() is False
    assert breaker.state is BreakerState.OPEN
    for _ in range(3):
        with pytest.raises(GraphUnavailableError, match=r"circuit open since .*refused without waiting"):
            breaker.check()
    assert server.calls == 1  # refusals never reach the server
    server.up = True
    assert breaker.probe_once() is True
    breaker.check()
    assert breaker.stats() == {"state": "closed", "opened": 1, "refused": 3, "probes": 2, "probe_interval_s": 5.0}


def test_a_failed_call_opens_it_and_the_background_probe_recovers() -> None:
    server = Server()
    breaker = CircuitBreaker(server.probe, 0.1, "bolt://127.0.0.1:1")
    breaker.trip(GraphUnavailableError("cannot reach Neo4j; run `dkg neo4j start`."))
    assert breaker.state is BreakerState.OPEN
    breaker.start()
    try:
        deadline = time.monotonic() + 10
        while breaker.state is BreakerState.OPEN and time.monotonic() < deadline:
            time.sleep(0.05)
        assert breaker.state is BreakerState.CLOSED
        server.up = False
        while breaker.state is BreakerState.CLOSED and time.monotonic() < deadline:
            time.sleep(0.05)
        assert breaker.state is BreakerState.OPEN and breaker.opened == 2  # noticed without any request
    finally:
        breaker.stop()
