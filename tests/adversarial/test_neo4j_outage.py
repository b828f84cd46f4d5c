"""Neo4j killed under a running `dkg serve` (issue 21 item 7): requests are refused with 503 by the circuit
breaker instead of waiting out the driver's retries, and the API serves again, without a restart, once Neo4j
is back. A dedicated Neo4j server (own data folder and port), not the session's."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from dkg.api.adversarial import kill_local_server
from dkg.api.testing import CURATOR_TOKEN, serve_process
from dkg.config import Settings, load_settings
from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.sources import input_from_source
from dkg.services.neo4j_server import LocalNeo4jServer

pytestmark = [pytest.mark.adversarial, pytest.mark.neo4j, pytest.mark.slow]
NEO4J_PORT = int(os.environ.get("DKG_TEST_LIFECYCLE_PORT", "7698"))
API_PORT = int(os.environ.get("DKG_API_TEST_PORT", "8730")) + 5
# requests a client makes while Neo4j is down; each must be refused by the breaker, not the driver
READS = [("GET", "/api/guidelines", None), ("GET", "/api/nodes?q=ph", None), ("POST", "/api/ask", {"question": "why?"}),
         ("GET", "/api/nodes/ALL%7C1.2026%7Cx", None), ("GET", "/api/nodes/ALL%7C1.2026%7Cx/history", None)]


@pytest.fixture()
def neo4j(tmp_path: Path) -> Iterator[LocalNeo4jServer]:
    settings = load_settings(home=tmp_path / "home", neo4j_bolt_port=NEO4J_PORT, neo4j_heap="512m",
                             neo4j_pagecache="64m")
    server = LocalNeo4jServer(settings)
    server.start()
    try:
        with Graph(settings) as graph:
            graph.apply_schema()
            build(graph, [input_from_source("ALL", "1.2026")])
        yield server
    finally:
        server.stop(timeout_s=30)


def kill(server: LocalNeo4jServer) -> None:
    kill_local_server(server)


def wait_for(client: httpx.Client, status: int, deadline_s: float = 60.0) -> httpx.Response:
    deadline = time.monotonic() + deadline_s
    while True:
        r = client.get("/api/health")
        if r.status_code == status or time.monotonic() > deadline:
            return r
        time.sleep(0.25)


def server_env(settings: Settings, tmp_path: Path) -> dict[str, str]:
    return {"DKG_HOME": str(settings.home), "DKG_NEO4J_BOLT_PORT": str(NEO4J_PORT), "DKG_API_LOAD_QA_MODEL": "false",
            "DKG_API_CURATOR_TOKENS": f"tester:{CURATOR_TOKEN}", "DKG_API_QRELS_DIR": str(tmp_path / "qrels"),
            "DKG_API_GRAPH_PROBE_INTERVAL_S": "0.5"}


def test_neo4j_killed_mid_serve_fails_fast_and_recovers(neo4j: LocalNeo4jServer, tmp_path: Path) -> None:
    with serve_process(API_PORT, server_env(neo4j.settings, tmp_path), log_path=tmp_path / "server.log") as srv, \
            httpx.Client(base_url=srv.base, timeout=60.0) as c:
        assert c.get("/api/guidelines").json()[0]["guideline"] == "ALL"
        kill(neo4j)
        down = wait_for(c, 503)
        assert down.status_code == 503, down.text
        curator = {"Authorization": f"Bearer {CURATOR_TOKEN}"}
        answers = [c.request(m, p, json=b) for m, p, b in READS]
        answers.append(c.post("/api/nodes/ALL%7C1.2026%7Cx/constraints/set", headers=curator,
                              json={"constraints": ["age>=18"], "reason": "outage", "expected_rev": 0}))
        for r in answers:
            assert r.status_code == 503, (r.request.url, r.text)
            # this message is raised only by the breaker's check(), before any driver call: the request was
            # refused without trying Neo4j (a driver failure would name the driver's error instead)
            message = r.json()["error"]["message"]
            assert "circuit open" in message and "refused without waiting" in message, message
        neo4j.start()
        up = wait_for(c, 200)
        assert up.status_code == 200, up.text
        breaker = up.json()["graph_breaker"]
        assert breaker["state"] == "closed" and breaker["opened"] >= 1
        assert breaker["refused"] >= len(answers)  # all of them refused by the breaker, none by the driver
        assert c.get("/api/guidelines").json()[0]["guideline"] == "ALL"
        assert c.get("/api/nodes", params={"q": "ph"}).status_code == 200
