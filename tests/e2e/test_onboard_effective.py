"""An onboarded version's effective period on the real Neo4j: kept on the draft, written on publish (FHIR
``effectivePeriod``), kept through unpublish and publish again. The draft is loaded directly (no parse: the
parser's part of onboarding is tested in test_onboard.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from dkg.fhir.export import export_version
from dkg.graph.db import Graph, named_queries
from dkg.graph.drafts import ACCEPTED, DraftItem, create_draft, period_of, publish, unpublish
from dkg.lexicon.topics import reload_topics
from dkg.types import EffectivePeriod
from dkg.vocabulary import reload_vocabulary

pytestmark = pytest.mark.neo4j

NAME, VERSION = "effective-e2e", "1.2030"
PERIOD = EffectivePeriod(start=date(2030, 1, 1), end=date(2030, 12, 31))
ITEMS = [DraftItem("n1", "node", "Chest pain assessment", page="1", status=ACCEPTED),
         DraftItem("n2", "node", "Obtain a 12-lead ECG", page="1", status=ACCEPTED),
         DraftItem("e1", "edge", "", head="n1", tail="n2", status=ACCEPTED)]


def _clean(graph: Graph) -> None:
    graph.write("MATCH (n:Node {guideline: $g}) DETACH DELETE n", {"g": NAME})
    graph.write("MATCH (g:GuidelineVersion {guideline: $g}) DETACH DELETE g", {"g": NAME})
    graph.write("MATCH (d:DraftVersion {of_guideline: $g}) OPTIONAL MATCH (d)-[:HAS_ITEM]->(i) DETACH DELETE i, d",
                {"g": NAME})
    graph.write("MATCH (a:ReviewAction) WHERE a.version_uid STARTS WITH $p DETACH DELETE a", {"p": NAME + "|"})


@pytest.fixture
def drafted(graph: Graph, tmp_path: Path) -> Iterator[tuple[Graph, Path]]:
    _clean(graph)
    create_draft(graph, NAME, VERSION, ITEMS, title="Effective-period probe", source="probe.pdf", who="e2e",
                 effective=PERIOD)
    yield graph, tmp_path
    _clean(graph)
    reload_vocabulary()
    reload_topics()


def _draft_period(graph: Graph) -> EffectivePeriod | None:
    return period_of(graph.read(named_queries("onboard")["draft_info"], {"uid": f"{NAME}|{VERSION}"})[0])


def test_the_period_travels_from_draft_to_published_version_and_back(drafted: tuple[Graph, Path]) -> None:
    graph, vocabulary_root = drafted
    assert _draft_period(graph) == PERIOD
    build = publish(graph, NAME, VERSION, who="e2e", vocabulary_root=vocabulary_root)
    assert build.effective == PERIOD
    plan = export_version(graph, NAME, VERSION).bundle["entry"][0]["resource"]
    assert plan["effectivePeriod"] == {"start": "2030-01-01", "end": "2030-12-31"}
    unpublish(graph, NAME, VERSION, who="e2e")
    assert _draft_period(graph) == PERIOD, "unpublishing keeps the period on the draft it becomes"
    assert publish(graph, NAME, VERSION, who="e2e", vocabulary_root=vocabulary_root).effective == PERIOD


def test_an_undated_draft_publishes_an_undated_version(graph: Graph, tmp_path: Path) -> None:
    _clean(graph)
    try:
        create_draft(graph, NAME, VERSION, ITEMS, title="Undated probe", source="probe.pdf", who="e2e")
        assert _draft_period(graph) is None
        assert publish(graph, NAME, VERSION, who="e2e", vocabulary_root=tmp_path).effective is None
        assert "effectivePeriod" not in export_version(graph, NAME, VERSION).bundle["entry"][0]["resource"]
    finally:
        _clean(graph)
        reload_vocabulary()
        reload_topics()
