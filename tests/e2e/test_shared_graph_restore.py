"""The e2e modules share one graph: what one module changes in a shipped version is rebuilt from its source
before the next module runs (tests/e2e/conftest.py), so no module reads another's curation or revision."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dkg.graph.builder import build
from dkg.graph.curation import Curator
from dkg.graph.db import Graph
from dkg.graph.revision import Snapshot, snapshots_equal
from dkg.graph.sources import input_from_source

pytestmark = pytest.mark.neo4j


def test_a_curated_shipped_version_is_rebuilt_from_its_source(
        graph: Graph, restore_shipped: Callable[[Graph], list[tuple[str, str]]]) -> None:
    source = input_from_source("kidney", "1.2026")
    build(graph, [source])
    restore_shipped(graph)  # whatever earlier modules left
    uid = graph.read("MATCH (n:Decision {guideline: 'kidney', version: '1.2026'}) RETURN n.uid AS uid "
                     "ORDER BY uid LIMIT 1")[0]["uid"]
    Curator(graph, who="restore-test").set(uid, ["age<99"], reason="left behind on purpose")
    assert build(graph, [source])[0].skipped, "a build alone keeps the curated version"
    assert not snapshots_equal(Snapshot.from_graph(graph, "kidney", "1.2026"), Snapshot.from_input(source))

    assert restore_shipped(graph) == [("kidney", "1.2026")]
    assert snapshots_equal(Snapshot.from_graph(graph, "kidney", "1.2026"), Snapshot.from_input(source))
    assert graph.read("MATCH (c:Change) WHERE c.node_uid = $uid RETURN count(c) AS n", {"uid": uid})[0]["n"] == 0
    assert restore_shipped(graph) == []
