"""`dkg demo`: the main job, run by the README's first command."""

from __future__ import annotations

import time
import uuid

from dkg import MEDICAL_DISCLAIMER
from dkg.cli.common import app, console, friendly_errors
from dkg.config import get_settings
from dkg.graph.db import open_graph
from dkg.services.neo4j_server import LocalNeo4jServer


def smoke_round_trip() -> float:
    """Write a node and read it back; return the round-trip time in ms."""
    marker = str(uuid.uuid4())
    start = time.perf_counter()
    with open_graph() as graph:
        graph.apply_schema()
        graph.write("MERGE (n:SmokeTest {id: $id}) SET n.written_at = datetime()", {"id": marker})
        rows = graph.read("MATCH (n:SmokeTest {id: $id}) RETURN n.id AS id", {"id": marker})
        graph.write("MATCH (n:SmokeTest {id: $id}) DETACH DELETE n", {"id": marker})
    if rows != [{"id": marker}]:
        raise RuntimeError(f"smoke test read back {rows!r} instead of the node it wrote")
    return (time.perf_counter() - start) * 1000


@app.command()
@friendly_errors
def demo() -> None:
    """Run the main job on the configured Neo4j (the local server by default)."""
    console.print(f"[bold yellow]{MEDICAL_DISCLAIMER}[/]")
    settings = get_settings()
    if settings.uses_local_neo4j:
        console.print(LocalNeo4jServer(settings).start().detail)
    console.print(f"smoke test: wrote and read a node in {smoke_round_trip():.0f} ms")
