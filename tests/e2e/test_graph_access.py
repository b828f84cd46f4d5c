"""Graph access layer against the real Neo4j."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from dkg.config import load_settings
from dkg.errors import GraphError, GraphUnavailableError
from dkg.graph.db import Graph, open_graph

pytestmark = pytest.mark.neo4j


def test_read_write_round_trip(graph: Graph) -> None:
    marker = str(uuid.uuid4())
    graph.write("CREATE (:RoundTrip {id: $id, n: $n})", {"id": marker, "n": 42})
    assert graph.read("MATCH (r:RoundTrip {id: $id}) RETURN r.n AS n", {"id": marker}) == [{"n": 42}]


def test_write_inside_read_transaction_is_refused(graph: Graph) -> None:
    before = graph.read("MATCH (n) RETURN count(n) AS c")[0]["c"]
    for statement in ("CREATE (:Intruder)", "MERGE (:Intruder {x: 1})", "MATCH (n) SET n.touched = true",
                      "MATCH (n) DETACH DELETE n"):
        with pytest.raises(GraphError, match="AccessMode|read access mode"):
            graph.read(statement)
    assert graph.read("MATCH (n) RETURN count(n) AS c")[0]["c"] == before
    assert graph.read("MATCH (n:Intruder) RETURN count(n) AS c")[0]["c"] == 0


def test_failed_write_transaction_leaves_nothing(graph: Graph) -> None:
    marker = str(uuid.uuid4())

    def work(tx):
        tx.run("CREATE (:Atomic {id: $id})", id=marker)
        tx.run("RETURN 1/0")

    with pytest.raises(GraphError):
        graph.execute_write(work)
    assert graph.read("MATCH (a:Atomic {id: $id}) RETURN count(a) AS c", {"id": marker}) == [{"c": 0}]


def test_row_limit(graph: Graph) -> None:
    assert len(graph.read("UNWIND range(1, 100) AS i RETURN i", limit=7)) == 7


def test_schema_is_idempotent(graph: Graph) -> None:
    assert graph.apply_schema() == graph.apply_schema()


def test_unreachable_uri_gives_a_clear_error() -> None:
    settings = load_settings(neo4j_uri="bolt://127.0.0.1:9", neo4j_password="x")
    with pytest.raises(GraphUnavailableError, match=r"bolt://127\.0\.0\.1:9"):
        open_graph(settings)


def test_external_uri_mode_uses_that_server(neo4j_settings) -> None:
    """With DKG_NEO4J_URI the platform talks to the named server (here: the test server) and starts nothing."""
    if not neo4j_settings.uses_local_neo4j:
        pytest.skip("already running against an external server")
    from dkg.services.neo4j_server import LocalNeo4jServer

    password = LocalNeo4jServer(neo4j_settings).password()
    external = load_settings(neo4j_uri=f"bolt://127.0.0.1:{neo4j_settings.neo4j_bolt_port}",
                             neo4j_password=password, home=neo4j_settings.home / "unused")
    with open_graph(external) as graph:
        assert graph.read("RETURN 1 AS one") == [{"one": 1}]
    env = {**os.environ, "DKG_NEO4J_URI": external.neo4j_uri or "", "DKG_NEO4J_PASSWORD": password,
           "DKG_HOME": str(neo4j_settings.home / "unused")}
    cli = subprocess.run([sys.executable, "-m", "dkg.cli.main", "neo4j", "start"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0
    assert "never starts" in cli.stdout
    assert not (neo4j_settings.home / "unused" / "neo4j" / "server.json").exists()


def test_wrong_password_is_reported(neo4j_settings) -> None:
    bad = load_settings(neo4j_uri=f"bolt://127.0.0.1:{neo4j_settings.neo4j_bolt_port}", neo4j_password="wrong")
    with pytest.raises(GraphUnavailableError, match="credentials"):
        open_graph(bad)
