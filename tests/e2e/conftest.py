"""Every e2e module leaves the session's graph with the shipped guideline versions as their sources say.

Modules build, revise and curate the shared session graph (a revision applied to a shipped version, a curated
constraint, a version deleted and rebuilt). Build skips a version whose source is unchanged, so without this a
later module would read another module's leftovers: a failure that shows only in the full run."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from dkg.config import Settings
from dkg.corpus.model import discover
from dkg.errors import CurationError
from dkg.graph.builder import build
from dkg.graph.db import Graph
from dkg.graph.revision import Snapshot, snapshots_equal
from dkg.graph.sources import input_from_source
from dkg.qa.dataset import GenConfig
from dkg.qa.service import TextToCypherService
from dkg.qa.training import ensure_graph


def _differs_from_source(graph: Graph, guideline: str, version: str) -> bool:
    try:
        in_graph = Snapshot.from_graph(graph, guideline, version)
    except CurationError:  # not in the graph: the next build writes it from its source
        return False
    return not snapshots_equal(in_graph, Snapshot.from_input(input_from_source(guideline, version)))


def restore_shipped_versions(graph: Graph) -> list[tuple[str, str]]:
    """Rebuild, from its source, every shipped version in the graph whose nodes, relations or constraints differ
    from it (its curation history goes with it). Returns the versions rebuilt."""
    rebuilt = []
    for guideline, version, _path in discover():
        if not _differs_from_source(graph, guideline, version):
            continue
        params = {"g": guideline, "v": version, "prefix": f"{guideline}|{version}|"}
        graph.write("MATCH (n:Node {guideline: $g, version: $v}) DETACH DELETE n", params)
        graph.write("MATCH (gv:GuidelineVersion {guideline: $g, version: $v}) DETACH DELETE gv", params)
        graph.write("MATCH (c:Change) WHERE c.node_uid STARTS WITH $prefix DETACH DELETE c", params)
        build(graph, [input_from_source(guideline, version)])
        rebuilt.append((guideline, version))
    return rebuilt


@pytest.fixture(scope="module", autouse=True)
def shipped_versions_restored(request: pytest.FixtureRequest) -> Iterator[None]:
    module_items = [i for i in request.session.items if getattr(i, "module", None) is request.module]
    uses_neo4j = any("neo4j_settings" in getattr(i, "fixturenames", ()) for i in module_items)
    graph: Graph | None = request.getfixturevalue("graph") if uses_neo4j else None
    yield
    if graph is not None:
        restore_shipped_versions(graph)


@pytest.fixture()
def restore_shipped() -> Callable[[Graph], list[tuple[str, str]]]:
    """:func:`restore_shipped_versions`, for a test to call."""
    return restore_shipped_versions


@pytest.fixture(scope="module")
def rules_service(neo4j_settings: Settings, graph: Graph) -> Iterator[TextToCypherService]:
    """The QA service without a model (the rule layer alone) on the shipped versions the dataset is built from."""
    ensure_graph(graph, GenConfig(), lambda _m: None)
    with TextToCypherService(neo4j_settings, graph=graph, rules_only=True,
                             versions={g: v for g, v in GenConfig().versions}) as svc:
        yield svc
