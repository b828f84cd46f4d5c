"""A Neo4j crash in the middle of a build leaves nothing partial behind."""

from __future__ import annotations

import os
import signal

import pytest

from dkg.config import load_settings
from dkg.errors import DKGError
from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.sources import input_from_source
from dkg.services.neo4j_server import LocalNeo4jServer

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

PORT = int(os.environ.get("DKG_TEST_RESTART_PORT", "7699"))


def test_server_killed_mid_build_leaves_no_partial_graph(tmp_path) -> None:
    settings = load_settings(home=tmp_path / "home", neo4j_bolt_port=PORT, neo4j_heap="512m", neo4j_pagecache="64m")
    server = LocalNeo4jServer(settings)
    server.start()
    try:
        inputs = [input_from_source("kidney", "1.2026"), input_from_source("ALL", "1.2026")]
        state = server.status().state
        assert state is not None

        def kill_after_the_nodes_are_written(message: str) -> None:
            if message in ("create_versions done", "upsert_relations done"):
                os.kill(state.pid, signal.SIGKILL)

        with Graph(settings, max_retry_time_s=2.0) as graph, pytest.raises(DKGError):
            build(graph, inputs, on_progress=kill_after_the_nodes_are_written)
        server.start()  # the server comes back (crash recovery of the store)
        with Graph(settings) as graph:
            assert graph.read("MATCH (n:Node) RETURN count(n) AS c") == [{"c": 0}]
            assert graph.read("MATCH (g:GuidelineVersion) RETURN count(g) AS c") == [{"c": 0}]
            # and a clean build afterwards succeeds completely
            reports = build(graph, inputs)
            assert [r.skipped for r in reports] == [False, False]
            assert graph.read("MATCH (n:Node) RETURN count(n) AS c")[0]["c"] == sum(i.counts()["nodes"] for i in inputs)
    finally:
        server.stop(timeout_s=30)
