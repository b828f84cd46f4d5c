"""Test-wide setup: the tests use their own data folder and Bolt port (set before any settings are read),
and one real local Neo4j server started once per session (or the server named by DKG_NEO4J_URI)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("DKG_HOME", str(ROOT / ".dkg-test"))
os.environ.setdefault("DKG_NEO4J_BOLT_PORT", "7697")

from dkg.config import Settings, get_settings  # noqa: E402
from dkg.graph.db import Graph  # noqa: E402
from dkg.services.neo4j_server import LocalNeo4jServer  # noqa: E402


@pytest.fixture(scope="session")
def neo4j_settings() -> Iterator[Settings]:
    """Settings of a running Neo4j: the test server (started here, stopped at the end) or DKG_NEO4J_URI."""
    get_settings.cache_clear()
    settings = get_settings()
    if not settings.uses_local_neo4j:
        yield settings
        return
    server = LocalNeo4jServer(settings)
    with server.running():
        yield settings


@pytest.fixture(scope="session")
def graph(neo4j_settings: Settings) -> Iterator[Graph]:
    """A connection to the session's Neo4j, schema applied."""
    with Graph(neo4j_settings) as g:
        g.verify()
        g.apply_schema()
        yield g
